// Claim judging as a job (core/eval/jobs/judgejob.h, `ragscope-cli judge`): the strict reading of
// judge replies into states with the repair retry, the notebook's worked example through a scripted
// judge server (core/claims/README.md, "Notebook metrics"), repeats, the offline judge over all
// Docugami questions from the CLI, and a judging run killed mid-way and resumed with no finished
// call repeated (counted at the server), then re-run from the cache with no request.

#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "common/cli.h"
#include "common/notebook.h"
#include "common/testdata.h"
#include "core/claims/judgeparse.h"
#include "core/eval/api/job.h"
#include "core/llm/httpprovider.h"
#include "core/llm/llmjson.h"
#include "core/llm/offline.h"
#include "core/llm/prompts.h"
#include "core/store/runstore.h"
#include "testserver/testserver.h"

using namespace ragscope::core;
using namespace ragscope::core::claims;
using nlohmann::json;
namespace fs = std::filesystem;

using namespace ragscope::test::notebook;

namespace {

constexpr const char* kSec10q = "docugami/KG-RAG-datasets/sec-10-q/data/v1";

eval::JudgeInput notebookInput(const std::string& response) {
  eval::JudgeInput in;
  in.qid = "apple-net-sales";
  in.question = kQuestion;
  in.response = response;
  in.gold = gold();
  for (const auto& [id, text] : kChunks) in.chunks.push_back({id, text});
  return in;
}

eval::JobSpec judgeSpec(const std::string& baseUrl, const fs::path& store,
                        std::vector<eval::JudgeInput> inputs) {
  eval::JobSpec spec;
  spec.kind = eval::JobKind::Judge;
  spec.judge.metrics = "notebook";
  spec.judge.inputs = std::move(inputs);
  spec.judge.judge.name = "scripted";
  spec.judge.judge.baseUrl = baseUrl;
  spec.judge.judge.model = "test-model";
  spec.limits.useCache = false;
  spec.limits.concurrency = 1;
  spec.store = store;
  spec.frontEnd = "test";
  return spec;
}

eval::JobResult runSpec(const eval::JobSpec& spec) {
  const Dataset none;
  const auto plan = eval::planJob(spec, none);
  if (!plan.ok()) {
    eval::JobResult r;
    r.error = "plan: " + plan.error;
    return r;
  }
  eval::ResultOptions results;
  results.bootstrap.resamples = 200;
  return eval::runJob(plan, spec, {}, results);
}

double metricMean(const eval::JudgeReport& r, const std::string& name) {
  for (const auto& m : r.metrics)
    if (m.name == name) return m.mean;
  return -1.0;
}

const eval::JudgeMetricSummary* metric(const eval::JudgeReport& r, const std::string& name) {
  for (const auto& m : r.metrics)
    if (m.name == name) return &m;
  return nullptr;
}

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class TestJudge : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void claimListParsing();
  void verdictParsing_data();
  void verdictParsing();
  void notebookThroughAScriptedJudge();
  void repairRetryIsRecorded();
  void unparsedNeverCountsInRagscopeMode();
  void repeatsGiveFlipRates();
  void ragasContextPrecisionInRankOrder();
  void endpointMetrics();
  void badInputNamesFileLineField();
  void agreementWithAJudgingStore();
  void docugamiOfflineFromTheCli();
  void killedJudgingResumesWithoutRepeats();

 private:
  QTemporaryDir m_dir;
};

void TestJudge::initTestCase() {
  QVERIFY(m_dir.isValid());
  qputenv("XDG_CACHE_HOME", m_dir.filePath(QStringLiteral("cache")).toLocal8Bit());
}

void TestJudge::claimListParsing() {
  auto p = parseClaimList(
      "Here are the claims:\n- Apple's sales fell.\n* Sales were $81,797 million.\n2. A third "
      "one.\n\nThanks");
  QCOMPARE(p.claims.size(), std::size_t{3});
  QCOMPARE(QString::fromStdString(p.claims[1]), QString("Sales were $81,797 million."));
  QCOMPARE(QString::fromStdString(p.claims[2]), QString("A third one."));
  QVERIFY(p.problem.empty());
  QVERIFY(parseClaimList("").noClaims());
  QVERIFY(parseClaimList("None.").noClaims());
  const auto bad = parseClaimList("Apple's sales fell. Sales were $81,797 million.");
  QVERIFY(bad.claims.empty());
  QVERIFY(!bad.problem.empty());
}

