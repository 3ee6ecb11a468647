// The demo opens from a copy in the user's data folder (issue 35, found walking through the
// workbench: labelling the demo wrote demo.ragscope.labels.db into resources/demo of the checkout),
// and the GUI's save actions never write over a file the workbench reads (item 6).

#include <QDir>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <map>
#include <string>

#include "common/files.h"
#include "core/labels/label.h"
#include "core/store/democopy.h"
#include "core/store/project.h"
#include "ui/labelbook.h"
#include "ui/mainwindow.h"
#include "ui/outputguard.h"
#include "ui/pages/kiltview.h"
#include "ui/workbench.h"

using namespace ragscope;
namespace fs = std::filesystem;

namespace {

constexpr int kWaitMs = 60000;

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

// Every file under `dir` with its size and modification time: what "unchanged" means here.
std::map<std::string, std::pair<std::uintmax_t, long long>> listing(const fs::path& dir) {
  std::map<std::string, std::pair<std::uintmax_t, long long>> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    out[fs::relative(e.path(), dir).generic_string()] = {
        e.file_size(), static_cast<long long>(e.last_write_time().time_since_epoch().count())};
  }
  return out;
}

bool waitForLoad(ui::Workbench* wb, QSignalSpy& finished) {
  if (finished.isEmpty() && !finished.wait(kWaitMs)) return false;
  return finished.front().at(0).toBool() && wb->dataset();
}

core::labels::Label claimLabel() {
  core::labels::Label l;
  l.target = {core::labels::TargetKind::Claim, "runs/claims-offline.db", "q01", "response:0"};
  l.value = "supported";
  l.annotator = "tester";
  return l;
}

}  // namespace

class TestDemoCopy : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    // The user's data folder of this test: the demo's copy goes there, never into ~/.local.
    QVERIFY(m_data.isValid());
    qputenv("XDG_DATA_HOME", m_data.path().toUtf8());
    if (!core::findDemoProject()) QSKIP("demo project not installed");
  }
  void demoOpensFromACopyAndLabelsStayThere();
  void copyKeptUntilTheBundleChanges();
  void saveActionsRefuseTheWorkbenchInputs();

 private:
  QTemporaryDir m_data;
};

void TestDemoCopy::demoOpensFromACopyAndLabelsStayThere() {
  const fs::path bundled = core::findDemoProject()->parent_path();
  const auto before = listing(bundled);
  ui::MainWindow window;
  ui::Workbench* wb = window.workbench();
  QSignalSpy finished(wb, &ui::Workbench::loadFinished);
  QVERIFY(window.openDemo());
  QVERIFY(waitForLoad(wb, finished));

  // The copy is in the user's data folder, and everything the workbench reads is in it: the KILT
  // page's "From a run..." offers the first part's folder, new runs go to <project>/runs.
  const QString folder = ui::MainWindow::demoFolder();
  QVERIFY2(folder.startsWith(m_data.path()), qPrintable(folder));
  QCOMPARE(wb->projectFile(), QDir(folder).filePath(QStringLiteral("demo.ragscope.json")));
  for (const auto& part : wb->dataset()->parts)
    QVERIFY2(q(part.path).startsWith(folder), part.path.c_str());
  QVERIFY(q(wb->retrievedRunPath("bm25")).startsWith(folder));

  // Labelling writes the labels store beside the copy's project.
  ui::LabelBook* book = wb->labelBook();
  book->setAnnotator(QStringLiteral("tester"));
  QSignalSpy added(book, &ui::LabelBook::labelAdded);
  QSignalSpy failed(book, &ui::LabelBook::labelFailed);
  book->add(claimLabel());
  QTRY_VERIFY_WITH_TIMEOUT(!added.isEmpty() || !failed.isEmpty(), kWaitMs);
  QVERIFY2(failed.isEmpty(),
           qPrintable(failed.isEmpty() ? QString() : failed.front().at(0).toString()));
  QCOMPARE(book->storePath(), QDir(folder).filePath(QStringLiteral("demo.ragscope.labels.db")));
  QVERIFY(fs::exists(fs::path(folder.toStdString()) / "demo.ragscope.labels.db"));

  // The bundled demo is as it was: no labels store, no side file, nothing rewritten.
  QCOMPARE(listing(bundled), before);
  QVERIFY(!fs::exists(bundled / "demo.ragscope.labels.db"));
}

