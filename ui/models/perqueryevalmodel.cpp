#include "ui/models/perqueryevalmodel.h"

#include <QBrush>
#include <QColor>

#include "ui/models/evalsummarymodel.h"
#include "ui/models/naturalsort.h"

namespace ragscope::ui {

PerQueryEvalModel::PerQueryEvalModel(QObject* parent) : QAbstractTableModel(parent) {}

void PerQueryEvalModel::setResult(const core::EvalResult* result) {
  beginResetModel();
  m_result = result;
  m_columns.clear();
  if (result) {
    for (std::size_t i = 0; i < result->columns.size(); ++i) {
      const auto& c = result->columns[i];
      // The count columns already lead the table; runid and num_q have no per-query value.
      if (!c.perQuery || !c.numeric() || c.kind == core::MeasureKind::NumQ ||
          c.kind == core::MeasureKind::NumRet || c.kind == core::MeasureKind::NumRel ||
          c.kind == core::MeasureKind::NumRelRet)
        continue;
      m_columns.push_back(i);
    }
  }
  endResetModel();
}

const core::QueryEval* PerQueryEvalModel::queryAt(int row) const {
  if (!m_result || row < 0 || row >= static_cast<int>(m_result->queries.size())) return nullptr;
  return &m_result->queries[row];
}

int PerQueryEvalModel::resultColumn(int column) const {
  if (!m_result || column < FixedCount || column - FixedCount >= static_cast<int>(m_columns.size()))
    return -1;
  return static_cast<int>(m_columns[column - FixedCount]);
}

int PerQueryEvalModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_result ? 0 : static_cast<int>(m_result->queries.size());
}

int PerQueryEvalModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_result ? 0 : FixedCount + static_cast<int>(m_columns.size());
}

QVariant PerQueryEvalModel::data(const QModelIndex& index, int role) const {
  const core::QueryEval* q = index.isValid() ? queryAt(index.row()) : nullptr;
  if (!q) return {};
  const int col = index.column();
  if (col == Qid) {
    if (role == Qt::DisplayRole) return QString::fromStdString(q->qid);
    if (role == SortRole) return naturalSortKey(QString::fromStdString(q->qid));
    if (role == Qt::ToolTipRole && !q->inRun)
      return tr("Absent from the run: counted as 0 (complete mode)");
    if (role == Qt::ForegroundRole && !q->inRun) return QBrush(QColor(150, 60, 60));
    return {};
  }
  if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
  if (col < FixedCount) {
    long v = 0;
    switch (col) {
      case Retrieved:
        v = q->numRet;
        break;
      case Relevant:
        v = q->numRel;
        break;
      case RelevantRetrieved:
        v = q->numRelRet;
        break;
      case JudgedRetrieved:
        v = q->numJudgedRet;
        break;
    }
    if (role == Qt::DisplayRole) return QString::number(v);
    if (role == SortRole) return static_cast<qlonglong>(v);
    return {};
  }
  const std::size_t c = m_columns[col - FixedCount];
  const double v = q->values[c];
  if (role == Qt::DisplayRole) return formatMeasureValue(m_result->columns[c], v);
  if (role == SortRole) return v;
  return {};
}

QVariant PerQueryEvalModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || !m_result) return {};
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case Retrieved:
        return tr("Documents retrieved (after any depth cut)");
      case Relevant:
        return tr("Relevant documents in the qrels (rel >= level)");
      case RelevantRetrieved:
        return tr("Relevant documents retrieved");
      case JudgedRetrieved:
        return tr("Retrieved documents that have a judgment");
      default:
        return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case Qid:
      return tr("Query");
    case Retrieved:
      return tr("Retrieved");
    case Relevant:
      return tr("Relevant");
    case RelevantRetrieved:
      return tr("Rel. retrieved");
    case JudgedRetrieved:
      return tr("Judged");
    default:
      return QString::fromStdString(m_result->columns[m_columns[section - FixedCount]].name);
  }
}

}  // namespace ragscope::ui
