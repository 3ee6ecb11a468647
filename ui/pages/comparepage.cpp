#include "ui/pages/comparepage.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "core/stats/multiple.h"
#include "ui/charts/chartwidget.h"
#include "ui/jobs/evaljob.h"
#include "ui/jobs/statsrunner.h"
#include "ui/models/runsources.h"
#include "ui/pages/formwidgets.h"
#include "ui/workbench.h"

namespace ragscope::ui {

namespace stats = core::stats;

namespace {

constexpr int kRunIndexRole = Qt::UserRole;  // index into evaluation runs, then file runs

struct CompareOptions {
  stats::PairedOptions paired;
  stats::CorrelationOptions correlation;
};

// Every pair of runs on every measure; the run with the higher mean becomes A so differences read
// as "how much better". Holm over all rows, for both tests.
std::vector<ComparisonRow> compareAll(const std::vector<RunValues>& runs,
                                      const QStringList& measures, CompareOptions o,
                                      const std::atomic<bool>* cancel) {
  o.paired.cancel = cancel;
  o.correlation.cancel = cancel;
  std::vector<ComparisonRow> rows;
  for (const QString& measure : measures) {
    const std::string m = measure.toStdString();
    for (std::size_t i = 0; i < runs.size(); ++i)
      for (std::size_t j = i + 1; j < runs.size(); ++j) {
        if (cancel->load()) return rows;
        const auto ai = runs[i].table.find(m);
        const auto bj = runs[j].table.find(m);
        if (ai == runs[i].table.end() || bj == runs[j].table.end()) continue;
        stats::PairedSample sample = stats::alignByQid(ai->second, bj->second);
        const double ma = stats::meanOf(sample.a), mb = stats::meanOf(sample.b);
        ComparisonRow row;
        row.measure = measure;
        row.runA = runs[i].name;
        row.runB = runs[j].name;
        if (mb > ma) {
          std::swap(sample.a, sample.b);
          std::swap(sample.onlyInA, sample.onlyInB);
          std::swap(row.runA, row.runB);
        }
        row.paired = stats::comparePaired(sample, o.paired);
        row.correlation = stats::correlate(sample.a, sample.b, o.correlation);
        row.qids = std::move(sample.qids);
        row.a = std::move(sample.a);
        row.b = std::move(sample.b);
        rows.push_back(std::move(row));
      }
  }
  std::vector<double> p, pt;
  for (const auto& r : rows) {
    p.push_back(r.paired.randomization.p);
    pt.push_back(r.paired.ttest.p);
  }
  const auto holm = stats::holmAdjust(p);
  const auto holmT = stats::holmAdjust(pt);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    rows[k].pHolm = holm[k];
    rows[k].pTHolm = holmT[k];
  }
  return rows;
}

}  // namespace

ComparePage::ComparePage(Workbench* workbench, QWidget* parent)
    : Page(parent), m_workbench(workbench), m_sources(new RunSources(workbench, true, this)) {
  buildUi();
  connect(m_sources, &RunSources::changed, this, &ComparePage::refreshRuns);
  m_sources->showStatusIn(m_status);
  connect(m_sources, &RunSources::filesAdded, this, &ComparePage::perQueryFilesAdded);
  refreshRuns();
}

ComparePage::~ComparePage() = default;

QIcon ComparePage::icon() const { return style()->standardIcon(QStyle::SP_BrowserReload); }

