// The Claims page (issue 14): the notebook's worked example driven through the page against a
// scripted judge server (the figures of core/claims/README.md, "Notebook metrics", and each claim's
// colour state in the inspector, unparsed and contradiction included); the page's means, CIs and
// state counts against `ragscope-cli judge --json` on the demo answers and on all 195 Docugami
// questions (BM25 top 5, offline reader, a scripted judge server), with a probe timer on the GUI
// thread during that run; the claim x chunk matrix, the unsupported-claims list, the paired
// comparison and the judge-vs-human view against `ragscope-cli agreement`; claim spans. Screenshots
// go to $RAGSCOPE_SCREENSHOT_DIR when it is set.

#include <QAbstractItemModelTester>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>
#include <cmath>
#include <nlohmann/json.hpp>

#include "common/cli.h"
#include "common/notebook.h"
#include "common/testdata.h"
#include "common/workbenchtest.h"
#include "core/claims/agreementreport.h"
#include "core/claims/claimspans.h"
#include "core/eval/jobs/claimverdicts.h"
#include "core/store/project.h"
#include "testserver/testserver.h"
#include "ui/charts/chartwidget.h"
#include "ui/jobs/runjob.h"
#include "ui/models/claimmatrixmodel.h"
#include "ui/models/heatmapmodel.h"
#include "ui/pages/agreementview.h"
#include "ui/pages/claiminspector.h"
#include "ui/pages/claimspage.h"
#include "ui/pages/claimsresultsview.h"
#include "ui/workbench.h"

using namespace ragscope;
using nlohmann::json;
using State = ui::ClaimInspector::ClaimState;

namespace {

constexpr int kLoadTimeoutMs = 60000;
constexpr int kJobTimeoutMs = 300000;
constexpr const char* kSec10q = "docugami/KG-RAG-datasets/sec-10-q/data/v1";

void shoot(QWidget* w, const QString& name) {
  const QString dir = qEnvironmentVariable("RAGSCOPE_SCREENSHOT_DIR");
  if (dir.isEmpty()) return;
  QDir().mkpath(dir);
  QVERIFY(w->grab().save(QDir(dir).filePath(name + QStringLiteral(".png"))));
}

bool load(ui::Workbench& wb, const QString& path, const QString& format) {
  ui::RecentDataset spec;
  spec.name = QFileInfo(path).fileName();
  spec.parts = {{path, format}};
  QSignalSpy loaded(&wb, &ui::Workbench::loadFinished);
  if (!wb.openDataset(spec)) return false;
  if (loaded.isEmpty() && !loaded.wait(kLoadTimeoutMs)) return false;
  return loaded.front().at(0).toBool();
}

// One rag-jsonl record.
QByteArray record(const std::string& id, const std::string& question, const std::string& response,
                  const std::string& gold,
                  const std::vector<std::pair<std::string, std::string>>& chunks) {
  json contexts = json::array();
  for (const auto& c : chunks) contexts.push_back(c.second);
  return QByteArray::fromStdString(json{{"id", id},
                                        {"question", question},
                                        {"response", response},
                                        {"reference", gold},
                                        {"contexts", contexts}}
                                       .dump() +
                                   "\n");
}

core::llm::EndpointConfig scripted(const std::string& baseUrl, int concurrency = 1) {
  core::llm::EndpointConfig e;
  e.name = "scripted judge";
  e.baseUrl = baseUrl;
  e.model = "test-model";
  e.concurrency = concurrency;
  return e;
}

const core::eval::JudgeMetricSummary* metric(const core::eval::JudgeReport& r,
                                             const std::string& name) {
  for (const auto& m : r.metrics)
    if (m.name == name) return &m;
  return nullptr;
}

QString summaryCell(ui::ClaimsResultsView* v, const std::string& name, int column) {
  auto* model = v->summaryModel();
  for (int r = 0; r < model->rowCount(); ++r)
    if (model->item(r, 0)->text() == QString::fromStdString(name))
      return model->item(r, column)->text();
  return {};
}

// The page's figures against `ragscope-cli judge --json` (same core, same bootstrap seed): every
// metric's mean, CI and state counts, and what the summary table prints for them.
void compareWithCli(ui::ClaimsPage& page, const json& cli) {
  const auto* r = page.report();
  QVERIFY(r);
  QCOMPARE(r->queries.size(), cli["n"].get<std::size_t>());
  QCOMPARE(r->metrics.size(), cli["mean"].size());
  for (const auto& m : r->metrics) {
    const auto& mean = cli["mean"][m.name];
    if (mean.is_null()) {
      QVERIFY(std::isnan(m.mean));
    } else {
      QCOMPARE(m.mean, mean.get<double>());
      QCOMPARE(summaryCell(page.view(), m.name, 1), QString::number(mean.get<double>(), 'f', 4));
    }
    const auto& ci = cli["ci95"][m.name];
    QCOMPARE(m.ci95.has_value(), !ci.is_null());
    if (m.ci95) {
      QCOMPARE(m.ci95->low, ci[0].get<double>());
      QCOMPARE(m.ci95->high, ci[1].get<double>());
      QCOMPARE(summaryCell(page.view(), m.name, 2), QStringLiteral("[%1, %2]")
                                                        .arg(ci[0].get<double>(), 0, 'f', 4)
                                                        .arg(ci[1].get<double>(), 0, 'f', 4));
    }
    const auto& st = cli["states"][m.name];
    QCOMPARE(m.scored, st["scored"].get<std::size_t>());
    QCOMPARE(m.unparsed, st["unparsed"].get<std::size_t>());
    QCOMPARE(m.errors, st["error"].get<std::size_t>());
    QCOMPARE(m.empty, st["empty"].get<std::size_t>());
    QCOMPARE(summaryCell(page.view(), m.name, 5),
             QString::number(st["unparsed"].get<std::size_t>()));
    QCOMPARE(m.itemsScored, cli["n_scored"][m.name].get<std::uint64_t>());
    QCOMPARE(m.itemsTotal, cli["n_total"][m.name].get<std::uint64_t>());
  }
}

}  // namespace

