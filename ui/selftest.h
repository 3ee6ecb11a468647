#pragma once
// Drives a real MainWindow through its main views without a user: opens the demo project (or given
// files), waits for the background load, selects, filters, sorts, opens a corpus document and the
// Issues dock, and optionally saves screenshots. Used by `ragscope --self-test` (smoke test) and by
// the headless demo (no display: the same tour, reported on stdout).

#include <QObject>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <functional>
#include <memory>
#include <vector>

#include "core/store/project.h"

class QTemporaryDir;

class QTextStream;

namespace ragscope::ui {

class MainWindow;
class RetrievalPage;

struct SelfTestOptions {
  QString screenshotDir;  // empty: no screenshots
  QStringList openPaths;  // empty: the demo project
  QStringList formats;    // per path (or one for all); empty = detect
  int timeoutMs = 300000;
};

class SelfTest : public QObject {
  Q_OBJECT
 public:
  SelfTest(MainWindow* window, SelfTestOptions options, QObject* parent = nullptr);

  // Starts the tour; finished() reports 0 on success, 1 on a failed check.
  void start();
  QStringList screenshots() const { return m_screenshots; }
  QStringList failures() const { return m_failures; }
  // What was checked and produced, one line each.
  QStringList log() const { return m_log; }

 signals:
  void finished(int exitCode);

 private:
  void onLoadFinished(bool ok, const QString& message);
  void check(bool condition, const QString& what);
  void shoot(const QString& name);
  void runSteps();
  void tourSecondDataset();
  // Evaluates the dataset's runs on the retrieval page; the tour waits for the result.
  void evaluateRetrieval();
  // Checks the retrieval summary's CI cells are computed and fit their columns.
  void checkIntervalsVisible(RetrievalPage* page);
  // Compares the evaluated runs and contrasts the top and bottom half of the queries.
  void compareRunsAndContrast();
  // The endpoints page, then eRAG with the offline reader (k = 5, contains-answer labels, with
  // end-to-end): heatmap, drill-down and correlation. Run stores go to a temporary folder.
  void tourLlmPages();
  // The Claims page on the project's stored claims run: summary, an answer in the inspector, the
  // unsupported claims.
  void tourClaimsPage();
  // Saves the open project into a temporary folder and reads it back (paths rebased, every part
  // and run store naming the same file); the tour's later project steps then use the copy.
  void saveProjectCopy();
  void checkSavedProject(const QString& file, const core::Project& original);
  void finish();

  MainWindow* m_window;
  SelfTestOptions m_options;
  QTimer m_timeout;
  std::vector<std::function<void()>> m_steps;
  std::size_t m_next = 0;
  QStringList m_screenshots;
  QStringList m_failures;
  QStringList m_log;
  bool m_done = false;
  int m_loads = 0;
  bool m_secondStarted = false;
  bool m_waiting = false;  // a step started background work; its signal resumes the tour
  std::shared_ptr<QTemporaryDir> m_runsDir;     // the eRAG tour's run stores
  std::shared_ptr<QTemporaryDir> m_projectDir;  // the saved project copy
  std::shared_ptr<QTemporaryDir> m_demoDir;     // the demo's copy the tour opens
};

}  // namespace ragscope::ui
