// Structured outputs in the GUI (core/llm/README.md, "Structured outputs"): the Endpoints page's
// setting, saved with the endpoint and read back, and its connection test reporting whether the
// server honours a JSON schema (yes against a test server that honours response_format, no
// against one that ignores it); the Claims summary naming the reply path and its unparsed
// counts. Screenshots go to $RAGSCOPE_SCREENSHOT_DIR when it is set.

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

#include "common/notebook.h"
#include "core/eval/api/job.h"
#include "testserver/testserver.h"
#include "ui/models/endpointlistmodel.h"
#include "ui/pages/claimsresultsview.h"
#include "ui/pages/endpointspage.h"

using namespace ragscope;
using ragscope::testserver::ResponseFormatMode;

namespace {

void shoot(QWidget* w, const QString& name) {
  const QString dir = qEnvironmentVariable("RAGSCOPE_SCREENSHOT_DIR");
  if (dir.isEmpty()) return;
  QDir().mkpath(dir);
  QVERIFY(w->grab().save(QDir(dir).filePath(name + QStringLiteral(".png"))));
}

}  // namespace

class TestStructuredGui : public QObject {
  Q_OBJECT

 private slots:
  void endpointSettingAndProbe_data();
  void endpointSettingAndProbe();
  void claimsSummaryNamesThePath();

 private:
  QTemporaryDir m_dir;
};

void TestStructuredGui::endpointSettingAndProbe_data() {
  QTest::addColumn<bool>("honours");
  QTest::newRow("server honours the schema") << true;
  QTest::newRow("server ignores it") << false;
}

void TestStructuredGui::endpointSettingAndProbe() {
  QFETCH(bool, honours);
  testserver::Options options;
  options.responseFormat = honours ? ResponseFormatMode::Honour : ResponseFormatMode::Ignore;
  options.models = {"test-model"};
  testserver::TestServer server(options);
  QVERIFY(server.start());
  const QString name = honours ? QStringLiteral("vllm-local") : QStringLiteral("plain-server");
  // ctest keeps one config folder per test across runs: start from no endpoints, or the name
  // would be taken by an earlier run's ("vllm-local (2)").
  QSettings().clear();
  {
    ui::EndpointsPage page;
    page.resize(1200, 760);
    page.addEndpoint();
    page.nameEdit()->setText(name);
    page.baseUrlEdit()->setText(QString::fromStdString(server.baseUrl()));
    page.modelCombo()->setCurrentText(QStringLiteral("test-model"));
    QVERIFY(!page.structuredCheck()->isChecked());  // off unless the user says so
    page.structuredCheck()->setChecked(true);
    QVERIFY(page.applyEdits());
  }
  // Saved with the endpoint: a new page reads it back.
  ui::EndpointsPage page;
  page.resize(1200, 760);
  int row = -1;
  for (int r = 0; r < page.model()->rowCount(); ++r)
    if (page.model()->endpoint(r)->name == name.toStdString()) row = r;
  QVERIFY(row >= 0);
  QVERIFY(page.model()->endpoint(row)->structuredOutputs);
  QVERIFY(page.selectRow(row));
  QVERIFY(page.structuredCheck()->isChecked());

  QSignalSpy done(&page, &ui::EndpointsPage::testFinished);
  QVERIFY(page.testConnection());
  QVERIFY(done.wait(20000));
  QVERIFY(done.front().at(0).toBool());
  const QString probe = page.schemaResult()->text();
  QCOMPARE(page.lastOutcome().honoursSchema,
           honours ? QStringLiteral("yes") : QStringLiteral("no"));
  QVERIFY2(probe.startsWith(honours ? QStringLiteral("Honours JSON schema: yes")
                                    : QStringLiteral("Honours JSON schema: no")),
           qPrintable(probe));
  if (!honours)  // the setting is on against a server that does not honour it: said so
    QVERIFY2(probe.contains(QStringLiteral("will be unparsed")), qPrintable(probe));
  // The probe's one chat call went to the server, carrying response_format.
  bool probed = false;
  for (const auto& e : server.log())
    if (e.path.find("/chat/completions") != std::string::npos)
      probed = e.body.find("\"response_format\"") != std::string::npos;
  QVERIFY(probed);
  shoot(&page, honours ? QStringLiteral("endpoints-structured-yes")
                       : QStringLiteral("endpoints-structured-no"));
}

void TestStructuredGui::claimsSummaryNamesThePath() {
  // The notebook's example judged through schema-bound JSON by a server that honours it.
  testserver::Options options;
  options.answer = test::notebook::notebookJudge;
  options.responseFormat = ResponseFormatMode::Honour;
  testserver::TestServer server(options);
  QVERIFY(server.start());
  core::eval::JobSpec spec;
  spec.kind = core::eval::JobKind::Judge;
  spec.judge.metrics = "notebook";
  core::eval::JudgeInput in;
  in.qid = "apple-net-sales";
  in.question = test::notebook::kQuestion;
  in.response = test::notebook::joined(test::notebook::kResponseClaims);
  in.gold = test::notebook::gold();
  for (const auto& [id, text] : test::notebook::kChunks) in.chunks.push_back({id, text});
  spec.judge.inputs = {in};
  spec.judge.judge.baseUrl = server.baseUrl();
  spec.judge.judge.model = "test-model";
  spec.judge.judge.structuredOutputs = true;
  spec.limits.useCache = false;
  spec.store = m_dir.filePath("structured.db").toStdString();
  spec.frontEnd = "test";
  const core::Dataset none;
  const auto plan = core::eval::planJob(spec, none);
  QVERIFY2(plan.ok(), plan.error.c_str());
  const auto result = core::eval::runJob(plan, spec, {}, {});
  QVERIFY2(result.error.empty() && result.judge, result.error.c_str());
  ui::ClaimsResultsView view;
  view.resize(1200, 700);
  view.setReport(std::make_shared<core::eval::JudgeReport>(*result.judge),
                 m_dir.filePath("structured.db"));
  const QString mode = view.modeLabel()->text();
  QVERIFY2(mode.contains(QStringLiteral(
               "Read as JSON (structured outputs): 2 claim lists, 0 unparsed; 18 claim verdicts, "
               "0 unparsed")),
           qPrintable(mode));
  QVERIFY(!mode.contains(QStringLiteral("Read as text")));
  shoot(&view, QStringLiteral("claims-summary-structured"));
}

QTEST_MAIN(TestStructuredGui)
#include "tst_structuredgui.moc"
