#include "ui/pages/claimsresultsview.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>

#include "core/claims/numpycompat.h"
#include "core/eval/inputs/storedscores.h"
#include "core/eval/jobs/claimverdicts.h"
#include "core/stats/paired.h"
#include "ui/charts/chartwidget.h"
#include "ui/delegates/heatmapdelegate.h"
#include "ui/models/claimmatrixmodel.h"
#include "ui/models/naturalsort.h"
#include "ui/pages/agreementview.h"
#include "ui/pages/claiminspector.h"
#include "ui/pages/labelqueue.h"
#include "ui/pages/ppisummary.h"
#include "ui/pages/resultitems.h"
#include "ui/pages/statspanel.h"
#include "ui/style.h"
#include "ui/textutil.h"

namespace ragscope::ui {

namespace {

using core::claims::Label;

constexpr int kSortRole = Qt::UserRole;  // as resultitems.h's cells
constexpr int kUnsupportedRole = Qt::UserRole + 2;
constexpr int kUnparsedRole = Qt::UserRole + 3;
constexpr int kQueryRole = Qt::UserRole + 4;

QString modeText(core::eval::JudgeMode mode) {
  switch (mode) {
    case core::eval::JudgeMode::RagScope:
      return QObject::tr(
          "ragscope mode: unparsed and failed verdicts never count as 0 or 1; an answer with "
          "nothing "
          "to score is empty, not 0");
    case core::eval::JudgeMode::RagChecker:
      return QObject::tr(
          "ragchecker compatibility mode: RAGChecker's numbers (unresolved labels not entailed, "
          "empty "
          "cases 0.0 and averaged); its own figure, round(mean × 100, 1), in brackets");
    case core::eval::JudgeMode::Ragas:
      return QObject::tr(
          "ragas compatibility mode: RAGAS's numbers (a failed row is NaN and left out of the "
          "mean; "
          "the denominator is the verdicts returned)");
  }
  return {};
}

QString stateText(core::claims::ScoreState s) {
  return QString::fromUtf8(core::claims::stateName(s));
}

// Answers shown by the text box (qid or question) and the two check boxes.
class AnswerFilter : public QSortFilterProxyModel {
 public:
  using QSortFilterProxyModel::QSortFilterProxyModel;
  void set(const QString& text, bool unsupported, bool unparsed) {
    m_text = text.trimmed();
    m_unsupported = unsupported;
    m_unparsed = unparsed;
    invalidateFilter();
  }

 protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override {
    const QModelIndex first = sourceModel()->index(row, 0, parent);
    if (m_unsupported && !first.data(kUnsupportedRole).toBool()) return false;
    if (m_unparsed && !first.data(kUnparsedRole).toBool()) return false;
    if (m_text.isEmpty()) return true;
    return first.data().toString().contains(m_text, Qt::CaseInsensitive) ||
           sourceModel()
               ->index(row, 1, parent)
               .data()
               .toString()
               .contains(m_text, Qt::CaseInsensitive);
  }