class TestClaimsGui : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void claimSpans();
  void matrixModel();
  void notebookOnThePage();
  void statesInTheInspector();
  void demoMatchesCliAndShowsTheViews();
  void docugamiMatchesCliAndStaysResponsive();

 private:
  QTemporaryDir m_dir;
};

void TestClaimsGui::initTestCase() {
  QVERIFY(test::isolateWorkbenchTest(QStringLiteral("tst_claimsgui"), m_dir));
}

void TestClaimsGui::claimSpans() {
  const std::string text =
      "Apple's net sales fell.  The   quarter ended July 1, 2023 saw $81,797 million.\nIt was a "
      "record.";
  const auto spans = core::claims::locateClaims(
      text, {"the quarter ended July 1, 2023 saw $81,797 million.",
             "Apple's total net sales fell in the quarter.", "Bananas are yellow."});
  QCOMPARE(spans.size(), std::size_t{3});
  // Verbatim despite case, doubled spaces and the final full stop.
  QVERIFY(spans[0] && spans[0]->exact);
  QCOMPARE(QString::fromStdString(text.substr(spans[0]->begin, spans[0]->end - spans[0]->begin)),
           QStringLiteral("The   quarter ended July 1, 2023 saw $81,797 million"));
  // Reworded: the sentence sharing most of its words (apple's, net, sales, fell: 4 of 6).
  QVERIFY(spans[1] && !spans[1]->exact);
  QCOMPARE(QString::fromStdString(text.substr(spans[1]->begin, spans[1]->end - spans[1]->begin)),
           QStringLiteral("Apple's net sales fell."));
  QVERIFY(!spans[2]);  // nowhere: listed, not pinned on a guess
  // A sentence taken by another claim's own words is not a reworded claim's home; a number shared
  // outweighs a word shared.
  const std::string plant = "The plant opened in 1973. It opened in 1980.";
  const auto years =
      core::claims::locateClaims(plant, {"The plant opened in 1973.", "The plant opened in 1980."});
  QVERIFY(years[0] && years[0]->exact && years[1] && !years[1]->exact);
  QCOMPARE(QString::fromStdString(plant.substr(years[1]->begin, years[1]->end - years[1]->begin)),
           QStringLiteral("It opened in 1980."));
  QCOMPARE(
      core::claims::closestPassage("net sales fell", {"bananas", "Net sales fell by 3%", "sales"}),
      std::optional<std::size_t>(1));
  QVERIFY(!core::claims::closestPassage("zebra", {"bananas"}));
}

