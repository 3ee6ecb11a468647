#include "ui/issuesdock.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "ui/models/diagnosticsmodel.h"

namespace ragscope::ui {

namespace {
// The dock asks for a strip, not half the window; the user can drag it taller.
class CompactTableView : public QTableView {
 public:
  QSize sizeHint() const override { return {640, 100}; }
};
}  // namespace

IssuesDock::IssuesDock(QWidget* parent)
    : QDockWidget(tr("Issues"), parent),
      m_model(new DiagnosticsModel(this)),
      m_proxy(new QSortFilterProxyModel(this)),
      m_view(new CompactTableView),
      m_summary(new QLabel) {
  setObjectName(QStringLiteral("IssuesDock"));
  m_proxy->setSourceModel(m_model);
  m_proxy->setSortRole(DiagnosticsModel::SortRole);

  m_view->setModel(m_proxy);
  m_view->setSortingEnabled(true);
  m_view->sortByColumn(-1, Qt::AscendingOrder);  // file order until the user sorts
  m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_view->setSelectionMode(QAbstractItemView::SingleSelection);
  m_view->setAlternatingRowColors(true);
  m_view->setWordWrap(false);
  m_view->verticalHeader()->hide();
  m_view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
  auto* header = m_view->horizontalHeader();
  header->setStretchLastSection(true);
  header->resizeSection(DiagnosticsModel::Severity, 90);
  header->resizeSection(DiagnosticsModel::File, 200);
  header->resizeSection(DiagnosticsModel::Line, 70);
  header->resizeSection(DiagnosticsModel::Field, 160);

  m_summary->setText(tr("No problems."));
  m_summary->setContentsMargins(4, 2, 4, 2);

  auto* body = new QWidget;
  auto* layout = new QVBoxLayout(body);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(m_summary);
  layout->addWidget(m_view);
  setWidget(body);

  connect(m_view, &QTableView::activated, this,
          [this](const QModelIndex& index) { activateRow(index.row()); });
}

void IssuesDock::setReport(const core::LoadReport& report) {
  m_model->setDiagnostics(report.diagnostics);
  const auto errors = report.errors;
  const auto warnings = report.warnings;
  QStringList parts;
  if (errors) parts << tr("%n error(s)", nullptr, int(errors));
  if (warnings) parts << tr("%n warning(s)", nullptr, int(warnings));
  m_summaryText = parts.join(QStringLiteral(", "));
  QString line = m_summaryText.isEmpty() ? tr("No problems.") : m_summaryText;
  if (report.skipped) line += tr("; %n bad record(s) skipped", nullptr, int(report.skipped));
  if (report.stopped) line += tr("; loading stopped at the first error");
  if (report.unstoredDiagnostics)
    line += tr("; %n more not listed", nullptr, int(report.unstoredDiagnostics));
  if (!m_summaryText.isEmpty()) line += tr(". Double-click a row to show its record.");
  m_summary->setText(line);
  setWindowTitle(
      m_summaryText.isEmpty()
          ? tr("Issues")
          : tr("Issues (%1)").arg(report.diagnostics.size() + report.unstoredDiagnostics));
  emit summaryChanged(m_summaryText);
}

void IssuesDock::activateRow(int row) {
  const QModelIndex source = m_proxy->mapToSource(m_proxy->index(row, 0));
  if (const core::Diagnostic* d = m_model->diagnostic(source.row())) {
    m_view->selectRow(row);
    emit jumpRequested(*d);
  }
}

}  // namespace ragscope::ui