void ComparePage::buildUi() {
  auto* inputs = new QGroupBox(tr("Compare runs pairwise"), this);

  m_runs = new QListWidget(inputs);
  m_runs->setToolTip(tr("Runs of the latest retrieval evaluation, and per-query files you add"));
  connect(m_runs, &QListWidget::itemChanged, this, &ComparePage::refreshMeasures);
  auto* addFiles = new QPushButton(tr("Add trec_eval -q files…"), inputs);
  connect(addFiles, &QPushButton::clicked, this, [this] { m_sources->chooseFiles(this); });
  auto* runsBox = new QVBoxLayout;
  runsBox->addWidget(new QLabel(tr("Runs:"), inputs));
  runsBox->addWidget(m_runs, 1);
  runsBox->addWidget(addFiles);

  m_measures = new QListWidget(inputs);
  auto* measuresBox = new QVBoxLayout;
  measuresBox->addWidget(new QLabel(tr("Measures:"), inputs));
  measuresBox->addWidget(m_measures, 1);

  m_resamples = resamplesSpin(inputs);
  m_permutations = permutationsSpin(inputs);
  m_level = levelCombo(inputs);
  m_alpha = new QDoubleSpinBox(inputs);
  m_alpha->setRange(0.0001, 0.5);
  m_alpha->setDecimals(4);
  m_alpha->setSingleStep(0.01);
  m_alpha->setValue(0.05);
  m_seed = seedSpin(inputs);
  auto* form = new QFormLayout;
  form->addRow(tr("Bootstrap B:"), m_resamples);
  form->addRow(tr("Permutations:"), m_permutations);
  form->addRow(tr("CI level:"), m_level);
  form->addRow(tr("α (Holm):"), m_alpha);
  form->addRow(tr("Seed:"), m_seed);

  m_compare = new QPushButton(tr("Compare"), inputs);
  m_compare->setDefault(true);
  connect(m_compare, &QPushButton::clicked, this, &ComparePage::compare);
  m_cancel = new QPushButton(tr("Cancel"), inputs);
  connect(m_cancel, &QPushButton::clicked, this, &ComparePage::cancel);
  m_busy = new QProgressBar(inputs);
  m_busy->setRange(0, 0);
  m_busy->setMaximumHeight(14);
  m_job = new StatsRunner({m_compare, m_cancel, m_busy}, this);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(m_compare);
  buttons->addWidget(m_cancel);
  form->addRow(buttons);
  form->addRow(m_busy);

  auto* top = new QHBoxLayout(inputs);
  top->addLayout(runsBox, 3);
  top->addLayout(measuresBox, 1);
  top->addLayout(form, 0);
  inputs->setMaximumHeight(250);

  m_status =
      new QLabel(tr("Evaluate runs on the Retrieval page, or add trec_eval -q files."), this);
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

  m_model = new ComparisonModel(this);
  m_proxy = new QSortFilterProxyModel(this);
  m_proxy->setSourceModel(m_model);
  m_proxy->setSortRole(ComparisonModel::SortRole);
  m_table = new QTableView(this);
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->setAlternatingRowColors(true);
  m_table->verticalHeader()->setVisible(false);
  m_table->horizontalHeader()->setHighlightSections(false);
  connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid()) showRow(m_proxy->mapToSource(current).row());
          });

  m_paired = new charts::ChartWidget(this);
  m_paired->setPlaceholder(tr("Select a comparison to see its per-query differences."));
  m_scatter = new charts::ChartWidget(this);
  m_scatter->setPlaceholder(tr("Select a comparison to see the two runs per query."));
  auto* chartsRow = new QSplitter(Qt::Horizontal, this);
  chartsRow->addWidget(m_paired);
  chartsRow->addWidget(m_scatter);
  chartsRow->setStretchFactor(0, 3);
  chartsRow->setStretchFactor(1, 2);

  m_results = new QSplitter(Qt::Vertical, this);
  m_results->addWidget(m_table);
  m_results->addWidget(chartsRow);
  m_results->setStretchFactor(0, 1);
  m_results->setStretchFactor(1, 2);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(inputs);
  layout->addWidget(m_status);
  layout->addWidget(m_results, 1);
}

void ComparePage::refreshRuns() {
  QStringList unchecked;
  for (int i = 0; i < m_runs->count(); ++i)
    if (m_runs->item(i)->checkState() != Qt::Checked) unchecked << m_runs->item(i)->text();
  m_runs->blockSignals(true);
  m_runs->clear();
  auto add = [&](const RunValues& run, int index, const QString& origin) {
    auto* item = new QListWidgetItem(run.name, m_runs);
    item->setData(kRunIndexRole, index);
    item->setToolTip(tr("%1\n%2, %3 measures").arg(run.source, origin).arg(run.table.size()));
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(unchecked.contains(run.name) ? Qt::Unchecked : Qt::Checked);
  };
  int index = 0;
  for (const auto& run : m_sources->evaluationRuns())
    add(run, index++, tr("from the retrieval evaluation"));
  for (const auto& run : m_sources->fileRuns()) add(run, index++, tr("per-query file"));
  m_runs->blockSignals(false);
  refreshMeasures();
}

