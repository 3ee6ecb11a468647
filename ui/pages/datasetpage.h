#pragma once
// The dataset page: open any format (detected where unambiguous, asked otherwise), watch it load in
// the background with progress and cancel, then browse queries (virtualised, sortable, filterable
// table + detail pane), the corpus (CorpusBrowser: document list + text) and the runs.

#include <QString>
#include <QStringList>
#include <string>
#include <unordered_map>

#include "core/data/diagnostic.h"
#include "ui/pages/page.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTabWidget;
class QTableView;
class QTextBrowser;
class QTimer;
class QToolButton;
class QTreeWidget;

namespace ragscope::ui {

class CorpusBrowser;
class DocumentFilterProxyModel;
class DocumentListModel;
class QueryFilterProxyModel;
class QueryTableModel;
class Workbench;

class DatasetPage : public Page {
  Q_OBJECT
 public:
  explicit DatasetPage(Workbench* workbench, QWidget* parent = nullptr);
  ~DatasetPage() override;

  QString title() const override { return tr("Dataset"); }
  QIcon icon() const override;

  // Opening. Formats are detected; for paths where detection fails the user picks one
  // (`askFormats` false: fail instead, for scripted use). Returns false if nothing was started.
  bool openPaths(const QStringList& paths, const QStringList& formats = {}, bool askFormats = true);
  void chooseFiles();
  void chooseFolder();
  void chooseProject();
  // Saves the loaded dataset into the current project file, or asks for one (Save As).
  void saveProject();
  void saveProjectAs();

  // Jumps to the record a diagnostic is about (query row, or corpus document); false if none.
  bool showRecord(const core::Diagnostic& diagnostic);
  // Selects a query by its row in the dataset (clearing the filter if it hides the row).
  bool selectQueryRow(int datasetRow);
  // Opens the corpus tab on a document id (or the first chunk of a source file name).
  bool showDocument(const std::string& id);
  // Applies a query filter at once (the line edit applies it after a short pause).
  void setQueryFilter(const QString& text);
  // Gives a document of the selected query a human relevance grade (0..3), as the detail's grade
  // links and keys do (core/labels/README.md); false when no query is selected.
  bool gradeDocument(const std::string& docId, int grade);

  // For the self-test and tests.
  QTabWidget* tabs() const { return m_tabs; }
  QTableView* queryView() const { return m_queryView; }
  QueryTableModel* queryModel() const { return m_queryModel; }
  QueryFilterProxyModel* queryProxy() const { return m_queryProxy; }
  QTextBrowser* detailView() const { return m_detail; }
  CorpusBrowser* corpusBrowser() const { return m_corpus; }
  QTableView* documentView() const;
  DocumentListModel* documentModel() const;
  DocumentFilterProxyModel* documentProxy() const;
  // The selected document's text; a text left in its file arrives a moment after the selection
  // (CorpusBrowser::documentShown).
  QPlainTextEdit* documentText() const;
  QLineEdit* queryFilterEdit() const { return m_queryFilter; }
  QProgressBar* progressBar() const { return m_progress; }
  QPushButton* cancelButton() const { return m_cancel; }
  // Index of the corpus tab and runs tab within tabs().
  int queriesTab() const { return 0; }
  int corpusTab() const { return 1; }
  int runsTab() const { return 2; }

 signals:
  void statusMessage(const QString& message);

 private:
  QWidget* buildQueriesTab();
  QWidget* buildRunsTab();
  void onDatasetChanged();
  void onLoadStarted(const QString& name);
  void onLoadProgress(quint64 done, quint64 total);
  void onLoadFinished(bool ok, const QString& message);
  void onProjectChanged();
  void onProjectSaved(bool ok, const QString& fileOrError);
  void showQueryDetail();
  void updateQueryCount();
  void openLink(const QUrl& url);
  bool eventFilter(QObject* watched, QEvent* event) override;
  QString askFormat(const QString& path);

  Workbench* m_workbench;
  QLabel* m_name;
  QLabel* m_summary;
  QComboBox* m_projectDatasets;
  QComboBox* m_onError;
  QProgressBar* m_progress;
  QPushButton* m_cancel;
  QToolButton* m_open;
  QTabWidget* m_tabs;
  bool m_saveRequested = false;  // a save this page started (scripted saves report themselves)
  QString m_loadingName;         // the load under way, for its progress messages

  QueryTableModel* m_queryModel;
  QueryFilterProxyModel* m_queryProxy;
  QLineEdit* m_queryFilter;
  QCheckBox* m_flaggedOnly;
  QLabel* m_queryCount;
  QTableView* m_queryView;
  QTextBrowser* m_detail;
  QTimer* m_filterTimer;

  CorpusBrowser* m_corpus;

  QTreeWidget* m_runs;
  std::unordered_map<std::string, std::size_t> m_exampleIndex;
};

}  // namespace ragscope::ui