void TestJudge::verdictParsing_data() {
  QTest::addColumn<QString>("reply");
  QTest::addColumn<QString>("labels");  // S/U (binary), E/N/C, ? unparsed; one per claim a, b, c
  QTest::addColumn<int>("problems");
  QTest::newRow("well formed")
      << "- Claim a. SUPPORTED=1\n- Claim b. SUPPORTED=0\n- Claim c. SUPPORTED=1"
      << "SUS" << 0;
  QTest::newRow("missing line") << "- Claim a. SUPPORTED=1\n- Claim c. SUPPORTED=1"
                                << "S?S" << 1;
  QTest::newRow("reordered")
      << "- Claim a. SUPPORTED=1\n- Claim c. SUPPORTED=0\n- Claim b. SUPPORTED=1"
      << "S??" << 2;
  QTest::newRow("duplicated") << "- Claim a. SUPPORTED=1\n- Claim b. SUPPORTED=0\n- Claim b. "
                                 "SUPPORTED=1\n- Claim c. SUPPORTED=0"
                              << "S?U" << 1;
  QTest::newRow("label-less line") << "- Claim a. SUPPORTED=1\n- Claim b.\n- Claim c. SUPPORTED=0"
                                   << "S?U" << 1;
  QTest::newRow("extra chatter")
      << "Sure! Here are the verdicts.\n\n- Claim a. SUPPORTED=1\n- Claim b. SUPPORTED=0\n"
         "- Claim c. SUPPORTED=1\nLet me know if you need more."
      << "SUS" << 0;
  QTest::newRow("three-way, odd case")
      << "1. Claim a: ENTAILMENT\n2. Claim b - neutral\n3. Claim c (Contradiction)"
      << "ENC" << 0;
  QTest::newRow("spaces around =")
      << "- Claim a. SUPPORTED = 1\n- claim B SUPPORTED =0\n- CLAIM C. supported=1"
      << "SUS" << 0;
  QTest::newRow("numbered verdicts alone") << "1. SUPPORTED=0\n2. SUPPORTED=1\n3. SUPPORTED=1"
                                           << "USS" << 0;
  QTest::newRow("a line for no claim")
      << "- Claim a. SUPPORTED=1\n- Claim x. SUPPORTED=1\n- Claim c. SUPPORTED=1"
      << "S?S" << 2;
  QTest::newRow("empty reply") << ""
                               << "???" << 3;
}

void TestJudge::verdictParsing() {
  QFETCH(QString, reply);
  QFETCH(QString, labels);
  QFETCH(int, problems);
  const auto parsed = parseVerdicts(reply.toStdString(), {"Claim a.", "Claim b.", "Claim c."});
  QString got;
  for (Label l : parsed.labels) {
    switch (l) {
      case Label::Supported:
        got += 'S';
        break;
      case Label::Unsupported:
        got += 'U';
        break;
      case Label::Entailment:
        got += 'E';
        break;
      case Label::Neutral:
        got += 'N';
        break;
      case Label::Contradiction:
        got += 'C';
        break;
      default:
        got += '?';
        break;
    }
  }
  QCOMPARE(got, labels);
  QCOMPARE(static_cast<int>(parsed.problems.size()), problems);
  if (problems > 0)
    QVERIFY(repairInstruction(parsed.problems).find(parsed.problems.front()) != std::string::npos);
}

void TestJudge::notebookThroughAScriptedJudge() {
  ragscope::testserver::Options options;
  options.answer = notebookJudge;
  ragscope::testserver::TestServer server(options);
  QVERIFY(server.start());
  const std::string response = joined(kResponseClaims);

  const auto original = runSpec(judgeSpec(
      server.baseUrl(), m_dir.filePath("notebook.db").toStdString(), {notebookInput(response)}));
  QVERIFY2(original.error.empty(), original.error.c_str());
  QVERIFY(original.judge.has_value());
  const auto& r = *original.judge;
  QCOMPARE(metricMean(r, "faithfulness"), 1.0);
  QCOMPARE(metricMean(r, "correctness"), 0.5);
  QCOMPARE(metricMean(r, "coverage"), 1.0 / 3.0);  // 2/6 = 0.3333333333333333
  QCOMPARE(r.queries.front().responseClaims.claims.size(), std::size_t{6});
  QCOMPARE(metric(r, "coverage")->itemsTotal, std::uint64_t{6});
  QCOMPARE(r.repairs, std::size_t{0});
  QVERIFY(!r.heuristic);
  // Two extractions and three assessments, each once.
  QCOMPARE(server.requestCount(), std::size_t{5});

  // The notebook's corruption: the claims re-extracted from the changed response, judged again.
  const auto corrupted =
      runSpec(judgeSpec(server.baseUrl(), m_dir.filePath("notebook-1922.db").toStdString(),
                        {notebookInput(replace2022(response))}));
  QVERIFY2(corrupted.error.empty(), corrupted.error.c_str());
  QCOMPARE(metricMean(*corrupted.judge, "faithfulness"), 0.5);

  // The stored record names the templates by hash, and viewing the store reads the same figures.
  const auto viewed = eval::readJudgeReport(m_dir.filePath("notebook.db").toStdString(), {});
  QVERIFY2(viewed.error.empty(), viewed.error.c_str());
  QCOMPARE(metricMean(viewed, "correctness"), 0.5);
  store::RunStore s;
  std::string err;
  QVERIFY(s.openReadOnly(m_dir.filePath("notebook.db").toStdString(), &err));
  QCOMPARE(QString::fromStdString(s.run().templateHash),
           QString::fromStdString(llm::templateHash(llm::defaultClaimJudgeTemplate())));
  QCOMPARE(QString::fromStdString(
               s.run().settings["judge"]["extract_template_sha256"].get<std::string>()),
           QString::fromStdString(llm::templateHash(llm::defaultClaimExtractionTemplate())));
}

