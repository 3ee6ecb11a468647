#include "ui/models/documentlistmodel.h"

namespace ragscope::ui {

namespace {
QString fromStd(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }
}  // namespace

DocumentListModel::DocumentListModel(QObject* parent) : QAbstractTableModel(parent) {}

void DocumentListModel::setDataset(std::shared_ptr<const core::Dataset> dataset) {
  beginResetModel();
  m_dataset = std::move(dataset);
  m_hasData.fill(false);
  if (m_dataset && !m_dataset->corpus.empty()) {
    m_hasData[Id] = m_hasData[Chars] = m_hasData[Preview] = true;
    for (const auto& d : m_dataset->corpus.documents()) {
      m_hasData[Title] = m_hasData[Title] || !d.title.empty();
      m_hasData[Source] = m_hasData[Source] || !d.parentId.empty();
      m_hasData[Page] = m_hasData[Page] || d.page > 0;
      if (m_hasData[Title] && m_hasData[Source] && m_hasData[Page]) break;
    }
  }
  endResetModel();
}

bool DocumentListModel::isColumnEmpty(int column) const {
  return column < 0 || column >= ColumnCount || !m_hasData[std::size_t(column)];
}

const core::Document* DocumentListModel::document(int row) const {
  if (!m_dataset || row < 0 || std::size_t(row) >= m_dataset->corpus.size()) return nullptr;
  return &m_dataset->corpus.at(std::size_t(row));
}

int DocumentListModel::rowForId(std::string_view id) const {
  if (!m_dataset) return -1;
  const auto& corpus = m_dataset->corpus;
  if (const core::Document* doc = corpus.find(id)) return int(doc - corpus.documents().data());
  // A PDF file name names its chunks' parent.
  for (std::size_t i = 0; i < corpus.size(); ++i)
    if (corpus.at(i).parentId == id) return int(i);
  return -1;
}

int DocumentListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_dataset ? 0 : int(m_dataset->corpus.size());
}

int DocumentListModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant DocumentListModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const core::Document& d = m_dataset->corpus.at(std::size_t(index.row()));
  if (role == Qt::DisplayRole || role == SortRole) {
    switch (index.column()) {
      case Id: return fromStd(d.id);
      case Title: {
        QString title = fromStd(d.title.substr(0, 400));
        title.replace(QLatin1Char('\n'), QLatin1Char(' '));
        return title;
      }
      case Source: return fromStd(d.parentId);
      case Page:
        if (role == SortRole) return d.page;
        return d.page > 0 ? QVariant(d.page) : QVariant(QString());
      case Chars: return qulonglong(d.textSize());
      case Preview: {
        if (role == SortRole) return fromStd(d.textPrefix(200));
        QString text = fromStd(d.textPrefix(600));
        text.replace(QLatin1Char('\n'), QLatin1Char(' '));
        return text.left(200);
      }
    }
  } else if (role == Qt::TextAlignmentRole) {
    if (index.column() == Page || index.column() == Chars)
      return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  } else if (role == Qt::ToolTipRole && index.column() == Title) {
    return fromStd(d.title.substr(0, 1000));
  } else if (role == Qt::ToolTipRole && index.column() == Preview) {
    return fromStd(d.textPrefix(1000));
  }
  return {};
}

QVariant DocumentListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
    case Id: return tr("Id");
    case Title: return tr("Title");
    case Source: return tr("Source");
    case Page: return tr("Page");
    case Chars: return tr("Chars");
    case Preview: return tr("Text");
  }
  return {};
}

DocumentFilterProxyModel::DocumentFilterProxyModel(QObject* parent)
    : QSortFilterProxyModel(parent) {
  setSortRole(DocumentListModel::SortRole);
  setDynamicSortFilter(false);
}

void DocumentFilterProxyModel::setFilterText(const QString& text) {
  if (text == m_filterText) return;
  // A reset, not invalidateFilter(): over a million rows the incremental diff emits thousands of
  // rowsRemoved/rowsInserted ranges and the view relayouts for each; a reset rebuilds the
  // mapping once (the selection is lost, which a new filter makes moot anyway).
  beginResetModel();
  m_filterText = text;
  m_matcher = TextMatcher(text);
  endResetModel();
}

bool DocumentFilterProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex&) const {
  if (m_matcher.isEmpty()) return true;
  const auto* model = static_cast<const DocumentListModel*>(sourceModel());
  const core::Document* d = model ? model->document(sourceRow) : nullptr;
  return d && (m_matcher.matches(d->id) || m_matcher.matches(d->title) ||
               m_matcher.matches(d->parentId));
}

bool DocumentFilterProxyModel::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  const auto* model = static_cast<const DocumentListModel*>(sourceModel());
  const core::Document* a = model->document(left.row());
  const core::Document* b = model->document(right.row());
  if (!a || !b) return false;
  switch (left.column()) {
    case DocumentListModel::Id: return compareIds(a->id, b->id) < 0;
    case DocumentListModel::Title: return a->title < b->title;
    case DocumentListModel::Source:
      if (a->parentId != b->parentId) return a->parentId < b->parentId;
      if (a->page != b->page) return a->page < b->page;
      return a->chunk < b->chunk;
    case DocumentListModel::Page: return a->page < b->page;
    case DocumentListModel::Chars: return a->textSize() < b->textSize();
    case DocumentListModel::Preview:
      // Texts left in their file (a big collection) are not read back to be sorted: a sort would
      // read each one log(n) times on the GUI thread. Such rows keep their order.
      if (a->stored.file || b->stored.file) return left.row() < right.row();
      return a->text < b->text;
  }
  return false;
}

}  // namespace ragscope::ui
