#include "ui/mainwindow.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>

#include "core/store/democopy.h"
#include "core/store/project.h"
#include "ui/issuesdock.h"
#include "ui/jobsdock.h"
#include "ui/outputguard.h"
#include "ui/pages/claimspage.h"
#include "ui/pages/comparepage.h"
#include "ui/pages/contrastivepage.h"
#include "ui/pages/datasetpage.h"
#include "ui/pages/endpointspage.h"
#include "ui/pages/eragpage.h"
#include "ui/pages/kiltview.h"
#include "ui/pages/page.h"
#include "ui/pages/retrievalpage.h"
#include "ui/pages/retrieverspage.h"
#include "ui/preferences.h"
#include "ui/reportdialog.h"
#include "ui/viewexport.h"
#include "ui/workbench.h"

namespace ragscope::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      m_workbench(new Workbench(this)),
      m_sidebar(new QListWidget),
      m_stack(new QStackedWidget),
      m_issues(new IssuesDock(this)),
      m_datasetPage(nullptr),
      m_issueCount(new QLabel) {
  setObjectName(QStringLiteral("MainWindow"));
  setWindowTitle(tr("ragscope"));

  m_sidebar->setObjectName(QStringLiteral("PageSidebar"));
  m_sidebar->setViewMode(QListView::ListMode);
  m_sidebar->setIconSize(QSize(22, 22));
  m_sidebar->setSpacing(2);
  m_sidebar->setFixedWidth(150);
  m_sidebar->setFrameShape(QFrame::NoFrame);
  connect(m_sidebar, &QListWidget::currentRowChanged, this, [this](int row) {
    if (row < 0 || row >= m_pages.size()) return;
    m_stack->setCurrentIndex(row);
    m_pages[row]->activated();
  });

  auto* central = new QWidget;
  auto* layout = new QHBoxLayout(central);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(m_sidebar);
  layout->addWidget(m_stack, 1);
  setCentralWidget(central);

  addDockWidget(Qt::BottomDockWidgetArea, m_issues);
  // LLM jobs of every page, and the stored runs; hidden until the first job or View > Jobs.
  auto* jobs = new JobsDock(m_workbench, this);
  addDockWidget(Qt::BottomDockWidgetArea, jobs);
  tabifyDockWidget(m_issues, jobs);
  jobs->hide();
  connect(jobs, &JobsDock::statusMessage, this,
          [this](const QString& message) { statusBar()->showMessage(message, 10000); });
  statusBar()->addPermanentWidget(m_issueCount);

  m_datasetPage = new DatasetPage(m_workbench);
  addPage(m_datasetPage);
  addPage(new RetrievalPage(m_workbench, this));
  addPage(new ComparePage(m_workbench, this));
  addPage(new ContrastivePage(m_workbench, this));
  addPage(new EndpointsPage(this));
  addPage(new RetrieversPage(m_workbench, this));
  addPage(new EragPage(m_workbench, this));
  addPage(new ClaimsPage(m_workbench, this));
  addPage(new KiltView(m_workbench, this));
  // Later pages (statistics, endpoints, eRAG...) join here, one line each.

  connect(m_datasetPage, &DatasetPage::statusMessage, this,
          [this](const QString& message) { statusBar()->showMessage(message, 10000); });
  connect(m_workbench, &Workbench::reportChanged, this,
          [this] { m_issues->setReport(m_workbench->report()); });
  connect(m_issues, &IssuesDock::summaryChanged, this, [this](const QString& summary) {
    m_issueCount->setText(summary.isEmpty() ? tr("No issues") : summary);
    if (!summary.isEmpty() && m_issues->isHidden()) {
      m_issues->show();
      resizeDocks({m_issues}, {170}, Qt::Vertical);  // a strip, not half the window
    }
  });
  connect(m_issues, &IssuesDock::jumpRequested, this, [this](const core::Diagnostic& d) {
    showPage(m_datasetPage);
    m_datasetPage->showRecord(d);
  });
  connect(m_workbench, &Workbench::datasetChanged, this,
          [this] { setWindowTitle(tr("%1 — ragscope").arg(m_workbench->datasetName())); });
  m_issueCount->setText(tr("No issues"));

  buildMenus();
  restoreLayout();
}

MainWindow::~MainWindow() = default;

void MainWindow::addPage(Page* page) {
  m_pages.push_back(page);
  m_stack->addWidget(page);
  auto* item = new QListWidgetItem(page->icon(), page->title(), m_sidebar);
  item->setSizeHint(QSize(0, 36));
  if (m_viewMenu) {
    QAction* go =
        m_viewMenu->addAction(page->icon(), page->title(), this, [this, page] { showPage(page); });
    if (m_pages.size() <= 9)
      go->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_0 + m_pages.size())));
  }
  if (m_sidebar->currentRow() < 0) m_sidebar->setCurrentRow(0);
}

void MainWindow::showPage(Page* page) {
  const int row = int(m_pages.indexOf(page));
  if (row >= 0) m_sidebar->setCurrentRow(row);
}

Page* MainWindow::currentPage() const {
  const int row = m_stack->currentIndex();
  return row >= 0 && row < m_pages.size() ? m_pages[row] : nullptr;
}

QString MainWindow::demoFolder() {
  return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
      .filePath(QStringLiteral("demo"));
}