void TestClaimsGui::matrixModel() {
  using core::claims::Label;
  core::eval::JudgedQuery query;
  query.qid = "q1";
  query.responseClaims.claims = {"a", "b"};
  query.goldClaims.claims = {"g"};
  query.chunks = {{"c0", "x"}, {"c1", "y"}, {"c2", "z"}};
  auto premise = [](std::string name, std::vector<Label> labels) {
    core::eval::PremiseVerdicts v;
    v.premise = std::move(name);
    v.labels = labels;
    v.repeats = {labels};
    return v;
  };
  query.verdicts = {premise("respchunk.0", {Label::Entailment, Label::Contradiction}),
                    premise("respchunk.1", {Label::Neutral, Label::Unparsed}),
                    premise("respchunk.2", {Label::Error, Label::Neutral}),
                    premise("goldchunk.0", {Label::Neutral}),
                    premise("goldchunk.1", {Label::Entailment}),
                    premise("goldchunk.2", {Label::Contradiction})};
  ui::ClaimMatrixModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
  model.setQuery(&query);
  QCOMPARE(model.rowCount(), 2);
  QCOMPARE(model.columnCount(), 3);
  QCOMPARE(model.index(0, 0).data().toString(), QStringLiteral("E"));
  QCOMPARE(model.index(0, 0).data(ui::HeatmapModel::LabelRole).toDouble(), 1.0);
  QCOMPARE(model.index(1, 0).data().toString(), QStringLiteral("C"));
  QCOMPARE(model.index(1, 0).data(ui::HeatmapModel::LabelRole).toDouble(), 0.0);
  QCOMPARE(model.index(0, 1).data(ui::HeatmapModel::LabelRole).toDouble(), 0.5);
  QVERIFY(!model.index(1, 1).data(ui::HeatmapModel::LabelRole).isValid());  // unparsed: no value
  QCOMPARE(model.index(1, 1).data().toString(), QStringLiteral("?"));
  QCOMPARE(model.index(0, 2).data().toString(), QStringLiteral("!"));
  // Relevance in the header: chunk 1 supports the gold claim, 0 and 2 do not.
  QVERIFY(model.headerData(1, Qt::Horizontal).toString().contains(QStringLiteral("relevant ✓")));
  QVERIFY(model.headerData(0, Qt::Horizontal).toString().contains(QStringLiteral("irrelevant")));
  // Claim a: supported by chunk 0; claim b: no chunk supports it, one undecided -> unparsed.
  QCOMPARE(*core::eval::responseClaimVsChunks(query, 0), Label::Entailment);
  QCOMPARE(*core::eval::responseClaimVsChunks(query, 1), Label::Unparsed);
  query.verdicts[1].labels[1] = Label::Neutral;
  QCOMPARE(*core::eval::responseClaimVsChunks(query, 1),
           Label::Contradiction);  // the strongest "no"
  model.setQuery(nullptr);
  QCOMPARE(model.rowCount(), 0);
}

