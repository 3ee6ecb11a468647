#include "ui/pages/eragresultsview.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QScrollBar>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "core/stats/correlation.h"
#include "ui/charts/chartwidget.h"
#include "ui/delegates/heatmapdelegate.h"
#include "ui/labelbook.h"
#include "ui/models/heatmapmodel.h"
#include "ui/models/naturalsort.h"
#include "ui/pages/ppisummary.h"
#include "ui/pages/resultitems.h"
#include "ui/pages/statspanel.h"
#include "ui/style.h"
#include "ui/textutil.h"

namespace ragscope::ui {

namespace {

// The eRAG report of `r`, or an empty one that says there is none (an end-to-end store alone).
const core::eval::EragReport& eragOf(const core::eval::EvaluationResults& r) {
  static const core::eval::EragReport none = [] {
    core::eval::EragReport report;
    report.error = "no eRAG run";
    return report;
  }();
  return r.erag ? *r.erag : none;
}

}  // namespace

EragResultsView::EragResultsView(QWidget* parent) : QWidget(parent) {
  m_tabs = new QTabWidget;
  m_summary = new QTextBrowser;
  // The summary, with the eRAG labels against the human document labels beneath.
  m_ppi = new PpiSummary;
  auto* summarySplit = new QSplitter(Qt::Vertical);
  summarySplit->addWidget(m_summary);
  summarySplit->addWidget(m_ppi);
  summarySplit->setStretchFactor(0, 3);
  summarySplit->setStretchFactor(1, 2);
  m_tabs->addTab(summarySplit, tr("Summary"));

  m_perQuery = new QStandardItemModel(this);
  m_perQuery->setSortRole(Qt::UserRole);
  m_perQueryView = new QTableView;
  m_perQueryView->setModel(m_perQuery);
  m_perQueryView->setSortingEnabled(true);
  m_perQueryView->verticalHeader()->hide();
  m_perQueryView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_perQueryView->setAlternatingRowColors(true);
  m_perQueryView->setWordWrap(
      false);  // one line per query; long questions show in full as tooltips
  m_perQueryView->verticalHeader()->setDefaultSectionSize(22);
  m_perQueryView->horizontalHeader()->setStretchLastSection(true);
  m_perQueryView->setToolTip(tr("Select a measure column for its bootstrap CI and histogram"));
  connect(m_perQueryView->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid()) openStatistics(current.column());
          });
  connect(m_perQueryView->horizontalHeader(), &QHeaderView::sectionClicked, this,
          &EragResultsView::openStatistics);
  m_tabs->addTab(m_perQueryView, tr("Per query"));

  m_heatmap = new HeatmapModel(this);
  m_heatmapView = new QTableView;
  m_heatmapView->setObjectName(QStringLiteral("EragHeatmap"));
  m_heatmapView->setModel(m_heatmap);
  m_heatmapView->setItemDelegate(new HeatmapDelegate(m_heatmapView));
  m_heatmapView->setSelectionMode(QAbstractItemView::SingleSelection);
  m_heatmapView->setShowGrid(false);
  m_heatmapView->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  m_heatmapView->horizontalHeader()->setDefaultSectionSize(64);
  m_heatmapView->verticalHeader()->setDefaultSectionSize(24);
  m_heatmapView->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  m_heatmapView->installEventFilter(this);  // 0 / 1: a human label for the cell's document
  m_drill = new QTextBrowser;
  m_drill->setObjectName(QStringLiteral("EragDrillDown"));
  m_drill->setPlaceholderText(
      tr("Click a cell: the document, the prompt and the generated output."));
  connect(m_heatmapView->selectionModel(), &QItemSelectionModel::currentChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid()) drillDown(current.row(), current.column());
          });
  auto* legend = new QLabel(
      tr("Label of the document at each rank: "
         "<span style='background:%1'>&nbsp;0&nbsp;</span> "
         "<span style='background:%2'>&nbsp;0.5&nbsp;</span> "
         "<span style='background:%3'>&nbsp;1&nbsp;</span> "
         "<span style='background:%4'>&nbsp;no output&nbsp;</span>")
          .arg(HeatmapDelegate::labelColour(0).name(), HeatmapDelegate::labelColour(0.5).name(),
               HeatmapDelegate::labelColour(1).name(), HeatmapDelegate::missingColour().name()));
  auto* heatLeft = new QWidget;
  auto* heatLeftLayout = new QVBoxLayout(heatLeft);
  heatLeftLayout->setContentsMargins(0, 0, 0, 0);
  heatLeftLayout->addWidget(legend);
  heatLeftLayout->addWidget(m_heatmapView, 1);
  auto* heatSplit = new QSplitter(Qt::Horizontal);
  heatSplit->addWidget(heatLeft);
  heatSplit->addWidget(m_drill);
  heatSplit->setStretchFactor(0, 2);
  heatSplit->setStretchFactor(1, 3);
  m_heatmapTab = m_tabs->addTab(heatSplit, tr("Heatmap"));

  m_correlation = new QStandardItemModel(this);
  m_correlation->setSortRole(Qt::UserRole);
  m_correlationView = new QTableView;
  m_correlationView->setModel(m_correlation);
  m_correlationView->verticalHeader()->hide();
  m_correlationView->setAlternatingRowColors(true);
  m_correlationView->setSortingEnabled(true);
  m_correlationView->horizontalHeader()->setStretchLastSection(true);
  m_scatterMeasure = new QComboBox;
  connect(m_scatterMeasure, &QComboBox::currentIndexChanged, this, &EragResultsView::updateScatter);
  m_scatter = new charts::ChartWidget;
  m_scatter->setPlaceholder(tr("Run eRAG with end-to-end to compare them per query."));
  auto* scatterBox = new QWidget;
  auto* scatterLayout = new QVBoxLayout(scatterBox);
  scatterLayout->setContentsMargins(0, 0, 0, 0);
  auto* scatterTop = new QHBoxLayout;
  scatterTop->addWidget(new QLabel(tr("eRAG measure:")));
  scatterTop->addWidget(m_scatterMeasure);
  scatterTop->addStretch(1);
  scatterLayout->addLayout(scatterTop);
  scatterLayout->addWidget(m_scatter, 1);
  // The table is wide (eleven columns): full width on top, the scatter beneath.
  auto* corrSplit = new QSplitter(Qt::Vertical);
  corrSplit->addWidget(m_correlationView);
  corrSplit->addWidget(scatterBox);
  // The scatter needs height to be read; the table scrolls.
  scatterBox->setMinimumHeight(260);
  corrSplit->setStretchFactor(0, 2);
  corrSplit->setStretchFactor(1, 3);
  m_correlationTab = m_tabs->addTab(corrSplit, tr("Correlation with end-to-end"));

  // The statistics panel sits beside the results, hidden until a measure column is selected.
  m_statsPanel = new StatsPanel;
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_statsPanel->placeBeside(m_tabs));
}

