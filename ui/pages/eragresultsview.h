#pragma once
// The result views of an eRAG (and end-to-end) run, over core::eval::EvaluationResults as the
// core job API reads them back from the stores: a summary (means with bootstrap CIs and n), a
// per-query table, a heatmap of queries x ranks coloured by label whose cells drill down to the
// document text, the prompt and the generated output, and, with the end-to-end run, the
// correlation table of every evaluation method against end-to-end quality with a scatter of eRAG
// vs end-to-end per query. Selecting a measure column of the per-query table opens the statistics
// panel (bootstrap CI and histogram) on it. Shows only: nothing here reads a store.

#include <QWidget>
#include <memory>

#include "core/data/dataset.h"
#include "core/eval/api/job.h"

class QComboBox;
class QStandardItemModel;
class QTabWidget;
class QTableView;
class QTextBrowser;

namespace ragscope::ui {

namespace charts {
class ChartWidget;
}
class HeatmapModel;
class LabelBook;
class PpiSummary;
class StatsPanel;

class EragResultsView : public QWidget {
  Q_OBJECT
 public:
  explicit EragResultsView(QWidget* parent = nullptr);

  // `dataset` gives the questions and document texts (may be null: ids only).
  void setResults(std::shared_ptr<const core::eval::EvaluationResults> results,
                  std::shared_ptr<const core::Dataset> dataset);
  const core::eval::EvaluationResults* results() const { return m_results.get(); }

  // Opens the statistics panel on a measure column of the per-query table; false when the
  // column holds no measure.
  bool openStatistics(int column);
  // Selects a heatmap cell and shows its drill-down; false when out of range.
  bool drillDown(int queryRow, int rank);
  // Human eRAG document labels (core/labels/README.md): 0 or 1 on a heatmap cell labels its
  // document for its query (an EragDoc target of the eRAG run store), shown in the drill-down.
  void setLabelBook(LabelBook* book);
  bool labelDrilledDocument(int value);

  HeatmapModel* heatmap() const { return m_heatmap; }
  QTableView* heatmapView() const { return m_heatmapView; }
  QTextBrowser* drillView() const { return m_drill; }
  QTabWidget* tabs() const { return m_tabs; }
  QTableView* perQueryView() const { return m_perQueryView; }
  QTextBrowser* summaryView() const { return m_summary; }
  StatsPanel* statsPanel() const { return m_statsPanel; }
  PpiSummary* ppiSummary() const { return m_ppi; }
  QTableView* correlationView() const { return m_correlationView; }
  charts::ChartWidget* scatter() const { return m_scatter; }
  int heatmapTab() const { return m_heatmapTab; }
  int correlationTab() const { return m_correlationTab; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void updateScatter();
  QString humanLabelHtml(const QString& qid, const QString& docId) const;

  QTabWidget* m_tabs = nullptr;
  QTextBrowser* m_summary = nullptr;
  QStandardItemModel* m_perQuery = nullptr;
  QTableView* m_perQueryView = nullptr;
  HeatmapModel* m_heatmap = nullptr;
  QTableView* m_heatmapView = nullptr;
  QTextBrowser* m_drill = nullptr;
  QStandardItemModel* m_correlation = nullptr;
  QTableView* m_correlationView = nullptr;
  QComboBox* m_scatterMeasure = nullptr;
  charts::ChartWidget* m_scatter = nullptr;
  StatsPanel* m_statsPanel = nullptr;
  PpiSummary* m_ppi = nullptr;  // eRAG labels: judge-only, human-only and PPI (Summary tab)
  int m_heatmapTab = -1;
  int m_correlationTab = -1;
  std::shared_ptr<const core::eval::EvaluationResults> m_results;
  std::shared_ptr<const core::Dataset> m_dataset;
  LabelBook* m_book = nullptr;
};

}  // namespace ragscope::ui