 private:
  QString m_text;
  bool m_unsupported = false;
  bool m_unparsed = false;
};

QTableView* makeView(QAbstractItemModel* model) {
  auto* v = new QTableView;
  v->setModel(model);
  v->setSortingEnabled(true);
  v->verticalHeader()->hide();
  v->setSelectionBehavior(QAbstractItemView::SelectRows);
  v->setSelectionMode(QAbstractItemView::SingleSelection);
  v->setAlternatingRowColors(true);
  v->setWordWrap(false);
  v->verticalHeader()->setDefaultSectionSize(22);
  v->horizontalHeader()->setStretchLastSection(true);
  return v;
}

bool hasUnparsed(const core::eval::JudgedQuery& query) {
  if (query.responseFailed || query.responseClaims.failed || query.goldClaims.failed) return true;
  for (const auto& v : query.verdicts)
    for (const Label l : v.labels)
      if (!core::claims::isResolved(l)) return true;
  for (const auto& m : query.values)
    if (m.state == core::claims::ScoreState::Unparsed || m.state == core::claims::ScoreState::Error)
      return true;
  return false;
}

}  // namespace

ClaimsResultsView::ClaimsResultsView(QWidget* parent) : QWidget(parent) {
  m_tabs = new QTabWidget;
  m_mode = new QLabel;
  m_mode->setWordWrap(true);
  m_mode->setTextInteractionFlags(Qt::TextSelectableByMouse);

  // Summary, with the paired comparison beneath.
  m_summary = new QStandardItemModel(this);
  m_summary->setSortRole(kSortRole);
  m_summaryView = makeView(m_summary);
  m_summaryView->setObjectName(QStringLiteral("ClaimsSummary"));
  m_summaryView->setToolTip(tr("Select a metric for its bootstrap CI and histogram"));
  connect(m_summaryView->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid()) openStatistics(current.row());
          });
  auto* compare = new QPushButton(tr("Compare with another claims run…"));
  compare->setToolTip(
      tr("Paired by query, on the selected metric: bootstrap CI of the mean difference, "
         "randomization and t tests, wins/ties/losses"));
  connect(compare, &QPushButton::clicked, this, [this] {
    const QString f = QFileDialog::getOpenFileName(
        this, tr("Claims run store"), QFileInfo(m_store).path(), tr("Run stores (*.db)"));
    if (!f.isEmpty()) compareWith(f);
  });
  m_comparison = new QLabel(
      tr("Select a metric, then compare with a second claims run of the same questions."));
  m_comparison->setWordWrap(true);
  m_comparison->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_comparisonChart = new charts::ChartWidget;
  m_comparisonChart->setPlaceholder(tr("Per-answer differences appear here."));
  auto* summaryBox = new QWidget;
  auto* summaryLayout = new QVBoxLayout(summaryBox);
  summaryLayout->setContentsMargins(0, 0, 0, 0);
  summaryLayout->addWidget(m_mode);
  summaryLayout->addWidget(m_summaryView, 3);
  m_ppi = new PpiSummary;
  summaryLayout->addWidget(m_ppi, 2);
  // A label added while the statistics panel is open updates its human-labels lines too.
  connect(m_ppi, &PpiSummary::estimatesChanged, this, [this] {
    if (m_statsPanel && !m_statsPanel->measure().isEmpty())
      m_statsPanel->setHumanLabels(m_ppi->estimate(m_statsPanel->measure().toStdString()));
  });
  auto* compareRow = new QHBoxLayout;
  compareRow->addWidget(m_comparison, 1);
  compareRow->addWidget(compare, 0, Qt::AlignTop);
  summaryLayout->addLayout(compareRow);
  summaryLayout->addWidget(m_comparisonChart, 4);
  m_comparisonChart->setVisible(false);  // until a comparison is made
  m_tabs->addTab(summaryBox, tr("Summary"));

  // Answers and the inspector.
  m_answers = new QStandardItemModel(this);
  auto* filter = new AnswerFilter(this);
  filter->setSourceModel(m_answers);
  filter->setSortRole(kSortRole);
  m_answerFilter = filter;
  m_answersView = makeView(m_answerFilter);
  m_answersView->setObjectName(QStringLiteral("ClaimsAnswers"));
  m_filterText = new QLineEdit;
  m_filterText->setPlaceholderText(tr("Filter by qid or question"));
  m_filterText->setClearButtonEnabled(true);
  m_filterUnsupported = new QCheckBox(tr("has unsupported claims"));
  m_filterUnparsed = new QCheckBox(tr("has unparsed or failed verdicts"));
  auto refilter = [this, filter] {
    filter->set(m_filterText->text(), m_filterUnsupported->isChecked(),
                m_filterUnparsed->isChecked());
  };
  connect(m_filterText, &QLineEdit::textChanged, this, refilter);
  connect(m_filterUnsupported, &QCheckBox::toggled, this, refilter);
  connect(m_filterUnparsed, &QCheckBox::toggled, this, refilter);
  connect(m_answersView->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid())
              showAnswer(m_answerFilter->index(current.row(), 0).data(kQueryRole).toInt());
          });
  auto* filterRow = new QHBoxLayout;
  filterRow->addWidget(m_filterText, 1);
  filterRow->addWidget(m_filterUnsupported);
  filterRow->addWidget(m_filterUnparsed);
  auto* answersBox = new QWidget;
  auto* answersLayout = new QVBoxLayout(answersBox);
  answersLayout->setContentsMargins(0, 0, 0, 0);
  answersLayout->addLayout(filterRow);
  answersLayout->addWidget(m_answersView, 1);
  m_inspector = new ClaimInspector;
  auto* answersSplit = new QSplitter(Qt::Horizontal);
  answersSplit->addWidget(answersBox);
  answersSplit->addWidget(m_inspector);
  answersSplit->setStretchFactor(0, 2);
  answersSplit->setStretchFactor(1, 3);
  m_answersTab = m_tabs->addTab(answersSplit, tr("Answers && claims"));

  // The claim x chunk matrix of the selected answer.
  m_matrix = new ClaimMatrixModel(this);
  m_matrixView = new QTableView;
  m_matrixView->setObjectName(QStringLiteral("ClaimChunkMatrix"));
  m_matrixView->setModel(m_matrix);
  m_matrixView->setItemDelegate(new HeatmapDelegate(m_matrixView));
  m_matrixView->setSelectionMode(QAbstractItemView::SingleSelection);
  m_matrixView->setShowGrid(false);
  m_matrixView->horizontalHeader()->setDefaultSectionSize(88);
  m_matrixView->verticalHeader()->setDefaultSectionSize(26);
  m_matrixTitle = new QLabel(tr("Select an answer on the Answers tab."));
  m_matrixTitle->setWordWrap(true);
  auto* matrixLegend = new QLabel(
      tr("Each claim of the answer (rows) against each retrieved chunk alone (columns): "
         "<span style='background:%1'>&nbsp;S/E supported&nbsp;</span> "
         "<span style='background:%2'>&nbsp;N neutral&nbsp;</span> "
         "<span style='background:%3'>&nbsp;U/C unsupported, contradiction&nbsp;</span> "
         "<span style='background:%4'>&nbsp;?/! unparsed, error&nbsp;</span>. "
         "A chunk is relevant when it supports a gold-answer claim.")
          .arg(HeatmapDelegate::labelColour(1).name(), HeatmapDelegate::labelColour(0.5).name(),
               HeatmapDelegate::labelColour(0).name(), HeatmapDelegate::missingColour().name()));
  matrixLegend->setWordWrap(true);
  m_matrixDetail = new QTextBrowser;
  m_matrixDetail->setObjectName(QStringLiteral("ClaimChunkDetail"));
  m_matrixDetail->setPlaceholderText(tr("Click a cell: the claim and the chunk."));
  connect(m_matrixView->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid()) showMatrixCell(current.row(), current.column());
          });
  auto* matrixLeft = new QWidget;
  auto* matrixLeftLayout = new QVBoxLayout(matrixLeft);
  matrixLeftLayout->setContentsMargins(0, 0, 0, 0);
  matrixLeftLayout->addWidget(m_matrixTitle);
  matrixLeftLayout->addWidget(matrixLegend);
  matrixLeftLayout->addWidget(m_matrixView, 1);
  auto* matrixSplit = new QSplitter(Qt::Horizontal);
  matrixSplit->addWidget(matrixLeft);
  matrixSplit->addWidget(m_matrixDetail);
  matrixSplit->setStretchFactor(0, 3);
  matrixSplit->setStretchFactor(1, 2);
  m_matrixTab = m_tabs->addTab(matrixSplit, tr("Claim × chunk"));

  // Every unsupported claim of the run.
  m_unsupported = new QStandardItemModel(this);
  m_unsupported->setSortRole(kSortRole);
  m_unsupportedView = makeView(m_unsupported);
  m_unsupportedView->setObjectName(QStringLiteral("UnsupportedClaims"));
  m_unsupportedView->setToolTip(tr("Double-click a claim to inspect its answer"));
  connect(m_unsupportedView, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    const int query = m_unsupported->index(index.row(), 0).data(kQueryRole).toInt();
    if (m_report && query >= 0 && std::size_t(query) < m_report->queries.size()) {
      selectAnswer(q(m_report->queries[std::size_t(query)].qid));
      m_tabs->setCurrentIndex(m_answersTab);
    }
  });
  m_unsupportedTab = m_tabs->addTab(m_unsupportedView, tr("Unsupported claims"));

  m_agreement = new AgreementView;
  m_agreementTab = m_tabs->addTab(m_agreement, tr("Judge vs human"));

  m_statsPanel = new StatsPanel;
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_statsPanel->placeBeside(m_tabs));
}

