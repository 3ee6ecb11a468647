#pragma once
// A confusion matrix of two assessors as a table: rows the first's classes (A), columns the
// second's (B), each cell the count of items given that pair. Cells carry HeatmapModel::LabelRole,
// the count's share of its row (of the items A put in a class, the share B put in each: a
// dominant class, such as the many non-relevant pairs of TREC qrels, would otherwise leave every
// other cell pale), so HeatmapDelegate with Scale::Share paints it as a heatmap; DisplayRole and
// EditRole are the count (a number for File > Export view), ToolTipRole says what the cell is
// ("A 2, B 3: 7 of 100 pairs (7.0%), 35.0% of A's 2").
//
//   model->setMatrix({"0", "1", "2", "3"}, {"0", "1", "2", "3"}, counts, "A", "B");

#include <QAbstractTableModel>
#include <QStringList>
#include <cstddef>
#include <vector>

namespace ragscope::ui {

class ConfusionModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  explicit ConfusionModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  // counts[row][column]; every row has columns.size() entries. `rowSide` and `columnSide` name the
  // assessors in headers and tooltips ("A", "B").
  void setMatrix(QStringList rows, QStringList columns,
                 std::vector<std::vector<std::size_t>> counts, QString rowSide, QString columnSide);
  // The classes without counts (nothing compared yet): every cell empty, not 0.
  void setBlank(QStringList rows, QStringList columns, QString rowSide, QString columnSide);
  bool isBlank() const { return m_blank; }
  std::size_t count(int row, int column) const;
  std::size_t total() const { return m_total; }

 private:
  double rowShare(int row, std::size_t n) const;
  void assign(QStringList rows, QStringList columns, std::vector<std::vector<std::size_t>> counts,
              QString rowSide, QString columnSide);

  QStringList m_rows, m_columns;
  QString m_rowSide, m_columnSide;
  std::vector<std::vector<std::size_t>> m_counts;
  std::vector<std::size_t> m_rowTotals;
  std::size_t m_total = 0;
  bool m_blank = false;
};

}  // namespace ragscope::ui