// A judge that leaves out claim 2's line the first time; the repair call (its last message
// states the problem) is answered in full or, with `repairFails`, badly again.
struct ForgetfulJudge {
  bool repairFails = false;
  std::mutex mutex;
  std::vector<std::string> lastClaims;
  std::size_t repairs = 0;

  std::string operator()(const std::string& prompt) {
    std::lock_guard lock(mutex);
    if (prompt.rfind("Break the text", 0) == 0)
      return "- The sky is blue.\n- Grass is green.\n- Snow is black.";
    const bool repair = prompt.rfind("Your reply could not be read", 0) == 0;
    if (!repair)
      lastClaims = claimsOfPrompt(prompt);
    else
      ++repairs;
    std::string out = "Verdicts:\n";
    for (std::size_t i = 0; i < lastClaims.size(); ++i) {
      if (i == 1 && (!repair || repairFails)) continue;
      out += "- " + lastClaims[i] + (i == 2 ? " SUPPORTED=0\n" : " SUPPORTED=1\n");
    }
    return out;
  }
};

void TestJudge::repairRetryIsRecorded() {
  auto judge = std::make_shared<ForgetfulJudge>();
  ragscope::testserver::Options options;
  options.answer = [judge](const std::string& p) { return (*judge)(p); };
  ragscope::testserver::TestServer server(options);
  QVERIFY(server.start());
  eval::JudgeInput in{"q1",
                      "What colours?",
                      std::string("The sky is blue, grass is green and snow is black."),
                      "",
                      {{"d1", "The sky is blue. Grass is green."}},
                      {}};
  auto spec = judgeSpec(server.baseUrl(), m_dir.filePath("repair.db").toStdString(), {in});
  spec.judge.metrics = "faithfulness";
  const auto result = runSpec(spec);
  QVERIFY2(result.error.empty(), result.error.c_str());
  const auto& r = *result.judge;
  QCOMPARE(r.repairs, std::size_t{1});
  QCOMPARE(judge->repairs, std::size_t{1});
  QCOMPARE(metricMean(r, "faithfulness"), 2.0 / 3.0);  // every claim decided after the repair
  QCOMPARE(metric(r, "faithfulness")->itemsScored, std::uint64_t{3});
  // The repair is a call of its own in the store, with the problem stated.
  store::RunStore s;
  std::string err;
  QVERIFY(s.openReadOnly(m_dir.filePath("repair.db").toStdString(), &err));
  bool found = false;
  for (const auto& item : s.items()) {
    if (item.key != "repair:assess:faith:0:q1") continue;
    found = true;
    QCOMPARE(item.status, store::ItemStatus::Done);
    QVERIFY(item.requestJson.find("claim 2: no line") != std::string::npos);
  }
  QVERIFY(found);
}