bool MainWindow::openDemo(const QString& folder) {
  // A copy, so that trying the demo (labelling, runs, "save beside the dataset") never changes
  // the bundled files: in a checkout they are the source tree.
  std::string error;
  const auto demo =
      core::copyDemoProject((folder.isEmpty() ? demoFolder() : folder).toStdString(), &error);
  if (!demo) {
    statusBar()->showMessage(
        tr("The demo project cannot be opened: %1").arg(QString::fromStdString(error)), 10000);
    return false;
  }
  showPage(m_datasetPage);
  return m_workbench->openProject(QString::fromStdString(demo->string()));
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open dataset files…"),
                  QKeySequence::Open, m_datasetPage, &DatasetPage::chooseFiles);
  file->addAction(tr("Open dataset &folder…"), m_datasetPage, &DatasetPage::chooseFolder);
  file->addAction(tr("Open &project…"), m_datasetPage, &DatasetPage::chooseProject);
  QAction* save =
      file->addAction(style()->standardIcon(QStyle::SP_DialogSaveButton), tr("&Save project"),
                      QKeySequence::Save, m_datasetPage, &DatasetPage::saveProject);
  QAction* saveAs = file->addAction(tr("Save project &as…"), QKeySequence::SaveAs, m_datasetPage,
                                    &DatasetPage::saveProjectAs);
  save->setObjectName(QStringLiteral("actionSaveProject"));
  saveAs->setObjectName(QStringLiteral("actionSaveProjectAs"));
  // A project records a loaded bundle: nothing to save before one is open.
  save->setEnabled(false);
  saveAs->setEnabled(false);
  connect(m_workbench, &Workbench::datasetChanged, this, [this, save, saveAs] {
    save->setEnabled(m_workbench->dataset() != nullptr);
    saveAs->setEnabled(m_workbench->dataset() != nullptr);
  });
  file->addSeparator();
  QAction* report = file->addAction(tr("&Report…"), this, [this] {
    ReportDialog dialog(m_workbench, this);
    dialog.exec();
  });
  report->setObjectName(QStringLiteral("actionReport"));
  report->setStatusTip(tr("Write the project's results as a PDF report, JSON or CSV"));
  QAction* exportView = file->addAction(tr("&Export view…"), this, [this] {
    exportPageView(
        currentPage(), this, QString(),
        [this](bool, const QString& message) { statusBar()->showMessage(message, 10000); },
        workbenchInputs(*m_workbench));
  });
  exportView->setObjectName(QStringLiteral("actionExportView"));
  exportView->setStatusTip(tr("Write the table on screen, as sorted and filtered, as CSV or JSON"));
  file->addSeparator();
  file->addAction(tr("Open the &demo project"), this, [this] { openDemo(); });
  m_recentMenu = file->addMenu(tr("&Recent datasets and projects"));
  connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
  rebuildRecentMenu();
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

  m_viewMenu = menuBar()->addMenu(tr("&View"));
  m_viewMenu->addAction(m_issues->toggleViewAction());
  if (auto* jobs = findChild<JobsDock*>()) m_viewMenu->addAction(jobs->toggleViewAction());
  m_viewMenu->addSeparator();
  for (qsizetype i = 0; i < m_pages.size(); ++i) {
    Page* page = m_pages[i];
    QAction* go =
        m_viewMenu->addAction(page->icon(), page->title(), this, [this, page] { showPage(page); });
    if (i < 9) go->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
  }

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About ragscope"), this, [this] {
    QMessageBox::about(this, tr("About ragscope"),
                       tr("<b>ragscope %1</b><p>A workbench for evaluating retrieval-augmented "
                          "generation: datasets, retrieval metrics, eRAG, claim-level judging and "
                          "statistics.</p>")
                           .arg(QApplication::applicationVersion()));
  });
}

void MainWindow::rebuildRecentMenu() {
  m_recentMenu->clear();
  const QVector<RecentDataset> recent = Preferences::recentDatasets();
  for (const RecentDataset& entry : recent) {
    QAction* action = m_recentMenu->addAction(entry.label(), this, [this, entry] {
      showPage(m_datasetPage);
      if (!entry.project.isEmpty())
        m_workbench->openProject(entry.project, entry.projectDataset);
      else
        m_workbench->openDataset(entry);
    });
    QStringList paths;
    for (const auto& p : entry.parts) paths << p.path;
    action->setToolTip(entry.project.isEmpty() ? paths.join(QLatin1Char('\n')) : entry.project);
    action->setStatusTip(action->toolTip());
  }
  if (recent.isEmpty()) m_recentMenu->addAction(tr("(none)"))->setEnabled(false);
  m_recentMenu->addSeparator();
  m_recentMenu->addAction(tr("Clear the list"), this, [] { Preferences::clearRecentDatasets(); });
}

void MainWindow::restoreLayout() {
  resize(1360, 860);
  const QByteArray geometry = Preferences::windowGeometry.get();
  if (!geometry.isEmpty()) restoreGeometry(geometry);
  const QByteArray state = Preferences::windowState.get();
  // First run: the Issues dock stays out of the way until a load reports a problem.
  if (state.isEmpty() || !restoreState(state)) m_issues->hide();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  Preferences::windowGeometry.set(saveGeometry());
  Preferences::windowState.set(saveState());
  // A load still running is cancelled; the LoadJob waits for its worker when destroyed.
  m_workbench->cancelLoad();
  QMainWindow::closeEvent(event);
}

}  // namespace ragscope::ui
