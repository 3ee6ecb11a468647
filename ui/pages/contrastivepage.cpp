#include "ui/pages/contrastivepage.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QTableWidget>
#include <QTextStream>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "ui/charts/chartwidget.h"
#include "ui/jobs/evaljob.h"
#include "ui/jobs/statsrunner.h"
#include "ui/models/comparisonmodel.h"
#include "ui/models/evalsummarymodel.h"
#include "ui/models/querysetmodel.h"
#include "ui/models/runsources.h"
#include "ui/pages/formwidgets.h"
#include "ui/workbench.h"

namespace ragscope::ui {

namespace stats = core::stats;

namespace {

// Sizes the query table's columns to their contents and widens the table (up to a third of a
// typical screen) so the splitter does not squeeze them: a clipped "0.06" for 0.0663 misleads.
void fitQueryTable(QTableView* table) {
  // The last column stretches to fill the view; sized while stretched, it would keep the
  // stretched width as its own and hold the header wider than the view once the view narrows.
  QHeaderView* header = table->horizontalHeader();
  header->setStretchLastSection(false);
  table->resizeColumnsToContents();
  header->setStretchLastSection(true);
  // + 8: the viewport can be a few pixels narrower than frame and scroll bar account for.
  const int scrollBar =
      std::max(table->verticalScrollBar()->sizeHint().width(),
               table->style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, table));
  int width = 2 * table->frameWidth() + scrollBar + 8;
  for (int c = 0; c < table->model()->columnCount(); ++c) width += table->columnWidth(c);
  table->setMinimumWidth(std::min(width, 480));
}

QTableWidget* smallTable(const QStringList& headers, QWidget* parent) {
  auto* t = new QTableWidget(0, int(headers.size()), parent);
  t->setHorizontalHeaderLabels(headers);
  t->verticalHeader()->setVisible(false);
  t->setEditTriggers(QAbstractItemView::NoEditTriggers);
  t->setSelectionMode(QAbstractItemView::NoSelection);
  return t;
}

void setCell(QTableWidget* t, int row, int col, const QString& text, bool right = true) {
  auto* item = new QTableWidgetItem(text);
  if (right) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  t->setItem(row, col, item);
}

QString signedValue(double v) {
  return (v > 0 ? QStringLiteral("+") : QString()) + QString::number(v, 'f', 4);
}

}  // namespace

ContrastivePage::ContrastivePage(Workbench* workbench, QWidget* parent)
    : Page(parent), m_workbench(workbench), m_sources(new RunSources(workbench, false, this)) {
  buildUi();
  connect(m_sources, &RunSources::changed, this, &ContrastivePage::refreshRuns);
  m_sources->showStatusIn(m_status);
  connect(m_sources, &RunSources::filesAdded, this, &ContrastivePage::perQueryFilesAdded);
  refreshRuns();
}

ContrastivePage::~ContrastivePage() = default;

QIcon ContrastivePage::icon() const { return style()->standardIcon(QStyle::SP_ArrowRight); }