void TestJudge::unparsedNeverCountsInRagscopeMode() {
  auto judge = std::make_shared<ForgetfulJudge>();
  judge->repairFails = true;
  ragscope::testserver::Options options;
  options.answer = [judge](const std::string& p) { return (*judge)(p); };
  ragscope::testserver::TestServer server(options);
  QVERIFY(server.start());
  eval::JudgeInput in{"q1",
                      "What colours?",
                      std::string("The sky is blue, grass is green and snow is black."),
                      "",
                      {{"d1", "The sky is blue."}},
                      {}};
  for (const char* mode : {"ragscope", "ragchecker", "ragas"}) {
    auto spec = judgeSpec(server.baseUrl(),
                          m_dir.filePath(QString("unparsed-%1.db").arg(mode)).toStdString(), {in});
    spec.judge.metrics = "faithfulness";
    spec.judge.mode = mode;
    spec.limits.useCache = true;  // the second and third modes are served from the cache
    spec.limits.cachePath = m_dir.filePath("unparsed-cache.sqlite").toStdString();
    const auto result = runSpec(spec);
    QVERIFY2(result.error.empty(), result.error.c_str());
    const auto* m = metric(*result.judge, "faithfulness");
    QCOMPARE(m->itemsTotal, std::uint64_t{3});
    QCOMPARE(m->itemsScored, std::uint64_t{2});  // claim 2 stays unparsed after the repair
    QVERIFY(!result.judge->queries.front().verdicts.front().problems.empty());
    const std::string name = mode;
    // ragscope and ragas: over the two decided claims (1 of 2); ragchecker: the unparsed claim
    // is "not entailed", as RefChecker pads a missing label with Neutral (1 of 3).
    QCOMPARE(m->mean, name == "ragchecker" ? 1.0 / 3.0 : 0.5);
    // RAGChecker's mode asks for its three-way verdicts by default (binary ones are read too).
    store::RunStore s;
    std::string err;
    QVERIFY(
        s.openReadOnly(m_dir.filePath(QString("unparsed-%1.db").arg(mode)).toStdString(), &err));
    QCOMPARE(s.run().templateText, name == "ragchecker" ? llm::defaultClaimJudgeThreeWayTemplate()
                                                        : llm::defaultClaimJudgeTemplate());
  }
  // One extraction, one assessment and one repair reached the server for the ragscope and ragas
  // modes (the same prompts, so the second is served from the cache); ragchecker's three-way
  // prompt is an assessment and a repair of its own.
  QCOMPARE(server.requestCount(), std::size_t{5});
}

void TestJudge::repeatsGiveFlipRates() {
  // A judge that says snow is not black, except with seed 1: one flip in three asks.
  ragscope::testserver::Options scripted;
  scripted.answer = [](const std::string& prompt) -> std::string {
    if (prompt.rfind("Break the text", 0) == 0) return "- The sky is blue.\n- Snow is black.";
    return "- The sky is blue. SUPPORTED=1\n- Snow is black. SUPPORTED=0";
  };
  ragscope::testserver::TestServer judgeServer(scripted);
  ragscope::testserver::Rule seedOne;
  seedOne.behaviour = ragscope::testserver::Behaviour::Custom;
  seedOne.status = 200;
  seedOne.pathSuffix = "/chat/completions";
  seedOne.bodyContains = "\"seed\":1,";
  seedOne.body =
      R"({"choices":[{"message":{"role":"assistant","content":"- The sky is blue. SUPPORTED=1\n- Snow is black. SUPPORTED=1"}}],"usage":{"prompt_tokens":1,"completion_tokens":1}})";
  judgeServer.addRule(seedOne);
  QVERIFY(judgeServer.start());
  eval::JudgeInput in{"q1",
                      "Colours?",
                      std::string("The sky is blue and snow is black."),
                      "",
                      {{"d1", "The sky is blue."}},
                      {}};
  auto spec = judgeSpec(judgeServer.baseUrl(), m_dir.filePath("repeats.db").toStdString(), {in});
  spec.judge.metrics = "faithfulness";
  spec.judge.repeats = 3;  // seeds 0, 1, 2: seed 1 says snow is black
  const auto result = runSpec(spec);
  QVERIFY2(result.error.empty(), result.error.c_str());
  const auto& r = *result.judge;
  QCOMPARE(r.reliability.repeats, std::size_t{3});
  QCOMPARE(r.reliability.cells, std::size_t{2});
  QCOMPARE(r.reliability.flippedCells, std::size_t{1});
  QCOMPARE(r.reliability.flipRate, (0.0 + 1.0 / 3.0) / 2.0);
  QCOMPARE(metricMean(r, "faithfulness"), 0.5);  // the majority: snow is not black
  // Per repeat 0.5, 1.0, 0.5: the within-answer variance is their sample variance.
  QCOMPARE(metric(r, "faithfulness")->withinVariance, 1.0 / 12.0);
  // Each repeat is its own call: one extraction and three assessments.
  QCOMPARE(judgeServer.requestCount(), std::size_t{4});
}

