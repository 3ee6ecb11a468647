#include "ui/models/confusionmodel.h"

#include "ui/models/heatmapmodel.h"

namespace ragscope::ui {

ConfusionModel::ConfusionModel(QObject* parent) : QAbstractTableModel(parent) {}

int ConfusionModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_counts.size());
}

int ConfusionModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() || m_counts.empty() ? 0 : static_cast<int>(m_columns.size());
}

std::size_t ConfusionModel::count(int row, int column) const {
  if (row < 0 || column < 0 || row >= rowCount() || column >= columnCount()) return 0;
  return m_counts[std::size_t(row)][std::size_t(column)];
}

double ConfusionModel::rowShare(int row, std::size_t n) const {
  const std::size_t total = m_rowTotals[std::size_t(row)];
  // An empty row (a grade A never gave) has no shares: its cells are white, not undefined.
  return total == 0 ? 0.0 : static_cast<double>(n) / static_cast<double>(total);
}

QVariant ConfusionModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  if (m_blank) return role == Qt::TextAlignmentRole ? QVariant(int(Qt::AlignCenter)) : QVariant();
  const std::size_t n = count(index.row(), index.column());
  switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
      return static_cast<qulonglong>(n);
    case HeatmapModel::LabelRole:
      return rowShare(index.row(), n);
    case Qt::ToolTipRole: {
      const double share = m_total == 0 ? 0.0 : 100.0 * double(n) / double(m_total);
      return tr("%1 %2, %3 %4: %5 of %6 pairs (%7%), %8% of %1's %2")
          .arg(m_rowSide, m_rows.value(index.row()), m_columnSide, m_columns.value(index.column()))
          .arg(n)
          .arg(m_total)
          .arg(share, 0, 'f', 1)
          .arg(100.0 * rowShare(index.row(), n), 0, 'f', 1);
    }
    case Qt::TextAlignmentRole:
      return int(Qt::AlignCenter);
    default:
      return {};
  }
}

QVariant ConfusionModel::headerData(int section, Qt::Orientation orientation, int role) const {
  const QStringList& names = orientation == Qt::Horizontal ? m_columns : m_rows;
  const QString& side = orientation == Qt::Horizontal ? m_columnSide : m_rowSide;
  if (section < 0 || section >= names.size()) return {};
  if (role == Qt::DisplayRole) return QStringLiteral("%1: %2").arg(side, names[section]);
  return {};
}

void ConfusionModel::setMatrix(QStringList rows, QStringList columns,
                               std::vector<std::vector<std::size_t>> counts, QString rowSide,
                               QString columnSide) {
  beginResetModel();
  assign(std::move(rows), std::move(columns), std::move(counts), std::move(rowSide),
         std::move(columnSide));
  m_blank = false;
  endResetModel();
}

void ConfusionModel::setBlank(QStringList rows, QStringList columns, QString rowSide,
                              QString columnSide) {
  beginResetModel();
  const std::size_t n = std::size_t(rows.size());
  assign(std::move(rows), std::move(columns), std::vector<std::vector<std::size_t>>(n),
         std::move(rowSide), std::move(columnSide));
  m_blank = true;
  endResetModel();
}

void ConfusionModel::assign(QStringList rows, QStringList columns,
                            std::vector<std::vector<std::size_t>> counts, QString rowSide,
                            QString columnSide) {
  m_rows = std::move(rows);
  m_columns = std::move(columns);
  m_counts = std::move(counts);
  m_rowSide = std::move(rowSide);
  m_columnSide = std::move(columnSide);
  m_total = 0;
  m_rowTotals.assign(m_counts.size(), 0);
  for (std::size_t r = 0; r < m_counts.size(); ++r) {
    m_counts[r].resize(std::size_t(m_columns.size()));
    for (std::size_t n : m_counts[r]) m_rowTotals[r] += n;
    m_total += m_rowTotals[r];
  }
}

}  // namespace ragscope::ui
