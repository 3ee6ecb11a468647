#pragma once
// The dataset page's Corpus tab: the document list, a filter, and the selected document's text.
//
// A small corpus is filtered by substring and sorted by any column (DocumentFilterProxyModel). A
// big one (ui/models/documentsearch.h: a KILT knowledge source of 5.9M pages) is listed whole in
// file order without a proxy, the filter box finds documents by id or title prefix (a search off
// the GUI thread, at most kMaxMatches rows, the newest request wins), and column sorting is off.
// Texts left in their file are read off the GUI thread too, the newest selection winning; KILT
// pages show their paragraphs numbered from 0, as KILT provenance counts them.

#include <QThreadPool>
#include <QWidget>
#include <atomic>
#include <memory>
#include <string>

#include "core/data/dataset.h"

class QLabel;
class QLineEdit;
class QTableView;
class QTimer;

namespace ragscope::ui {

class DocumentFilterProxyModel;
class DocumentListModel;
class DocumentTextView;
struct PrefixMatches;

class CorpusBrowser : public QWidget {
  Q_OBJECT
 public:
  static constexpr std::size_t kMaxMatches = 500;

  explicit CorpusBrowser(QWidget* parent = nullptr);
  ~CorpusBrowser() override;

  // A big corpus's rows are listed in the next event-loop turn (rowsShown()); a small one's at
  // once.
  void setDataset(std::shared_ptr<const core::Dataset> dataset);
  // Selects a document by id (or the first chunk of a source file name), clearing a filter that
  // hides it. Its text may arrive later (documentShown()). False when the corpus has no such id.
  bool showDocument(const std::string& id);
  // Applies a filter (big corpus: starts a prefix search) at once; the box waits for a pause.
  void setFilter(const QString& text);
  // A big corpus: prefix search, no sorting, no proxy.
  bool isBig() const { return m_big; }
  // A search or a text read has been started and has not come back yet.
  bool isSearching() const { return m_searching; }
  bool isReading() const { return m_reading; }

  QTableView* view() const { return m_view; }
  DocumentListModel* model() const { return m_model; }
  // Small corpora only: over a big one it has no source model.
  DocumentFilterProxyModel* proxy() const { return m_proxy; }
  DocumentTextView* textView() const { return m_text; }
  QLineEdit* filterEdit() const { return m_filter; }
  QLabel* countLabel() const { return m_count; }
  QLabel* heading() const { return m_heading; }

 signals:
  // The rows of the dataset last set are listed.
  void rowsShown();
  // A prefix search ended with this many rows shown (big corpus).
  void searchFinished(int rows);
  // The text pane shows this document's text.
  void documentShown(const QString& id);

 private:
  void attachModel(bool big);
  // The part of setDataset() a big corpus leaves to the next event-loop turn (nothing when done).
  void applyDataset();
  void applyFilter(const QString& text);
  void search(const QString& prefix);
  void onSearched(const PrefixMatches& matches);
  void showCurrent();
  void widenToRows();
  void updateCount();

  std::shared_ptr<const core::Dataset> m_dataset;
  bool m_big = false;
  bool m_kiltPages = false;  // a KILT knowledge source part: in-memory texts are its pages
  bool m_pending = false;    // applyDataset() has yet to run for m_dataset
  DocumentListModel* m_model;
  DocumentFilterProxyModel* m_proxy;
  QLineEdit* m_filter;
  QLabel* m_count;
  QTableView* m_view;
  QLabel* m_heading;
  DocumentTextView* m_text;
  QTimer* m_filterTimer;

  // Searches and reads run on these, never on the global pool (a pread can wait on a disk). The
  // counters name the newest request of each kind: an older one's result is dropped.
  QThreadPool m_searchPool;
  QThreadPool m_readPool;
  std::shared_ptr<std::atomic<quint64>> m_latestSearch;
  std::shared_ptr<std::atomic<quint64>> m_latestRead;
  bool m_searching = false;
  bool m_reading = false;
  bool m_moreMatches = false;
};

}  // namespace ragscope::ui
