#pragma once
// Runs x measures: the `all` row of every evaluated run side by side.

#include <QAbstractTableModel>
#include <QStringList>

#include <vector>

#include "core/metrics/retrievalevaluator.h"

namespace ragscope::ui {

class EvalSummaryModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int SortRole = Qt::UserRole;

  explicit EvalSummaryModel(QObject* parent = nullptr);

  void setResults(const std::vector<core::EvalResult>* results);
  // Measure columns shown (printed names); the first column is the run.
  const std::vector<std::string>& measures() const { return m_measures; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  const std::vector<core::EvalResult>* m_results = nullptr;
  std::vector<std::string> m_measures;
  QStringList m_names;
};

// Names for runs in tables and pickers: the run tag, and when several runs share a tag (rank_llm's
// runs are all tagged "rank") the tag with the file's folder and name.
QStringList runDisplayNames(const std::vector<core::EvalResult>& results);

// "0.5058" for measures, "9260" for counts: as trec_eval prints them.
QString formatMeasureValue(const core::MeasureColumn& column, double value);

}  // namespace ragscope::ui