void TestJudge::ragasContextPrecisionInRankOrder() {
  // The judge finds the gold answer useful in chunks 1 and 3: verdicts [1, 0, 1], RAGAS's AP with
  // its 1e-10 is 0.8333333332916666 (core/claims/README.md, "RAGAS metrics"); chunk order is rank
  // order.
  ragscope::testserver::Options options;
  options.answer = [](const std::string& prompt) -> std::string {
    const auto sections = llm::parsePromptSections(prompt);
    if (sections.claims.empty()) return "- The answer.";
    const bool useful =
        !sections.passages.empty() && sections.passages.front().find("useful") != std::string::npos;
    return "- " + sections.claims.front() + (useful ? " SUPPORTED=1" : " SUPPORTED=0");
  };
  ragscope::testserver::TestServer server(options);
  QVERIFY(server.start());
  eval::JudgeInput in{
      "q1",
      "Which?",
      std::string("The answer."),
      "The gold answer.",
      {{"c1", "A useful chunk."}, {"c2", "Another chunk."}, {"c3", "A useful one again."}},
      {}};
  eval::JudgeInput noGold{
      "q2", "Which?", std::string("The answer."), "", {{"c1", "A useful chunk."}}, {}};
  auto spec = judgeSpec(server.baseUrl(), m_dir.filePath("context-precision.db").toStdString(),
                        {in, noGold});
  spec.judge.metrics = "ragas.context_precision";
  const auto result = runSpec(spec);
  QVERIFY2(result.error.empty(), result.error.c_str());
  const auto& r = *result.judge;
  QCOMPARE(*r.queries[0].values[0].value, 0.8333333332916666);
  QVERIFY(!r.queries[1].values[0].value.has_value());  // no gold answer: empty, not 0
  QCOMPARE(r.metrics[0].empty, std::size_t{1});
  QCOMPARE(r.metrics[0].mean, 0.8333333332916666);
}

void TestJudge::endpointMetrics() {
  // ragas.answer_relevancy (questions from the judge, vectors from the embeddings endpoint),
  // vera.consolidated (the rerank endpoint's score) and ragas.context_relevance_paper, all from
  // the test server, checked against what it returns for the same texts.
  ragscope::testserver::Options options;
  options.answer = [](const std::string& prompt) -> std::string {
    if (prompt.rfind("Write the question", 0) == 0) {
      if (prompt.find("do not know") != std::string::npos)
        return R"({"question": "What is it?", "noncommittal": 1})";
      if (prompt.find("garbled") != std::string::npos) return "a question, I think";
      return R"(Here it is: {"question": "When was the tunnel completed?", "noncommittal": 0})";
    }
    if (prompt.rfind("Copy from the documents", 0) == 0) {
      if (prompt.find("Question: Unrelated?") != std::string::npos)
        return "Insufficient Information.";
      return "The tunnel was completed in 2020.";
    }
    if (prompt.rfind("Your reply could not be read", 0) == 0) return "still no JSON";
    return "- claim SUPPORTED=1";
  };
  ragscope::testserver::TestServer server(options);
  QVERIFY(server.start());
  const std::vector<claims::Chunk> chunks = {
      {"c1", "The tunnel was completed in 2020. It cost 610 million dollars."},
      {"c2", "Overflows fell by 80 percent. The bay is cleaner. Fish returned."}};
  eval::JudgeInput q1{"q1",
                      "When was the tunnel finished?",
                      std::string("The tunnel was completed in 2020."),
                      "2020",
                      chunks,
                      {}};
  eval::JudgeInput q2{"q2", "Unrelated?", std::string("I do not know."), "2020", chunks, {}};
  eval::JudgeInput q3{"q3", "Garbled?", std::string("A garbled answer."), "2020", chunks, {}};
  auto spec = judgeSpec(server.baseUrl(), m_dir.filePath("endpoint-metrics.db").toStdString(),
                        {q1, q2, q3});
  spec.judge.metrics = "ragas.answer_relevancy,vera.consolidated,ragas.context_relevance_paper";
  llm::EndpointConfig embedder = spec.judge.judge, reranker = spec.judge.judge;
  embedder.kind = llm::EndpointKind::Embeddings;
  reranker.kind = llm::EndpointKind::Rerank;
  // Without the embeddings endpoint the job is refused before any call.
  {
    const Dataset none;
    const auto refused = eval::planJob(spec, none);
    QVERIFY(refused.error.find("--embedder") != std::string::npos);
  }
  spec.judge.embedder = embedder;
  spec.judge.reranker = reranker;
  const auto result = runSpec(spec);
  QVERIFY2(result.error.empty(), result.error.c_str());
  const auto& r = *result.judge;
  auto cosine = [](const std::vector<float>& a, const std::vector<float>& b) {
    double dot = 0, na = 0, nb = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      dot += double(a[i]) * double(b[i]);
      na += double(a[i]) * double(a[i]);
      nb += double(b[i]) * double(b[i]);
    }
    return dot / std::sqrt(na * nb);
  };
  using ragscope::testserver::TestServer;
  const double expected = cosine(TestServer::embed(q1.question, 8),
                                 TestServer::embed("When was the tunnel completed?", 8));
  QVERIFY(qFuzzyCompare(*r.queries[0].values[0].value, expected));
  QCOMPARE(r.queries[0].generatedQuestions.size(), eval::kRagasQuestions);
  QCOMPARE(*r.queries[1].values[0].value, 0.0);        // every generation noncommittal
  QVERIFY(!r.queries[2].values[0].value.has_value());  // no JSON, even after the repair
  QCOMPARE(r.queries[2].values[0].state, ScoreState::Unparsed);
  QCOMPARE(r.metrics[0].unparsed, std::size_t{1});
  for (int q = 0; q < 3; ++q) {
    const eval::JudgeInput& in = q == 0 ? q1 : q == 1 ? q2 : q3;
    QCOMPARE(*r.queries[q].values[1].value, TestServer::overlapScore(in.question, *in.response));
  }
  QCOMPARE(*r.queries[0].values[2].value, 1.0 / 5.0);  // one sentence of the chunks' five
  QCOMPARE(*r.queries[1].values[2].value, 0.0);        // "Insufficient Information."
  // The store names all three endpoints, and resuming the finished run makes no call.
  store::RunStore s;
  std::string err;
  QVERIFY(s.openReadOnly(m_dir.filePath("endpoint-metrics.db").toStdString(), &err));
  QVERIFY(s.run().settings.contains("embedder") && s.run().settings.contains("reranker"));
  const std::size_t before = server.requestCount();
  auto job = eval::openStoredJob(m_dir.filePath("endpoint-metrics.db").toStdString(), {}, &err);
  QVERIFY2(job.has_value(), err.c_str());
  QVERIFY(job->endpointTrusted);
  const auto resumed = eval::resumeJob(*job, {}, {});
  QVERIFY2(resumed.error.empty(), resumed.error.c_str());
  QCOMPARE(server.requestCount(), before);
}