void ContrastivePage::buildUi() {
  auto* inputs =
      new QGroupBox(tr("Contrastive analysis: the same measure on named query sets"), this);
  auto* form = new QFormLayout(inputs);

  m_run = new QComboBox(inputs);
  m_run->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_run->setMinimumContentsLength(28);
  m_measure = new QComboBox(inputs);
  connect(m_run, &QComboBox::currentIndexChanged, this, &ContrastivePage::refreshMeasures);
  connect(m_measure, &QComboBox::currentIndexChanged, this, &ContrastivePage::applySource);
  auto* addFiles = new QPushButton(tr("Add trec_eval -q files…"), inputs);
  connect(addFiles, &QPushButton::clicked, this, [this] { m_sources->chooseFiles(this); });
  auto* sourceRow = new QHBoxLayout;
  sourceRow->addWidget(m_run, 2);
  sourceRow->addWidget(new QLabel(tr("measure"), inputs));
  sourceRow->addWidget(m_measure, 1);
  sourceRow->addWidget(addFiles);
  form->addRow(tr("Values of run:"), sourceRow);

  // Sets by a column: any run's measure, split in halves or at a threshold.
  m_splitRun = new QComboBox(inputs);
  m_splitRun->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  m_splitRun->setMinimumContentsLength(20);
  m_splitMeasure = new QComboBox(inputs);
  connect(m_splitRun, &QComboBox::currentIndexChanged, this, [this] {
    const QString keep = m_splitMeasure->currentText();
    m_splitMeasure->clear();
    if (const RunValues* r = runAt(m_splitRun->currentIndex()))
      m_splitMeasure->addItems(commonMeasures({*r}));
    const int idx = m_splitMeasure->findText(keep);
    if (idx >= 0) m_splitMeasure->setCurrentIndex(idx);
  });
  auto* halves = new QPushButton(tr("Top half vs bottom half"), inputs);
  connect(halves, &QPushButton::clicked, this, [this] {
    splitByHalves(m_splitRun->currentIndex(), m_splitMeasure->currentText(), tr("top half"),
                  tr("bottom half"));
  });
  m_threshold = new QDoubleSpinBox(inputs);
  m_threshold->setRange(-1e9, 1e9);
  m_threshold->setDecimals(4);
  m_threshold->setValue(0.5);
  auto* atThreshold = new QPushButton(tr("≥ threshold vs below"), inputs);
  connect(atThreshold, &QPushButton::clicked, this, [this] {
    splitByThreshold(m_splitRun->currentIndex(), m_splitMeasure->currentText(),
                     m_threshold->value(), tr("≥ %1").arg(m_threshold->value()),
                     tr("< %1").arg(m_threshold->value()));
  });
  auto* splitRow = new QHBoxLayout;
  splitRow->addWidget(m_splitRun, 2);
  splitRow->addWidget(m_splitMeasure, 1);
  splitRow->addWidget(halves);
  splitRow->addWidget(m_threshold);
  splitRow->addWidget(atThreshold);
  form->addRow(tr("Sets by a column:"), splitRow);

  m_setName = new QComboBox(inputs);
  m_setName->setEditable(true);
  m_setName->addItems({tr("set A"), tr("set B"), tr("set C")});
  m_setName->setToolTip(tr("Name of the set to fill; type a new name for another set"));
  auto* assign = new QPushButton(tr("Assign selected queries"), inputs);
  connect(assign, &QPushButton::clicked, this, &ContrastivePage::assignSelected);
  auto* fromFile = new QPushButton(tr("Ids from file…"), inputs);
  connect(fromFile, &QPushButton::clicked, this, &ContrastivePage::chooseSetFile);
  auto* clear = new QPushButton(tr("Clear sets"), inputs);
  connect(clear, &QPushButton::clicked, this, &ContrastivePage::clearSets);
  m_setsLabel = new QLabel(inputs);
  auto* setRow = new QHBoxLayout;
  setRow->addWidget(m_setName, 1);
  setRow->addWidget(assign);
  setRow->addWidget(fromFile);
  setRow->addWidget(clear);
  setRow->addWidget(m_setsLabel, 2);
  form->addRow(tr("Set:"), setRow);

  m_resamples = resamplesSpin(inputs);
  m_sampleSize = sampleSizeSpin(tr("each set's n"), inputs);
  m_permutations = permutationsSpin(inputs);
  m_level = levelCombo(inputs);
  m_seed = seedSpin(inputs);
  auto* vera = new QPushButton(tr("VERA setting (s = 50, B = 500)"), inputs);
  connect(vera, &QPushButton::clicked, this, &ContrastivePage::useVeraSetting);
  m_analyse = new QPushButton(tr("Analyse"), inputs);
  m_analyse->setDefault(true);
  connect(m_analyse, &QPushButton::clicked, this, &ContrastivePage::analyse);
  m_cancel = new QPushButton(tr("Cancel"), inputs);
  connect(m_cancel, &QPushButton::clicked, this, &ContrastivePage::cancel);
  m_busy = new QProgressBar(inputs);
  m_busy->setRange(0, 0);
  m_busy->setMaximumHeight(14);
  m_job = new StatsRunner({m_analyse, m_cancel, m_busy}, this);
  auto* optionRow = new QHBoxLayout;
  optionRow->addWidget(new QLabel(tr("B"), inputs));
  optionRow->addWidget(m_resamples);
  optionRow->addWidget(new QLabel(tr("s"), inputs));
  optionRow->addWidget(m_sampleSize);
  optionRow->addWidget(vera);
  optionRow->addWidget(new QLabel(tr("permutations"), inputs));
  optionRow->addWidget(m_permutations);
  optionRow->addWidget(new QLabel(tr("level"), inputs));
  optionRow->addWidget(m_level);
  optionRow->addWidget(new QLabel(tr("seed"), inputs));
  optionRow->addWidget(m_seed);
  optionRow->addWidget(m_analyse);
  optionRow->addWidget(m_cancel);
  optionRow->addWidget(m_busy, 1);
  form->addRow(tr("Bootstrap:"), optionRow);

  m_status =
      new QLabel(tr("Evaluate runs on the Retrieval page, or add trec_eval -q files."), this);
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

  // Queries (left) and results (right).
  m_queries = new QuerySetModel(this);
  m_proxy = new QSortFilterProxyModel(this);
  m_proxy->setSourceModel(m_queries);
  m_proxy->setSortRole(QuerySetModel::SortRole);
  m_proxy->setFilterKeyColumn(-1);
  m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
  m_filter = new QLineEdit(this);
  m_filter->setPlaceholderText(tr("Filter queries (id or set)"));
  m_filter->setClearButtonEnabled(true);
  connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);
  m_table = new QTableView(this);
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  // setSortingEnabled sorts by the header's default indicator, descending: q29 ... q01.
  m_table->sortByColumn(QuerySetModel::Qid, Qt::AscendingOrder);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_table->verticalHeader()->setVisible(false);
  m_table->horizontalHeader()->setStretchLastSection(true);
  auto* queryPane = new QWidget(this);
  auto* ql = new QVBoxLayout(queryPane);
  ql->setContentsMargins(0, 0, 0, 0);
  ql->addWidget(m_filter);
  ql->addWidget(m_table);

  m_groups =
      smallTable({tr("Set"), tr("n"), tr("Mean"), tr("Bootstrap mean"), tr("CI"), tr("SE")}, this);
  m_pairs =
      smallTable({tr("Difference"), tr("Δ mean"), tr("CI"), tr("p (perm.)"), tr("p Holm")}, this);
  m_groups->setMaximumHeight(110);
  m_pairs->setMaximumHeight(110);
  m_chart = new charts::ChartWidget(this);
  m_chart->setPlaceholder(tr("Define two or more sets and press Analyse."));
  auto* resultPane = new QWidget(this);
  auto* rl = new QVBoxLayout(resultPane);
  rl->setContentsMargins(0, 0, 0, 0);
  rl->addWidget(m_groups);
  rl->addWidget(m_pairs);
  rl->addWidget(m_chart, 1);

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(queryPane);
  split->addWidget(resultPane);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 5);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(inputs);
  layout->addWidget(m_status);
  layout->addWidget(split, 1);
  updateSetsLabel();
}

