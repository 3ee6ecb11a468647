#include "ui/models/querytablemodel.h"

#include <QBrush>
#include <QColor>
#include <algorithm>

#include "ui/models/naturalsort.h"

namespace ragscope::ui {

namespace {

QString fromStd(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

// Table cells show one line; the detail pane shows everything.
QString oneLine(std::string_view s, qsizetype max = 240) {
  QString out = fromStd(s.substr(0, std::min<std::size_t>(s.size(), std::size_t(max) * 4)));
  out.replace(QLatin1Char('\n'), QStringLiteral(" ⏎ "));
  out.replace(QLatin1Char('\t'), QLatin1Char(' '));
  if (out.size() > max) out = out.left(max) + QStringLiteral("…");
  return out;
}

std::size_t goldAnswerCount(const core::Query& q) {
  return std::size_t(std::count_if(q.gold.begin(), q.gold.end(),
                                   [](const core::GoldOutput& g) { return g.hasAnswer; }));
}

std::size_t goldDocCount(const core::Query& q) { return q.goldDocIds().size(); }

std::string_view firstAnswer(const core::Query& q) {
  for (const auto& g : q.gold)
    if (g.hasAnswer) return g.answer;
  return {};
}

}  // namespace

QueryTableModel::QueryTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void QueryTableModel::setDataset(std::shared_ptr<const core::Dataset> dataset) {
  beginResetModel();
  m_dataset = std::move(dataset);
  m_judged.clear();
  m_rowsByLine.clear();
  if (m_dataset) {
    const auto& queries = m_dataset->queries;
    m_judged.resize(queries.size(), 0);
    const auto& byQuery = m_dataset->qrels.byQuery;
    if (!byQuery.empty()) {
      for (std::size_t i = 0; i < queries.size(); ++i) {
        const auto it = byQuery.find(queries[i].id);
        if (it != byQuery.end()) m_judged[i] = std::uint32_t(it->second.size());
      }
    }
    m_hasData.fill(false);
    m_hasData[Id] = m_hasData[Text] = !queries.empty();
    for (std::size_t i = 0; i < queries.size(); ++i) {
      const core::Query& q = queries[i];
      m_hasData[Answers] = m_hasData[Answers] || goldAnswerCount(q) > 0;
      m_hasData[GoldDocs] =
          m_hasData[GoldDocs] || std::any_of(q.gold.begin(), q.gold.end(),
                                             [](const auto& g) { return !g.provenance.empty(); });
      m_hasData[Judged] = m_hasData[Judged] || m_judged[i] > 0;
      m_hasData[Task] = m_hasData[Task] || !q.task.empty();
      m_hasData[Line] = m_hasData[Line] || q.line > 0;
      m_hasData[Flags] = m_hasData[Flags] || !q.flags.empty();
    }
    m_rowsByLine.resize(queries.size());
    for (std::size_t i = 0; i < queries.size(); ++i) m_rowsByLine[i] = std::uint32_t(i);
    std::stable_sort(m_rowsByLine.begin(), m_rowsByLine.end(),
                     [&](auto a, auto b) { return queries[a].line < queries[b].line; });
  }
  endResetModel();
}

const core::Query* QueryTableModel::query(int row) const {
  if (!m_dataset || row < 0 || std::size_t(row) >= m_dataset->queries.size()) return nullptr;
  return &m_dataset->queries[std::size_t(row)];
}

int QueryTableModel::judgedCount(int row) const {
  return row >= 0 && std::size_t(row) < m_judged.size() ? int(m_judged[std::size_t(row)]) : 0;
}

int QueryTableModel::rowForLine(quint64 line) const {
  if (!m_dataset || m_rowsByLine.empty() || line == 0) return -1;
  const auto& queries = m_dataset->queries;
  // First query whose line is greater than `line`; the one before it holds the line.
  const auto it =
      std::upper_bound(m_rowsByLine.begin(), m_rowsByLine.end(), line,
                       [&](quint64 l, std::uint32_t row) { return l < queries[row].line; });
  if (it == m_rowsByLine.begin()) return -1;
  const std::uint32_t row = *std::prev(it);
  return queries[row].line == 0 ? -1 : int(row);
}

bool QueryTableModel::isColumnEmpty(int column) const {
  return column < 0 || column >= ColumnCount || !m_hasData[std::size_t(column)];
}

int QueryTableModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !m_dataset) return 0;
  return int(m_dataset->queries.size());
}

int QueryTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant QueryTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const core::Query& q = m_dataset->queries[std::size_t(index.row())];
  const int column = index.column();
  if (role == QueryIndexRole) return index.row();
  if (role == Qt::DisplayRole) {
    switch (column) {
      case Id:
        return fromStd(q.id);
      case Text:
        return oneLine(q.text);
      case Answers: {
        const std::size_t n = goldAnswerCount(q);
        if (n == 0) return QString();
        const QString first = oneLine(firstAnswer(q), 120);
        return n == 1 ? first : QStringLiteral("%1  (+%2)").arg(first).arg(n - 1);
      }
      case GoldDocs:
        return qulonglong(goldDocCount(q));
      case Judged:
        return judgedCount(index.row());
      case Task:
        return fromStd(q.task);
      case Line:
        return qulonglong(q.line);
      case Flags:
        return q.flags.empty() ? QString() : oneLine(q.flags.front(), 120);
    }
  } else if (role == SortRole) {
    switch (column) {
      case Id:
        return naturalSortKey(fromStd(q.id));
      case Text:
        return fromStd(q.text);
      case Answers:
        return qulonglong(goldAnswerCount(q));
      case GoldDocs:
        return qulonglong(goldDocCount(q));
      case Judged:
        return judgedCount(index.row());
      case Task:
        return fromStd(q.task);
      case Line:
        return qulonglong(q.line);
      case Flags:
        return qulonglong(q.flags.size());
    }
  } else if (role == Qt::ToolTipRole) {
    if (column == Text) return oneLine(q.text, 2000);
    if (column == Flags && !q.flags.empty()) {
      QStringList all;
      for (const auto& f : q.flags) all << fromStd(f);
      return all.join(QLatin1Char('\n'));
    }
  } else if (role == Qt::TextAlignmentRole) {
    if (column == GoldDocs || column == Judged || column == Line)
      return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  } else if (role == Qt::ForegroundRole) {
    if (column == Flags && !q.flags.empty()) return QBrush(QColor(0xb3, 0x5c, 0x00));
  }
  return {};
}

QVariant QueryTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal)
    return QAbstractTableModel::headerData(section, orientation, role);
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case GoldDocs:
        return tr("Distinct provenance documents over all gold outputs");
      case Judged:
        return tr("Judgments in the qrels for this query");
      case Line:
        return tr("First line of the record in its file");
      default:
        break;
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case Id:
      return tr("Id");
    case Text:
      return tr("Query");
    case Answers:
      return tr("Gold answers");
    case GoldDocs:
      return tr("Gold docs");
    case Judged:
      return tr("Judged");
    case Task:
      return tr("Task");
    case Line:
      return tr("Line");
    case Flags:
      return tr("Flags");
  }
  return {};
}

QueryFilterProxyModel::QueryFilterProxyModel(QObject* parent)
    : TextFilterProxyModel(QueryTableModel::SortRole, parent) {}

void QueryFilterProxyModel::setFlaggedOnly(bool on) {
  if (on == m_flaggedOnly) return;
  m_flaggedOnly = on;
  invalidateFilter();
}

bool QueryFilterProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex&) const {
  const auto* model = static_cast<const QueryTableModel*>(sourceModel());
  const core::Query* q = model ? model->query(sourceRow) : nullptr;
  if (!q) return false;
  if (m_flaggedOnly && q->flags.empty()) return false;
  const TextMatcher& m = matcher();
  return m.isEmpty() || m.matches(q->id) || m.matches(q->text);
}

bool QueryFilterProxyModel::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  const auto* model = static_cast<const QueryTableModel*>(sourceModel());
  const core::Query* a = model->query(left.row());
  const core::Query* b = model->query(right.row());
  if (!a || !b) return false;
  switch (left.column()) {
    case QueryTableModel::Id:
      return compareIds(a->id, b->id) < 0;
    case QueryTableModel::Text:
      return a->text < b->text;
    case QueryTableModel::Task:
      return a->task != b->task ? a->task < b->task : compareIds(a->id, b->id) < 0;
    case QueryTableModel::Line:
      return a->line < b->line;
    case QueryTableModel::Judged:
      return model->judgedCount(left.row()) < model->judgedCount(right.row());
    default:
      return QSortFilterProxyModel::lessThan(left, right);
  }
}

}  // namespace ragscope::ui