bool EragResultsView::openStatistics(int column) {
  if (!m_results || column < 2) return false;
  const core::eval::EvaluationResults& r = *m_results;
  const core::eval::EragReport& erag = eragOf(r);
  const auto& a = erag.aggregate;
  std::vector<std::string> qids;
  std::vector<double> values;
  QString run, measure;
  const std::size_t m = std::size_t(column - 2);
  if (m < a.measures.size()) {
    for (std::size_t i = 0; i < a.qids.size(); ++i)
      if (!std::isnan(a.values[m][i])) {
        qids.push_back(a.qids[i]);
        values.push_back(a.values[m][i]);
      }
    run = tr("eRAG (%1) · %2").arg(q(erag.metricKey), q(r.system));
    measure = q(a.measures[m]);
  } else if (m == a.measures.size() && r.e2e) {
    qids = r.e2e->qids;
    values = r.e2e->values;
    run = tr("end-to-end · %1").arg(q(r.system));
    measure = q(r.e2e->metricKey);
  } else {
    return false;
  }
  if (values.empty()) return false;
  m_statsPanel->setVisible(true);
  m_statsPanel->setSample(run, measure, std::move(qids), std::move(values));
  return true;
}

void EragResultsView::setResults(std::shared_ptr<const core::eval::EvaluationResults> results,
                                 std::shared_ptr<const core::Dataset> dataset) {
  m_results = std::move(results);
  if (m_results && m_results->erag)
    m_ppi->setSource([results = m_results](const auto& labels, const auto& folder) {
      std::vector<core::eval::PpiItems> out;
      if (auto m = core::eval::eragPpiItems(*results->erag, {folder, results->eragStore}, labels))
        out.push_back(std::move(*m));
      return out;
    });
  else
    m_ppi->setSource({});
  m_dataset = std::move(dataset);
  // The panel's sample belongs to the results it was opened on.
  m_statsPanel->clear();
  m_statsPanel->setVisible(false);
  const core::eval::EvaluationResults& r = *m_results;
  const core::eval::EragReport& erag = eragOf(r);
  const auto& a = erag.aggregate;

  // Summary.
  QString s;
  s += tr("<h3>eRAG of %1</h3>").arg(html(r.system));
  if (!r.error.empty()) s += errorHtml(html(r.error), "p");
  if (erag.error.empty()) {
    s += tr("<p>%1 queries scored with <b>%2</b> labels (%3)%4.</p>")
             .arg(a.qids.size())
             .arg(html(erag.metricKey))
             .arg(a.binary ? tr("binary: trec_eval measures over the labels")
                           : tr("continuous: P and success only"))
             .arg(erag.incomplete.empty()
                      ? QString()
                      : tr("; %1 incomplete queries left out").arg(erag.incomplete.size()));
    if (erag.heuristicOutputs)
      s += tr("<p><i>%1 outputs come from the offline heuristic reader, not an LLM.</i></p>")
               .arg(erag.heuristicOutputs);
    // n beside each mean: the queries it averages (a measure undefined for a query leaves it out).
    s += QStringLiteral(
             "<table cellpadding='4' border='0'><tr><th align='left'>%1</th><th "
             "align='right'>%2</th>"
             "<th align='left'>%3</th><th align='right'>%4</th></tr>")
             .arg(tr("measure"), tr("mean"), tr("95% CI"), tr("n"));
    const QString row = QStringLiteral(
        "<tr><td>%1</td><td align='right'>%2</td><td>%3</td><td align='right'>%4</td></tr>");
    for (std::size_t m = 0; m < a.measures.size(); ++m) {
      QString ci;
      if (m < erag.intervals.size() && erag.intervals[m].resamples > 0)
        ci = QStringLiteral("[%1, %2]")
                 .arg(number(erag.intervals[m].ci.low), number(erag.intervals[m].ci.high));
      const auto n = std::count_if(a.values[m].begin(), a.values[m].end(),
                                   [](double v) { return !std::isnan(v); });
      s += row.arg(tr("eRAG %1").arg(html(a.measures[m])), number(a.means[m]), ci).arg(n);
    }
    if (r.e2e) {
      QString ci;
      if (r.e2e->interval.resamples > 0)
        ci = QStringLiteral("[%1, %2]")
                 .arg(number(r.e2e->interval.ci.low), number(r.e2e->interval.ci.high));
      s += row.arg(tr("end-to-end %1").arg(html(r.e2e->metricKey)), number(r.e2e->mean), ci)
               .arg(r.e2e->values.size());
    }
    s += QStringLiteral("</table>");
  }
  s += tr("<p style='color:gray'>Run stores: %1%2</p>")
           .arg(html(r.eragStore.string()),
                r.e2eStore.empty() ? QString() : QStringLiteral(", ") + html(r.e2eStore.string()));
  m_summary->setHtml(s);

  // Per query.
  m_perQuery->clear();
  QStringList headers{tr("Query"), tr("Question")};
  for (const auto& m : a.measures) headers << tr("eRAG %1").arg(q(m));
  if (r.e2e) headers << tr("end-to-end");
  headers << tr("Labels by rank");
  m_perQuery->setHorizontalHeaderLabels(headers);
  std::unordered_map<std::string, std::size_t> aggIndex;
  for (std::size_t i = 0; i < a.qids.size(); ++i) aggIndex.emplace(a.qids[i], i);
  std::unordered_map<std::string, double> e2eScore;
  if (r.e2e)
    for (std::size_t i = 0; i < r.e2e->qids.size(); ++i)
      e2eScore.emplace(r.e2e->qids[i], r.e2e->values[i]);
  const auto& ds = m_dataset;
  std::unordered_map<std::string, const core::Query*> queries;
  if (ds)
    for (const auto& query : ds->queries) queries.emplace(query.id, &query);
  std::vector<HeatmapRow> heat;
  int k = 0;
  for (std::size_t qi = 0; qi < erag.queries.size(); ++qi) {
    const auto& pq = erag.queries[qi];
    QList<QStandardItem*> row;
    row << textItem(q(pq.qid));
    const auto qit = queries.find(pq.qid);
    row << textItem(qit != queries.end() ? q(qit->second->text) : QString());
    row.back()->setToolTip(row.back()->text());  // elided in the column
    const auto ai = aggIndex.find(pq.qid);
    for (std::size_t m = 0; m < a.measures.size(); ++m)
      row << numberItem(ai != aggIndex.end() ? a.values[m][ai->second] : std::nan(""));
    if (r.e2e) {
      const auto e = e2eScore.find(pq.qid);
      row << numberItem(e != e2eScore.end() ? e->second : std::nan(""));
    }
    QStringList labels;
    HeatmapRow h;
    h.qid = q(pq.qid);
    h.question = qit != queries.end() ? q(qit->second->text) : QString();
    for (std::size_t rank = 0; rank < pq.docIds.size(); ++rank) {
      const std::optional<double> label = qi < erag.labels.size() && rank < erag.labels[qi].size()
                                              ? erag.labels[qi][rank]
                                              : std::nullopt;
      labels << (label ? QString::number(*label, 'f', 2) : QStringLiteral("–"));
      h.docIds.push_back(q(pq.docIds[rank]));
      h.labels.push_back(label);
    }
    k = std::max(k, int(pq.docIds.size()));
    row << textItem(labels.join(QStringLiteral("  ")));
    m_perQuery->appendRow(row);
    heat.push_back(std::move(h));
  }
  m_perQueryView->resizeColumnsToContents();
  // Narrow enough that the measure columns stay in view beside the statistics panel.
  if (m_perQueryView->columnWidth(1) > 320) m_perQueryView->setColumnWidth(1, 320);
  m_heatmap->setRows(std::move(heat), k);
  m_drill->clear();

  // Correlation.
  m_correlation->clear();
  m_correlation->setHorizontalHeaderLabels(
      {tr("Method"), tr("Measure"), tr("n"), tr("Kendall τ"), tr("τ 95% CI"), tr("p (τ)"),
       tr("Spearman ρ"), tr("ρ 95% CI"), tr("method mean"), tr("end-to-end mean"), tr("Note")});
  if (r.correlation && !r.correlation->tables.empty()) {
    for (const auto& row : r.correlation->tables.front().rows) {
      const auto& res = row.result;
      auto ci = [](const core::stats::Interval& i) {
        return std::isnan(i.low)
                   ? QStringLiteral("–")
                   : QStringLiteral("[%1, %2]").arg(number(i.low, 3), number(i.high, 3));
      };
      m_correlation->appendRow({textItem(q(row.method)), textItem(q(row.measure)),
                                numberItem(double(row.n), 0), numberItem(res.kendall.value, 3),
                                textItem(ci(res.kendall.ci)), numberItem(res.kendall.p, 4),
                                numberItem(res.spearman.value, 3), textItem(ci(res.spearman.ci)),
                                numberItem(row.methodMean), numberItem(row.targetMean),
                                textItem(q(row.note.empty() ? res.error : row.note))});
    }
  } else if (!r.correlation) {
    m_correlation->appendRow({textItem(tr("Run end-to-end as well to correlate eRAG with it."))});
  } else {
    m_correlation->appendRow({textItem(q(r.correlation->error))});
  }
  m_correlationView->resizeColumnsToContents();
  {
    QSignalBlocker block(m_scatterMeasure);
    const QString previous = m_scatterMeasure->currentText();
    m_scatterMeasure->clear();
    for (const auto& m : a.measures) m_scatterMeasure->addItem(q(m));
    const int keep = m_scatterMeasure->findText(previous);
    m_scatterMeasure->setCurrentIndex(keep >= 0 ? keep : 0);
  }
  updateScatter();
}