void ClaimsResultsView::setReport(std::shared_ptr<const core::eval::JudgeReport> report,
                                  const QString& store) {
  // The inspector and the matrix point into the old report: detach them before it goes.
  m_inspector->setQuery(nullptr, {});
  m_matrix->setQuery(nullptr);
  m_matrixDetail->clear();
  m_report = std::move(report);
  m_store = store;
  const std::filesystem::path storeFile(store.toStdString());
  m_ppi->setSource([report = m_report, storeFile](const auto& labels, const auto& folder) {
    return core::eval::claimPpiItems(*report, {folder, storeFile}, labels);
  });
  m_agreement->setReport(m_report, m_store);
  m_statsPanel->setVisible(false);
  m_comparisonChart->setSpec({});
  m_comparisonChart->setVisible(false);
  fillSummary();
  fillAnswers();
  fillUnsupported();
}

void ClaimsResultsView::fillSummary() {
  m_summary->clear();
  m_summary->setHorizontalHeaderLabels({tr("metric"), tr("mean"), tr("95% CI"),
                                        tr("answers with a value"), tr("claims scored / total"),
                                        tr("unparsed"), tr("error"), tr("empty")});
  if (!m_report) return;
  const auto& r = *m_report;
  QString mode = modeText(r.settings.mode);
  if (r.heuristic)
    mode +=
        tr(". <b>Heuristic judge</b>: the offline claim splitter and lexical judge, not an LLM");
  if (r.settings.repeats > 1)
    mode += tr(". Repeats: %1 per verdict, majority label; %2 of %3 claim verdicts flipped (flip "
               "rate %4)")
                .arg(r.settings.repeats)
                .arg(r.reliability.flippedCells)
                .arg(r.reliability.cells)
                .arg(r.reliability.flipRate, 0, 'f', 3);
  if (r.repairs) mode += tr(". %n repair retry/retries made", "", int(r.repairs));
  // Unparsed replies per reply path (core/claims/README.md, "Structured replies").
  for (const auto& [name, p] : {std::pair{tr("as text"), &r.textPath},
                                std::pair{tr("as JSON (structured outputs)"), &r.structuredPath}})
    if (p->used())
      mode += tr(". Read %1: %2 claim lists, %3 unparsed; %4 claim verdicts, %5 unparsed")
                  .arg(name)
                  .arg(p->extractions)
                  .arg(p->extractionsUnparsed)
                  .arg(p->verdicts)
                  .arg(p->verdictsUnparsed);
  if (r.pendingItems)
    mode +=
        tr(". <b>Partial</b>: %n call(s) not made yet (resume the run)", "", int(r.pendingItems));
  if (!r.error.empty()) mode = errorHtml(html(r.error));
  m_mode->setText(mode);
  const bool ragchecker = r.settings.mode == core::eval::JudgeMode::RagChecker;
  for (const auto& m : r.metrics) {
    QList<QStandardItem*> row;
    row << textItem(q(m.name));
    const std::optional<double> mean =
        std::isnan(m.mean) ? std::nullopt : std::optional<double>(m.mean);
    row << numberItem(mean, 4,
                      ragchecker && mean ? QStringLiteral(" (%1)").arg(
                                               core::claims::ragcheckerPercent(*mean), 0, 'f', 1)
                                         : QString());
    row << textItem(m.ci95
                        ? QStringLiteral("[%1, %2]").arg(number(m.ci95->low), number(m.ci95->high))
                        : QStringLiteral("–"),
                    m.ci95 ? QVariant(m.ci95->low) : QVariant(-1e300));
    row << textItem(QStringLiteral("%1 / %2").arg(m.queries).arg(r.queries.size()),
                    double(m.queries));
    row << textItem(QStringLiteral("%1 / %2").arg(m.itemsScored).arg(m.itemsTotal),
                    double(m.itemsScored));
    row << countItem(m.unparsed) << countItem(m.errors) << countItem(m.empty);
    if (m.unparsed || m.errors)
      row[5]->setForeground(QColor(0xb0, 0x1c, 0x1c)),
          row[6]->setForeground(QColor(0xb0, 0x1c, 0x1c));
    m_summary->appendRow(row);
  }
  m_summaryView->resizeColumnsToContents();
  m_summaryView->horizontalHeader()->setStretchLastSection(true);
}

