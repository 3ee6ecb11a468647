// The job controls every job page shares (ui/pages/jobcontrols.h, ui/pages/joblauncher.h): the
// rules the eRAG and Claims pages once kept each in their own way now hold on both, checked here
// page by page: one estimate debounce that coalesces a burst of changes, the estimate's error
// shown (in the error colour), one Cancel rule (enabled from Start, a cancel during the key lookup
// sends nothing, never enabled while the page only reads), and both pages following the
// project (projectChanged) to its stored runs.

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <functional>
#include <memory>
#include <utility>

#include "common/workbenchtest.h"
#include "core/store/project.h"
#include "ui/jobs/runjob.h"
#include "ui/models/endpointlistmodel.h"
#include "ui/pages/claimspage.h"
#include "ui/pages/eragpage.h"
#include "ui/pages/jobcontrols.h"
#include "ui/secrets.h"
#include "ui/style.h"
#include "ui/workbench.h"

using namespace ragscope;

namespace {

constexpr int kLoadTimeoutMs = 60000;
constexpr int kWaitMs = 30000;

bool openDemo(ui::Workbench& wb) {
  const auto demo = core::findDemoProject();
  if (!demo) return false;
  QSignalSpy finished(&wb, &ui::Workbench::loadFinished);
  if (!wb.openProject(QString::fromStdString(demo->string()))) return false;
  if (finished.isEmpty() && !finished.wait(kLoadTimeoutMs)) return false;
  return finished.front().at(0).toBool() && wb.dataset();
}

bool errorStyled(const QLabel* label) {
  return label->styleSheet().contains(QLatin1String(ui::kErrorColor));
}

// An endpoint whose key is in the keychain: the launch waits for the lookup (offscreen there is
// no keychain service; the lookup fails once it answers or times out).
core::llm::EndpointConfig keyedEndpoint() {
  core::llm::EndpointConfig e;
  e.name = "keyed judge";
  e.kind = core::llm::EndpointKind::Chat;
  e.baseUrl = "http://127.0.0.1:9/v1";
  e.model = "m";
  e.keychainEntry = "ragscope-tst-jobcontrols";
  return e;
}

// What every job page offers the test: the same calls on eRAG and Claims.
struct PageUnderTest {
  QString name;
  QWidget* page;
  ui::JobControls* controls;
  std::function<bool()> start;
  std::function<void()> cancel;
  std::function<void(int)> setK;
  QObject* signals_;  // emits estimateFinished(bool) and finished(bool)
  const char* estimateFinished;
  const char* finished;
};

PageUnderTest erag(ui::EragPage& p) {
  return {QStringLiteral("eRAG"),
          &p,
          p.controls(),
          [&p] { return p.start(); },
          [&p] { p.cancel(); },
          [&p](int k) { p.setK(k); },
          &p,
          SIGNAL(estimateFinished(bool)),
          SIGNAL(finished(bool))};
}

PageUnderTest claims(ui::ClaimsPage& p) {
  return {QStringLiteral("Claims"),
          &p,
          p.controls(),
          [&p] { return p.start(); },
          [&p] { p.cancel(); },
          [&p](int k) { p.setK(k); },
          &p,
          SIGNAL(estimateFinished(bool)),
          SIGNAL(finished(bool))};
}

}  // namespace

class TestJobControls : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void debounceCoalescesABurst();
  void debounceIsOneOnEveryPage();
  void estimateErrorShownOnEveryPage();
  void cancelRuleIsOneOnEveryPage();
  void everyPageFollowsTheProject();

 private:
  QTemporaryDir m_dir;
};

void TestJobControls::initTestCase() {
  QVERIFY(test::isolateWorkbenchTest(QStringLiteral("tst_jobcontrols"), m_dir, 2000));
}

void TestJobControls::debounceCoalescesABurst() {
  ui::JobControls controls({QStringLiteral("Run"), ui::JobControls::WithEstimate});
  int calls = 0;
  controls.setEstimator([&] {
    ++calls;
    controls.showEstimate(QStringLiteral("n = %1").arg(calls), true);
    return true;
  });
  QSignalSpy estimated(&controls, &ui::JobControls::estimateFinished);
  QElapsedTimer clock;
  clock.start();
  for (int i = 0; i < 5; ++i) controls.scheduleEstimate();
  QVERIFY(estimated.wait(kWaitMs));
  QVERIFY(clock.elapsed() >= ui::JobControls::kEstimateDebounceMs);
  QTest::qWait(2 * ui::JobControls::kEstimateDebounceMs);
  QCOMPARE(calls, 1);
  QCOMPARE(controls.estimateLabel()->text(), QStringLiteral("n = 1"));
  // An estimate asked for now runs at once and cancels the one scheduled.
  controls.scheduleEstimate();
  QVERIFY(controls.estimateNow());
  QTest::qWait(2 * ui::JobControls::kEstimateDebounceMs);
  QCOMPARE(calls, 2);
}