void EragResultsView::updateScatter() {
  if (!m_results || !m_results->e2e) {
    m_scatter->setPlaceholder(tr("Run eRAG with end-to-end to compare them per query."));
    return;
  }
  const auto& a = eragOf(*m_results).aggregate;
  const auto m = a.measureIndex(m_scatterMeasure->currentText().toStdString());
  if (!m) return;
  std::unordered_map<std::string, double> e2e;
  for (std::size_t i = 0; i < m_results->e2e->qids.size(); ++i)
    e2e.emplace(m_results->e2e->qids[i], m_results->e2e->values[i]);
  charts::ScatterChart chart;
  for (std::size_t i = 0; i < a.qids.size(); ++i) {
    const auto it = e2e.find(a.qids[i]);
    if (it == e2e.end()) continue;
    chart.qids.push_back(q(a.qids[i]));
    chart.x.push_back(a.values[*m][i]);
    chart.y.push_back(it->second);
  }
  chart.tau = core::stats::kendallTauB(chart.x, chart.y);
  chart.rho = core::stats::spearmanRho(chart.x, chart.y);
  // Short: the chart appends tau and rho, and the axes name the measures.
  chart.title = tr("Per query (n = %1)").arg(chart.x.size());
  chart.xTitle = tr("eRAG %1").arg(m_scatterMeasure->currentText());
  chart.yTitle = tr("end-to-end %1").arg(q(m_results->e2e->metricKey));
  chart.diagonal = false;
  m_scatter->setSpec(std::move(chart));
}