void ClaimsResultsView::fillAnswers() {
  m_answers->clear();
  QStringList headers = {tr("qid"), tr("question")};
  if (m_report)
    for (const auto& m : m_report->metrics) headers << q(m.name);
  headers << tr("claims") << tr("unsupported") << tr("state");
  m_answers->setHorizontalHeaderLabels(headers);
  if (!m_report) return;
  for (std::size_t i = 0; i < m_report->queries.size(); ++i) {
    const auto& query = m_report->queries[i];
    std::size_t unsupported = 0;
    for (std::size_t c = 0; c < query.responseClaims.claims.size(); ++c) {
      const auto l = core::eval::responseClaimVsChunks(query, c);
      if (l && core::claims::isResolved(*l) && !core::claims::isSupported(*l)) ++unsupported;
    }
    const bool unparsed = hasUnparsed(query);
    QList<QStandardItem*> row;
    auto* id = textItem(q(query.qid));
    id->setData(unsupported > 0, kUnsupportedRole);
    id->setData(unparsed, kUnparsedRole);
    id->setData(int(i), kQueryRole);
    row << id;
    auto* question = textItem(q(query.question));
    question->setToolTip(q(query.question));
    row << question;
    QStringList states;
    for (const auto& v : query.values) {
      auto* item = numberItem(v.value);
      if (!v.value) item->setText(QStringLiteral("– %1").arg(stateText(v.state)));
      item->setToolTip(tr("%1 of %2 claims decided; %3")
                           .arg(v.scored)
                           .arg(v.total)
                           .arg(v.problem.empty() ? stateText(v.state) : q(v.problem)));
      row << item;
      if (v.state != core::claims::ScoreState::Scored) states << stateText(v.state);
    }
    row << countItem(query.responseClaims.claims.size()) << countItem(unsupported);
    states.removeDuplicates();
    auto* state = textItem(unparsed           ? tr("has unparsed / failed")
                           : states.isEmpty() ? tr("scored")
                                              : states.join(QStringLiteral(", ")));
    if (unparsed) state->setForeground(QColor(0x70, 0x70, 0x70));
    row << state;
    m_answers->appendRow(row);
  }
  m_answersView->sortByColumn(0, Qt::AscendingOrder);  // reading order of query ids
  m_answersView->resizeColumnsToContents();
  m_answersView->setColumnWidth(1, std::min(m_answersView->columnWidth(1), 320));
}