void TestClaimsGui::notebookOnThePage() {
  using namespace test::notebook;
  ragscope::testserver::Options options;
  options.answer = notebookJudge;
  ragscope::testserver::TestServer server(options);
  QVERIFY(server.start());
  const QString original = m_dir.filePath(QStringLiteral("notebook.jsonl"));
  const QString corrupted = m_dir.filePath(QStringLiteral("notebook-1922.jsonl"));
  for (const auto& [path, response] :
       {std::pair{original, joined(kResponseClaims)},
        std::pair{corrupted, replace2022(joined(kResponseClaims))}}) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(record("apple-net-sales", kQuestion, response, gold(), kChunks));
  }
  ui::Workbench wb;
  QVERIFY(load(wb, original, QStringLiteral("rag-jsonl")));
  ui::ClaimsPage page(&wb);
  page.resize(1366, 768);
  page.show();
  page.setJudgeEndpoint(scripted(server.baseUrl()));
  QVERIFY(page.setAnswersSource(ui::ClaimsPage::DatasetAnswers));
  QSignalSpy finished(&page, &ui::ClaimsPage::finished);
  QVERIFY(page.start());
  QVERIFY(finished.wait(kJobTimeoutMs));
  QVERIFY2(finished.front().at(0).toBool(), qPrintable(page.statusLabel()->text()));
  const auto* r = page.report();
  QCOMPARE(metric(*r, "faithfulness")->mean, 1.0);
  QCOMPARE(metric(*r, "correctness")->mean, 0.5);
  QCOMPARE(metric(*r, "coverage")->mean, 1.0 / 3.0);
  QCOMPARE(summaryCell(page.view(), "faithfulness", 1), QStringLiteral("1.0000"));
  QCOMPARE(summaryCell(page.view(), "correctness", 1), QStringLiteral("0.5000"));
  QCOMPARE(summaryCell(page.view(), "coverage", 1), QStringLiteral("0.3333"));
  QCOMPARE(summaryCell(page.view(), "coverage", 4),
           QStringLiteral("6 / 6"));  // all six gold claims decided
  auto* view = page.view();
  QVERIFY(view->selectAnswer(QStringLiteral("apple-net-sales")));
  auto* inspector = view->inspector();
  QCOMPARE(inspector->claimTable()->rowCount(), 6);
  for (int c = 0; c < 6; ++c) QCOMPARE(inspector->claimState(c), State::Supported);
  // Against the gold answer: claims 3, 4 and 6 are not supported (the notebook's correctness 3/6).
  QCOMPARE(inspector->claimTable()->item(2, 2)->background().color(),
           ui::ClaimInspector::colour(State::Unsupported));
  QCOMPARE(inspector->claimTable()->item(0, 2)->background().color(),
           ui::ClaimInspector::colour(State::Supported));
  // Gold claims 4 and 6 are covered by the answer.
  QCOMPARE(inspector->goldTable()->rowCount(), 6);
  QVERIFY(inspector->goldTable()->item(3, 1)->text().contains(QStringLiteral("supported")));
  QVERIFY(inspector->goldTable()->item(0, 1)->text().contains(QStringLiteral("unsupported")));

  // The notebook's corruption, judged again from the page.
  QVERIFY(load(wb, corrupted, QStringLiteral("rag-jsonl")));
  QVERIFY(page.setAnswersSource(ui::ClaimsPage::DatasetAnswers));
  finished.clear();
  QVERIFY(page.start());
  QVERIFY(finished.wait(kJobTimeoutMs));
  QVERIFY2(finished.front().at(0).toBool(), qPrintable(page.statusLabel()->text()));
  QCOMPARE(metric(*page.report(), "faithfulness")->mean, 0.5);
  QCOMPARE(summaryCell(page.view(), "faithfulness", 1), QStringLiteral("0.5000"));
  QVERIFY(view->selectAnswer(QStringLiteral("apple-net-sales")));
  const std::vector<State> expected = {State::Supported,   State::Supported, State::Unsupported,
                                       State::Unsupported, State::Supported, State::Unsupported};
  for (int c = 0; c < 6; ++c) QCOMPARE(inspector->claimState(c), expected[std::size_t(c)]);
  // The spans carry the colours, and a marker besides colour: claim 3's span is red, marked ✗.
  const QString html = inspector->responseView()->toHtml();
  QVERIFY(
      html.contains(ui::ClaimInspector::colour(State::Unsupported).name(), Qt::CaseInsensitive));
  QVERIFY(html.contains(ui::ClaimInspector::colour(State::Supported).name(), Qt::CaseInsensitive));
  QVERIFY2(inspector->responseView()->toPlainText().contains(QStringLiteral("[3 ✗]")),
           qPrintable(inspector->responseView()->toPlainText()));
  QVERIFY(inspector->responseView()->toPlainText().contains(QStringLiteral("[1 ✓]")));
  // The judge's exact prompts and raw replies for the answer, from the store.
  QSignalSpy calls(inspector, &ui::ClaimInspector::callsLoaded);
  QVERIFY(calls.wait(10000) || !inspector->calls().empty());
  QCOMPARE(inspector->calls().size(), std::size_t{5});  // two extractions, three assessments
  inspector->callList()->setCurrentRow(2);
  QVERIFY(inspector->callView()->toPlainText().contains(QStringLiteral("SUPPORTED=")));
  QVERIFY(inspector->callView()->toPlainText().contains(QStringLiteral("Raw reply")));
  inspector->selectClaim(2);
  QVERIFY(inspector->evidenceView()->toPlainText().contains(QStringLiteral("Total net sales")));
  view->tabs()->setCurrentIndex(view->answersTab());
  page.setSetupVisible(false);
  QTest::qWait(50);
  shoot(&page, QStringLiteral("claims-notebook-inspector"));
}