void ComparePage::refreshMeasures() {
  QStringList checked = checkedMeasures();
  std::vector<RunValues> runs;
  for (const RunValues* r : checkedRuns()) runs.push_back(*r);
  const QStringList available = commonMeasures(runs);
  if (checked.isEmpty() && !available.isEmpty()) checked << available.front();
  m_measures->clear();
  for (const QString& m : available) {
    auto* item = new QListWidgetItem(m, m_measures);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(checked.contains(m) ? Qt::Checked : Qt::Unchecked);
  }
}

std::vector<const RunValues*> ComparePage::checkedRuns() const {
  std::vector<const RunValues*> out;
  for (int i = 0; i < m_runs->count(); ++i) {
    if (m_runs->item(i)->checkState() != Qt::Checked) continue;
    if (const RunValues* run = m_sources->at(m_runs->item(i)->data(kRunIndexRole).toInt()))
      out.push_back(run);
  }
  return out;
}

QStringList ComparePage::checkedMeasures() const {
  QStringList out;
  for (int i = 0; i < m_measures->count(); ++i)
    if (m_measures->item(i)->checkState() == Qt::Checked) out << m_measures->item(i)->text();
  return out;
}

QStringList ComparePage::runNames() const {
  QStringList out;
  for (int i = 0; i < m_runs->count(); ++i) out << m_runs->item(i)->text();
  return out;
}

