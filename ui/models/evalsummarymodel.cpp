#include "ui/models/evalsummarymodel.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <cmath>

namespace ragscope::ui {

QString formatMeasureValue(const core::MeasureColumn& column, double value) {
  if (std::isnan(value)) return QStringLiteral("–");
  if (column.integer) return QString::number(static_cast<long long>(std::llround(value)));
  return QString::number(value, 'f', 4);
}

QStringList runDisplayNames(const std::vector<core::EvalResult>& results) {
  QStringList tags;
  for (const auto& r : results)
    tags << QString::fromStdString(r.runId.empty() ? r.runSource : r.runId);
  QStringList names;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const QString& tag = tags[static_cast<int>(i)];
    if (tags.count(tag) == 1) {
      names << tag;
      continue;
    }
    const QFileInfo file(QString::fromStdString(results[i].runSource));
    names << QStringLiteral("%1 (%2/%3)").arg(tag, file.dir().dirName(), file.fileName());
  }
  return names;
}

EvalSummaryModel::EvalSummaryModel(QObject* parent) : QAbstractTableModel(parent) {}

void EvalSummaryModel::setResults(const std::vector<core::EvalResult>* results) {
  beginResetModel();
  m_results = results;
  m_measures.clear();
  m_names = results ? runDisplayNames(*results) : QStringList();
  if (results) {
    // Union of the runs' columns, in the first run's (trec_eval's) order.
    for (const auto& r : *results)
      for (const auto& c : r.columns)
        if (c.kind != core::MeasureKind::Runid &&
            std::find(m_measures.begin(), m_measures.end(), c.name) == m_measures.end())
          m_measures.push_back(c.name);
  }
  endResetModel();
}

int EvalSummaryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_results ? 0 : static_cast<int>(m_results->size());
}

int EvalSummaryModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : 1 + static_cast<int>(m_measures.size());
}

QVariant EvalSummaryModel::data(const QModelIndex& index, int role) const {
  if (!m_results || !index.isValid()) return {};
  const core::EvalResult& r = (*m_results)[index.row()];
  if (index.column() == 0) {
    const QString& name = m_names[index.row()];
    if (role == Qt::DisplayRole || role == SortRole) return name;
    if (role == Qt::ToolTipRole) return QString::fromStdString(r.runSource);
    return {};
  }
  const std::string& measure = m_measures[index.column() - 1];
  const auto col = r.columnIndex(measure);
  if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
  if (!col) return role == Qt::DisplayRole ? QVariant(QStringLiteral("–")) : QVariant();
  const double v = r.all[*col];
  if (role == Qt::DisplayRole) return formatMeasureValue(r.columns[*col], v);
  if (role == SortRole) return v;
  if (role == Qt::ToolTipRole)
    return tr("%1 of %2 over %3 queries").arg(QString::fromStdString(measure),
                                              QString::fromStdString(r.runId))
        .arg(r.numQueries);
  return {};
}

QVariant EvalSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  if (section == 0) return tr("Run");
  return QString::fromStdString(m_measures[section - 1]);
}

}  // namespace ragscope::ui