bool EragResultsView::drillDown(int queryRow, int rank) {
  const HeatmapRow* row = m_heatmap->row(queryRow);
  if (!row || !m_results || rank < 0 || std::size_t(rank) >= row->docIds.size()) return false;
  const QModelIndex cell = m_heatmap->index(queryRow, rank);
  if (m_heatmapView->currentIndex() != cell) {
    m_heatmapView->setCurrentIndex(cell);  // re-enters through currentChanged
    return true;
  }
  const core::eval::EvaluationResults& r = *m_results;
  const core::eval::EragReport& erag = eragOf(r);
  const std::size_t qi = std::size_t(queryRow);
  const std::size_t ri = std::size_t(rank);
  const auto& pq = erag.queries[qi];
  const std::optional<double> label = row->labels[ri];
  const QString docId = row->docIds[ri];
  const std::string prompt =
      qi < r.prompts.size() && ri < r.prompts[qi].size() ? r.prompts[qi][ri] : std::string();
  const std::string output = qi < erag.outputs.size() && ri < erag.outputs[qi].size()
                                 ? erag.outputs[qi][ri]
                                 : std::string();
  const auto& ds = m_dataset;
  const auto doc = ds ? ds->corpus.find(docId.toStdString()) : std::nullopt;

  const QColor chip =
      label ? HeatmapDelegate::labelColour(*label) : HeatmapDelegate::missingColour();
  QString h;
  h += QStringLiteral("<h3>%1 · rank %2 · %3</h3>")
           .arg(row->qid.toHtmlEscaped())
           .arg(rank + 1)
           .arg(docId.toHtmlEscaped());
  h += tr("<p>Label <span style='background:%1'>&nbsp;<b>%2</b>&nbsp;</span> (%3 of the output "
          "against the gold answers)</p>")
           .arg(chip.name(), label ? QString::number(*label, 'f', 3) : tr("missing: no output"),
                html(erag.metricKey));
  if (!row->question.isEmpty()) h += humanLabelHtml(row->qid, docId);
  h += tr("<p><b>Question:</b> %1</p>").arg(row->question.toHtmlEscaped());
  QStringList gold;
  for (const auto& g : pq.gold) gold << html(g);
  h += tr("<p><b>Gold answers:</b> %1</p>")
           .arg(gold.isEmpty() ? tr("(none)") : gold.join(QStringLiteral(" | ")));
  const bool contains = ri < pq.contains.size() && pq.contains[ri] > 0.5;
  h += tr("<p><b>Document contains a gold answer:</b> %1</p>").arg(contains ? tr("yes") : tr("no"));
  const QString pre = QStringLiteral(
      "<pre style='white-space: pre-wrap; background:#f4f4f4; padding:4px'>%1</pre>");
  // A run has one generator: when the offline reader answered, every output is its
  // (core/llm/README.md).
  h += (erag.heuristicOutputs
            ? tr("<h4>Generated output <i>(offline heuristic reader, not an LLM)</i></h4>")
            : tr("<h4>Generated output</h4>")) +
       pre.arg(output.empty() ? tr("(no output)") : html(output));
  h += tr("<h4>Document text</h4>");
  if (doc)
    h += pre.arg((doc->title.empty() ? QString() : html(doc->title) + QStringLiteral("\n")) +
                 html(doc->fullText()));
  else
    h +=
        tr("<p><i>Not in the loaded dataset's corpus; the prompt below holds the text the "
           "generator saw.</i></p>");
  h += tr("<h4>Prompt</h4>") + pre.arg(prompt.empty() ? tr("(not stored)") : html(prompt));
  m_drill->setHtml(h);
  return true;
}

