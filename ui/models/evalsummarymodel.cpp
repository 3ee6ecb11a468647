#include "ui/models/evalsummarymodel.h"

#include <algorithm>
#include <cmath>

#include "core/stats/runsummary.h"
#include "ui/models/runvalues.h"

namespace ragscope::ui {

QString formatMeasureValue(const core::MeasureColumn& column, double value) {
  if (std::isnan(value)) return QStringLiteral("–");
  if (column.integer) return QString::number(static_cast<long long>(std::llround(value)));
  return QString::number(value, 'f', 4);
}

QString formatInterval(core::stats::Interval ci, int decimals) {
  if (!std::isfinite(ci.low) || !std::isfinite(ci.high)) return QStringLiteral("–");
  return QStringLiteral("[%1, %2]").arg(ci.low, 0, 'f', decimals).arg(ci.high, 0, 'f', decimals);
}

QStringList runDisplayNames(const std::vector<core::EvalResult>& results) {
  QStringList names;
  for (const auto& label : core::stats::runLabels(results)) names << QString::fromStdString(label);
  return names;
}

EvalSummaryModel::EvalSummaryModel(QObject* parent) : QAbstractTableModel(parent) {}

void EvalSummaryModel::setResults(const std::vector<core::EvalResult>* results) {
  beginResetModel();
  m_results = results;
  m_measures.clear();
  m_columns.clear();
  m_intervals.clear();
  m_names = results ? runDisplayNames(*results) : QStringList();
  if (results) {
    // Union of the runs' columns, in the first run's (trec_eval's) order.
    std::vector<bool> withInterval;
    for (const auto& r : *results)
      for (const auto& c : r.columns) {
        if (!c.numeric()) continue;
        auto it = std::find(m_measures.begin(), m_measures.end(), c.name);
        if (it == m_measures.end()) {
          m_measures.push_back(c.name);
          withInterval.push_back(core::stats::supportsStatistics(c));
        }
      }
    for (std::size_t m = 0; m < m_measures.size(); ++m) {
      m_columns.push_back({m, false});
      if (withInterval[m]) m_columns.push_back({m, true});
    }
  }
  endResetModel();
}

void EvalSummaryModel::setIntervals(
    std::vector<std::map<std::string, core::stats::Interval>> intervals, double level) {
  m_intervals = std::move(intervals);
  m_level = level;
  if (rowCount() > 0 && columnCount() > 2)
    emit dataChanged(index(0, 2), index(rowCount() - 1, columnCount() - 1));
  emit headerDataChanged(Qt::Horizontal, 2, std::max(2, columnCount() - 1));
}

std::string EvalSummaryModel::measureAt(int column) const {
  if (column < 2 || column - 2 >= static_cast<int>(m_columns.size())) return {};
  return m_measures[m_columns[column - 2].measure];
}

bool EvalSummaryModel::isIntervalColumn(int column) const {
  return column >= 2 && column - 2 < static_cast<int>(m_columns.size()) &&
         m_columns[column - 2].interval;
}

int EvalSummaryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_results ? 0 : static_cast<int>(m_results->size());
}

int EvalSummaryModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : 2 + static_cast<int>(m_columns.size());
}

QVariant EvalSummaryModel::data(const QModelIndex& index, int role) const {
  if (!m_results || !index.isValid()) return {};
  const core::EvalResult& r = (*m_results)[index.row()];
  if (index.column() == RunColumn) {
    const QString& name = m_names[index.row()];
    if (role == Qt::DisplayRole || role == SortRole) return name;
    if (role == Qt::ToolTipRole) return QString::fromStdString(r.runSource);
    return {};
  }
  if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
  if (index.column() == CountColumn) {
    if (role == Qt::DisplayRole) return QString::number(r.numQueries);
    if (role == SortRole) return static_cast<qulonglong>(r.numQueries);
    if (role == Qt::ToolTipRole) return tr("Queries averaged over (num_q)");
    return {};
  }
  const Column& column = m_columns[index.column() - 2];
  const std::string& measure = m_measures[column.measure];
  if (role == MeasureRole) return QString::fromStdString(measure);
  const auto col = r.columnIndex(measure);
  if (!col) return role == Qt::DisplayRole ? QVariant(QStringLiteral("–")) : QVariant();
  if (column.interval) {
    const std::size_t row = static_cast<std::size_t>(index.row());
    const core::stats::Interval* ci = nullptr;
    if (row < m_intervals.size())
      if (const auto it = m_intervals[row].find(measure); it != m_intervals[row].end())
        ci = &it->second;
    const bool have = ci != nullptr;
    if (role == Qt::DisplayRole) return have ? formatInterval(*ci) : QStringLiteral("…");
    if (role == SortRole) return have ? ci->low : 0.0;
    if (role == Qt::ToolTipRole)
      return have ? tr("Percentile bootstrap %1% CI of the mean %2 (B = 10,000, seed 42); "
                       "select to see the distribution")
                        .arg(m_level * 100, 0, 'g', 3)
                        .arg(QString::fromStdString(measure))
                  : tr("Computing the bootstrap CI…");
    return {};
  }
  const double v = r.all[*col];
  if (role == Qt::DisplayRole) return formatMeasureValue(r.columns[*col], v);
  if (role == SortRole) return v;
  if (role == Qt::ToolTipRole)
    return tr("%1 of %2: mean over %3 queries; select for its bootstrap distribution")
        .arg(QString::fromStdString(measure), QString::fromStdString(r.runId))
        .arg(r.numQueries);
  return {};
}

QVariant EvalSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= columnCount()) return {};
  if (role == Qt::ToolTipRole) {
    if (section == CountColumn) return tr("Number of queries averaged (num_q)");
    if (isIntervalColumn(section))
      return tr("Bootstrap %1% confidence interval of the mean (percentile, B = 10,000)")
          .arg(m_level * 100, 0, 'g', 3);
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  if (section == RunColumn) return tr("Run");
  if (section == CountColumn) return tr("n");
  const Column& column = m_columns[section - 2];
  const QString name = QString::fromStdString(m_measures[column.measure]);
  if (column.interval) return tr("%1 %2% CI").arg(name).arg(m_level * 100, 0, 'g', 3);
  return name;
}

}  // namespace ragscope::ui
