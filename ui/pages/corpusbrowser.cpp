#include "ui/pages/corpusbrowser.h"

#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <atomic>
#include <map>
#include <utility>

#include "ui/models/documentlistmodel.h"
#include "ui/models/documentsearch.h"
#include "ui/pages/documenttextview.h"
#include "ui/pages/largetable.h"
#include "ui/pages/querydetail.h"
#include "ui/style.h"

namespace ragscope::ui {

namespace {

const std::map<int, int> kColumnCaps{{DocumentListModel::Id, 240},
                                     {DocumentListModel::Title, 220},
                                     {DocumentListModel::Source, 180}};

// Runs `work` on `pool` unless a newer request (a higher `latest`) came first, and hands its
// result to `done` on the GUI thread if it is still the newest then. A request waiting in the
// pool's queue behind an older one returns at once when it is already stale.
template <class Result, class Work, class Done>
void runLatest(QObject* owner, QThreadPool* pool,
               const std::shared_ptr<std::atomic<quint64>>& latest, Work work, Done done) {
  const quint64 generation = ++*latest;
  auto* watcher = new QFutureWatcher<Result>(owner);
  QObject::connect(watcher, &QFutureWatcher<Result>::finished, owner,
                   [watcher, latest, generation, done] {
                     watcher->deleteLater();
                     if (latest->load() == generation) done(watcher->result());
                   });
  watcher->setFuture(
      QtConcurrent::run(pool, [latest, generation, work = std::move(work)]() -> Result {
        if (latest->load() != generation) return {};
        return work();
      }));
}

}  // namespace

CorpusBrowser::CorpusBrowser(QWidget* parent)
    : QWidget(parent),
      m_model(new DocumentListModel(this)),
      m_proxy(new DocumentFilterProxyModel(this)),
      m_filter(new QLineEdit),
      m_count(mutedLabel()),
      m_view(new QTableView),
      m_heading(new QLabel),
      m_text(new DocumentTextView),
      m_filterTimer(new QTimer(this)),
      m_latestSearch(std::make_shared<std::atomic<quint64>>(0)),
      m_latestRead(std::make_shared<std::atomic<quint64>>(0)) {
  // One search and one read at a time; stale ones queued behind return at once (runLatest).
  m_searchPool.setMaxThreadCount(1);
  m_readPool.setMaxThreadCount(1);
  m_proxy->setSourceModel(m_model);
  m_filter->setClearButtonEnabled(true);

  m_view->setObjectName(QStringLiteral("DocumentTable"));
  setUpLargeTable(m_view);
  m_view->horizontalHeader()->setStretchLastSection(true);
  attachModel(false);
  m_view->sortByColumn(-1, Qt::AscendingOrder);

  m_heading->setWordWrap(true);
  m_heading->setTextFormat(Qt::RichText);
  m_heading->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_text->setObjectName(QStringLiteral("DocumentText"));
  m_text->setPlaceholderText(tr("Select a document to read its text."));

  m_filterTimer->setSingleShot(true);
  m_filterTimer->setInterval(200);
  connect(m_filter, &QLineEdit::textChanged, m_filterTimer, qOverload<>(&QTimer::start));
  connect(m_filterTimer, &QTimer::timeout, this, [this] { setFilter(m_filter->text()); });

  auto* left = new QWidget;
  auto* filterRow = new QHBoxLayout;
  filterRow->addWidget(m_filter, 1);
  filterRow->addWidget(m_count);
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 6, 0, 0);
  leftLayout->addLayout(filterRow);
  leftLayout->addWidget(m_view, 1);

  auto* right = new QWidget;
  auto* rightLayout = new QVBoxLayout(right);
  rightLayout->setContentsMargins(0, 6, 0, 0);
  rightLayout->addWidget(m_heading);
  rightLayout->addWidget(m_text, 1);

  auto* splitter = new QSplitter(Qt::Horizontal);
  splitter->setObjectName(QStringLiteral("CorpusSplitter"));
  splitter->addWidget(left);
  splitter->addWidget(right);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({640, 620});
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(splitter);
  setDataset(nullptr);
}

CorpusBrowser::~CorpusBrowser() {
  // Results of work still running are not wanted; the pools wait for it before members go.
  ++*m_latestSearch;
  ++*m_latestRead;
  m_searchPool.waitForDone();
  m_readPool.waitForDone();
}