const RunValues* ContrastivePage::runAt(int index) const { return m_sources->at(index); }

QStringList ContrastivePage::runNames() const {
  QStringList out;
  for (const RunValues* r : m_sources->all()) out << r->name;
  return out;
}

void ContrastivePage::refreshRuns() {
  const int run = std::max(0, m_run->currentIndex());
  const int splitRun = std::max(0, m_splitRun->currentIndex());
  for (QComboBox* box : {m_run, m_splitRun}) {
    box->blockSignals(true);
    box->clear();
    for (const RunValues* r : m_sources->all()) box->addItem(r->name, r->source);
    box->blockSignals(false);
  }
  if (m_run->count() > 0) m_run->setCurrentIndex(std::min(run, m_run->count() - 1));
  if (m_splitRun->count() > 0)
    m_splitRun->setCurrentIndex(std::min(splitRun, m_splitRun->count() - 1));
  // setCurrentIndex emits only on change; refresh explicitly.
  refreshMeasures();
  emit m_splitRun->currentIndexChanged(m_splitRun->currentIndex());
}

void ContrastivePage::refreshMeasures() {
  const QString keep = m_measure->currentText();
  m_measure->blockSignals(true);
  m_measure->clear();
  if (const RunValues* r = runAt(m_run->currentIndex())) m_measure->addItems(commonMeasures({*r}));
  const int idx = m_measure->findText(keep);
  if (idx >= 0) m_measure->setCurrentIndex(idx);
  m_measure->blockSignals(false);
  applySource();
}