void TestClaimsGui::statesInTheInspector() {
  // RAGChecker's three-way verdicts from a scripted judge: claim 1 entailed, claim 2 contradicted,
  // claim 3's line missing (also after the repair): green, dark red and grey in the inspector.
  ragscope::testserver::Options options;
  options.answer = [](const std::string& prompt) -> std::string {
    if (prompt.rfind("Break the text", 0) == 0) {
      if (prompt.find("Lake Mirren") != std::string::npos)
        return "- The plant draws from Lake Mirren.";
      return "- The plant opened in 1973.\n- The plant opened in 1980.\n- The plant has 40 staff.";
    }
    const auto sections = core::llm::parsePromptSections(prompt);
    std::string out;
    for (const auto& c : sections.claims) {
      if (c.find("40 staff") != std::string::npos) continue;
      out +=
          "- " + c + (c.find("1980") != std::string::npos ? " Contradiction\n" : " Entailment\n");
    }
    return out;
  };
  ragscope::testserver::TestServer server(options);
  QVERIFY(server.start());
  const QString path = m_dir.filePath(QStringLiteral("states.jsonl"));
  {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(record("q1", "When did the plant open?",
                   "The plant opened in 1973. It opened in 1980. The plant has 40 staff.",
                   "The plant draws from Lake Mirren.",
                   {{"c0", "The plant opened in 1973 beside Lake Mirren."}}));
  }
  ui::Workbench wb;
  QVERIFY(load(wb, path, QStringLiteral("rag-jsonl")));
  ui::ClaimsPage page(&wb);
  page.resize(1366, 768);
  page.show();
  page.setJudgeEndpoint(scripted(server.baseUrl()));
  page.setMode(QStringLiteral("ragchecker"));
  page.setMatrix(true);
  QVERIFY(page.setAnswersSource(ui::ClaimsPage::DatasetAnswers));
  QSignalSpy finished(&page, &ui::ClaimsPage::finished);
  QVERIFY(page.start());
  QVERIFY(finished.wait(kJobTimeoutMs));
  QVERIFY2(finished.front().at(0).toBool(), qPrintable(page.statusLabel()->text()));
  auto* view = page.view();
  QVERIFY(view->modeLabel()->text().contains(QStringLiteral("ragchecker")));
  QVERIFY(view->selectAnswer(QStringLiteral("q1")));
  auto* inspector = view->inspector();
  QCOMPARE(inspector->claimState(0), State::Supported);
  QCOMPARE(inspector->claimState(1), State::Contradiction);
  QCOMPARE(inspector->claimState(2), State::Unparsed);
  QCOMPARE(inspector->claimTable()->item(1, 1)->background().color(),
           ui::ClaimInspector::colour(State::Contradiction));
  QCOMPARE(inspector->claimTable()->item(2, 1)->background().color(),
           ui::ClaimInspector::colour(State::Unparsed));
  QCOMPARE(ui::ClaimInspector::colour(State::Unparsed),
           ui::ClaimInspector::colour(State::Error));  // both grey
  const QString text = inspector->responseView()->toPlainText();
  QVERIFY2(text.contains(QStringLiteral("[2 ⊘]")) && text.contains(QStringLiteral("[3 ?]")),
           qPrintable(text));
  // The repair retry is one of the answer's calls, shown as such.
  QSignalSpy calls(inspector, &ui::ClaimInspector::callsLoaded);
  QVERIFY(calls.wait(10000) || !inspector->calls().empty());
  bool repair = false;
  for (int i = 0; i < inspector->callList()->count(); ++i)
    repair |= inspector->callList()->item(i)->text().contains(QStringLiteral("repair retry"));
  QVERIFY(repair);
  // The answer is found by both filters; the matrix shows its claims x chunks.
  view->setUnparsedFilter(true);
  QCOMPARE(view->visibleAnswers(), 1);
  view->setUnsupportedFilter(true);
  QCOMPARE(view->visibleAnswers(), 1);
  view->setTextFilter(QStringLiteral("no such question"));
  QCOMPARE(view->visibleAnswers(), 0);
  view->setTextFilter({});
  QCOMPARE(view->matrix()->rowCount(), 3);
  QCOMPARE(view->matrix()->index(1, 0).data().toString(), QStringLiteral("C"));
  QCOMPARE(view->unsupportedModel()->rowCount(),
           1);  // the contradiction; the unparsed claim is no verdict
  view->tabs()->setCurrentIndex(view->answersTab());
  inspector->selectClaim(1);
  page.setSetupVisible(false);
  QTest::qWait(50);
  shoot(&page, QStringLiteral("claims-inspector-states"));
}