void ClaimsResultsView::fillUnsupported() {
  m_unsupported->clear();
  QStringList headers = {tr("qid")};
  const std::string metric =
      m_report && !m_report->metrics.empty() ? m_report->metrics.front().name : std::string();
  headers << (metric.empty() ? tr("metric") : q(metric)) << tr("verdict") << tr("claim")
          << tr("closest chunk") << tr("question");
  m_unsupported->setHorizontalHeaderLabels(headers);
  if (!m_report) return;
  for (const auto& u : core::eval::unsupportedClaims(*m_report)) {
    const auto& query = m_report->queries[u.query];
    QList<QStandardItem*> row;
    auto* id = textItem(q(query.qid));
    id->setData(int(u.query), kQueryRole);
    row << id;
    row << numberItem(query.values.empty() ? std::nullopt : query.values.front().value);
    const auto state = ClaimInspector::stateOf(u.label);
    auto* verdict = textItem(ClaimInspector::marker(state) + QLatin1Char(' ') +
                             ClaimInspector::stateName(state));
    verdict->setBackground(ClaimInspector::colour(state));
    verdict->setForeground(state == ClaimInspector::ClaimState::Contradiction
                               ? QColor(Qt::white)
                               : QColor(0x10, 0x10, 0x10));
    row << verdict;
    auto* claim = textItem(q(query.responseClaims.claims[u.claim]));
    claim->setToolTip(claim->text());
    row << claim;
    if (u.closestChunk) {
      const auto& chunk = query.chunks[*u.closestChunk];
      auto* c = textItem(QStringLiteral("%1: %2").arg(q(chunk.id), q(chunk.text).left(160)));
      c->setToolTip(q(chunk.text).left(1500));
      row << c;
    } else {
      row << textItem(tr("(no chunk shares its words)"));
    }
    row << textItem(q(query.question));
    m_unsupported->appendRow(row);
  }
  m_unsupportedView->resizeColumnsToContents();
  m_unsupportedView->setColumnWidth(3, std::min(m_unsupportedView->columnWidth(3), 420));
  m_unsupportedView->setColumnWidth(4, std::min(m_unsupportedView->columnWidth(4), 360));
  m_tabs->setTabText(m_unsupportedTab,
                     tr("Unsupported claims (%1)").arg(m_unsupported->rowCount()));
}