void TestJobControls::debounceIsOneOnEveryPage() {
  ui::Workbench wb;
  if (!openDemo(wb)) QSKIP("demo project not installed");
  ui::EragPage eragPage(&wb);
  ui::ClaimsPage claimsPage(&wb);
  QVERIFY(claimsPage.setAnswersSource(0));  // generated from the first run: a real estimate
  QSignalSpy eragFirst(&eragPage, &ui::EragPage::estimateFinished);
  QSignalSpy claimsFirst(&claimsPage, &ui::ClaimsPage::estimateFinished);
  // The first estimates, from the constructors.
  QVERIFY(eragFirst.count() > 0 || eragFirst.wait(kWaitMs));
  QVERIFY(claimsFirst.count() > 0 || claimsFirst.wait(kWaitMs));
  for (const PageUnderTest& p : {erag(eragPage), claims(claimsPage)}) {
    QSignalSpy estimated(p.signals_, p.estimateFinished);
    QTest::qWait(2 * ui::JobControls::kEstimateDebounceMs);
    estimated.clear();
    QElapsedTimer clock;
    clock.start();
    for (int k : {3, 4, 6, 7}) p.setK(k);  // a burst: one estimate, after the one debounce
    QVERIFY2(estimated.wait(kWaitMs), qPrintable(p.name));
    QVERIFY2(clock.elapsed() >= ui::JobControls::kEstimateDebounceMs, qPrintable(p.name));
    QTest::qWait(2 * ui::JobControls::kEstimateDebounceMs);
    QCOMPARE(estimated.count(), 1);
    QVERIFY2(estimated.front().at(0).toBool(), qPrintable(p.controls->estimateLabel()->text()));
    QVERIFY(!errorStyled(p.controls->estimateLabel()));
  }
}

void TestJobControls::estimateErrorShownOnEveryPage() {
  ui::Workbench wb;
  if (!openDemo(wb)) QSKIP("demo project not installed");
  ui::EragPage eragPage(&wb);
  ui::ClaimsPage claimsPage(&wb);

  // A form the estimate cannot use: the reason is on the page, in the error colour.
  eragPage.setMeasures(QStringLiteral("P_5, no_such_measure"));
  QSignalSpy eragEstimated(&eragPage, &ui::EragPage::estimateFinished);
  QVERIFY(!eragPage.estimate());
  QCOMPARE(eragEstimated.count(), 1);
  QVERIFY(!eragEstimated.front().at(0).toBool());
  QVERIFY2(eragPage.estimateLabel()->text().startsWith(QStringLiteral("Aggregation measures: ")),
           qPrintable(eragPage.estimateLabel()->text()));
  QVERIFY(errorStyled(eragPage.estimateLabel()));

  QVERIFY(claimsPage.setAnswersSource(ui::ClaimsPage::AnswersFile));
  QSignalSpy claimsEstimated(&claimsPage, &ui::ClaimsPage::estimateFinished);
  QVERIFY(!claimsPage.estimate());
  QVERIFY(!claimsEstimated.front().at(0).toBool());
  QCOMPARE(claimsPage.estimateLabel()->text(), QStringLiteral("Choose an answers file."));
  QVERIFY(errorStyled(claimsPage.estimateLabel()));

  // An error core's estimate reports (answers that cannot be read) is shown the same way.
  claimsEstimated.clear();
  claimsPage.setAnswersFile(m_dir.filePath(QStringLiteral("missing-answers.jsonl")));
  QVERIFY(claimsPage.estimate());
  QVERIFY(claimsEstimated.wait(kWaitMs));
  QVERIFY(!claimsEstimated.back().at(0).toBool());
  QVERIFY2(claimsPage.estimateLabel()->text().contains(QStringLiteral("missing-answers.jsonl")),
           qPrintable(claimsPage.estimateLabel()->text()));
  QVERIFY(errorStyled(claimsPage.estimateLabel()));

  // A usable form again: the estimate and its colour return.
  eragEstimated.clear();
  eragPage.setMeasures(QStringLiteral("P_5, success_1"));
  QVERIFY(eragPage.estimate());
  QVERIFY(eragEstimated.wait(kWaitMs));
  QVERIFY(eragEstimated.back().at(0).toBool());
  QVERIFY(!errorStyled(eragPage.estimateLabel()));
}