void TestClaimsGui::demoMatchesCliAndShowsTheViews() {
  const auto demo = core::findDemoProject();
  QVERIFY2(demo, "the demo project is part of the source tree");
  const QString answers =
      QString::fromStdString((demo->parent_path() / "rag-examples.jsonl").string());
  ui::Workbench wb;
  QVERIFY(load(wb, answers, QStringLiteral("rag-jsonl")));
  ui::ClaimsPage page(&wb);
  page.resize(1366, 768);
  page.show();
  page.setJudgeIndex(0);  // the offline heuristic judge
  page.setMatrix(true);
  QVERIFY(page.setAnswersSource(ui::ClaimsPage::DatasetAnswers));
  QSignalSpy finished(&page, &ui::ClaimsPage::finished);
  QVERIFY(page.start());
  QVERIFY(finished.wait(kJobTimeoutMs));
  QVERIFY2(finished.front().at(0).toBool(), qPrintable(page.statusLabel()->text()));
  const QString store = page.view()->storePath();
  const auto cli = test::runCliText({"judge", "--dataset", answers, "--metrics", "notebook",
                                     "--matrix", "--json", "--quiet", "--store",
                                     m_dir.filePath(QStringLiteral("demo-cli.db"))});
  QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
  compareWithCli(page, json::parse(cli.out.toStdString()));

  auto* view = page.view();
  page.setSetupVisible(false);
  // The claim x chunk matrix of an answer with an unsupported claim.
  view->setUnsupportedFilter(true);
  QVERIFY(view->visibleAnswers() > 0);
  const QString qid = view->answersView()->model()->index(0, 0).data().toString();
  QVERIFY(view->selectAnswer(qid));
  QVERIFY(view->matrix()->rowCount() > 0 && view->matrix()->columnCount() > 0);
  view->tabs()->setCurrentIndex(view->matrixTab());
  view->matrixView()->setCurrentIndex(view->matrix()->index(0, 0));
  QVERIFY(view->matrixDetail()->toPlainText().contains(QStringLiteral("Claim 1")));
  QTest::qWait(50);
  shoot(&page, QStringLiteral("claims-matrix"));
  // Every unsupported claim: as many rows as claims not supported by the chunks.
  std::size_t unsupported = 0;
  for (const auto& q : page.report()->queries)
    for (std::size_t c = 0; c < q.responseClaims.claims.size(); ++c) {
      const auto l = core::eval::responseClaimVsChunks(q, c);
      unsupported += l && core::claims::isResolved(*l) && !core::claims::isSupported(*l);
    }
  QVERIFY(unsupported > 0);
  QCOMPARE(std::size_t(view->unsupportedModel()->rowCount()), unsupported);
  view->tabs()->setCurrentIndex(view->unsupportedTab());
  QTest::qWait(50);
  shoot(&page, QStringLiteral("claims-unsupported"));

  // Statistics panel and the paired comparison with the CLI's run of the same answers: the same
  // judge, so every difference is 0.
  QVERIFY(view->openStatistics(0));
  QSignalSpy compared(view, &ui::ClaimsResultsView::compared);
  view->summaryView()->setCurrentIndex(view->summaryModel()->index(0, 0));
  QVERIFY(view->compareWith(m_dir.filePath(QStringLiteral("demo-cli.db"))));
  QVERIFY(compared.wait(30000));
  QVERIFY2(compared.front().at(0).toBool(), qPrintable(view->comparisonLabel()->text()));
  QVERIFY2(view->comparisonLabel()->text().contains(QStringLiteral("difference 0.0000")),
           qPrintable(view->comparisonLabel()->text()));

  // Judge vs human: labels that are the judge's faithfulness plus noise, compared on the page and
  // with `ragscope-cli agreement`.
  const QString human = m_dir.filePath(QStringLiteral("human.csv"));
  {
    QFile f(human);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("qid,label\n");
    int i = 0;
    for (const auto& q : page.report()->queries) {
      const auto& v = q.values.front().value;
      if (!v) continue;
      const double label = std::round(4.0 * *v) + ((i++ % 3) == 0 ? 1.0 : 0.0);
      f.write(QByteArray::fromStdString(q.qid + "," + std::to_string(label) + "\n"));
    }
  }
  auto* agreement = view->agreement();
  QSignalSpy agreed(agreement, &ui::AgreementView::finished);
  QVERIFY(agreement->loadHumanCsv(human));
  QVERIFY(agreed.wait(30000));
  QVERIFY2(agreed.front().at(0).toBool(), qPrintable(agreement->statusLabel()->text()));
  const auto cliAgreement =
      test::runCliText({"agreement", "--human", human, "--judge", store, "--json"});
  QVERIFY2(cliAgreement.exitCode == 0, qPrintable(cliAgreement.err));
  const json a = json::parse(cliAgreement.out.toStdString());
  const auto& faith = a["aspects"]["faithfulness"];
  const auto* outcome = agreement->outcome();
  QVERIFY(outcome && !outcome->result.aspects.empty());
  QCOMPARE(outcome->result.aspects[0].aspect, std::string("faithfulness"));
  QCOMPARE(core::claims::asPrinted(outcome->result.aspects[0].judge.pearson.value),
           faith["pearson"].get<double>());
  QCOMPARE(core::claims::asPrinted(outcome->result.aspects[0].judge.kendallTauB.value),
           faith["kendall_tau_b"].get<double>());
  QVERIFY(agreement->table()->item(0, 3)->text().startsWith(
      QString::number(faith["pearson"].get<double>(), 'f', 2)));
  QVERIFY(!agreement->scatter()->isEmpty());
  view->tabs()->setCurrentIndex(view->agreementTab());
  QTest::qWait(50);
  shoot(&page, QStringLiteral("claims-agreement"));
  page.setSetupVisible(true);
  view->tabs()->setCurrentIndex(0);
  QTest::qWait(50);
  shoot(&page, QStringLiteral("claims-page"));
}