void CorpusBrowser::attachModel(bool big) {
  QAbstractItemModel* wanted = big ? static_cast<QAbstractItemModel*>(m_model) : m_proxy;
  if (m_view->model() != wanted) {
    QItemSelectionModel* old = m_view->selectionModel();
    m_view->setModel(wanted);
    delete old;  // setModel() leaves the previous selection model to its owner
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &CorpusBrowser::showCurrent);
  }
  auto* header = m_view->horizontalHeader();
  m_view->setSortingEnabled(!big);
  header->setSortIndicatorShown(!big);
  header->setSectionsClickable(!big);
  header->setToolTip(
      big ? tr("Sorting is off for a corpus this big: its documents are listed in file "
               "order, since a sort would read every one of them. Find documents by id or "
               "title prefix above.")
          : QString());
}

void CorpusBrowser::setDataset(std::shared_ptr<const core::Dataset> dataset) {
  m_dataset = std::move(dataset);
  ++*m_latestSearch;
  ++*m_latestRead;
  m_searching = m_reading = false;
  m_big = m_dataset && isBigCorpus(m_dataset->corpus);
  m_kiltPages =
      m_dataset && std::any_of(m_dataset->parts.begin(), m_dataset->parts.end(), [](const auto& p) {
        return p.format == core::Format::KiltKnowledgeSource;
      });
  m_heading->clear();
  m_text->clearContent();
  if (!m_big) {
    m_model->setDataset(m_dataset);
    if (m_proxy->sourceModel() != m_model) m_proxy->setSourceModel(m_model);
    attachModel(false);
    m_pending = true;
    applyDataset();
    return;
  }
  // The proxy only serves small corpora. Over a big one it would map, filter and re-filter (on
  // every dataChanged) millions of rows: it lets go of the model before the model grows, and the
  // view moves to the model (so that its header lays the rows out once, on the reset).
  m_proxy->setSourceModel(nullptr);
  m_proxy->setFilterText(QString());
  attachModel(true);
  // The view's header keeps an item per row: laying out 5.9M of them takes ~35 ms, to which the
  // other pages' reactions to the new dataset add ~20. The rows come in the next event-loop turn
  // instead of this one, so that neither turn keeps the GUI from painting for 50 ms.
  m_model->setDataset(nullptr);
  m_count->clear();
  m_pending = true;
  QTimer::singleShot(0, this, &CorpusBrowser::applyDataset);
}

void CorpusBrowser::applyDataset() {
  if (!std::exchange(m_pending, false)) return;
  if (m_big) m_model->setDataset(m_dataset);
  const std::size_t total = m_dataset ? m_dataset->corpus.size() : 0;
  if (m_big) {
    m_filter->setPlaceholderText(tr("Find by id or title prefix (%L1 documents)").arg(total));
    m_filter->setToolTip(
        tr("A corpus of %L1 documents is not filtered row by row: type the start of a "
           "document id (as written) or of a title (letters in any case). Id matches are "
           "listed first, then title matches, at most %L2.")
            .arg(total)
            .arg(kMaxMatches));
  } else {
    m_filter->setPlaceholderText(tr("Filter documents by id, title or source file"));
    m_filter->setToolTip(QString());
  }
  if (!m_big) {
    m_proxy->setFilterText(m_filter->text().trimmed().isEmpty() ? QString() : m_filter->text());
    m_view->sortByColumn(-1, Qt::AscendingOrder);  // file order until the user sorts
  } else if (!m_filter->text().trimmed().isEmpty()) {
    search(m_filter->text());
  }
  fitColumns(m_view, m_model, DocumentListModel::Preview, kColumnCaps);
  updateCount();
  if (m_view->model()->rowCount() > 0) m_view->selectRow(0);
  emit rowsShown();
}

void CorpusBrowser::setFilter(const QString& text) {
  applyDataset();
  if (m_filter->text() != text) m_filter->setText(text);
  // Not with signals blocked: the box's clear button follows textChanged. The timer it starts is
  // stopped instead.
  m_filterTimer->stop();
  if (m_big) {
    search(text);
  } else {
    m_proxy->setFilterText(text);
    updateCount();
  }
}

void CorpusBrowser::search(const QString& prefix) {
  if (prefix.trimmed().isEmpty() || !m_dataset) {
    ++*m_latestSearch;
    m_searching = false;
    m_model->showAll();
    updateCount();
    emit searchFinished(m_model->rowCount());
    return;
  }
  m_searching = true;
  updateCount();
  runLatest<PrefixMatches>(
      this, &m_searchPool, m_latestSearch,
      [dataset = m_dataset, prefix = prefix.toStdString()] {
        return findByPrefix(dataset->corpus, prefix, kMaxMatches);
      },
      [this](const PrefixMatches& matches) { onSearched(matches); });
}

void CorpusBrowser::onSearched(const PrefixMatches& matches) {
  m_searching = false;
  m_moreMatches = matches.more;
  m_model->showPositions(matches.positions);
  widenToRows();
  updateCount();
  emit searchFinished(m_model->rowCount());
}

