#include "ui/models/heatmapmodel.h"

#include <cmath>
#include <limits>

namespace ragscope::ui {

HeatmapModel::HeatmapModel(QObject* parent) : QAbstractTableModel(parent) {}

int HeatmapModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(m_rows.size());
}
int HeatmapModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : m_k;
}

QVariant HeatmapModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= m_k) return {};
  const HeatmapRow& r = m_rows[std::size_t(index.row())];
  const std::size_t c = std::size_t(index.column());
  const bool has = c < r.labels.size() && r.labels[c].has_value();
  const QString doc = c < r.docIds.size() ? r.docIds[c] : QString();
  switch (role) {
    case Qt::DisplayRole:
      if (c >= r.docIds.size()) return QString();
      return has ? QString::number(*r.labels[c], 'f', 2) : QStringLiteral("–");
    case LabelRole:
      return has ? QVariant(*r.labels[c]) : QVariant();
    case DocIdRole:
      return doc;
    case Qt::ToolTipRole:
      if (c >= r.docIds.size())
        return tr("query %1 has fewer than %2 documents").arg(r.qid).arg(c + 1);
      return tr("%1, rank %2: %3\nlabel %4")
          .arg(r.qid)
          .arg(c + 1)
          .arg(doc, has ? QString::number(*r.labels[c], 'f', 3) : tr("missing (no output)"));
    case Qt::TextAlignmentRole:
      return int(Qt::AlignCenter);
    default:
      return {};
  }
}

QVariant HeatmapModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Horizontal) {
    if (section < 0 || section >= m_k) return {};
    if (role == Qt::DisplayRole) return tr("rank %1").arg(section + 1);
    if (role == Qt::ToolTipRole) {
      const double m = rankMean(section);
      return std::isnan(m) ? tr("no labels")
                           : tr("mean label at rank %1: %2").arg(section + 1).arg(m, 0, 'f', 3);
    }
    return {};
  }
  if (section < 0 || section >= rowCount()) return {};
  if (role == Qt::DisplayRole) return m_rows[std::size_t(section)].qid;
  if (role == Qt::ToolTipRole) return m_rows[std::size_t(section)].question;
  return {};
}

void HeatmapModel::setRows(std::vector<HeatmapRow> rows, int k) {
  beginResetModel();
  m_rows = std::move(rows);
  m_k = std::max(0, k);
  endResetModel();
}

const HeatmapRow* HeatmapModel::row(int r) const {
  return r >= 0 && r < rowCount() ? &m_rows[std::size_t(r)] : nullptr;
}

double HeatmapModel::rankMean(int rank) const {
  double sum = 0.0;
  int n = 0;
  for (const auto& r : m_rows)
    if (std::size_t(rank) < r.labels.size() && r.labels[std::size_t(rank)]) {
      sum += *r.labels[std::size_t(rank)];
      ++n;
    }
  return n ? sum / n : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace ragscope::ui
