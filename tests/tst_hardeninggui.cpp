// Hardening, round three (issue 24) in the workbench. Item 4: an es or http retriever named by a
// project file from elsewhere sends the dataset's queries only once this machine's user has
// confirmed it, key or not; one saved on the Retrievers page counts as configured; BM25 is local
// and needs nothing. Offscreen nobody can answer the question, so it declines.

#include <QApplication>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/files.h"
#include "common/testdata.h"
#include "testserver/testserver.h"
#include "ui/pages/retrievalpage.h"
#include "ui/pages/retrieverrunbar.h"
#include "ui/pages/retrieverspage.h"
#include "ui/retrievertrust.h"
#include "ui/workbench.h"

using namespace ragscope;
namespace fs = std::filesystem;

namespace {

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

// The demo project copied into `dir` (tests never write beside the repository's files).
fs::path copyDemo(const fs::path& dir) {
  fs::copy(test::sourceRoot() / "resources" / "demo", dir / "demo", fs::copy_options::recursive);
  return dir / "demo" / "demo.ragscope.json";
}

bool openProject(ui::Workbench& wb, const fs::path& file) {
  QSignalSpy finished(&wb, &ui::Workbench::loadFinished);
  if (!wb.openProject(q(file))) return false;
  if (finished.isEmpty() && !finished.wait(30000)) return false;
  return finished.front().at(0).toBool();
}

bool runAndWait(ui::RetrieverRunBar* bar, int index, int k) {
  QSignalSpy finished(bar, &ui::RetrieverRunBar::finished);
  if (!bar->run(index, k)) return false;
  if (!finished.wait(60000)) return false;
  return finished.front().at(0).toBool();
}

}  // namespace

class TestHardeningGui : public QObject {
  Q_OBJECT

 private slots:
  void item04_keylessRetrieverFromProjectNeedsConfirmation();
};

void TestHardeningGui::item04_keylessRetrieverFromProjectNeedsConfirmation() {
  // The trust registry is written under XDG_CONFIG_HOME: the test's own folder, never ~/.config.
  QVERIFY(qEnvironmentVariableIsSet("XDG_CONFIG_HOME"));
  QTemporaryDir tmp;
  QVERIFY(tmp.isValid());
  const fs::path root = tmp.path().toStdString();
  testserver::Options so;
  so.documents = {{"d1", "harbor water authority"}};
  testserver::TestServer server(so);
  QVERIFY(server.start());
  const std::string base = "http://127.0.0.1:" + std::to_string(server.port());
  // A project from elsewhere names two services and no key at all.
  const fs::path project = copyDemo(root);
  auto json = nlohmann::json::parse(test::readText(project));
  json["retrievers"] =
      nlohmann::json::array({{{"kind", "http"}, {"name", "theirs"}, {"url", base + "/retrieve"}},
                             {{"kind", "es"}, {"name", "their-es"}, {"url", base + "/index"}}});
  std::ofstream(project, std::ios::binary | std::ios::trunc) << json.dump(2);
  ui::Workbench wb;
  wb.setOutsidePartsPolicy(ui::Workbench::OutsidePartsPolicy::Allow);
  QVERIFY(openProject(wb, project));
  QCOMPARE(wb.retrievers().size(), std::size_t{2});
  ui::RetrievalPage retrieval(&wb);
  ui::RetrieverRunBar* bar = retrieval.retrieverBar();

  // Neither runs: no key, but the queries would go to a URL nobody here chose.
  for (int i : {0, 1}) {
    QVERIFY(!bar->run(i, 5));
    const QString status = bar->statusLabel()->text();
    QVERIFY2(status.startsWith(QStringLiteral("Not sent")) &&
                 status.contains(QStringLiteral("(no key)")),
             qPrintable(status));
  }
  // Nor is the Retrievers page's test of the unsaved editor sent.
  ui::RetrieversPage page(&wb);
  QVERIFY(page.selectRow(0));
  QVERIFY(!page.test(QStringLiteral("harbor")));
  QVERIFY2(page.testHeadline()->text().startsWith(QStringLiteral("Not sent")),
           qPrintable(page.testHeadline()->text()));
  QCOMPARE(server.requestCount(), std::size_t{0});

  // Saved on the Retrievers page by this user: configured here, so its queries may go.
  QVERIFY(page.applyEdits());
  QVERIFY2(runAndWait(bar, 0, 5), qPrintable(bar->statusLabel()->text()));
  const std::size_t sent = server.requestCount();
  QVERIFY(sent > 0);
  QString why;
  QVERIFY(ui::confirmRetriever(nullptr, wb.retrievers()[0], &why));
  // The other one is still refused: trust is per URL.
  QVERIFY(!bar->run(1, 5));
  QVERIFY(!ui::confirmRetriever(nullptr, wb.retrievers()[1], &why));
  QVERIFY2(why.contains(QString::fromStdString(base + "/index (no key)")), qPrintable(why));
  QCOMPARE(server.requestCount(), sent);
  // BM25 sends nothing anywhere and is never asked about.
  QVERIFY(ui::confirmRetriever(nullptr, core::RetrieverSpec{}, &why));
}

QTEST_MAIN(TestHardeningGui)
#include "tst_hardeninggui.moc"