void CorpusBrowser::widenToRows() {
  // Matches may have longer ids or titles than the rows measured at load: widen (never narrow,
  // which would undo the user's own sizing) up to the usual caps.
  const QFontMetrics fm = m_view->fontMetrics();
  auto* header = m_view->horizontalHeader();
  bool widened = false;
  for (const auto& [column, cap] : kColumnCaps) {
    if (m_view->isColumnHidden(column)) continue;
    int width = header->sectionSize(column);
    for (int r = 0; r < std::min(m_model->rowCount(), 300) && width < cap; ++r)
      width =
          std::max(width, fm.horizontalAdvance(m_model->index(r, column).data().toString()) + 14);
    width = std::min(width, cap);
    if (width > header->sectionSize(column)) {
      header->resizeSection(column, width);
      widened = true;
    }
  }
  if (widened) fillColumn(m_view, DocumentListModel::Preview);
}

void CorpusBrowser::updateCount() {
  const int rows = m_view->model()->rowCount();
  const std::size_t total = m_dataset ? m_dataset->corpus.size() : 0;
  QString text;
  if (m_searching)
    text = tr("searching…");
  else if (m_big ? m_model->showsAll() : std::size_t(rows) == total)
    text = tr("%L1 documents").arg(total);
  else if (m_big && m_moreMatches)
    text = tr("first %L1 matches of %L2").arg(rows).arg(total);
  else
    text = tr("%L1 of %L2").arg(rows).arg(total);
  m_count->setText(text);
}

void CorpusBrowser::showCurrent() {
  const QModelIndex current = m_view->currentIndex();
  int row = -1;
  if (current.isValid()) row = m_big ? current.row() : m_proxy->mapToSource(current).row();
  const auto doc = m_model->document(row);
  ++*m_latestRead;
  m_reading = false;
  if (!doc) {
    m_heading->clear();
    m_text->clearContent();
    return;
  }
  const QString id = QString::fromStdString(doc->id);
  m_heading->setText(documentHeadingHtml(*doc));
  auto show = [this, doc = *doc, id](DocumentTextView::Content content) {
    m_reading = false;
    QString heading = documentHeadingHtml(doc, content.characters);
    if (content.paragraphStarts.size() > 1)
      heading += QStringLiteral("<br><span style='color:#666'>%1</span>")
                     .arg(tr("%L1 paragraphs, numbered from 0 as KILT provenance counts them")
                              .arg(content.paragraphStarts.size()));
    m_heading->setText(heading);
    m_text->setPlaceholderText(tr("Select a document to read its text."));
    m_text->setContent(std::move(content));
    emit documentShown(id);
  };
  // KILT pages: those of a knowledge source (in memory, or left in the file as the page's JSON
  // array of paragraphs: Document::paragraphRange gives the array's elements either way).
  const bool numbered =
      doc->stored.file ? doc->stored.encoding == core::TextEncoding::JsonParagraphs : m_kiltPages;
  if (!doc->stored.file) {  // in memory: nothing to read
    show(DocumentTextView::read(*doc, numbered));
    return;
  }
  m_reading = true;
  m_text->clearContent();
  m_text->setPlaceholderText(tr("Reading the text of %1…").arg(id));
  runLatest<DocumentTextView::Content>(
      this, &m_readPool, m_latestRead,
      [doc = *doc, numbered] { return DocumentTextView::read(doc, numbered); }, show);
}

bool CorpusBrowser::showDocument(const std::string& id) {
  applyDataset();
  if (!m_dataset) return false;
  auto clearFilterBox = [this] {
    m_filter->clear();
    m_filterTimer->stop();  // the box's own textChanged started it
  };
  int row = m_model->rowForId(id);
  if (row < 0 && !m_model->showsAll()) {
    // A prefix search hides it: back to the whole corpus (its position is its row there).
    clearFilterBox();
    ++*m_latestSearch;
    m_searching = false;
    m_model->showAll();
    updateCount();
    row = m_model->rowForId(id);
  }
  if (row < 0) return false;
  QModelIndex index = m_model->index(row, 0);
  if (!m_big) {
    index = m_proxy->mapFromSource(index);
    if (!index.isValid()) {
      clearFilterBox();
      m_proxy->setFilterText(QString());
      updateCount();
      index = m_proxy->mapFromSource(m_model->index(row, 0));
    }
  }
  if (!index.isValid()) return false;
  m_view->setCurrentIndex(index);
  m_view->selectRow(index.row());
  m_view->scrollTo(index, QAbstractItemView::PositionAtCenter);
  return true;
}

}  // namespace ragscope::ui
