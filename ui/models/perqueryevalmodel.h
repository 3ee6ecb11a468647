#pragma once
// One run's per-query results: qid, retrieved / relevant / relevant retrieved / judged counts, then
// every per-query measure. Numbers sort numerically through SortRole (in a proxy).

#include <QAbstractTableModel>

#include "core/metrics/retrievalevaluator.h"

namespace ragscope::ui {

class PerQueryEvalModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int SortRole = Qt::UserRole;
  enum FixedColumn { Qid, Retrieved, Relevant, RelevantRetrieved, JudgedRetrieved, FixedCount };

  explicit PerQueryEvalModel(QObject* parent = nullptr);

  void setResult(const core::EvalResult* result);
  const core::EvalResult* result() const { return m_result; }
  const core::QueryEval* queryAt(int row) const;
  // Index into result()->columns of a measure column; -1 for the fixed columns.
  int resultColumn(int column) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  const core::EvalResult* m_result = nullptr;
  std::vector<std::size_t> m_columns;  // indices into result->columns printed per query
};

}  // namespace ragscope::ui