void ContrastivePage::applySource() {
  const RunValues* r = runAt(m_run->currentIndex());
  const core::stats::QueryValues* values = nullptr;
  if (r)
    if (const auto it = r->table.find(m_measure->currentText().toStdString()); it != r->table.end())
      values = &it->second;
  if (!values) {
    m_queries->setValues({}, QString());
    updateSetsLabel();
    return;
  }
  m_queries->setValues(*values, measureLabel(m_measure->currentText()));
  fitQueryTable(m_table);
  updateSetsLabel();
}

bool ContrastivePage::setSource(int run, const QString& measure) {
  if (!runAt(run)) return false;
  m_run->setCurrentIndex(run);
  refreshMeasures();
  const int idx = m_measure->findText(measure);
  if (idx < 0) return false;
  m_measure->setCurrentIndex(idx);
  applySource();
  return m_queries->rowCount() > 0;
}

bool ContrastivePage::splitByHalves(int run, const QString& measure, const QString& topName,
                                    const QString& bottomName) {
  const RunValues* r = runAt(run);
  if (!r) return false;
  const auto it = r->table.find(measure.toStdString());
  if (it == r->table.end() || it->second.empty()) return false;
  std::vector<std::pair<std::string, double>> ordered(it->second.begin(), it->second.end());
  // Highest first; equal values by qid so the split is reproducible.
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  const std::size_t top = (ordered.size() + 1) / 2;
  std::vector<std::string> high, low;
  for (std::size_t i = 0; i < ordered.size(); ++i)
    (i < top ? high : low).push_back(ordered[i].first);
  m_queries->clearSets();
  m_queries->assign(high, topName);
  m_queries->assign(low, bottomName);
  m_queries->setSplitValues(it->second, tr("%1 of %2").arg(measureLabel(measure), r->name));
  fitQueryTable(m_table);
  updateSetsLabel();
  return true;
}

bool ContrastivePage::splitByThreshold(int run, const QString& measure, double threshold,
                                       const QString& highName, const QString& lowName) {
  const RunValues* r = runAt(run);
  if (!r) return false;
  const auto it = r->table.find(measure.toStdString());
  if (it == r->table.end()) return false;
  std::vector<std::string> high, low;
  for (const auto& [qid, v] : it->second) (v >= threshold ? high : low).push_back(qid);
  m_queries->clearSets();
  m_queries->assign(high, highName);
  m_queries->assign(low, lowName);
  m_queries->setSplitValues(it->second, tr("%1 of %2").arg(measureLabel(measure), r->name));
  updateSetsLabel();
  return true;
}

void ContrastivePage::assignQueries(const QStringList& qids, const QString& set) {
  std::vector<std::string> ids;
  for (const QString& q : qids) ids.push_back(q.toStdString());
  m_queries->assign(ids, set);
  updateSetsLabel();
}

void ContrastivePage::assignSelected() {
  QStringList qids;
  for (const QModelIndex& idx : m_table->selectionModel()->selectedRows())
    qids << QString::fromStdString(m_queries->qidAt(m_proxy->mapToSource(idx).row()));
  if (qids.isEmpty()) {
    m_status->setText(tr("Select queries in the table first (Ctrl/Shift-click for several)."));
    return;
  }
  assignQueries(qids, m_setName->currentText().trimmed());
}

