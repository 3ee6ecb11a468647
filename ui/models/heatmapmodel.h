#pragma once
// eRAG labels as a queries x ranks grid: cell (q, r) is the label G_q[d] of the document at rank
// r+1 of query q (0..1, from the generator's output on that document alone), or empty when that
// call has no output. HeatmapDelegate colours the cells; the page drills down on a click.

#include <QAbstractTableModel>
#include <QString>
#include <optional>
#include <string>
#include <vector>

namespace ragscope::ui {

struct HeatmapRow {
  QString qid;
  QString question;
  std::vector<QString> docIds;                // per rank
  std::vector<std::optional<double>> labels;  // per rank; nullopt: no output
};

class HeatmapModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  // Qt::UserRole on a cell: the label as double, or an invalid QVariant when missing.
  static constexpr int LabelRole = Qt::UserRole + 1;
  static constexpr int DocIdRole = Qt::UserRole + 2;

  explicit HeatmapModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  void setRows(std::vector<HeatmapRow> rows, int k);
  const HeatmapRow* row(int r) const;
  int k() const { return m_k; }
  // Mean label of a rank over the queries that have one (NaN when none): the column header's
  // tooltip.
  double rankMean(int rank) const;

 private:
  std::vector<HeatmapRow> m_rows;
  int m_k = 0;
};

}  // namespace ragscope::ui