void TestJudge::badInputNamesFileLineField() {
  const QString answers = m_dir.filePath("bad-answers.jsonl");
  QFile f(answers);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write("{\"qid\": \"q1\", \"answer\": \"Paris.\"}\n{\"qid\": \"q2\", \"answer\": 7}\n");
  f.close();
  const QString demo =
      QString::fromStdString((ragscope::test::sourceRoot() / "resources/demo").string());
  const auto r =
      ragscope::test::runCliText({"judge", "--dataset", demo + "/rag-examples.jsonl", "--answers",
                                  answers, "--store", m_dir.filePath("bad.db")});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("bad-answers.jsonl:2") && r.err.contains("answer"), qPrintable(r.err));
  const auto unknown = ragscope::test::runCliText(
      {"judge", "--dataset", demo + "/rag-examples.jsonl", "--metrics", "faithfulness,fluency"});
  QCOMPARE(unknown.exitCode, 2);
  QVERIFY2(unknown.err.contains("fluency"), qPrintable(unknown.err));
  const auto noEmbedder = ragscope::test::runCliText(
      {"judge", "--dataset", demo + "/rag-examples.jsonl", "--metrics", "ragas.answer_relevancy"});
  QCOMPARE(noEmbedder.exitCode, 2);
  QVERIFY2(noEmbedder.err.contains("--embedder"), qPrintable(noEmbedder.err));
  QCOMPARE(ragscope::test::runCliText(
               {"judge", "--dataset", demo + "/rag-examples.jsonl", "--repeats", "0"})
               .exitCode,
           2);
}

