#include "ui/models/querysetmodel.h"

#include <QBrush>
#include <QColor>
#include <cmath>

#include "ui/models/naturalsort.h"

namespace ragscope::ui {

namespace {
// The charts' palette, lightened: a query's row is tinted like its set's distribution.
const QColor kSetColors[] = {QColor(31, 119, 180), QColor(255, 127, 14),  QColor(44, 160, 44),
                             QColor(214, 39, 40),  QColor(148, 103, 189), QColor(140, 86, 75)};
}  // namespace

QuerySetModel::QuerySetModel(QObject* parent) : QAbstractTableModel(parent) {}

void QuerySetModel::setValues(const core::stats::QueryValues& values, const QString& valueTitle) {
  beginResetModel();
  m_qids.clear();
  m_values.clear();
  for (const auto& [qid, v] : values) {
    m_qids.push_back(qid);
    m_values.push_back(v);
  }
  m_valueTitle = valueTitle;
  endResetModel();
}

void QuerySetModel::setSplitValues(const core::stats::QueryValues& values, const QString& title) {
  m_split = values;
  m_splitTitle = title;
  if (rowCount() > 0) emit dataChanged(index(0, SplitValue), index(rowCount() - 1, SplitValue));
  emit headerDataChanged(Qt::Horizontal, SplitValue, SplitValue);
}

void QuerySetModel::assign(const std::vector<std::string>& qids, const QString& set) {
  if (!set.isEmpty() && !m_sets.contains(set)) m_sets << set;
  for (const auto& q : qids) {
    if (set.isEmpty())
      m_assigned.erase(q);
    else
      m_assigned[q] = set;
  }
  // Sets nobody belongs to any more disappear.
  QStringList used;
  for (const auto& [q, s] : m_assigned)
    if (!used.contains(s)) used << s;
  QStringList kept;
  for (const QString& s : m_sets)
    if (used.contains(s)) kept << s;
  m_sets = kept;
  if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void QuerySetModel::clearSets() {
  m_assigned.clear();
  m_sets.clear();
  m_split.clear();
  m_splitTitle.clear();
  if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
  emit headerDataChanged(Qt::Horizontal, SplitValue, SplitValue);
}

std::vector<double> QuerySetModel::valuesOf(const QString& set) const {
  std::vector<double> out;
  for (std::size_t i = 0; i < m_qids.size(); ++i)
    if (setOf(m_qids[i]) == set) out.push_back(m_values[i]);
  return out;
}

std::size_t QuerySetModel::countOf(const QString& set) const { return valuesOf(set).size(); }

QString QuerySetModel::setOf(const std::string& qid) const {
  const auto it = m_assigned.find(qid);
  return it == m_assigned.end() ? QString() : it->second;
}

int QuerySetModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_qids.size());
}

int QuerySetModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant QuerySetModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const std::size_t row = static_cast<std::size_t>(index.row());
  const std::string& qid = m_qids[row];
  const QString set = setOf(qid);
  if (role == Qt::BackgroundRole && !set.isEmpty()) {
    QColor c = kSetColors[static_cast<std::size_t>(m_sets.indexOf(set)) % std::size(kSetColors)];
    c.setAlpha(45);
    return QBrush(c);
  }
  if (role == Qt::TextAlignmentRole && (index.column() == Value || index.column() == SplitValue))
    return int(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole && role != SortRole) return {};
  switch (index.column()) {
    case Qid:
      return role == SortRole ? naturalSortKey(QString::fromStdString(qid))
                              : QString::fromStdString(qid);
    case Value:
      return role == SortRole ? QVariant(m_values[row])
                              : QVariant(QString::number(m_values[row], 'f', 4));
    case SplitValue: {
      const auto it = m_split.find(qid);
      if (it == m_split.end())
        return role == SortRole ? QVariant(-INFINITY) : QVariant(QStringLiteral("–"));
      return role == SortRole ? QVariant(it->second)
                              : QVariant(QString::number(it->second, 'f', 4));
    }
    case Set:
      return set;
    default:
      return {};
  }
}

QVariant QuerySetModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole && section == SplitValue && !m_splitTitle.isEmpty())
    return tr("The sets were split by %1").arg(m_splitTitle);
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case Qid:
      return tr("Query");
    case Value:
      return m_valueTitle.isEmpty() ? tr("Value") : m_valueTitle;
    case SplitValue:
      return tr("Split value");
    case Set:
      return tr("Set");
    default:
      return {};
  }
}

}  // namespace ragscope::ui
