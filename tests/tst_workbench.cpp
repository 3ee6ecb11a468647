// The workbench opening a project (ui/, no widgets): parts outside the project folder are read
// only when the user agrees, remembered per project and path, and never from system files.

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <string>

#include "common/files.h"
#include "ui/preferences.h"
#include "ui/workbench.h"

using namespace ragscope::core;
using ragscope::test::diagnosticsText;
using ragscope::test::writeText;
namespace fs = std::filesystem;

namespace {

fs::path tempRoot(const QTemporaryDir& dir) { return fs::path(dir.path().toStdString()); }

}  // namespace

class TestWorkbench : public QObject {
  Q_OBJECT

 private slots:
  // Item 10 in the GUI: a project naming parts outside its folder is read only when the user
  // agrees (asked once per project and path), never from /proc, and never silently.
  void workbenchAsksBeforeReadingOutsideParts() {
    using ragscope::ui::Workbench;
    QTemporaryDir dir;
    const fs::path root = tempRoot(dir);
    const fs::path file = root / "proj" / "p.ragscope.json";
    writeText(root / "proj" / "topics.tsv", "1\tq\n");
    writeText(root / "outside.tsv", "1 0 d 1\n");
    writeText(file, R"({"version": 1, "name": "n", "datasets": [{"name": "d", "parts": [
        {"path": "topics.tsv", "format": "topics-tsv"},
        {"path": "../outside.tsv", "format": "trec-qrels"}]}]})");
    const QString projectFile = QString::fromStdString(file.string());
    const QString outside = QString::fromStdString((root / "outside.tsv").string());
    ragscope::ui::Preferences::confirmedOutsideParts.set({});

    auto open = [&](Workbench& wb, bool expectStart) {
      QSignalSpy finished(&wb, &Workbench::loadFinished);
      const bool started = wb.openProject(projectFile);
      if (started != expectStart) return false;
      if (finished.isEmpty() && !finished.wait(20000)) return false;
      return finished.front().at(0).toBool();
    };
    {  // Refuse: nothing is read, and the report says why.
      Workbench wb;
      wb.setOutsidePartsPolicy(Workbench::OutsidePartsPolicy::Refuse);
      int asked = 0;
      wb.setOutsidePartsAsker([&](const QString&, const QStringList&) { return ++asked, true; });
      QVERIFY(!open(wb, false));
      QCOMPARE(asked, 0);
      QVERIFY(!wb.dataset());
      const QString all = diagnosticsText(wb.report());
      QVERIFY2(all.contains("datasets[0].parts[1].path: outside the project folder: " + outside +
                            "; not read"),
               qPrintable(all));
    }
    {  // Ask, declined.
      Workbench wb;
      QStringList seen;
      QString seenProject;
      wb.setOutsidePartsAsker([&](const QString& project, const QStringList& paths) {
        seenProject = project;
        seen = paths;
        return false;
      });
      QVERIFY(!open(wb, false));
      QCOMPARE(seenProject, projectFile);
      QCOMPARE(seen, QStringList{outside});
      QVERIFY(!wb.dataset());
    }
    {  // Ask, accepted: loaded, with the warning kept in the report.
      Workbench wb;
      int asked = 0;
      wb.setOutsidePartsAsker([&](const QString&, const QStringList&) { return ++asked, true; });
      QVERIFY(open(wb, true));
      QCOMPARE(asked, 1);
      QVERIFY(wb.dataset());
      QCOMPARE(wb.dataset()->qrels.judgmentCount(), std::size_t{1});
      QVERIFY(diagnosticsText(wb.report()).contains("outside the project folder: " + outside));
    }
    {  // Remembered for this project and path: not asked again.
      Workbench wb;
      int asked = 0;
      wb.setOutsidePartsAsker([&](const QString&, const QStringList&) { return ++asked, false; });
      QVERIFY(open(wb, true));
      QCOMPARE(asked, 0);
    }
    ragscope::ui::Preferences::confirmedOutsideParts.set({});
    {  // Allow (tests, scripted use): read without asking.
      Workbench wb;
      wb.setOutsidePartsPolicy(Workbench::OutsidePartsPolicy::Allow);
      int asked = 0;
      wb.setOutsidePartsAsker([&](const QString&, const QStringList&) { return ++asked, false; });
      QVERIFY(open(wb, true));
      QCOMPARE(asked, 0);
    }
    {  // The default asker never blocks a headless run: offscreen, nobody can answer.
      Workbench wb;
      QVERIFY(!open(wb, false));
    }
    {  // A special file is refused whatever the policy.
      writeText(file, R"({"version": 1, "name": "n", "datasets": [{"name": "d", "parts": [
          {"path": "topics.tsv", "format": "topics-tsv"},
          {"path": "/proc/self/status", "format": "topics-tsv"}]}]})");
      Workbench wb;
      wb.setOutsidePartsPolicy(Workbench::OutsidePartsPolicy::Allow);
      QVERIFY(!open(wb, false));
      QVERIFY(
          diagnosticsText(wb.report()).contains("not read: /proc/self/status is a system file"));
    }
    {  // Parts inside the folder: never asked.
      writeText(file, R"({"version": 1, "name": "n", "datasets": [{"name": "d", "parts": [
          {"path": "topics.tsv", "format": "topics-tsv"}]}]})");
      Workbench wb;
      int asked = 0;
      wb.setOutsidePartsAsker([&](const QString&, const QStringList&) { return ++asked, false; });
      QVERIFY(open(wb, true));
      QCOMPARE(asked, 0);
    }
    {  // "Save as" into another folder: what the user trusted (parts inside the folder saved
       // from) stays trusted, so switching to the project's other dataset asks nothing.
      writeText(file, R"({"version": 1, "name": "n", "datasets": [
          {"name": "d", "parts": [{"path": "topics.tsv", "format": "topics-tsv"}]},
          {"name": "e", "parts": [{"path": "topics.tsv", "format": "topics-tsv"}]}]})");
      Workbench wb;
      int asked = 0;
      wb.setOutsidePartsAsker([&](const QString&, const QStringList&) { return ++asked, false; });
      QVERIFY(open(wb, true));
      fs::create_directories(root / "elsewhere");
      const QString copy =
          QString::fromStdString((root / "elsewhere" / "copy.ragscope.json").string());
      QSignalSpy saved(&wb, &Workbench::projectSaved);
      QVERIFY(wb.saveProject(copy));
      QVERIFY(saved.wait(20000));
      QVERIFY(saved.front().at(0).toBool());
      QCOMPARE(wb.projectFile(), copy);
      QSignalSpy finished(&wb, &Workbench::loadFinished);
      QVERIFY(wb.openProjectDataset("e"));
      QVERIFY(finished.wait(20000));
      QVERIFY(finished.front().at(0).toBool());
      QCOMPARE(asked, 0);
      // A fresh workbench opening the copy: not asked either (remembered).
      Workbench again;
      again.setOutsidePartsAsker(
          [&](const QString&, const QStringList&) { return ++asked, false; });
      QVERIFY(again.openProject(copy, "e"));
      QCOMPARE(asked, 0);
    }
    ragscope::ui::Preferences::confirmedOutsideParts.set({});
  }
};

QTEST_GUILESS_MAIN(TestWorkbench)
#include "tst_workbench.moc"
