#include "ui/reportdialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QUrl>
#include <QVBoxLayout>
#include <QtConcurrent>
#include <map>

#include "core/eval/reports/resultsreport.h"
#include "core/export/reportcsv.h"
#include "ui/labelbook.h"
#include "ui/outputguard.h"
#include "ui/report/pdfreport.h"
#include "ui/report/reportfile.h"
#include "ui/textutil.h"
#include "ui/workbench.h"

namespace ragscope::ui {

namespace {

constexpr int kProjectRetrieval = Qt::UserRole + 1;  // the item stands for the project's runs
constexpr int kStorePath = Qt::UserRole + 2;

}  // namespace

ReportDialog::ReportDialog(Workbench* workbench, QWidget* parent)
    : QDialog(parent),
      m_workbench(workbench),
      m_cancel(std::make_shared<std::atomic<bool>>(false)) {
  setWindowTitle(tr("Report"));
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(tr("Results to include:"), this));
  m_sources = new QListWidget(this);
  m_sources->setObjectName(QStringLiteral("reportSources"));
  layout->addWidget(m_sources, 1);

  // The project's datasets (their TREC runs, evaluated against their qrels) and its stores; the
  // stores this session made and has not saved in the project yet.
  QStringList stores;
  const QString projectFile = m_workbench->projectFile();
  if (const auto& project = m_workbench->project(); project && !projectFile.isEmpty()) {
    auto* item =
        new QListWidgetItem(tr("Retrieval runs of %1's datasets").arg(q(project->name)), m_sources);
    item->setData(kProjectRetrieval, true);
    item->setCheckState(Qt::Checked);
    for (const auto& s : project->runStores) stores << q(project->resolve(s).string());
  }
  for (const QString& s : m_workbench->sessionRunStores())
    if (!stores.contains(s)) stores << s;
  for (const QString& s : stores) {
    auto* item = new QListWidgetItem(QFileInfo(s).fileName(), m_sources);
    item->setToolTip(s);
    item->setData(kStorePath, s);
    item->setCheckState(Qt::Checked);
  }

  auto* form = new QFormLayout;
  m_format = new QComboBox(this);
  m_format->setObjectName(QStringLiteral("reportFormat"));
  m_format->addItem(tr("PDF report"), QStringLiteral("pdf"));
  m_format->addItem(tr("JSON: everything"), QStringLiteral("json"));
  m_format->addItem(tr("CSV: summary"), QStringLiteral("csv-summary"));
  m_format->addItem(tr("CSV: per query"), QStringLiteral("csv-query"));
  m_format->addItem(tr("CSV: per document (eRAG)"), QStringLiteral("csv-document"));
  m_format->addItem(tr("CSV: per claim"), QStringLiteral("csv-claim"));
  form->addRow(tr("Format:"), m_format);
  auto* fileRow = new QHBoxLayout;
  m_file = new QLineEdit(this);
  m_file->setObjectName(QStringLiteral("reportFile"));
  auto* browse = new QPushButton(tr("Browse…"), this);
  fileRow->addWidget(m_file, 1);
  fileRow->addWidget(browse);
  form->addRow(tr("File:"), fileRow);
  m_resamples = new QSpinBox(this);
  m_resamples->setRange(0, 100000);
  m_resamples->setValue(1000);
  m_resamples->setToolTip(tr("Bootstrap resamples for the 95% confidence intervals (0: none)"));
  form->addRow(tr("Bootstrap resamples:"), m_resamples);
  // The PDF's optional parts (the title page and the summary tables are always there).
  m_sectionBox = new QWidget(this);
  auto* sectionGrid = new QGridLayout(m_sectionBox);
  sectionGrid->setContentsMargins(0, 0, 0, 0);
  const std::map<std::string, QString> labels = {{"settings", tr("Settings and conventions")},
                                                 {"charts", tr("Charts")},
                                                 {"lowest", tr("Lowest-scoring queries")},
                                                 {"claims", tr("Unsupported claims")},
                                                 {"comparisons", tr("Paired comparisons")},
                                                 {"appendix", tr("Method appendix")},
                                                 {"labels", tr("Human labels")}};
  for (const auto& name : report::pdfSections()) {
    auto* check = new QCheckBox(labels.at(name), m_sectionBox);
    check->setObjectName(QString::fromStdString("section-" + name));
    check->setProperty("section", QString::fromStdString(name));
    check->setChecked(true);
    const int i = static_cast<int>(m_sectionChecks.size());
    sectionGrid->addWidget(check, i / 2, i % 2);
    m_sectionChecks.push_back(check);
  }
  form->addRow(tr("PDF parts:"), m_sectionBox);
  m_open = new QCheckBox(tr("Open the file when it is written"), this);
  m_open->setChecked(true);
  form->addRow(QString(), m_open);
  layout->addLayout(form);

