#include "ui/pages/runlisteditor.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>
#include <string>

#include "core/data/dataset.h"
#include "core/stats/runsummary.h"

namespace ragscope::ui {

namespace {

constexpr int kRunSourceRole = Qt::UserRole;     // "dataset" or "file"
constexpr int kRunIndexRole = Qt::UserRole + 1;  // dataset run index
constexpr int kRunPathRole = Qt::UserRole + 2;   // run file path

bool isFileItem(const QListWidgetItem* item) {
  return item->data(kRunSourceRole).toString() == QLatin1String("file");
}

// "BM25/trec_results_dl19.txt": run files are often named alike and told apart by their folder.
QString runFileLabel(const QString& path) {
  const QFileInfo info(path);
  return info.dir().dirName() + QLatin1Char('/') + info.fileName();
}

}  // namespace

RunListEditor::RunListEditor(int visibleLines, QWidget* parent)
    : QWidget(parent), m_list(new QListWidget(this)) {
  m_list->setMaximumHeight(visibleLines * m_list->fontMetrics().height() + 12);
  auto* addRuns = new QPushButton(tr("Add run files…"), this);
  connect(addRuns, &QPushButton::clicked, this, [this] {
    addRunFiles(QFileDialog::getOpenFileNames(this, tr("Run files (TREC format)")));
  });
  auto* removeRun = new QPushButton(tr("Remove"), this);
  // Only added files go: the dataset's runs come back with every dataset change anyway.
  connect(removeRun, &QPushButton::clicked, this, [this] {
    for (QListWidgetItem* item : m_list->selectedItems())
      if (isFileItem(item)) delete item;
  });
  auto* buttons = new QVBoxLayout;
  buttons->addWidget(addRuns);
  buttons->addWidget(removeRun);
  buttons->addStretch();
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(0, 0, 0, 0);
  row->addWidget(m_list, 1);
  row->addLayout(buttons);
}

void RunListEditor::setDatasetRuns(const core::Dataset* dataset) {
  for (int i = m_list->count() - 1; i >= 0; --i)
    if (!isFileItem(m_list->item(i))) delete m_list->takeItem(i);
  if (!dataset) return;
  // rank_llm's runs are all tagged "rank": a shared tag gets the file's folder and name, as in
  // the summary table, or the list shows identical lines.
  std::vector<core::stats::RunName> names;
  for (const auto& run : dataset->runs) names.push_back({run.tag, run.source});
  const std::vector<std::string> labels = core::stats::runLabels(names);
  for (std::size_t i = 0; i < dataset->runs.size(); ++i) {
    const auto& run = dataset->runs[i];
    auto* item = new QListWidgetItem(tr("%1 (dataset, %2 queries)")
                                         .arg(QString::fromStdString(labels[i]))
                                         .arg(run.rankings.size()));
    item->setData(kRunSourceRole, QStringLiteral("dataset"));
    item->setData(kRunIndexRole, static_cast<qulonglong>(i));
    item->setToolTip(QString::fromStdString(run.source));
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Checked);
    m_list->insertItem(static_cast<int>(i), item);
  }
}

void RunListEditor::addRunFiles(const QStringList& files) {
  for (const QString& f : files) {
    auto* item = new QListWidgetItem(runFileLabel(f));
    item->setData(kRunSourceRole, QStringLiteral("file"));
    item->setData(kRunPathRole, f);
    item->setToolTip(f);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Checked);
    m_list->addItem(item);
  }
}

RunListEditor::Choice RunListEditor::chosen() const {
  Choice choice;
  for (int i = 0; i < m_list->count(); ++i) {
    const QListWidgetItem* item = m_list->item(i);
    if (item->checkState() != Qt::Checked) continue;
    if (isFileItem(item))
      choice.files << item->data(kRunPathRole).toString();
    else
      choice.datasetRuns.push_back(item->data(kRunIndexRole).toULongLong());
  }
  return choice;
}

}  // namespace ragscope::ui
