#pragma once
// The window is a shell: a sidebar of pages over a stack, the Issues dock, menus and a status bar.
// Features live in pages (ui/pages) and shared state in the Workbench; a new page is one addPage().

#include <QList>
#include <QMainWindow>

class QLabel;
class QListWidget;
class QMenu;
class QStackedWidget;

namespace ragscope::ui {

class DatasetPage;
class IssuesDock;
class Page;
class Workbench;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  void addPage(Page* page);
  void showPage(Page* page);
  QList<Page*> pages() const { return m_pages; }
  Page* currentPage() const;

  Workbench* workbench() const { return m_workbench; }
  DatasetPage* datasetPage() const { return m_datasetPage; }
  IssuesDock* issuesDock() const { return m_issues; }

  // Opens a copy of the bundled demo project (core/store/democopy.h) in `folder`, by default
  // demoFolder(): labels, runs and files saved from the demo go into the copy, never into the
  // bundled resources/demo. False (with a status message) when the demo is not installed or the
  // copy cannot be made.
  bool openDemo(const QString& folder = {});
  // Where the demo's copy is kept: <the user's data folder>/demo
  // (~/.local/share/ragscope/ragscope/demo).
  static QString demoFolder();

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void buildMenus();
  void rebuildRecentMenu();
  void restoreLayout();

  Workbench* m_workbench;
  QListWidget* m_sidebar;
  QStackedWidget* m_stack;
  IssuesDock* m_issues;
  DatasetPage* m_datasetPage;
  QMenu* m_recentMenu = nullptr;
  QMenu* m_viewMenu = nullptr;
  QLabel* m_issueCount;
  QList<Page*> m_pages;
};

}  // namespace ragscope::ui