void ClaimsResultsView::showAnswer(int queryIndex) {
  if (!m_report || queryIndex < 0 || std::size_t(queryIndex) >= m_report->queries.size()) return;
  const auto* query = &m_report->queries[std::size_t(queryIndex)];
  m_inspector->setQuery(query, m_store);
  m_matrix->setQuery(query);
  m_matrixDetail->clear();
  if (core::eval::hasClaimChunkMatrix(*query))
    m_matrixTitle->setText(tr("<b>%1</b>: %2 claims × %3 chunks")
                               .arg(html(query->qid))
                               .arg(query->responseClaims.claims.size())
                               .arg(query->chunks.size()));
  else
    m_matrixTitle->setText(tr("<b>%1</b>: the chunks were not judged one by one in this run. Run "
                              "with the claim × chunk "
                              "matrix (or RAGChecker's metrics) to see it.")
                               .arg(html(query->qid)));
}

void ClaimsResultsView::showMatrixCell(int row, int column) {
  const auto* query = m_matrix->query();
  if (!query || row < 0 || column < 0 || std::size_t(row) >= query->responseClaims.claims.size() ||
      std::size_t(column) >= query->chunks.size())
    return;
  const auto label = core::eval::claimVsChunk(*query, std::size_t(row), std::size_t(column));
  const auto state = ClaimInspector::stateOf(label);
  const auto relevant = core::eval::chunkRelevant(*query, std::size_t(column));
  m_matrixDetail->setHtml(
      tr("<p><b>Claim %1</b> vs <b>chunk %2</b>: %3 %4</p><p>%5</p><hr><p><b>%6</b>%7</p><p>%8</p>")
          .arg(row + 1)
          .arg(column + 1)
          .arg(ClaimInspector::marker(state), ClaimInspector::stateName(state),
               html(query->responseClaims.claims[std::size_t(row)]),
               html(query->chunks[std::size_t(column)].id),
               !relevant   ? QString()
               : *relevant ? tr(" — relevant (supports a gold claim)")
                           : tr(" — supports no gold claim"),
               html(query->chunks[std::size_t(column)].text)));
}

int ClaimsResultsView::currentMetric() const {
  const QModelIndex current = m_summaryView->currentIndex();
  return current.isValid() ? current.row() : -1;
}

bool ClaimsResultsView::openStatistics(int metricRow) {
  if (!m_report || metricRow < 0 || std::size_t(metricRow) >= m_report->metrics.size())
    return false;
  const std::size_t m = std::size_t(metricRow);
  std::vector<std::string> qids;
  std::vector<double> values;
  for (const auto& query : m_report->queries)
    if (m < query.values.size() && query.values[m].value) {
      qids.push_back(query.qid);
      values.push_back(*query.values[m].value);
    }
  if (values.empty()) return false;
  m_statsPanel->setVisible(true);
  m_statsPanel->setSample(tr("claims · %1").arg(QFileInfo(m_store).fileName()),
                          q(m_report->metrics[m].name), std::move(qids), std::move(values));
  m_statsPanel->setHumanLabels(m_ppi->estimate(m_report->metrics[m].name));
  return true;
}

bool ClaimsResultsView::selectAnswer(const QString& qid) {
  for (int r = 0; r < m_answers->rowCount(); ++r) {
    if (m_answers->item(r, 0)->text() != qid) continue;
    QModelIndex index = m_answerFilter->mapFromSource(m_answers->index(r, 0));
    if (!index.isValid()) {
      m_filterText->clear();
      m_filterUnsupported->setChecked(false);
      m_filterUnparsed->setChecked(false);
      index = m_answerFilter->mapFromSource(m_answers->index(r, 0));
    }
    m_answersView->setCurrentIndex(index);
    return true;
  }
  return false;
}

void ClaimsResultsView::setTextFilter(const QString& text) { m_filterText->setText(text); }
void ClaimsResultsView::setUnsupportedFilter(bool on) { m_filterUnsupported->setChecked(on); }
void ClaimsResultsView::setUnparsedFilter(bool on) { m_filterUnparsed->setChecked(on); }
int ClaimsResultsView::visibleAnswers() const { return m_answerFilter->rowCount(); }