void EragResultsView::setLabelBook(LabelBook* book) {
  m_book = book;
  m_ppi->setLabelBook(book);
  if (!book) return;
  connect(book, &LabelBook::labelsChanged, this, [this] {
    const QModelIndex cell = m_heatmapView->currentIndex();
    if (cell.isValid() && !m_drill->toPlainText().isEmpty()) {
      const int scroll = m_drill->verticalScrollBar()->value();
      drillDown(cell.row(), cell.column());
      m_drill->verticalScrollBar()->setValue(scroll);
    }
  });
}

QString EragResultsView::humanLabelHtml(const QString& qid, const QString& docId) const {
  if (!m_book || !m_results) return {};
  const core::labels::Target target{core::labels::TargetKind::EragDoc,
                                    m_book->runScope(q(m_results->eragStore.string())),
                                    qid.toStdString(), docId.toStdString()};
  const auto snapshot = m_book->snapshot();
  QString h;
  if (const auto* shown = snapshot->shown(target, m_book->annotator().toStdString())) {
    h = tr("<p>Human label <span style='background:%1'>&nbsp;<b>%2</b>&nbsp;</span> (%3)")
            .arg(HeatmapDelegate::labelColour(QString::fromStdString(shown->value).toDouble())
                     .name(),
                 html(shown->value), html(shown->annotator));
    if (snapshot->of(target).size() > 1)
      h += tr(" and %n other annotator(s)", nullptr, int(snapshot->of(target).size() - 1));
    if (!shown->comment.empty()) h += QStringLiteral(" ✎ ") + html(shown->comment);
  } else {
    h = tr("<p>Human label: <i>none</i>");
  }
  return h + tr(" · press <b>0</b> or <b>1</b> on the cell to label this document</p>");
}

bool EragResultsView::labelDrilledDocument(int value) {
  const QModelIndex cell = m_heatmapView->currentIndex();
  const HeatmapRow* row = cell.isValid() ? m_heatmap->row(cell.row()) : nullptr;
  if (!m_book || !m_results || !row || cell.column() < 0 ||
      std::size_t(cell.column()) >= row->docIds.size() || (value != 0 && value != 1))
    return false;
  if (!m_book->ensureAnnotator(this)) return false;
  core::labels::Label label;
  label.target = {core::labels::TargetKind::EragDoc,
                  m_book->runScope(q(m_results->eragStore.string())), row->qid.toStdString(),
                  row->docIds[std::size_t(cell.column())].toStdString()};
  label.value = std::to_string(value);
  m_book->add(std::move(label));
  return true;
}

bool EragResultsView::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_heatmapView && event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    const bool plain =
        !(key->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier));
    if (plain && (key->key() == Qt::Key_0 || key->key() == Qt::Key_1)) {
      labelDrilledDocument(key->key() - Qt::Key_0);
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace ragscope::ui