void TestDemoCopy::copyKeptUntilTheBundleChanges() {
  QTemporaryDir dir;
  const fs::path folder = fs::path(dir.path().toStdString()) / "demo";
  std::string error;
  const auto project = core::copyDemoProject(folder, &error);
  QVERIFY2(project, error.c_str());
  QCOMPARE(*project, folder / "demo.ragscope.json");
  const fs::path bundled = core::findDemoProject()->parent_path();
  QCOMPARE(test::readText(folder / "qrels.txt"), test::readText(bundled / "qrels.txt"));
  QVERIFY(fs::exists(folder / "runs" / "claims-offline.db"));
  // A copy of the same bundle is kept as it is (the user's files in it stay) ...
  test::writeText(folder / "demo.ragscope.labels.db", "mine");
  test::writeText(folder / "qrels.txt", "edited\n");
  fs::remove(folder / "topics.tsv");
  QVERIFY(core::copyDemoProject(folder, &error));
  QCOMPARE(test::readText(folder / "qrels.txt"), std::string("edited\n"));
  QCOMPARE(test::readText(folder / "topics.tsv"), test::readText(bundled / "topics.tsv"));
  // ... until the bundle is another one (the stamp differs): its files are copied again, the
  // user's own files are left.
  test::writeText(folder / ".ragscope-demo-source", "older\n");
  QVERIFY(core::copyDemoProject(folder, &error));
  QCOMPARE(test::readText(folder / "qrels.txt"), test::readText(bundled / "qrels.txt"));
  QCOMPARE(test::readText(folder / "demo.ragscope.labels.db"), std::string("mine"));
}

void TestDemoCopy::saveActionsRefuseTheWorkbenchInputs() {
  QTemporaryDir dir;
  const QString folder = dir.filePath(QStringLiteral("demo"));
  ui::MainWindow window;
  ui::Workbench* wb = window.workbench();
  wb->setOutsidePartsPolicy(ui::Workbench::OutsidePartsPolicy::Refuse);
  QSignalSpy finished(wb, &ui::Workbench::loadFinished);
  QVERIFY(window.openDemo(folder));
  QVERIFY(waitForLoad(wb, finished));
  const fs::path root = folder.toStdString();
  const std::string qrels = test::readText(root / "qrels.txt");
  const std::string run = test::readText(root / "run-good.trec");

  // What the workbench reads: the project, its parts, its run stores, the labels store.
  const auto inputs = ui::workbenchInputs(*wb);
  for (const char* name :
       {"demo.ragscope.json", "qrels.txt", "run-good.trec", "runs/erag-good.db",
        "demo.ragscope.labels.db", "demo.ragscope.labels.db-wal", "runs/e2e-weak.db-shm"}) {
    const QString why = ui::refusedOutput(q(root / name), inputs);
    QVERIFY2(why.contains(QStringLiteral("one of the inputs")) || why.contains("side file"), name);
  }
  QVERIFY(ui::refusedOutput(q(root / "new-report.pdf"), inputs).isEmpty());

  // KILT predictions written over the run they are made from: refused, the run unchanged.
  ui::KiltView kilt(wb);
  QVERIFY(!kilt.writePredictionsFromRun(0, q(root / "run-good.trec")));
  QVERIFY2(kilt.statusText().contains(QStringLiteral("one of the inputs")),
           qPrintable(kilt.statusText()));
  QCOMPARE(test::readText(root / "run-good.trec"), run);

  // "Save project as" over one of its dataset's files: refused with the reason.
  QSignalSpy saved(wb, &ui::Workbench::projectSaved);
  QVERIFY(wb->saveProject(q(root / "qrels.txt")));
  QVERIFY(saved.wait(kWaitMs));
  QCOMPARE(saved.front().at(0).toBool(), false);
  QVERIFY2(saved.front().at(1).toString().contains(QStringLiteral("qrels.txt")),
           qPrintable(saved.front().at(1).toString()));
  QCOMPARE(test::readText(root / "qrels.txt"), qrels);
  // Saving the project over itself is what Save does.
  saved.clear();
  QVERIFY(wb->saveProject(wb->projectFile()));
  QVERIFY(saved.wait(kWaitMs));
  QVERIFY2(saved.front().at(0).toBool(), qPrintable(saved.front().at(1).toString()));
}

QTEST_MAIN(TestDemoCopy)
#include "tst_democopy.moc"