bool ClaimsResultsView::compareWith(const QString& otherStore) {
  if (!m_report || m_report->metrics.empty()) return false;
  const int metric = std::max(0, currentMetric());
  const std::string name = m_report->metrics[std::size_t(metric)].name;
  const auto mine = core::eval::judgeMeasureTable(*m_report);
  const auto it = mine.find(name);
  if (it == mine.end()) return false;
  const int generation = ++m_compareGeneration;
  m_comparison->setText(tr("Comparing %1 with %2…").arg(q(name), QFileInfo(otherStore).fileName()));
  struct Outcome {
    core::stats::PairedResult paired;
    std::vector<std::string> qids;
    std::vector<double> differences;
    std::string error;
  };
  auto* watcher = new QFutureWatcher<Outcome>(this);
  connect(
      watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, name, otherStore] {
        const Outcome o = watcher->result();
        watcher->deleteLater();
        if (generation != m_compareGeneration) return;
        if (!o.error.empty()) {
          m_comparison->setText(tr("Not compared: %1").arg(q(o.error)));
          emit compared(false);
          return;
        }
        const auto& p = o.paired;
        QString text = tr("<b>%1</b>: this run %2 vs %3 %4 over %5 answers in both: difference %6, "
                          "95% CI [%7, %8]; "
                          "randomization p = %9, t-test p = %10; wins/ties/losses %11/%12/%13")
                           .arg(q(name), number(p.meanA),
                                QFileInfo(otherStore).fileName().toHtmlEscaped(), number(p.meanB))
                           .arg(p.n)
                           .arg(number(p.meanDiff), number(p.ci.low), number(p.ci.high))
                           .arg(p.randomization.p, 0, 'g', 4)
                           .arg(p.ttest.p, 0, 'g', 4)
                           .arg(p.wins)
                           .arg(p.ties)
                           .arg(p.losses);
        if (p.unaligned()) text += tr("; %1 answers in one run only (left out)").arg(p.unaligned());
        m_comparison->setText(text);
        charts::PairedDifferenceChart chart;
        chart.title = tr("%1: this run − %2").arg(q(name), QFileInfo(otherStore).fileName());
        chart.valueTitle = tr("%1 difference").arg(q(name));
        for (const auto& id : o.qids) chart.qids.push_back(q(id));
        chart.differences = o.differences;
        chart.meanDiff = p.meanDiff;
        chart.ciLow = p.ci.low;
        chart.ciHigh = p.ci.high;
        m_comparisonChart->setSpec(std::move(chart));
        m_comparisonChart->setVisible(true);
        emit compared(true);
      });
  watcher->setFuture(QtConcurrent::run([mine = it->second, path = otherStore.toStdString(), name] {
    Outcome o;
    const auto other = core::eval::readStoredScores(path);
    if (!other.ok()) {
      o.error = other.error;
      return o;
    }
    const auto theirs = other.table.find(name);
    if (theirs == other.table.end()) {
      o.error = path + " has no metric '" + name + "'";
      return o;
    }
    const auto sample = core::stats::alignByQid(mine, theirs->second);
    core::stats::PairedOptions options;
    options.threads = 1;
    o.paired = core::stats::comparePaired(sample, options);
    if (!o.paired.ok()) o.error = o.paired.error.empty() ? "cancelled" : o.paired.error;
    o.qids = sample.qids;
    for (std::size_t i = 0; i < sample.a.size(); ++i)
      o.differences.push_back(sample.a[i] - sample.b[i]);
    return o;
  }));
  return true;
}

void ClaimsResultsView::setLabelBook(LabelBook* book) {
  m_labelBook = book;
  m_ppi->setLabelBook(book);
  m_inspector->setLabelBook(book);
  m_agreement->setLabelBook(book);
  connect(m_inspector, &ClaimInspector::queueRequested, this, &ClaimsResultsView::openLabelQueue,
          Qt::UniqueConnection);
}

void ClaimsResultsView::openLabelQueue() {
  if (!m_labelBook || !m_report) return;
  auto* queue = LabelQueue::claimsQueue(m_labelBook, m_report, m_store, this);
  queue->show();
  queue->raise();
}

}  // namespace ragscope::ui
