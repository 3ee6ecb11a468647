#pragma once
// One answer's claim x chunk matrix (RAGChecker's checking): row i is the answer's claim i,
// column k its retrieved chunk k, the cell the judge's verdict on the claim against that chunk
// alone. Cells carry HeatmapModel::LabelRole (1 supported, 0.5 neutral, 0 unsupported or
// contradiction, none when unparsed or failed), so HeatmapDelegate paints them, and a letter
// (S, U, E, N, C, ?, !) so the verdict reads without colour. A column header says whether the
// chunk is relevant (it supports a gold claim).

#include <QAbstractTableModel>
#include <memory>

#include "core/eval/jobs/judgejob.h"

namespace ragscope::ui {

class ClaimMatrixModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  explicit ClaimMatrixModel(QObject* parent = nullptr);

  // `query` must outlive the model's use of it (the report is held by the view).
  void setQuery(const core::eval::JudgedQuery* query);
  const core::eval::JudgedQuery* query() const { return m_query; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  // The letter and the [0, 1] value a label is shown with (no value: unparsed, error).
  static QString labelLetter(core::claims::Label label);
  static std::optional<double> labelValue(core::claims::Label label);

 private:
  const core::eval::JudgedQuery* m_query = nullptr;
  bool m_matrix = false;
};

}  // namespace ragscope::ui