int ContrastivePage::loadSetFile(const QString& path, const QString& set) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly | QIODevice::Text)) {
    m_status->setText(tr("%1: cannot read: %2").arg(path, file.errorString()));
    return -1;
  }
  QStringList ids;
  QTextStream in(&file);
  static const QRegularExpression ws(QStringLiteral("\\s+"));
  while (!in.atEnd()) {
    const QString line = in.readLine().trimmed();
    if (line.isEmpty() || line.startsWith(QLatin1Char('#'))) continue;
    ids << line.split(ws, Qt::SkipEmptyParts).front();
  }
  int known = 0;
  QStringList unknown;
  for (const QString& id : ids) {
    bool found = false;
    for (int r = 0; r < m_queries->rowCount() && !found; ++r)
      found = m_queries->qidAt(r) == id.toStdString();
    if (found)
      ++known;
    else
      unknown << id;
  }
  assignQueries(ids, set);
  QString text = tr("%1: %2 ids into \"%3\", %4 of them queries of the chosen run")
                     .arg(QFileInfo(path).fileName())
                     .arg(ids.size())
                     .arg(set)
                     .arg(known);
  if (!unknown.isEmpty())
    text += tr("; not in the run: %1%2")
                .arg(unknown.mid(0, 10).join(QStringLiteral(", ")),
                     unknown.size() > 10 ? QStringLiteral(", …") : QString());
  m_status->setText(text);
  return known;
}

void ContrastivePage::chooseSetFile() {
  const QString file = QFileDialog::getOpenFileName(this, tr("File of query ids (one per line)"));
  if (!file.isEmpty()) loadSetFile(file, m_setName->currentText().trimmed());
}

void ContrastivePage::clearSets() {
  m_queries->clearSets();
  updateSetsLabel();
}

void ContrastivePage::updateSetsLabel() {
  QStringList parts;
  for (const QString& s : m_queries->sets())
    parts << tr("%1: %2").arg(s).arg(m_queries->countOf(s));
  std::size_t unassigned = 0;
  for (int r = 0; r < m_queries->rowCount(); ++r)
    if (m_queries->setOf(m_queries->qidAt(r)).isEmpty()) ++unassigned;
  m_setsLabel->setText(
      parts.isEmpty()
          ? tr("No sets yet.")
          : tr("%1 (unassigned %2)").arg(parts.join(QStringLiteral(", "))).arg(unassigned));
}

void ContrastivePage::addPerQueryFiles(const QStringList& files) {
  m_sources->addPerQueryFiles(files);
}

void ContrastivePage::setResamples(int b) { m_resamples->setValue(b); }
void ContrastivePage::setSampleSize(int s) { m_sampleSize->setValue(s); }
void ContrastivePage::setPermutations(int n) { m_permutations->setValue(n); }
bool ContrastivePage::isRunning() const { return m_job->isRunning(); }
void ContrastivePage::cancel() { m_job->cancel(); }

void ContrastivePage::useVeraSetting() {
  m_sampleSize->setValue(50);
  m_resamples->setValue(500);
}

bool ContrastivePage::analyse() {
  std::vector<stats::NamedSample> sets;
  for (const QString& s : m_queries->sets()) {
    std::vector<double> values = m_queries->valuesOf(s);
    if (!values.empty()) sets.push_back({s.toStdString(), std::move(values)});
  }
  if (sets.size() < 2) {
    m_status->setText(tr("Define at least two non-empty query sets."));
    return false;
  }
  stats::ContrastiveOptions o;
  o.bootstrap.resamples = static_cast<std::size_t>(m_resamples->value());
  o.bootstrap.sampleSize = static_cast<std::size_t>(m_sampleSize->value());
  o.bootstrap.level = m_level->currentData().toDouble();
  o.bootstrap.seed = static_cast<std::uint64_t>(m_seed->value());
  o.permutations = static_cast<std::size_t>(m_permutations->value());
  m_analysedMeasure = m_measure->currentText();
  m_status->setText(tr("Bootstrapping %n set(s)…", nullptr, int(sets.size())));
  m_job->start<stats::ContrastiveResult>(
      [sets = std::move(sets), o](stats::ContrastiveResult& out,
                                  const std::atomic<bool>* cancel) mutable {
        o.bootstrap.cancel = cancel;
        out = stats::contrastive(sets, o);
      },
      [this](stats::ContrastiveResult result, bool cancelled) {
        m_result = std::move(result);
        onFinished(cancelled);
      });
  return true;
}

