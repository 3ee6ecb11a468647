#pragma once
// The queries of a contrastive analysis: qid, the measure being compared, the value the sets were
// split by (when split by a column) and the named set each query belongs to (at most one). The
// page edits the assignment; rows stay in qid order and sort through SortRole in a proxy.

#include <QAbstractTableModel>
#include <QStringList>
#include <map>
#include <string>
#include <vector>

#include "core/stats/queryvalues.h"

namespace ragscope::ui {

class QuerySetModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int SortRole = Qt::UserRole;
  enum Column { Qid, Value, SplitValue, Set, ColumnCount };

  explicit QuerySetModel(QObject* parent = nullptr);

  // The measure's values (rows = its queries); assignments of queries still present are kept.
  void setValues(const core::stats::QueryValues& values, const QString& valueTitle);
  // The column the sets were split by (shown, not used in the analysis).
  void setSplitValues(const core::stats::QueryValues& values, const QString& title);

  void assign(const std::vector<std::string>& qids, const QString& set);
  void clearSets();
  // Set names in the order they were first used.
  QStringList sets() const { return m_sets; }
  // Values of the measure for the queries of a set, in qid order.
  std::vector<double> valuesOf(const QString& set) const;
  std::size_t countOf(const QString& set) const;
  const std::string& qidAt(int row) const { return m_qids[static_cast<std::size_t>(row)]; }
  QString setOf(const std::string& qid) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::vector<std::string> m_qids;
  std::vector<double> m_values;
  core::stats::QueryValues m_split;
  std::map<std::string, QString, std::less<>> m_assigned;
  QStringList m_sets;
  QString m_valueTitle;
  QString m_splitTitle;
};

}  // namespace ragscope::ui