  m_progress = new QProgressBar(this);
  m_progress->setRange(0, 0);  // busy: collection has no meaningful fraction
  m_progress->setVisible(false);
  layout->addWidget(m_progress);
  m_status = new QLabel(this);
  m_status->setObjectName(QStringLiteral("reportStatus"));
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(m_status);
  m_buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  m_write = m_buttons->addButton(tr("Write"), QDialogButtonBox::AcceptRole);
  layout->addWidget(m_buttons);

  connect(browse, &QPushButton::clicked, this, &ReportDialog::browse);
  connect(m_write, &QPushButton::clicked, this, [this] { write(); });
  connect(m_buttons, &QDialogButtonBox::rejected, this, [this] {
    if (isWriting()) {
      m_cancel->store(true);  // the worker stops at its next check; finish() reports it
      m_status->setText(tr("Cancelling…"));
    } else {
      reject();
    }
  });
  connect(&m_watcher, &QFutureWatcherBase::finished, this, &ReportDialog::finish);
  connect(m_format, &QComboBox::currentIndexChanged, this, [this] {
    m_sectionBox->setEnabled(m_format->currentData().toString() == QLatin1String("pdf"));
    // Keep the file's name, change its extension.
    const QString file = m_file->text();
    if (file.isEmpty()) return;
    const QString ext =
        m_format->currentData().toString() == QLatin1String("pdf")    ? QStringLiteral("pdf")
        : m_format->currentData().toString() == QLatin1String("json") ? QStringLiteral("json")
                                                                      : QStringLiteral("csv");
    const QFileInfo info(file);
    m_file->setText(info.dir().filePath(info.completeBaseName() + QLatin1Char('.') + ext));
  });
  if (!projectFile.isEmpty())
    m_file->setText(QFileInfo(projectFile)
                        .dir()
                        .filePath(QFileInfo(projectFile).completeBaseName().section('.', 0, 0) +
                                  QStringLiteral("-report.pdf")));
  resize(560, 460);
}

ReportDialog::~ReportDialog() {
  // A worker still running finishes on its own copies; it is told to stop and waited for.
  m_cancel->store(true);
  m_watcher.waitForFinished();
}

void ReportDialog::setOutput(const QString& file, const QString& format) {
  const int i = m_format->findData(format);
  if (i >= 0) m_format->setCurrentIndex(i);
  m_file->setText(file);
}

void ReportDialog::setResamples(int resamples) { m_resamples->setValue(resamples); }
void ReportDialog::setSections(const QStringList& sections) {
  for (auto* check : m_sectionChecks)
    check->setChecked(sections.contains(check->property("section").toString()));
}
void ReportDialog::setOpenWhenDone(bool open) { m_open->setChecked(open); }
bool ReportDialog::isWriting() const { return m_watcher.isRunning(); }
QString ReportDialog::statusText() const { return m_status->text(); }

void ReportDialog::browse() {
  const QString format = m_format->currentData().toString();
  const QString filter = format == QLatin1String("pdf")    ? tr("PDF (*.pdf)")
                         : format == QLatin1String("json") ? tr("JSON (*.json)")
                                                           : tr("CSV (*.csv)");
  const QString file =
      QFileDialog::getSaveFileName(this, tr("Write the report to"), m_file->text(), filter);
  if (!file.isEmpty()) m_file->setText(file);
}

void ReportDialog::setBusy(bool busy) {
  m_progress->setVisible(busy);
  m_write->setEnabled(!busy);
  m_sources->setEnabled(!busy);
  m_format->setEnabled(!busy);
  m_file->setEnabled(!busy);
  m_resamples->setEnabled(!busy);
  m_sectionBox->setEnabled(!busy && m_format->currentData().toString() == QLatin1String("pdf"));
  m_open->setEnabled(!busy);
  m_buttons->button(QDialogButtonBox::Close)->setText(busy ? tr("Cancel") : tr("Close"));
}