void ContrastivePage::onFinished(bool cancelled) {
  if (cancelled || !m_result.ok()) {
    m_status->setText(cancelled || m_result.cancelled
                          ? tr("Cancelled.")
                          : tr("Cannot analyse: %1").arg(QString::fromStdString(m_result.error)));
    emit analysisFinished(false);
    return;
  }
  const auto& r = m_result;
  m_groups->setRowCount(int(r.groups.size()));
  for (int i = 0; i < int(r.groups.size()); ++i) {
    const auto& b = r.groups[std::size_t(i)].bootstrap;
    setCell(m_groups, i, 0, QString::fromStdString(r.groups[std::size_t(i)].name), false);
    setCell(m_groups, i, 1, QString::number(b.n));
    setCell(m_groups, i, 2, QString::number(b.observedMean, 'f', 4));
    setCell(m_groups, i, 3, QString::number(b.mean, 'f', 4));
    setCell(m_groups, i, 4, formatInterval(b.ci));
    setCell(m_groups, i, 5, QString::number(b.standardError, 'f', 4));
  }
  m_pairs->setRowCount(int(r.pairs.size()));
  for (int i = 0; i < int(r.pairs.size()); ++i) {
    const auto& p = r.pairs[std::size_t(i)];
    setCell(m_pairs, i, 0,
            tr("%1 − %2").arg(QString::fromStdString(r.groups[p.first].name),
                              QString::fromStdString(r.groups[p.second].name)),
            false);
    setCell(m_pairs, i, 1, signedValue(p.meanDiff));
    setCell(m_pairs, i, 2, formatInterval(p.ci));
    setCell(m_pairs, i, 3, formatP(p.pPermutation));
    setCell(m_pairs, i, 4, formatP(p.pHolm));
  }
  m_groups->resizeColumnsToContents();
  m_pairs->resizeColumnsToContents();

  const QString label = measureLabel(m_analysedMeasure);
  const auto& first = r.groups.front().bootstrap;
  charts::OverlayChart spec;
  spec.title =
      tr("Bootstrap distributions of mean %1 (B = %2, s = %3)")
          .arg(label)
          .arg(first.resamples)
          .arg(m_sampleSize->value() > 0 ? QString::number(m_sampleSize->value()) : tr("n"));
  spec.valueTitle = tr("mean %1 per resample").arg(label);
  spec.level = first.level;
  for (const auto& g : r.groups)
    spec.groups.push_back({QString::fromStdString(g.name), g.bootstrap.distribution,
                           g.bootstrap.mean, g.bootstrap.ci.low, g.bootstrap.ci.high,
                           g.bootstrap.n});
  m_chart->setSpec(std::move(spec));
  QString text =
      tr("%1 of %2 on %n set(s)", nullptr, int(r.groups.size())).arg(label, m_run->currentText());
  if (!r.pairs.empty()) {
    const auto& p = r.pairs.front();
    // formatP gives "< 0.0001" for tiny p: "p < 0.0001", not "p = < 0.0001".
    const QString pText = formatP(p.pPermutation);
    text += tr(": %1 − %2 = %3, %4% CI %5, permutation p %6")
                .arg(QString::fromStdString(r.groups[p.first].name),
                     QString::fromStdString(r.groups[p.second].name), signedValue(p.meanDiff))
                .arg(first.level * 100, 0, 'g', 3)
                .arg(formatInterval(p.ci),
                     pText.startsWith(QLatin1Char('<')) ? pText : QStringLiteral("= ") + pText);
  }
  m_status->setText(text + QLatin1Char('.'));
  emit analysisFinished(true);
}

void ContrastivePage::showEvent(QShowEvent* event) {
  Page::showEvent(event);
  if (m_queries->rowCount() > 0) fitQueryTable(m_table);
  // Once more after the first layout and polish, which can change the fonts the widths used.
  QTimer::singleShot(0, this, [this] {
    if (m_queries->rowCount() > 0) fitQueryTable(m_table);
  });
}

QString ContrastivePage::statusText() const { return m_status->text(); }

}  // namespace ragscope::ui