void TestJudge::agreementWithAJudgingStore() {
  // Human labels that are an increasing affine map of the judge's faithfulness (plus one query
  // the judge never saw): Pearson and Spearman are exactly 100, and the stray row is unpaired.
  const QString demo =
      QString::fromStdString((ragscope::test::sourceRoot() / "resources/demo").string());
  const QString store = m_dir.filePath("agreement.db");
  const auto judged =
      ragscope::test::runCliText({"judge", "--dataset", demo + "/rag-examples.jsonl", "--metrics",
                                  "faithfulness", "--store", store, "--json", "--quiet"});
  QVERIFY2(judged.exitCode == 0, qPrintable(judged.err));
  const json j = json::parse(judged.out.toStdString());
  const QString human = m_dir.filePath("human.csv");
  QFile f(human);
  QVERIFY(f.open(QIODevice::WriteOnly));
  f.write("qid,label\n");
  std::size_t paired = 0;
  for (const auto& [qid, v] : j["per_query"].items()) {
    if (v["faithfulness"].is_null()) continue;
    f.write(QByteArray::fromStdString(
        qid + "," + std::to_string(2.0 * v["faithfulness"].get<double>() + 1.0) + "\n"));
    ++paired;
  }
  f.write("not-judged,3\n");
  f.close();
  const auto r = ragscope::test::runCliText(
      {"agreement", "--human", human, "--judge", store, "--json", "--resamples", "100"});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  const json a = json::parse(r.out.toStdString());
  const auto& faith = a["aspects"]["faithfulness"];
  QCOMPARE(faith["pearson"].get<double>(), 100.0);
  QCOMPARE(faith["spearman"].get<double>(), 100.0);
  QCOMPARE(faith["instances"].get<std::size_t>(), paired);
  // The statistics commands read a judging store's per-query metrics too.
  const auto b =
      ragscope::test::runCliText({"bootstrap", store, "--measure", "faithfulness", "--json"});
  QVERIFY2(b.exitCode == 0, qPrintable(b.err));
  QCOMPARE(json::parse(b.out.toStdString())["n"].get<std::size_t>(), paired);
}

void TestJudge::docugamiOfflineFromTheCli() {
  RAGSCOPE_REQUIRE_DATA(kSec10q);
  const QString store = m_dir.filePath("docugami-judge.db");
  const auto r = ragscope::test::runCliText(
      {"judge", "--dataset", QString::fromStdString(ragscope::test::dataPath(kSec10q).string()),
       "--retriever", "bm25", "--k", "5", "--metrics", "notebook", "--store", store, "--json",
       "--quiet"});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  const json j = json::parse(r.out.toStdString());
  QCOMPARE(j["n"].get<int>(), 195);
  QCOMPARE(j["per_query"].size(), std::size_t{195});
  QVERIFY(j["heuristic"].get<bool>());
  for (const char* m : {"faithfulness", "correctness", "coverage"}) {
    const auto& st = j["states"][m];
    QCOMPARE(st["scored"].get<int>() + st["unparsed"].get<int>() + st["error"].get<int>() +
                 st["empty"].get<int>(),
             195);
    QCOMPARE(st["unparsed"].get<int>(), 0);  // the heuristics always answer in form
    QCOMPARE(st["error"].get<int>(), 0);
  }
  // Independently: each answer's faithfulness is the share of its heuristic claims that the
  // lexical judge finds in its five chunks (offline.h), recomputed here from the stored answer.
  const auto report = eval::readJudgeReport(store.toStdString(), {});
  QVERIFY2(report.error.empty(), report.error.c_str());
  QCOMPARE(report.queries.size(), std::size_t{195});
  std::size_t checked = 0;
  double sum = 0.0;
  std::size_t withValue = 0;
  for (const auto& q : report.queries) {
    QCOMPARE(q.chunks.size(), std::size_t{5});
    const auto claims = llm::lexicalSplitClaims(q.response);
    QCOMPARE(q.responseClaims.claims, claims);
    std::vector<std::string> passages;
    for (const auto& c : q.chunks) passages.push_back(c.text);
    const std::string verdicts = llm::lexicalJudge(claims, passages);
    std::size_t s = 0, u = 0;
    for (auto at = verdicts.find("SUPPORTED="); at != std::string::npos;
         at = verdicts.find("SUPPORTED=", at + 1))
      (verdicts[at + 10] == '1' ? s : u) += 1;
    const auto& v = j["per_query"][q.qid]["faithfulness"];
    if (s + u == 0) {
      QVERIFY(v.is_null());
      continue;
    }
    QCOMPARE(v.get<double>(), static_cast<double>(s) / static_cast<double>(s + u));
    sum += v.get<double>();
    ++withValue;
    ++checked;
  }
  QVERIFY(checked > 150);
  QCOMPARE(j["mean"]["faithfulness"].get<double>(), sum / static_cast<double>(withValue));
}

