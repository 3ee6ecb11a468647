#pragma once
// Runs x measures: the `all` row of every evaluated run side by side, with the number of queries
// averaged (n) and, after each measure whose value is a mean of per-query values, its bootstrap
// 95% CI (filled in by setIntervals() once the background bootstrap is done).

#include <QAbstractTableModel>
#include <QStringList>
#include <map>
#include <string>
#include <vector>

#include "core/metrics/retrievalevaluator.h"
#include "core/stats/summary.h"

namespace ragscope::ui {

class EvalSummaryModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int SortRole = Qt::UserRole;
  // The measure (printed name) a column belongs to, for mean and CI columns; empty otherwise.
  static constexpr int MeasureRole = Qt::UserRole + 1;
  static constexpr int RunColumn = 0;
  static constexpr int CountColumn = 1;

  explicit EvalSummaryModel(QObject* parent = nullptr);

  void setResults(const std::vector<core::EvalResult>* results);
  // Per run (parallel to results), measure -> CI. Missing entries show "…" while computing.
  void setIntervals(std::vector<std::map<std::string, core::stats::Interval>> intervals,
                    double level);
  // Measure columns shown (printed names).
  const std::vector<std::string>& measures() const { return m_measures; }
  // The measure of a column (mean or CI column), empty for the run and n columns.
  std::string measureAt(int column) const;
  bool isIntervalColumn(int column) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  struct Column {
    std::size_t measure;  // index into m_measures
    bool interval;        // the CI column after the mean column
  };

  const std::vector<core::EvalResult>* m_results = nullptr;
  std::vector<std::string> m_measures;
  std::vector<Column> m_columns;  // after Run and n
  std::vector<std::map<std::string, core::stats::Interval>> m_intervals;
  double m_level = 0.95;
  QStringList m_names;
};

// Names for runs in tables and pickers: the run tag, and when several runs share a tag (rank_llm's
// runs are all tagged "rank") the tag with the file's folder and name.
QStringList runDisplayNames(const std::vector<core::EvalResult>& results);

// "0.5058" for measures, "9260" for counts: as trec_eval prints them.
QString formatMeasureValue(const core::MeasureColumn& column, double value);

// "[0.4442, 0.5667]".
QString formatInterval(core::stats::Interval ci, int decimals = 4);

}  // namespace ragscope::ui
