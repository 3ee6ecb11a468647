#pragma once
// The dataset's queries as a table. The model reads the dataset's vector directly (no copies, no
// item objects) so a million rows cost only what the view shows; sorting and filtering live in
// QueryFilterProxyModel, which compares the core strings without building QStrings.

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <array>
#include <memory>
#include <vector>

#include "core/data/dataset.h"
#include "ui/models/textfilterproxy.h"

namespace ragscope::ui {

class QueryTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Id, Text, Answers, GoldDocs, Judged, Task, Line, Flags, ColumnCount };
  // Sort keys: numbers for numeric columns, strings otherwise.
  static constexpr int SortRole = Qt::UserRole;
  // The row's index into Dataset::queries (stable across proxies).
  static constexpr int QueryIndexRole = Qt::UserRole + 1;

  explicit QueryTableModel(QObject* parent = nullptr);

  void setDataset(std::shared_ptr<const core::Dataset> dataset);
  const core::Dataset* dataset() const { return m_dataset.get(); }
  const core::Query* query(int row) const;
  int judgedCount(int row) const;
  // The row of the query whose record holds `line` of its file: the exact line, else the last
  // query starting before it (multi-line CSV records, skipped lines). -1 when none.
  int rowForLine(quint64 line) const;
  // True when no query has a value in this column (the view hides it).
  bool isColumnEmpty(int column) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::shared_ptr<const core::Dataset> m_dataset;
  std::vector<std::uint32_t> m_judged;      // judgments per query, computed once per dataset
  std::vector<std::uint32_t> m_rowsByLine;  // query rows ordered by their line
  std::array<bool, ColumnCount> m_hasData{};
};

// The filter text matches id and text; flaggedOnly keeps the queries with flags.
class QueryFilterProxyModel : public TextFilterProxyModel {
  Q_OBJECT
 public:
  explicit QueryFilterProxyModel(QObject* parent = nullptr);

  void setFlaggedOnly(bool on);

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

 private:
  bool m_flaggedOnly = false;
};

}  // namespace ragscope::ui