bool ReportDialog::write() {
  if (isWriting()) return false;
  core::eval::ReportSources sources;
  sources.projectStores = false;  // the stores are listed one by one below, each as checked
  for (int i = 0; i < m_sources->count(); ++i) {
    const auto* item = m_sources->item(i);
    if (item->checkState() != Qt::Checked) continue;
    if (item->data(kProjectRetrieval).toBool())
      sources.project = m_workbench->projectFile().toStdString();
    else
      sources.stores.emplace_back(item->data(kStorePath).toString().toStdString());
  }
  // The labels the workbench shows (the project's, or the dataset's without a project).
  if (const QString labels = m_workbench->labelBook()->storePath();
      !labels.isEmpty() && QFileInfo::exists(labels))
    sources.labels = labels.toStdString();
  const QString file = m_file->text().trimmed();
  if (!sources.project && sources.stores.empty()) {
    m_status->setText(tr("Choose at least one result to include."));
    return false;
  }
  if (file.isEmpty()) {
    m_status->setText(tr("Name the file to write."));
    return false;
  }
  // Never over what the report is made from (core/util/outputcheck.h).
  {
    auto inputs = workbenchInputs(*m_workbench);
    for (const auto& store : sources.stores) inputs.push_back({"a run store of the report", store});
    if (sources.labels) inputs.push_back({"the labels store", *sources.labels});
    if (const QString why = refusedOutput(file, inputs); !why.isEmpty()) {
      m_status->setText(tr("Not written: %1").arg(why));
      return false;
    }
  }
  const std::string format = m_format->currentData().toString().toStdString();
  core::eval::ReportOptions options;
  options.bootstrap.resamples = static_cast<std::size_t>(m_resamples->value());
  options.keepDistributions = format == "pdf";
  // Project parts outside its folder: only those this user already agreed to read.
  options.readOutsideParts = false;
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  options.cancel = m_cancel.get();
  report::PdfReportOptions pdf;
  pdf.sections.clear();
  for (const auto* check : m_sectionChecks)
    if (check->isChecked())
      pdf.sections.insert(check->property("section").toString().toStdString());
  const auto cancel = m_cancel;  // kept alive by the worker
  const std::string path = file.toStdString();
  m_status->setText(tr("Writing %1…").arg(QFileInfo(file).fileName()));
  setBusy(true);
  m_watcher.setFuture(QtConcurrent::run([sources, options, format, path, cancel, pdf]() -> Outcome {
    Outcome out;
    const auto report = core::eval::collectReport(sources, options);
    if (cancel->load()) {
      out.cancelled = true;
      return out;
    }
    for (const auto& p : report.problems) out.problems += p + "\n";
    out.runs = static_cast<int>(report.runs.size());
    if (report.runs.empty()) {
      out.error = "nothing to report: no source could be read";
      return out;
    }
    report::ReportFileFormat file;
    file.kind = format == "pdf"    ? report::ReportFileFormat::Kind::Pdf
                : format == "json" ? report::ReportFileFormat::Kind::Json
                                   : report::ReportFileFormat::Kind::Csv;
    if (file.kind == report::ReportFileFormat::Kind::Csv)
      file.grain = core::exporting::csvGrainFromName(format.substr(4))
                       .value_or(core::exporting::CsvGrain::Summary);
    report::writeReportFile(report, path, file, pdf, &out.error);
    return out;
  }));
  return true;
}

void ReportDialog::finish() {
  setBusy(false);
  const Outcome out = m_watcher.result();
  const QString file = m_file->text().trimmed();
  if (out.cancelled) {
    m_status->setText(tr("Cancelled: nothing was written."));
    emit written(false, file);
    return;
  }
  if (!out.error.empty()) {
    m_status->setText(
        tr("Not written: %1").arg(q(out.error)) +
        (out.problems.empty() ? QString() : QStringLiteral("\n") + q(out.problems).trimmed()));
    emit written(false, file);
    return;
  }
  QString text = tr("%n run(s) written to %1.", nullptr, out.runs).arg(file);
  if (!out.problems.empty())
    text += QStringLiteral("\n") + tr("Not included:") + QStringLiteral("\n") +
            q(out.problems).trimmed();
  m_status->setText(text);
  if (m_open->isChecked()) QDesktopServices::openUrl(QUrl::fromLocalFile(file));
  emit written(true, file);
}

}  // namespace ragscope::ui