void ComparePage::setRunsChecked(const QStringList& names) {
  m_runs->blockSignals(true);
  for (int i = 0; i < m_runs->count(); ++i)
    m_runs->item(i)->setCheckState(
        names.isEmpty() || names.contains(m_runs->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
  m_runs->blockSignals(false);
  refreshMeasures();
}

void ComparePage::setMeasuresChecked(const QStringList& measures) {
  for (int i = 0; i < m_measures->count(); ++i)
    m_measures->item(i)->setCheckState(
        measures.contains(m_measures->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
}

void ComparePage::setResamples(int b) { m_resamples->setValue(b); }
void ComparePage::setPermutations(int n) { m_permutations->setValue(n); }
bool ComparePage::isRunning() const { return m_job->isRunning(); }
void ComparePage::cancel() { m_job->cancel(); }

void ComparePage::addPerQueryFiles(const QStringList& files) { m_sources->addPerQueryFiles(files); }

bool ComparePage::compare() {
  std::vector<RunValues> runs;
  for (const RunValues* r : checkedRuns()) runs.push_back(*r);
  const QStringList measures = checkedMeasures();
  if (runs.size() < 2 || measures.isEmpty()) {
    m_status->setText(tr("Choose at least two runs and one measure."));
    return false;
  }
  CompareOptions o;
  o.paired.resamples = static_cast<std::size_t>(m_resamples->value());
  o.paired.permutations = static_cast<std::size_t>(m_permutations->value());
  o.paired.level = m_level->currentData().toDouble();
  o.paired.seed = static_cast<std::uint64_t>(m_seed->value());
  o.correlation.level = o.paired.level;
  o.correlation.seed = o.paired.seed;
  const std::size_t pairs = runs.size() * (runs.size() - 1) / 2 * std::size_t(measures.size());
  m_status->setText(tr("Comparing %n pair(s)…", nullptr, int(pairs)));
  m_job->start<std::vector<ComparisonRow>>(
      [runs = std::move(runs), measures, o](std::vector<ComparisonRow>& out,
                                            const std::atomic<bool>* cancel) {
        out = compareAll(runs, measures, o, cancel);
      },
      [this](std::vector<ComparisonRow> rows, bool cancelled) {
        onFinished(std::move(rows), cancelled);
      });
  return true;
}

void ComparePage::onFinished(std::vector<ComparisonRow> rows, bool cancelled) {
  if (cancelled) {
    m_status->setText(tr("Cancelled."));
    emit comparisonFinished(false);
    return;
  }
  std::size_t significant = 0, unaligned = 0;
  const double alpha = m_alpha->value();
  for (const auto& r : rows) {
    if (r.pHolm <= alpha) ++significant;
    unaligned += r.paired.unaligned();
  }
  m_model->setRows(std::move(rows), m_level->currentData().toDouble(), alpha);
  m_table->resizeColumnsToContents();
  fitTableHeight();
  QString text =
      tr("%n comparison(s); ", nullptr, m_model->rowCount()) +
      tr("%1 significant at α = %2 after Holm's correction (randomization test, %3 permutations; "
         "paired bootstrap B = %4). Run A is the better of each pair.")
          .arg(significant)
          .arg(alpha)
          .arg(m_permutations->value())
          .arg(m_resamples->value());
  if (unaligned > 0)
    text += tr(" Queries present in only one run were left out (see the n column's tooltip).");
  m_status->setText(text);
  if (m_model->rowCount() > 0) m_table->selectRow(0);
  emit comparisonFinished(m_model->rowCount() > 0);
}

bool ComparePage::selectRow(int row) {
  const QModelIndex proxy = m_proxy->mapFromSource(m_model->index(row, 0));
  if (!proxy.isValid()) return false;
  m_table->selectRow(proxy.row());
  m_table->setCurrentIndex(proxy);
  showRow(row);
  return true;
}

void ComparePage::showRow(int sourceRow) {
  const ComparisonRow* r = m_model->rowAt(sourceRow);
  if (!r) return;
  const QString label = measureLabel(r->measure);
  charts::PairedDifferenceChart paired;
  paired.title = tr("%1: %2 − %3 per query").arg(label, r->runA, r->runB);
  paired.valueTitle = tr("%1 difference (A − B)").arg(label);
  for (std::size_t i = 0; i < r->qids.size(); ++i) {
    paired.qids.push_back(QString::fromStdString(r->qids[i]));
    paired.differences.push_back(r->a[i] - r->b[i]);
  }
  paired.meanDiff = r->paired.meanDiff;
  paired.ciLow = r->paired.ci.low;
  paired.ciHigh = r->paired.ci.high;
  paired.level = m_level->currentData().toDouble();
  m_paired->setSpec(std::move(paired));

  charts::ScatterChart scatter;
  scatter.title = label;
  scatter.xTitle = tr("%1 of %2 (B)").arg(label, r->runB);
  scatter.yTitle = tr("%1 of %2 (A)").arg(label, r->runA);
  for (const auto& q : r->qids) scatter.qids.push_back(QString::fromStdString(q));
  scatter.x = r->b;
  scatter.y = r->a;
  scatter.tau = r->correlation.kendall.value;
  scatter.rho = r->correlation.spearman.value;
  m_scatter->setSpec(std::move(scatter));
}

void ComparePage::showEvent(QShowEvent* event) {
  Page::showEvent(event);
  fitTableHeight();
}

// Every comparison on screen without scrolling, as long as the table takes at most half of the
// results: the splitter's default third hid the sixth row of three runs x two measures.
void ComparePage::fitTableHeight() {
  QList<int> sizes = m_results->sizes();
  const int total = sizes.value(0) + sizes.value(1);
  if (m_model->rowCount() == 0 || total <= 0) return;
  const int want = 2 * m_table->frameWidth() + m_table->horizontalHeader()->sizeHint().height() +
                   m_table->verticalHeader()->length() +
                   m_table->horizontalScrollBar()->sizeHint().height();
  if (sizes[0] >= want) return;
  sizes[0] = std::min(want, total / 2);
  sizes[1] = total - sizes[0];
  m_results->setSizes(sizes);
}

}  // namespace ragscope::ui