void TestJudge::killedJudgingResumesWithoutRepeats() {
  RAGSCOPE_REQUIRE_DATA(kSec10q);
  const QString log = m_dir.filePath("judge-server.log");
  QProcess server;
  server.start(RAGSCOPE_TESTSERVER_PATH,
               {"--port", "0", "--latency-ms", "15", "--log", log, "--offline-answers"});
  QVERIFY(server.waitForStarted());
  QVERIFY(server.waitForReadyRead(10000));
  const int port = server.readLine().trimmed().toInt();
  QVERIFY(port > 0);
  const QString base = QString("http://127.0.0.1:%1/v1").arg(port);
  const QString store = m_dir.filePath("killed-judge.db");
  const QString cache = m_dir.filePath("judge-cache.sqlite");
  const int concurrency = 4;
  auto countLines = [&] { return readAll(log).count('\n'); };
  const QStringList args = {"judge",
                            "--dataset",
                            QString::fromStdString(ragscope::test::dataPath(kSec10q).string()),
                            "--retriever",
                            "bm25",
                            "--k",
                            "5",
                            "--metrics",
                            "notebook",
                            "--judge",
                            base,
                            "--judge-model",
                            "test-model",
                            "--concurrency",
                            QString::number(concurrency),
                            "--cache",
                            cache,
                            "--quiet"};
  QProcess cli;
  cli.start(RAGSCOPE_CLI_PATH, args + QStringList{"--store", store});
  QVERIFY(cli.waitForStarted());
  QElapsedTimer timer;
  timer.start();
  // Killed in the second phase: some assessments made, most not.
  while (countLines() < 420 && timer.elapsed() < 120000 && cli.state() == QProcess::Running)
    QTest::qWait(5);
  QCOMPARE(cli.state(), QProcess::Running);
  cli.kill();
  QVERIFY(cli.waitForFinished(10000));
  std::set<std::string> doneAtKill;
  {
    store::RunStore s;
    std::string err;
    QVERIFY2(s.open(store.toStdString(), &err), err.c_str());
    for (const auto& item : s.items())
      if (item.status == store::ItemStatus::Done && item.key.rfind("gen:", 0) != 0)
        doneAtKill.insert(item.key);
    qInfo("killed after %d server requests, %zu judge calls committed", countLines(),
          doneAtKill.size());
    QVERIFY(!doneAtKill.empty());
  }
  QProcess resume;
  resume.start(RAGSCOPE_CLI_PATH, {"resume", store, "--quiet"});
  QVERIFY(resume.waitForFinished(180000));
  QVERIFY2(resume.exitCode() == 0,
           (resume.readAllStandardOutput() + resume.readAllStandardError()).constData());
  QTest::qWait(100);

  store::RunStore s;
  std::string err;
  QVERIFY(s.open(store.toStdString(), &err));
  QCOMPARE(QString::fromStdString(s.run().status), QString("done"));
  const auto items = s.items();
  std::size_t judgeCalls = 0;
  for (const auto& item : items) {
    QCOMPARE(item.status, store::ItemStatus::Done);
    if (item.key.rfind("gen:", 0) != 0) ++judgeCalls;
  }
  // 195 answers: two extractions each, then faithfulness, correctness and coverage.
  QVERIFY2(judgeCalls >= 195 * 4, qPrintable(QString::number(judgeCalls)));
  const QList<QByteArray> lines = readAll(log).trimmed().split('\n');
  std::map<std::string, int> byHash;
  for (const auto& line : lines)
    ++byHash[json::parse(line.toStdString())["body_hash"].get<std::string>()];
  llm::EndpointConfig ep;
  ep.baseUrl = base.toStdString();
  ep.model = "test-model";
  auto http = llm::makeHttpProvider(ep);
  int redone = 0;
  for (const auto& item : items) {
    if (item.key.rfind("gen:", 0) == 0) continue;  // the offline reader: no server call
    const auto hash = ragscope::testserver::TestServer::hashBody(
        http->requestBody(*llm::requestFromJson(json::parse(item.requestJson))));
    QVERIFY2(byHash.count(hash), item.key.c_str());
    if (doneAtKill.count(item.key)) QVERIFY2(byHash[hash] == 1, item.key.c_str());
    if (byHash[hash] > 1) ++redone;
  }
  qInfo("server requests %lld for %zu judge calls; sent twice (in flight at the kill): %d",
        static_cast<long long>(lines.size()), judgeCalls, redone);
  QVERIFY(redone <= concurrency);
  QVERIFY(lines.size() <= static_cast<qsizetype>(judgeCalls) + concurrency);

  // The same job in a new store with the same cache sends no request.
  const int before = countLines();
  const auto again = ragscope::test::runCliText(
      args + QStringList{"--store", m_dir.filePath("again.db"), "--json"});
  QVERIFY2(again.exitCode == 0, qPrintable(again.err));
  QTest::qWait(100);
  QCOMPARE(countLines(), before);
  const auto viewed = eval::readJudgeReport(store.toStdString(), {});
  QCOMPARE(json::parse(again.out.toStdString())["mean"]["faithfulness"].get<double>(),
           metricMean(viewed, "faithfulness"));
  server.terminate();
  server.waitForFinished(5000);
}

QTEST_GUILESS_MAIN(TestJudge)
#include "tst_judge.moc"