void TestClaimsGui::docugamiMatchesCliAndStaysResponsive() {
  RAGSCOPE_REQUIRE_DATA(kSec10q);
  QProcess server;
  server.start(RAGSCOPE_TESTSERVER_PATH, {"--port", "0", "--offline-answers"});
  QVERIFY(server.waitForStarted());
  QVERIFY(server.waitForReadyRead(10000));
  const int port = server.readLine().trimmed().toInt();
  QVERIFY(port > 0);
  const QString base = QStringLiteral("http://127.0.0.1:%1/v1").arg(port);
  const QString data = QString::fromStdString(test::dataPath(kSec10q).string());
  ui::Workbench wb;
  QVERIFY(load(wb, data, QStringLiteral("docugami")));
  QCOMPARE(wb.dataset()->queries.size(), std::size_t{195});
  ui::ClaimsPage page(&wb);
  page.resize(1366, 768);
  page.show();
  page.setJudgeEndpoint(scripted(base.toStdString(), 4));
  page.setMatrix(true);  // each chunk alone too: thousands of judge calls
  page.setK(5);
  QVERIFY(page.setAnswersSource(ui::ClaimsPage::Bm25Generated));
  // A probe on the GUI thread: the longest gap between its 10 ms ticks while the job runs.
  QElapsedTimer gap;
  qint64 worst = 0;
  std::size_t ticks = 0;
  QTimer probe;
  probe.setInterval(10);
  connect(&probe, &QTimer::timeout, [&] {
    if (gap.isValid()) worst = std::max(worst, gap.elapsed());
    gap.restart();
    ++ticks;
  });
  QSignalSpy finished(&page, &ui::ClaimsPage::finished);
  QElapsedTimer clock;
  clock.start();
  probe.start();
  QVERIFY(page.start());
  QVERIFY(finished.wait(kJobTimeoutMs));
  probe.stop();
  QVERIFY2(finished.front().at(0).toBool(), qPrintable(page.statusLabel()->text()));
  const auto* r = page.report();
  QCOMPARE(r->queries.size(), std::size_t{195});
  std::size_t calls = 0;
  for (const auto& q : r->queries) calls += 2 + q.verdicts.size();
  qInfo(
      "Docugami judging from the page: %zu judge calls in %.1f s; GUI probe: %zu ticks, worst gap "
      "%lld ms "
      "(a 10 ms timer; the issue's target is 50 ms)",
      calls, double(clock.elapsed()) / 1000.0, ticks, static_cast<long long>(worst));
  QVERIFY(calls > 2000);
  // The event loop ran all along: at least one tick for every second the job took.
  QVERIFY(ticks >= std::size_t(clock.elapsed() / 1000));
  // The CLI on the same settings (its calls served from the cache the page filled).
  const auto cli = test::runCliText({"judge",
                                     "--dataset",
                                     data,
                                     "--retriever",
                                     "bm25",
                                     "--k",
                                     "5",
                                     "--metrics",
                                     "notebook",
                                     "--matrix",
                                     "--judge",
                                     base,
                                     "--judge-model",
                                     "test-model",
                                     "--concurrency",
                                     "4",
                                     "--json",
                                     "--quiet",
                                     "--store",
                                     m_dir.filePath(QStringLiteral("docugami-cli.db"))});
  QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
  compareWithCli(page, json::parse(cli.out.toStdString()));
  server.terminate();
  server.waitForFinished(5000);
}

QTEST_MAIN(TestClaimsGui)
#include "tst_claimsgui.moc"