void TestJobControls::cancelRuleIsOneOnEveryPage() {
  ui::Workbench wb;
  if (!openDemo(wb)) QSKIP("demo project not installed");
  // The eRAG page picks its generator from the saved endpoints; Claims takes the judge directly.
  {
    ui::EndpointListModel saved;
    saved.add(keyedEndpoint());
    saved.save();
  }
  ui::EragPage eragPage(&wb);
  eragPage.activated();
  eragPage.setRunIndex(0);
  eragPage.setEndpointIndex(1);
  ui::ClaimsPage claimsPage(&wb);
  QVERIFY(claimsPage.setAnswersSource(0));  // generated from the first run
  claimsPage.setJudgeEndpoint(keyedEndpoint());
  QSignalSpy jobs(ui::RunJobHub::instance(), &ui::RunJobHub::jobStarted);

  for (const PageUnderTest& p : {erag(eragPage), claims(claimsPage)}) {
    QPushButton* cancel = p.controls->cancelButton();
    QPushButton* start = p.controls->startButton();
    QVERIFY2(!cancel->isEnabled() && start->isEnabled(), qPrintable(p.name));  // idle
    QSignalSpy finished(p.signals_, p.finished);
    QVERIFY2(p.start(), qPrintable(p.name));
    // Launching (the key is being looked up): Cancel is there from the first moment.
    QVERIFY2(cancel->isEnabled() && !start->isEnabled(), qPrintable(p.name));
    QVERIFY(p.controls->progressBar()->isVisibleTo(p.page));
    p.cancel();
    QVERIFY2(finished.wait(kWaitMs), qPrintable(p.name));
    QVERIFY(!finished.front().at(0).toBool());
    QCOMPARE(p.controls->statusLabel()->text(), QStringLiteral("Cancelled before any call."));
    QVERIFY(errorStyled(p.controls->statusLabel()));
    QCOMPARE(jobs.count(), 0);  // nothing started, nothing sent
    QVERIFY2(!cancel->isEnabled() && start->isEnabled(), qPrintable(p.name));
    QVERIFY(!p.controls->progressBar()->isVisibleTo(p.page));
  }

  // Reading a stored run is no job: nothing to cancel.
  const auto demo = core::findDemoProject();
  const QString store =
      QFileInfo(QString::fromStdString(demo->string())).absolutePath() + "/runs/erag-good.db";
  QSignalSpy shown(&eragPage, &ui::EragPage::finished);
  QVERIFY(eragPage.openStores(store));
  QVERIFY(eragPage.isRunning());
  QVERIFY(!eragPage.controls()->cancelButton()->isEnabled());
  QVERIFY(shown.wait(kWaitMs));
  QVERIFY(!eragPage.isRunning());
}

void TestJobControls::everyPageFollowsTheProject() {
  ui::Workbench wb;
  if (!openDemo(wb)) QSKIP("demo project not installed");
  // Pages made after the load show nothing yet; the project changing (saved under another name,
  // the dataset unchanged) is what brings its stored runs to both.
  ui::EragPage eragPage(&wb);
  ui::ClaimsPage claimsPage(&wb);
  QVERIFY(!eragPage.results());
  QVERIFY(!claimsPage.report());
  QSignalSpy eragShown(&eragPage, &ui::EragPage::finished);
  QSignalSpy claimsShown(&claimsPage, &ui::ClaimsPage::finished);
  QSignalSpy saved(&wb, &ui::Workbench::projectSaved);
  QVERIFY(wb.saveProject(m_dir.filePath(QStringLiteral("copy.ragscope.json"))));
  QVERIFY(saved.wait(kWaitMs));
  QVERIFY2(saved.front().at(0).toBool(), qPrintable(saved.front().at(1).toString()));
  QVERIFY(eragShown.count() > 0 || eragShown.wait(kWaitMs));
  QVERIFY(claimsShown.count() > 0 || claimsShown.wait(kWaitMs));
  QVERIFY2(eragPage.results(), qPrintable(eragPage.statusLabel()->text()));
  QVERIFY2(claimsPage.report(), qPrintable(claimsPage.statusLabel()->text()));

  // How the pages look with the shared controls (RAGSCOPE_SCREENSHOT_DIR set: saved as PNG).
  const QString dir = qEnvironmentVariable("RAGSCOPE_SCREENSHOT_DIR");
  const std::pair<QWidget*, QWidget*> pages[] = {{&eragPage, eragPage.controls()},
                                                 {&claimsPage, claimsPage.controls()}};
  for (const auto& [page, controls] : pages) {
    page->resize(1360, 860);
    page->show();
    QTest::qWait(100);
    const QImage image = page->grab().toImage();
    QVERIFY(!image.isNull());
    if (!dir.isEmpty()) {
      QDir().mkpath(dir);
      QVERIFY(image.save(QDir(dir).filePath(page->objectName() + QStringLiteral(".png"))));
      QVERIFY(controls->grab().save(
          QDir(dir).filePath(page->objectName() + QStringLiteral("-controls.png"))));
    }
    page->hide();
  }
}

QTEST_MAIN(TestJobControls)
#include "tst_jobcontrols.moc"
