#include "ui/models/documentlistmodel.h"

#include <algorithm>

#include "ui/models/documentsearch.h"
#include "ui/models/previewcache.h"

namespace ragscope::ui {

namespace {
QString fromStd(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }
}  // namespace

DocumentListModel::DocumentListModel(QObject* parent)
    : QAbstractTableModel(parent), m_previews(new PreviewCache(this)) {
  connect(m_previews, &PreviewCache::ready, this,
          [this](const std::vector<std::size_t>& positions) {
            // The rows read (a screenful, mostly one run), as runs of consecutive rows: a range
            // over the whole column would have a proxy or view look at millions of rows.
            std::vector<int> rows;
            for (std::size_t p : positions) {
              if (!m_positions) {
                rows.push_back(int(p));
              } else {
                for (std::size_t r = 0; r < m_positions->size(); ++r)
                  if ((*m_positions)[r] == p) rows.push_back(int(r));
              }
            }
            std::sort(rows.begin(), rows.end());
            for (std::size_t i = 0; i < rows.size();) {
              std::size_t j = i + 1;
              while (j < rows.size() && rows[j] <= rows[j - 1] + 1) ++j;
              if (rows[j - 1] < rowCount())
                emit dataChanged(index(rows[i], Preview), index(rows[j - 1], Preview),
                                 {Qt::DisplayRole, Qt::ToolTipRole});
              i = j;
            }
          });
}

void DocumentListModel::setDataset(std::shared_ptr<const core::Dataset> dataset) {
  beginResetModel();
  m_dataset = std::move(dataset);
  m_positions.reset();
  m_previews->setDataset(m_dataset);
  m_hasData.fill(false);
  if (m_dataset && !m_dataset->corpus.empty()) {
    m_hasData[Id] = m_hasData[Chars] = m_hasData[Preview] = true;
    // Titles, sources and pages come from documents held in memory, or from a side index's
    // titles: the first few thousand rows tell (a 5.9M-page source is not walked here).
    const auto& corpus = m_dataset->corpus;
    for (std::size_t i = corpus.inMemorySize();
         i < corpus.size() && i < corpus.inMemorySize() + 5000; ++i)
      m_hasData[Title] = m_hasData[Title] || !corpus.titleAt(i).empty();
    for (std::size_t i = 0; i < corpus.inMemorySize(); ++i) {
      const core::Document& d = corpus.inMemory(i);
      m_hasData[Title] = m_hasData[Title] || !d.title.empty();
      m_hasData[Source] = m_hasData[Source] || !d.parentId.empty();
      m_hasData[Page] = m_hasData[Page] || d.page > 0;
      if (m_hasData[Title] && m_hasData[Source] && m_hasData[Page]) break;
    }
  }
  endResetModel();
}

void DocumentListModel::showPositions(std::vector<std::size_t> positions) {
  beginResetModel();
  const std::size_t size = m_dataset ? m_dataset->corpus.size() : 0;
  std::erase_if(positions, [size](std::size_t p) { return p >= size; });
  m_positions = std::move(positions);
  endResetModel();
}

void DocumentListModel::showAll() {
  if (!m_positions) return;
  beginResetModel();
  m_positions.reset();
  endResetModel();
}

bool DocumentListModel::isColumnEmpty(int column) const {
  return column < 0 || column >= ColumnCount || !m_hasData[std::size_t(column)];
}

std::size_t DocumentListModel::positionAt(int row) const {
  if (row < 0) return std::size_t(-1);
  if (!m_positions) return std::size_t(row);
  return std::size_t(row) < m_positions->size() ? (*m_positions)[std::size_t(row)]
                                                : std::size_t(-1);
}

std::optional<core::Document> DocumentListModel::document(int row) const {
  const std::size_t p = positionAt(row);
  if (!m_dataset || p >= m_dataset->corpus.size()) return std::nullopt;
  return m_dataset->corpus.at(p);
}

int DocumentListModel::rowForId(std::string_view id) const {
  if (!m_dataset) return -1;
  const auto& corpus = m_dataset->corpus;
  auto rowOf = [&](std::size_t position) {
    if (!m_positions) return int(position);
    const auto it = std::find(m_positions->begin(), m_positions->end(), position);
    return it == m_positions->end() ? -1 : int(it - m_positions->begin());
  };
  if (const auto position = corpus.indexOf(id)) return rowOf(*position);
  // A PDF file name names its chunks' parent. Chunks are held in memory, and come from PDF
  // folders of thousands of pages: a big corpus (millions of passages) is not scanned for them.
  if (m_positions) {
    for (std::size_t r = 0; r < m_positions->size(); ++r)
      if (const auto d = document(int(r)); d && d->parentId == id) return int(r);
  } else if (corpus.inMemorySize() <= kBigCorpusDocuments) {
    for (std::size_t i = 0; i < corpus.inMemorySize(); ++i)
      if (corpus.inMemory(i).parentId == id) return int(i);
  }
  return -1;
}

int DocumentListModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !m_dataset) return 0;
  return int(m_positions ? m_positions->size() : m_dataset->corpus.size());
}

int DocumentListModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

std::optional<QString> DocumentListModel::preview(std::size_t position, std::size_t bytes) const {
  const auto& corpus = m_dataset->corpus;
  // Side-indexed records are JSON, decoded whole: read off the GUI thread.
  if (position >= corpus.inMemorySize()) {
    auto text = m_previews->preview(position);
    if (text && std::size_t(text->size()) > bytes) text->truncate(qsizetype(bytes));
    return text;
  }
  return fromStd(corpus.inMemory(position).textPrefix(bytes));
}

QVariant DocumentListModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const int column = index.column();
  if (role == Qt::TextAlignmentRole) {
    if (column == Page || column == Chars)
      return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
  }
  if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole) return {};
  const auto& corpus = m_dataset->corpus;
  const std::size_t p = positionAt(index.row());
  if (p >= corpus.size()) return {};
  // Ids and titles come straight from memory or the side index: no document is built for them.
  if (role == Qt::ToolTipRole) {
    if (column == Title) return fromStd(corpus.titleAt(p).substr(0, 1000));
    if (column == Preview) {
      const auto text = preview(p, PreviewCache::kPreviewBytes);
      return text ? QVariant(*text) : QVariant();
    }
    return {};
  }
  switch (column) {
    case Id:
      return fromStd(corpus.idAt(p));
    case Title: {
      QString title = fromStd(corpus.titleAt(p).substr(0, 400));
      title.replace(QLatin1Char('\n'), QLatin1Char(' '));
      return title;
    }
    case Preview: {
      if (role == SortRole) return preview(p, 200).value_or(QString());
      const auto text = preview(p, 600);
      if (!text) return QStringLiteral("\u2026");  // being read
      QString line = *text;
      line.replace(QLatin1Char('\n'), QLatin1Char(' '));
      return line.left(200);
    }
    default:
      break;
  }
  const core::Document d = corpus.at(p);
  switch (column) {
    case Source:
      return fromStd(d.parentId);
    case Page:
      if (role == SortRole) return d.page;
      return d.page > 0 ? QVariant(d.page) : QVariant(QString());
    case Chars:
      return qulonglong(d.textSize());
    default:
      break;
  }
  return {};
}

QVariant DocumentListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == Chars)
    return tr(
        "Length of the text in bytes (UTF-8); for a text left in a JSON corpus file, the length of "
        "its JSON form, a little more");
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
    case Id:
      return tr("Id");
    case Title:
      return tr("Title");
    case Source:
      return tr("Source");
    case Page:
      return tr("Page");
    case Chars:
      return tr("Chars");
    case Preview:
      return tr("Text");
  }
  return {};
}

DocumentFilterProxyModel::DocumentFilterProxyModel(QObject* parent)
    : TextFilterProxyModel(DocumentListModel::SortRole, parent) {}

bool DocumentFilterProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex&) const {
  const TextMatcher& m = matcher();
  if (m.isEmpty()) return true;
  const auto* model = static_cast<const DocumentListModel*>(sourceModel());
  const auto d = model ? model->document(sourceRow) : std::nullopt;
  return d && (m.matches(d->id) || m.matches(d->title) || m.matches(d->parentId));
}

bool DocumentFilterProxyModel::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  const auto* model = static_cast<const DocumentListModel*>(sourceModel());
  const auto a = model->document(left.row());
  const auto b = model->document(right.row());
  if (!a || !b) return false;
  switch (left.column()) {
    case DocumentListModel::Id:
      return compareIds(a->id, b->id) < 0;
    case DocumentListModel::Title:
      return a->title < b->title;
    case DocumentListModel::Source:
      if (a->parentId != b->parentId) return a->parentId < b->parentId;
      if (a->page != b->page) return a->page < b->page;
      return a->chunk < b->chunk;
    case DocumentListModel::Page:
      return a->page < b->page;
    case DocumentListModel::Chars:
      return a->textSize() < b->textSize();
    case DocumentListModel::Preview:
      // Texts left in their file (a big collection) are not read back to be sorted: a sort would
      // read each one log(n) times on the GUI thread. Such rows keep their order.
      if (a->stored.file || b->stored.file) return left.row() < right.row();
      return a->text < b->text;
  }
  return false;
}

}  // namespace ragscope::ui
