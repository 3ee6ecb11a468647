// Structured outputs (core/llm/README.md, "Structured outputs"; core/claims/README.md,
// "Structured replies"): the fixed schemas and the request body as documented (checked on the
// bodies the test server received), the strict JSON readers against hand-written replies, the
// notebook's worked example judged through schema-bound JSON (its known figures), a judge that
// ignores the schema (unparsed, never 0 or 1), the one repair on the structured path, the
// three-way scale, the endpoint setting and the connection test's probe, and the Docugami
// acceptance runs from the CLI: structured outputs on against a server that honours the schema
// (0 unparsed, the same labels as the text run), and off against a server that wraps JSON in
// prose (today's text parse states).

#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/cli.h"
#include "common/notebook.h"
#include "common/testdata.h"
#include "core/claims/judgeparse.h"
#include "core/claims/structuredreply.h"
#include "core/data/jsonlines.h"
#include "core/eval/api/job.h"
#include "core/llm/llmjson.h"
#include "core/llm/offline.h"
#include "core/llm/openaiformat.h"
#include "core/llm/structuredprobe.h"
#include "core/store/runstore.h"
#include "core/util/jsonstrict.h"
#include "testserver/testserver.h"

using namespace ragscope::core;
using namespace ragscope::core::claims;
using namespace ragscope::test::notebook;
using nlohmann::json;
using ragscope::testserver::ResponseFormatMode;
namespace fs = std::filesystem;

// JSON values compared by their serialisation (QTest cannot print a json).
#define QCOMPARE_JSON(actual, expected)                 \
  QCOMPARE(QString::fromStdString(json(actual).dump()), \
           QString::fromStdString(json(expected).dump()))

namespace {

constexpr const char* kSec10q = "docugami/KG-RAG-datasets/sec-10-q/data/v1";

// The schemas as core/claims/README.md ("Structured replies") writes them, by hand.
const char* kClaimListDoc =
    R"({"type": "object", "properties": {"claims": {"type": "array", "items": {"type": "string"}}},
        "required": ["claims"], "additionalProperties": false})";
std::string verdictDoc(const char* labels) {
  return std::string(R"({"type": "object", "properties": {"verdicts": {"type": "array", "items":
      {"type": "object", "properties": {
         "claim": {"type": "integer", "description":
           "the claim\u0027s number: 1 for the first claim listed, 2 for the next"},
         "label": {"type": "string", "enum": )") +
         labels + R"(}},
       "required": ["claim", "label"], "additionalProperties": false}}},
      "required": ["verdicts"], "additionalProperties": false})";
}
const json kBinaryDoc = json::parse(verdictDoc(R"(["SUPPORTED=1", "SUPPORTED=0"])"));
const json kThreeWayDoc = json::parse(verdictDoc(R"(["Entailment", "Neutral", "Contradiction"])"));

// response_format as core/llm/README.md writes it.
json formatDoc(const std::string& name, const json& schema) {
  return {{"type", "json_schema"},
          {"json_schema", {{"name", name}, {"strict", true}, {"schema", schema}}}};
}

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
                        std::vector<eval::JudgeInput> inputs, bool structured) {
  eval::JobSpec spec;
  spec.kind = eval::JobKind::Judge;
  spec.judge.metrics = "notebook";
  spec.judge.inputs = std::move(inputs);
  spec.judge.judge.name = "scripted";
  spec.judge.judge.baseUrl = baseUrl;
  spec.judge.judge.model = "test-model";
  spec.judge.judge.structuredOutputs = structured;
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
  results.bootstrap.resamples = 0;
  return eval::runJob(plan, spec, {}, results);
}

const eval::JudgeMetricSummary* metric(const eval::JudgeReport& r, const std::string& name) {
  for (const auto& m : r.metrics)
    if (m.name == name) return &m;
  return nullptr;
}

// "S" Supported, "U" Unsupported, "E"/"N"/"C" three-way, "?" Unparsed, "!" Error.
std::string labelLetters(const std::vector<Label>& labels) {
  std::string s;
  for (Label l : labels) {
    switch (l) {
      case Label::Supported:
        s += 'S';
        break;
      case Label::Unsupported:
        s += 'U';
        break;
      case Label::Entailment:
        s += 'E';
        break;
      case Label::Neutral:
        s += 'N';
        break;
      case Label::Contradiction:
        s += 'C';
        break;
      case Label::Unparsed:
        s += '?';
        break;
      case Label::Error:
        s += '!';
        break;
    }
  }
  return s;
}

// The chat request bodies the server received, parsed.
std::vector<json> chatBodies(const ragscope::testserver::TestServer& server) {
  std::vector<json> out;
  for (const auto& e : server.log())
    if (e.path.size() >= 17 && e.path.compare(e.path.size() - 17, 17, "/chat/completions") == 0)
      out.push_back(json::parse(e.body));
  return out;
}

std::string lastUserMessage(const json& body) {
  std::string last;
  for (const auto& m : body["messages"])
    if (m["role"] == "user") last = m["content"].get<std::string>();
  return last;
}

// ragscope's offline heuristics as the scripted judge (the test server's --offline-answers).
std::string offlineJudge(const std::string& prompt) {
  return llm::offlineAnswer(llm::OfflineRole::Auto, prompt);
}

}  // namespace

class TestStructured : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void schemasAsDocumented();
  void requestBodyCarriesTheSchema();
  void endpointSetting();
  void claimListJson_data();
  void claimListJson();
  void verdictJson_data();
  void verdictJson();
  void notebookThroughStructuredOutputs();
  void structuredAgainstAnIgnoringServer();
  void structuredRepair();
  void repeatedVerdictsScoreNothing();
  void strictJsonReaders();
  void threeWayReadsAlike();
  void offAgainstAProseServer();
  void probe_data();
  void probe();
  void cliOption();
  void docugamiHonouredHasNoUnparsed();
  void docugamiOffAgainstProseKeepsTodaysStates();

 private:
  QTemporaryDir m_dir;
};

void TestStructured::initTestCase() { QVERIFY(m_dir.isValid()); }

void TestStructured::schemasAsDocumented() {
  QCOMPARE_JSON(json::parse(claimListSchema()), json::parse(kClaimListDoc));
  QCOMPARE_JSON(json::parse(verdictListSchema(VerdictScale::Binary)), kBinaryDoc);
  QCOMPARE_JSON(json::parse(verdictListSchema(VerdictScale::ThreeWay)), kThreeWayDoc);
  QCOMPARE(std::string(verdictSchemaName(VerdictScale::Binary)), "claim_verdicts_binary");
  QCOMPARE(std::string(verdictSchemaName(VerdictScale::ThreeWay)), "claim_verdicts_three_way");
  QCOMPARE(std::string(kClaimListSchemaName), "claim_list");
}

void TestStructured::requestBodyCarriesTheSchema() {
  llm::EndpointConfig ep;
  ep.baseUrl = "http://127.0.0.1:9/v1";
  ep.model = "m";
  llm::LlmRequest r;
  r.messages = {{"user", "hi"}};
  // Without a schema the body is today's, byte for byte.
  QCOMPARE(llm::buildRequestBody(ep, r),
           std::string(R"({"max_tokens":512,"messages":[{"content":"hi","role":"user"}],)"
                       R"("model":"m","stream":false,"temperature":0.0})"));
  r.responseSchema = llm::ResponseSchema{kClaimListSchemaName, claimListSchema()};
  const std::string body = llm::buildRequestBody(ep, r);
  QCOMPARE(body, std::string(R"({"max_tokens":512,"messages":[{"content":"hi","role":"user"}],)"
                             R"("model":"m","response_format":{"json_schema":{"name":"claim_list",)"
                             R"("schema":{"additionalProperties":false,"properties":{"claims":)"
                             R"({"items":{"type":"string"},"type":"array"}},"required":["claims"],)"
                             R"("type":"object"},"strict":true},"type":"json_schema"},)"
                             R"("stream":false,"temperature":0.0})"));
  QCOMPARE_JSON(json::parse(body)["response_format"],
                formatDoc("claim_list", json::parse(kClaimListDoc)));
  // The stored request (a run store's item) gives the same bytes back.
  const json stored = llm::toJson(r);
  QCOMPARE_JSON(stored["response_format"], formatDoc("claim_list", json::parse(kClaimListDoc)));
  const auto back = llm::requestFromJson(json::parse(stored.dump()));
  QVERIFY(back.has_value());
  QCOMPARE(llm::buildRequestBody(ep, *back), body);
  // A damaged response_format is refused, not silently dropped.
  json bad = stored;
  bad["response_format"]["type"] = "json_object";
  QVERIFY(!llm::requestFromJson(bad).has_value());
  bad = stored;
  bad["response_format"]["json_schema"]["strict"] = false;
  QVERIFY(!llm::requestFromJson(bad).has_value());
}

void TestStructured::endpointSetting() {
  llm::EndpointConfig c;
  c.name = "vllm";
  c.baseUrl = "http://127.0.0.1:8000/v1";
  c.apiKeyEnv = "SOME_KEY";
  QVERIFY(!llm::toJson(c).contains("structured_outputs"));  // records without it read as before
  QVERIFY(!llm::endpointFromJson(llm::toJson(c)).structuredOutputs);
  c.structuredOutputs = true;
  const json j = llm::toJson(c);
  QCOMPARE_JSON(j["structured_outputs"], json(true));
  QVERIFY(llm::endpointFromJson(j).structuredOutputs);
  QVERIFY(llm::endpointJsonProblem(j).empty());
  json bad = j;
  bad["structured_outputs"] = "yes";
  QCOMPARE(llm::endpointJsonProblem(bad), std::string("field \"structured_outputs\" is not true or "
                                                      "false"));
  QVERIFY(!llm::endpointFromJson(bad).structuredOutputs);
}

void TestStructured::claimListJson_data() {
  QTest::addColumn<QString>("reply");
  QTest::addColumn<QStringList>("claims");
  QTest::addColumn<QString>("problem");
  QTest::newRow("two claims") << "{\"claims\": [\"Apple's sales fell.\", \"Net sales: $81,797.\"]}"
                              << QStringList{"Apple's sales fell.", "Net sales: $81,797."} << "";
  QTest::newRow("none") << R"({"claims": []})" << QStringList{} << "";
  QTest::newRow("whitespace and line breaks")
      << "{\"claims\": [\"  a\\nb \", \"   \", \"\", \"c\\td\"]}" << QStringList{"a b", "c d"}
      << "";
  QTest::newRow("unknown member skipped")
      << R"({"note": "x", "claims": ["a"]})" << QStringList{"a"} << "";
  QTest::newRow("JSON in prose") << "Sure! Here is the JSON:\n```json\n{\"claims\": [\"a\"]}\n```"
                                 << QStringList{} << "the reply is not JSON (";
  QTest::newRow("text bullets") << "- a\n- b" << QStringList{} << "the reply is not JSON (";
  QTest::newRow("empty reply") << "" << QStringList{} << "the reply is not JSON (";
  QTest::newRow("array") << R"(["a"])" << QStringList{} << "the reply is not a JSON object";
  QTest::newRow("no member") << R"({"claim": ["a"]})" << QStringList{}
                             << "the reply has no \"claims\" member";
  QTest::newRow("claims a string")
      << R"({"claims": "a"})" << QStringList{} << "\"claims\" is not an array";
  QTest::newRow("a number among claims")
      << R"({"claims": ["a", 1]})" << QStringList{} << "claims[1] is not a string";
  std::string many = "{\"claims\": [";
  for (std::size_t i = 0; i <= kMaxJsonClaims; ++i) many += i ? ",\"c\"" : "\"c\"";
  many += "]}";
  QTest::newRow("runaway list") << QString::fromStdString(many) << QStringList{}
                                << "the reply lists more than 10000 claims";
  // Issue 35, item 13: a repeated member, wherever it is, leaves the reply unread.
  QTest::newRow("claims twice") << R"({"claims": ["a"], "claims": ["b", "c"]})" << QStringList{}
                                << "the reply is not strict JSON: member \"claims\" appears twice "
                                   "in one object (at claims)";
  QTest::newRow("repeat in a skipped member")
      << R"({"claims": ["a"], "note": {"x": 1, "y": [{"z": 0, "z": 1}]}})" << QStringList{}
      << "the reply is not strict JSON: member \"z\" appears twice in one object (at note.y[0].z)";
}

void TestStructured::claimListJson() {
  QFETCH(QString, reply);
  QFETCH(QStringList, claims);
  QFETCH(QString, problem);
  const auto parsed = parseClaimListJson(reply.toStdString());
  QStringList got;
  for (const auto& c : parsed.claims) got << QString::fromStdString(c);
  QCOMPARE(got, claims);
  if (problem.isEmpty())
    QVERIFY2(parsed.problem.empty(), parsed.problem.c_str());
  else
    QVERIFY2(QString::fromStdString(parsed.problem).startsWith(problem), parsed.problem.c_str());
}

void TestStructured::verdictJson_data() {
  QTest::addColumn<QString>("reply");
  QTest::addColumn<int>("claims");
  QTest::addColumn<bool>("threeWay");
  QTest::addColumn<QString>("labels");
  QTest::addColumn<QStringList>("problems");
  auto v = [](std::vector<std::pair<json, json>> entries) {
    json a = json::array();
    for (auto& [k, l] : entries) a.push_back({{"claim", k}, {"label", l}});
    return QString::fromStdString(json{{"verdicts", a}}.dump());
  };
  QTest::newRow("in order") << v({{1, "SUPPORTED=1"}, {2, "SUPPORTED=0"}}) << 2 << false << "SU"
                            << QStringList{};
  QTest::newRow("any order") << v({{2, "SUPPORTED=0"}, {1, "SUPPORTED=1"}}) << 2 << false << "SU"
                             << QStringList{};
  QTest::newRow("integral float") << v({{1.0, "SUPPORTED=1"}}) << 1 << false << "S"
                                  << QStringList{};
  QTest::newRow("missing entry") << v({{1, "SUPPORTED=1"}}) << 2 << false << "S?"
                                 << QStringList{"claim 2: no entry"};
  QTest::newRow("two entries") << v({{1, "SUPPORTED=1"}, {1, "SUPPORTED=0"}, {2, "SUPPORTED=1"}})
                               << 2 << false << "?S" << QStringList{"claim 1: on 2 entries"};
  QTest::newRow("numbers no claim")
      << v({{1, "SUPPORTED=1"}, {3, "SUPPORTED=0"}, {0, "SUPPORTED=0"}}) << 2 << false << "S?"
      << QStringList{"claim 2: no entry", "an entry numbers no claim (3)",
                     "an entry numbers no claim (0)"};
  QTest::newRow("three-way") << v({{1, "Entailment"}, {3, "Contradiction"}, {2, "Neutral"}}) << 3
                             << true << "ENC" << QStringList{};
  // Shapes outside the schema decide no claim at all.
  QTest::newRow("label of the other scale")
      << v({{1, "SUPPORTED=1"}, {2, "Entailment"}}) << 2 << false << "??"
      << QStringList{"verdicts[1].label \"Entailment\" is not one of SUPPORTED=1, SUPPORTED=0"};
  QTest::newRow("binary label on the three-way scale")
      << v({{1, "SUPPORTED=1"}}) << 1 << true << "?"
      << QStringList{
             "verdicts[0].label \"SUPPORTED=1\" is not one of Entailment, Neutral, Contradiction"};
  QTest::newRow("label in another case") << v({{1, "supported=1"}}) << 1 << false << "?"
                                         << QStringList{
                                                "verdicts[0].label \"supported=1\" is not one of "
                                                "SUPPORTED=1, SUPPORTED=0"};
  QTest::newRow("claim as a string") << v({{"1", "SUPPORTED=1"}}) << 1 << false << "?"
                                     << QStringList{"verdicts[0].claim is not an integer"};
  QTest::newRow("no label") << R"({"verdicts": [{"claim": 1}]})" << 1 << false << "?"
                            << QStringList{"verdicts[0].label is missing"};
  QTest::newRow("entry not an object")
      << R"({"verdicts": [1]})" << 1 << false << "?" << QStringList{"verdicts[0] is not an object"};
  QTest::newRow("text verdict lines")
      << "- The sky is blue. SUPPORTED=1" << 1 << false << "?"
      << QStringList{"the reply is not JSON (parse error at line 1, column "};
  QTest::newRow("JSON in prose") << "Here you go: {\"verdicts\": []}" << 1 << false << "?"
                                 << QStringList{
                                        "the reply is not JSON (parse error at line 1, column "};
  std::vector<std::pair<json, json>> runaway;
  for (int i = 0; i < 2 * 2 + 11; ++i) runaway.push_back({1 + i % 2, "SUPPORTED=1"});
  QTest::newRow("runaway list") << v(runaway) << 2 << false << "??"
                                << QStringList{
                                       "the reply lists more than 14 verdicts for 2 claims"};
  QTest::newRow("no claims") << "not JSON" << 0 << false << "" << QStringList{};
  // Issue 35, item 13: json::parse keeps the last of repeated members, so this reply scored
  // faithfulness 1.0; a repeated member anywhere (read or skipped, spelt with an escape or not)
  // now decides no claim, like any reply outside the schema.
  const std::string zeros =
      R"([{"claim": 1, "label": "SUPPORTED=0"}, {"claim": 2, "label": "SUPPORTED=0"}])";
  const std::string ones =
      R"([{"claim": 1, "label": "SUPPORTED=1"}, {"claim": 2, "label": "SUPPORTED=1"}])";
  QTest::newRow("verdicts twice")
      << QString::fromStdString(R"({"verdicts": )" + zeros + R"(, "verdicts": )" + ones + "}") << 2
      << false << "??"
      << QStringList{
             "the reply is not strict JSON: member \"verdicts\" appears twice in one object (at "
             "verdicts)"};
  QTest::newRow("verdicts twice, one escaped")
      << QString::fromStdString(R"({"verdicts": )" + zeros + R"(, "verd\u0069cts": )" + ones + "}")
      << 2 << false << "??"
      << QStringList{"the reply is not strict JSON: member \"verdicts\" appears twice"};
  QTest::newRow("label twice in an entry")
      << R"({"verdicts": [{"claim": 1, "label": "SUPPORTED=0", "label": "SUPPORTED=1"}]})" << 1
      << false << "?"
      << QStringList{
             "the reply is not strict JSON: member \"label\" appears twice in one object "
             "(at verdicts[0].label)"};
  QTest::newRow("repeat in an unknown member")
      << QString::fromStdString(R"({"verdicts": )" + ones +
                                R"(, "extra": {"deep": [[{"k": 1}, {"k": 2, "q": 0, "k": 3}]]}})")
      << 2 << false << "??"
      << QStringList{
             "the reply is not strict JSON: member \"k\" appears twice in one object (at "
             "extra.deep[0][1].k)"};
  // The same name in sibling or nested objects is no repeat.
  QTest::newRow("same names in different objects")
      << QString::fromStdString(R"({"verdicts": )" + ones +
                                R"(, "x": {"verdicts": {"verdicts": 1}, "claim": [{"claim": 2}]}})")
      << 2 << false << "SS" << QStringList{};
  std::string flat = R"({"verdicts": )" + ones + R"(, "extra": {)";
  for (int i = 0; i < 50000; ++i) flat += (i ? ",\"k" : "\"k") + std::to_string(i) + "\": 0";
  QTest::newRow("fifty thousand distinct members")
      << QString::fromStdString(flat + "}}") << 2 << false << "SS" << QStringList{};
  QTest::newRow("nested deeper than 256 levels")
      << QString::fromStdString(R"({"verdicts": )" + ones + R"(, "x": )" + std::string(300, '[') +
                                std::string(300, ']') + "}")
      << 2 << false << "??"
      << QStringList{"the reply is not strict JSON: JSON nested deeper than 256 levels"};
}

void TestStructured::verdictJson() {
  QFETCH(QString, reply);
  QFETCH(int, claims);
  QFETCH(bool, threeWay);
  QFETCH(QString, labels);
  QFETCH(QStringList, problems);
  const auto parsed = parseVerdictsJson(reply.toStdString(), static_cast<std::size_t>(claims),
                                        threeWay ? VerdictScale::ThreeWay : VerdictScale::Binary);
  QCOMPARE(QString::fromStdString(labelLetters(parsed.labels)), labels);
  // Each problem as expected (a parser's message: its beginning).
  QCOMPARE(parsed.problems.size(), static_cast<std::size_t>(problems.size()));
  for (qsizetype i = 0; i < problems.size(); ++i)
    QVERIFY2(QString::fromStdString(parsed.problems[static_cast<std::size_t>(i)])
                 .startsWith(problems[i]),
             parsed.problems[static_cast<std::size_t>(i)].c_str());
  if (!problems.isEmpty())
    QVERIFY(structuredRepairInstruction(parsed.problems).find(parsed.problems.front()) !=
            std::string::npos);
}

void TestStructured::notebookThroughStructuredOutputs() {
  ragscope::testserver::Options options;
  options.answer = notebookJudge;
  options.responseFormat = ResponseFormatMode::Honour;
  ragscope::testserver::TestServer server(options);
  QVERIFY(server.start());
  const std::string response = joined(kResponseClaims);
  const std::string storePath = m_dir.filePath("notebook-structured.db").toStdString();
  const auto result =
      runSpec(judgeSpec(server.baseUrl(), storePath, {notebookInput(response)}, true));
  QVERIFY2(result.error.empty(), result.error.c_str());
  const auto& r = *result.judge;
  // The notebook's figures (core/claims/README.md, "Notebook metrics"), now read from JSON.
  QCOMPARE(metric(r, "faithfulness")->mean, 1.0);
  QCOMPARE(metric(r, "correctness")->mean, 0.5);
  QCOMPARE(metric(r, "coverage")->mean, 1.0 / 3.0);
  QCOMPARE(r.queries.front().responseClaims.claims, kResponseClaims);
  QCOMPARE(r.queries.front().goldClaims.claims, kGoldClaims);
  QCOMPARE(r.repairs, std::size_t{0});
  // Two claim lists and three verdict replies of six claims each, all on the structured path.
  QCOMPARE(r.structuredPath.extractions, std::size_t{2});
  QCOMPARE(r.structuredPath.extractionsUnparsed, std::size_t{0});
  QCOMPARE(r.structuredPath.verdictReplies, std::size_t{3});
  QCOMPARE(r.structuredPath.verdicts, std::uint64_t{18});
  QCOMPARE(r.structuredPath.verdictsUnparsed, std::uint64_t{0});
  QVERIFY(!r.textPath.used());
  const json j = eval::judgeReportJson(r);
  QCOMPARE(j["parse_paths"]["structured"]["verdicts"].get<int>(), 18);
  QCOMPARE(j["parse_paths"]["text"]["extractions"].get<int>(), 0);

  // What the server received is what the README says: the claim-list schema on the two
  // extractions, the binary verdict schema on the three assessments.
  const auto bodies = chatBodies(server);
  QCOMPARE(bodies.size(), std::size_t{5});
  int extractions = 0, assessments = 0;
  for (const auto& b : bodies) {
    if (lastUserMessage(b).rfind("Break the text", 0) == 0) {
      QCOMPARE_JSON(b["response_format"], formatDoc("claim_list", json::parse(kClaimListDoc)));
      ++extractions;
    } else {
      QCOMPARE_JSON(b["response_format"], formatDoc("claim_verdicts_binary", kBinaryDoc));
      ++assessments;
    }
  }
  QCOMPARE(extractions, 2);
  QCOMPARE(assessments, 3);

  // The store says which path each call took: the request stored per item, the settings.
  store::RunStore s;
  std::string err;
  QVERIFY(s.openReadOnly(storePath, &err));
  QCOMPARE_JSON(s.run().settings["judge"]["structured_outputs"], json(true));
  QCOMPARE_JSON(json::parse(s.run().endpoint.dump())["structured_outputs"], json(true));
  for (const auto& item : s.items()) {
    const json req = json::parse(item.requestJson);
    QVERIFY2(req.contains("response_format"), item.key.c_str());
    QCOMPARE(
        req["response_format"]["json_schema"]["name"].get<std::string>(),
        std::string(item.key.rfind("extract:", 0) == 0 ? "claim_list" : "claim_verdicts_binary"));
  }

  // The notebook's corruption (2022 -> 1922) halves faithfulness on this path too.
  const std::string corruptedPath = m_dir.filePath("notebook-1922-structured.db").toStdString();
  const auto corrupted = runSpec(
      judgeSpec(server.baseUrl(), corruptedPath, {notebookInput(replace2022(response))}, true));
  QVERIFY2(corrupted.error.empty(), corrupted.error.c_str());
  QCOMPARE(metric(*corrupted.judge, "faithfulness")->mean, 0.5);
}

void TestStructured::structuredAgainstAnIgnoringServer() {
  // The server answers in text lines whatever response_format says: no reply is the schema's
  // JSON, so every claim list is unparsed (after its one repair), and nothing counts as 0 or 1.
  ragscope::testserver::Options options;
  options.answer = notebookJudge;
  options.responseFormat = ResponseFormatMode::Ignore;
  ragscope::testserver::TestServer server(options);
  QVERIFY(server.start());
  const auto result =
      runSpec(judgeSpec(server.baseUrl(), m_dir.filePath("ignored.db").toStdString(),
                        {notebookInput(joined(kResponseClaims))}, true));
  QVERIFY2(result.error.empty(), result.error.c_str());
  const auto& r = *result.judge;
  for (const char* m : {"faithfulness", "correctness", "coverage"}) {
    const auto* s = metric(r, m);
    QVERIFY(std::isnan(s->mean));
    QCOMPARE(s->unparsed, std::size_t{1});
    QCOMPARE(s->scored, std::size_t{0});
    QVERIFY(!r.queries.front().values[static_cast<std::size_t>(s - r.metrics.data())].value);
  }
  QCOMPARE(r.structuredPath.extractions, std::size_t{2});
  QCOMPARE(r.structuredPath.extractionsUnparsed, std::size_t{2});
  QVERIFY(r.queries.front().responseClaims.problem.rfind("the reply is not JSON (", 0) == 0);
  // Two extractions, each repaired once (on the structured path: the schema is sent again).
  const auto bodies = chatBodies(server);
  QCOMPARE(bodies.size(), std::size_t{4});
  for (const auto& b : bodies)
    QCOMPARE_JSON(b["response_format"], formatDoc("claim_list", json::parse(kClaimListDoc)));
  QVERIFY(lastUserMessage(bodies.back())
              .rfind("Your reply could not be read: the reply is not JSON", 0) == 0);
}

// A judge that leaves out claim 2's verdict the first time and gives them all when repaired.
struct ForgetfulStructuredJudge {
  std::mutex mutex;
  std::vector<std::string> lastClaims;
  std::vector<std::string> repairPrompts;

  std::string operator()(const std::string& prompt) {
    std::lock_guard lock(mutex);
    if (prompt.rfind("Break the text", 0) == 0)
      return "- The sky is blue.\n- Grass is green.\n- Snow is black.";
    const bool repair = prompt.rfind("Your reply could not be read", 0) == 0;
    if (repair)
      repairPrompts.push_back(prompt);
    else
      lastClaims = claimsOfPrompt(prompt);
    std::string out;
    for (std::size_t i = 0; i < lastClaims.size(); ++i)
      if (i != 1 || repair)
        out += "- " + lastClaims[i] + (i == 2 ? " SUPPORTED=0\n" : " SUPPORTED=1\n");
    return out;
  }
};

void TestStructured::structuredRepair() {
  auto judge = std::make_shared<ForgetfulStructuredJudge>();
  ragscope::testserver::Options options;
  options.answer = [judge](const std::string& p) { return (*judge)(p); };
  options.responseFormat = ResponseFormatMode::Honour;
  ragscope::testserver::TestServer server(options);
  QVERIFY(server.start());
  eval::JudgeInput in{"q1",
                      "What colours?",
                      std::string("The sky is blue, grass is green and snow is black."),
                      "",
                      {{"d1", "The sky is blue. Grass is green."}},
                      {}};
  auto spec = judgeSpec(server.baseUrl(), m_dir.filePath("repair.db").toStdString(), {in}, true);
  spec.judge.metrics = "faithfulness";
  const auto result = runSpec(spec);
  QVERIFY2(result.error.empty(), result.error.c_str());
  const auto& r = *result.judge;
  // The first reply lacks claim 2's entry; the repair decides it: 2 of 3 supported.
  QCOMPARE(r.repairs, std::size_t{1});
  QCOMPARE(metric(r, "faithfulness")->mean, 2.0 / 3.0);
  QCOMPARE(labelLetters(r.queries.front().find("faith")->labels), std::string("SSU"));
  QCOMPARE(judge->repairPrompts.size(), std::size_t{1});
  QCOMPARE(judge->repairPrompts.front(), structuredRepairInstruction({"claim 2: no entry"}));
  const auto bodies = chatBodies(server);
  QCOMPARE(bodies.size(), std::size_t{3});  // extraction, assessment, its repair
  QCOMPARE_JSON(bodies.back()["response_format"], formatDoc("claim_verdicts_binary", kBinaryDoc));
  // The repair turn carries the first reply as the assistant's.
  QCOMPARE(bodies.back()["messages"].size(), std::size_t{3});
  QCOMPARE(bodies.back()["messages"][1]["content"].get<std::string>(),
           std::string(R"({"verdicts":[{"claim":1,"label":"SUPPORTED=1"},)"
                       R"({"claim":3,"label":"SUPPORTED=0"}]})"));
}

// Issue 35, item 13, end to end: a judge whose every verdict reply lists all claims unsupported
// and then, under the same member name, all supported. Read last-wins this scored faithfulness
// 1.0; now each reply (and its one repair) is unparsed, and faithfulness has no value.
void TestStructured::repeatedVerdictsScoreNothing() {
  ragscope::testserver::Options options;
  options.answer = [](const std::string& prompt) -> std::string {
    if (prompt.rfind("Break the text", 0) == 0)
      return R"({"claims": ["The sky is blue.", "Snow is black."]})";
    return R"({"verdicts": [{"claim": 1, "label": "SUPPORTED=0"}, {"claim": 2, "label": )"
           R"("SUPPORTED=0"}], "verdicts": [{"claim": 1, "label": "SUPPORTED=1"}, )"
           R"({"claim": 2, "label": "SUPPORTED=1"}]})";
  };
  options.responseFormat = ResponseFormatMode::Ignore;  // the scripted JSON goes out as it is
  ragscope::testserver::TestServer server(options);
  QVERIFY(server.start());
  eval::JudgeInput in{"q1",
                      "What colours?",
                      std::string("The sky is blue and snow is black."),
                      "",
                      {{"d1", "The sky is blue."}},
                      {}};
  auto spec = judgeSpec(server.baseUrl(), m_dir.filePath("repeated.db").toStdString(), {in}, true);
  spec.judge.metrics = "faithfulness";
  const auto result = runSpec(spec);
  QVERIFY2(result.error.empty(), result.error.c_str());
  const auto& r = *result.judge;
  QCOMPARE(labelLetters(r.queries.front().find("faith")->labels), std::string("??"));
  const auto* faith = metric(r, "faithfulness");
  QVERIFY(faith);
  QVERIFY2(std::isnan(faith->mean), std::to_string(faith->mean).c_str());
  QCOMPARE(faith->unparsed, std::size_t{1});
  QCOMPARE(r.structuredPath.verdictsUnparsed, std::uint64_t{2});
}

// Issue 35, item 13, the class: parseJsonStrict (core/util/jsonstrict.h) gives json::parse's
// document and errors except for repeated members, which it refuses with their place; the
// streamed record reader (core/data/jsonlines.h) refuses them inside a record and around it.
void TestStructured::strictJsonReaders() {
  const std::vector<std::string> texts = {
      R"({"a": 1, "b": [1, 2.5, -3, "x", null, true, {"a": 2}], "c": {"a": {"a": 3}}})",
      R"([{"k": 1}, {"k": 2}, [], {}])",
      "\"just a string\"",
      "  42  ",
      R"({"\u00e9": 1, "e\u0301": 2})",  // two different names (NFC is not applied)
      R"({"a": 1,})",
      R"({"a" 1})",
      "[1, 2",
      "",
      "1e400",
      R"({"a": 1} {"b": 2})",
      "[18446744073709551616]",
      "{\"s\": \"\\ud800\"}",
  };
  for (const auto& text : texts) {
    json strict;
    JsonStrictError why;
    const bool ok = parseJsonStrict(text, strict, &why);
    std::string what;
    std::size_t byte = 0;
    json expected;
    try {
      expected = json::parse(text);
    } catch (const json::parse_error& e) {
      what = e.what();
      byte = e.byte;
    } catch (const json::exception& e) {
      what = e.what();
    }
    QVERIFY2(ok == what.empty(), text.c_str());
    if (ok) {
      QVERIFY2(strict == expected, (text + " -> " + strict.dump()).c_str());
    } else {
      QCOMPARE(why.problem, what);
      QCOMPARE(why.byte, byte);
      QVERIFY(!why.repeated);
      QVERIFY(strict.is_null());
    }
  }

  // An LLM reply whose answer hides behind another under the same name (json::parse would give
  // the last "content") is malformed, and not worth another attempt.
  const auto reply = llm::parseChatReply(
      R"({"choices": [{"message": {"role": "assistant", "content": "SUPPORTED=0", )"
      R"("content": "SUPPORTED=1"}}]})");
  QVERIFY(!reply.ok);
  QVERIFY(!reply.unreadable);
  QCOMPARE(reply.error, std::string("not strict JSON: member \"content\" appears twice in one "
                                    "object (at choices[0].message.content)"));

  // A repeat: its member's path, and the byte just past its name (for a line in a file).
  const std::string text = "{\"out\": [{\"a\": 1},\n {\"a\": 1, \"b\": 2,\n \"a\": 3}]}";
  json doc;
  JsonStrictError why;
  QVERIFY(!parseJsonStrict(text, doc, &why));
  QVERIFY(why.repeated);
  QCOMPARE(why.field, std::string("out[1].a"));
  QCOMPARE(why.problem, std::string("member \"a\" appears twice in one object"));
  QCOMPARE(text.substr(why.byte - 3, 3), std::string("\"a\""));
  QCOMPARE(describeJsonStrictError(why),
           std::string("member \"a\" appears twice in one object (at out[1].a)"));
  QVERIFY(doc.is_null());
  QVERIFY(!parseJsonStrict(R"({"a": {"b": 1, "b": 1}})", doc, &why));  // equal values too
  QCOMPARE(why.field, std::string("a.b"));
  // Deeper than the limit (default 256; a reader may give its own).
  QVERIFY(!parseJsonStrict(std::string(300, '[') + std::string(300, ']'), doc, &why));
  QVERIFY(why.tooDeep);
  QVERIFY(parseJsonStrict(std::string(300, '[') + std::string(300, ']'), doc, &why, 300));
  QVERIFY(!parseJsonStrict("[[[1]]]", doc, &why, 2));

  // The streamed reader: in a record, the record's error; around the records, the file stops.
  QTemporaryDir dir;
  auto write = [&](const char* name, const std::string& body) {
    const auto p = fs::path(dir.path().toStdString()) / name;
    std::ofstream(p, std::ios::binary) << body;
    return p;
  };
  std::vector<json> records;
  const JsonRecordFn keep = [&](json& r, const JsonRecordPlace&, RecordProblems&) {
    records.push_back(r);
  };
  LoadOptions skip;
  skip.onError = OnError::Skip;
  const auto inRecord =
      write("in.json",
            "{\"results\": [{\"a\": 1},\n{\"a\": 1, \"b\": {\"c\": 0, \"c\": [1]}},\n{\"a\": 3}]}");
  auto report = readJsonArrayElements(inRecord, skip, "results", keep);
  QCOMPARE(records.size(), std::size_t{2});  // the first and the third
  QCOMPARE(report.skipped, std::uint64_t{1});
  QCOMPARE(report.diagnostics.front().toString(),
           inRecord.string() + ":2: results[1].b.c: member \"c\" appears twice in one object");
  records.clear();
  const auto around =
      write("around.json", R"({"results": [{"a": 1}], "metrics": {}, "results": [{"a": 2}]})");
  report = readJsonArrayElements(around, skip, "results", keep);
  QVERIFY(!report.ok());
  QVERIFY(report.stopped);
  QVERIFY2(
      report.diagnostics.back().problem.find("appears twice in one object") != std::string::npos,
      report.diagnostics.back().toString().c_str());
}

void TestStructured::threeWayReadsAlike() {
  // RAGChecker's mode asks three-way verdicts; the scripted judge labels by a rule, and both
  // paths read the same labels from its text and from its JSON.
  auto rule = [](const std::string& prompt) -> std::string {
    if (prompt.rfind("Break the text", 0) == 0) return notebookJudge(prompt);
    std::string out;
    for (const auto& c : claimsOfPrompt(prompt))
      out += "- " + c +
             (c.find("2023") != std::string::npos   ? " Entailment\n"
              : c.find("2022") != std::string::npos ? " Contradiction\n"
                                                    : " Neutral\n");
    return out;
  };
  std::map<bool, std::vector<std::string>> labels;
  for (bool structured : {false, true}) {
    ragscope::testserver::Options options;
    options.answer = rule;
    options.responseFormat = ResponseFormatMode::Honour;
    ragscope::testserver::TestServer server(options);
    QVERIFY(server.start());
    const QString store = m_dir.filePath(structured ? "threeway-s.db" : "threeway-t.db");
    auto spec = judgeSpec(server.baseUrl(), store.toStdString(),
                          {notebookInput(joined(kResponseClaims))}, structured);
    spec.judge.metrics = "ragchecker";
    spec.judge.mode = "ragchecker";
    const auto result = runSpec(spec);
    QVERIFY2(result.error.empty(), result.error.c_str());
    const auto& r = *result.judge;
    QCOMPARE((structured ? r.structuredPath : r.textPath).verdictsUnparsed, std::uint64_t{0});
    for (const auto& v : r.queries.front().verdicts)
      labels[structured].push_back(labelLetters(v.labels));
    for (const auto& b : chatBodies(server)) {
      if (!structured) {
        QVERIFY(!b.contains("response_format"));
      } else if (lastUserMessage(b).rfind("Break the text", 0) != 0) {
        QCOMPARE_JSON(b["response_format"], formatDoc("claim_verdicts_three_way", kThreeWayDoc));
      }
    }
  }
  // correct (the first premise RAGChecker's metrics need), by the rule: response claims 2, 4 and
  // 5 mention 2023 (Entailment), 3 and 6 only 2022 (Contradiction), 1 neither (Neutral).
  QCOMPARE(labels[true], labels[false]);
  QVERIFY(!labels[true].empty());
  QCOMPARE(labels[true].front(), std::string("NECEEC"));
}

void TestStructured::offAgainstAProseServer() {
  // Structured outputs off: no request carries response_format, and replies of JSON wrapped in
  // prose are read by today's text parser: no "- " line, so each claim list is unparsed after
  // its one repair (core/claims/README.md, "Parse states").
  ragscope::testserver::Options options;
  options.answer = notebookJudge;
  options.responseFormat = ResponseFormatMode::ProseJson;
  ragscope::testserver::TestServer server(options);
  QVERIFY(server.start());
  const auto result = runSpec(judgeSpec(server.baseUrl(), m_dir.filePath("prose.db").toStdString(),
                                        {notebookInput(joined(kResponseClaims))}, false));
  QVERIFY2(result.error.empty(), result.error.c_str());
  const auto& r = *result.judge;
  for (const char* m : {"faithfulness", "correctness", "coverage"})
    QCOMPARE(metric(r, m)->unparsed, std::size_t{1});
  QCOMPARE(r.queries.front().responseClaims.problem,
           std::string("the reply has no \"- \" claim lines (after the repair)"));
  QCOMPARE(r.textPath.extractions, std::size_t{2});
  QCOMPARE(r.textPath.extractionsUnparsed, std::size_t{2});
  QVERIFY(!r.structuredPath.used());
  const auto bodies = chatBodies(server);
  QCOMPARE(bodies.size(), std::size_t{4});
  for (const auto& b : bodies) QVERIFY(!b.contains("response_format"));
  QVERIFY(lastUserMessage(bodies.back()) ==
          repairInstruction({"the reply has no \"- \" claim lines"}));
}

void TestStructured::probe_data() {
  QTest::addColumn<QString>("scenario");
  QTest::addColumn<QString>("support");
  QTest::newRow("honoured") << "honour"
                            << "yes";
  QTest::newRow("ignored: text") << "ignore"
                                 << "no";
  QTest::newRow("ignored: JSON in prose") << "prose"
                                          << "no";
  QTest::newRow("refused with HTTP 400") << "refuse"
                                         << "no";
  QTest::newRow("server error") << "fail"
                                << "unknown";
}

void TestStructured::probe() {
  QFETCH(QString, scenario);
  QFETCH(QString, support);
  ragscope::testserver::Options options;
  options.responseFormat = scenario == "honour"  ? ResponseFormatMode::Honour
                           : scenario == "prose" ? ResponseFormatMode::ProseJson
                                                 : ResponseFormatMode::Ignore;
  ragscope::testserver::TestServer server(options);
  if (scenario == "refuse") {
    auto r = ragscope::testserver::rule(ragscope::testserver::Behaviour::Status, -1,
                                        "/chat/completions");
    r.status = 400;
    r.bodyContains = "response_format";
    r.body = "response_format is not supported";
    server.addRule(r);
  }
  if (scenario == "fail") {
    auto r = ragscope::testserver::rule(ragscope::testserver::Behaviour::Status, -1,
                                        "/chat/completions");
    r.status = 500;
    server.addRule(r);
  }
  QVERIFY(server.start());
  llm::EndpointConfig ep;
  ep.baseUrl = server.baseUrl();
  ep.model = "test-model";
  ep.timeoutSeconds = 10;
  llm::TransportOptions transport;
  transport.retryBaseSeconds = 0.01;
  const auto p = llm::probeStructuredOutputs(ep, transport);
  QCOMPARE(QString::fromUtf8(llm::structuredSupportName(p.support).data()), support);
  QVERIFY(!p.detail.empty());
  qInfo("%s: %s", qPrintable(scenario), p.detail.c_str());
  // One call (no retry), carrying the probe's schema as documented.
  const auto bodies = chatBodies(server);
  QCOMPARE(bodies.size(), std::size_t{1});
  QCOMPARE_JSON(
      bodies.front()["response_format"],
      formatDoc("ragscope_probe",
                json::parse(R"({"type": "object", "properties": {"answer": {"type": "string",
                                     "enum": ["yes", "no"]}}, "required": ["answer"],
                                     "additionalProperties": false})")));
  QCOMPARE(lastUserMessage(bodies.front()), std::string("Is 7 a prime number?"));
  if (scenario == "honour")
    QCOMPARE(p.detail, std::string(R"(the reply followed the schema: {"answer":"yes"})"));
}

void TestStructured::cliOption() {
  const auto help = ragscope::test::runCliText({"judge", "--help"});
  QCOMPARE(help.exitCode, 0);
  QVERIFY(help.out.contains("--structured-outputs"));
  // Part of the stored run: a resume cannot switch it.
  const auto resume =
      ragscope::test::runCliText({"resume", m_dir.filePath("none.db"), "--structured-outputs"});
  QCOMPARE(resume.exitCode, 2);
  QVERIFY2(resume.err.contains("--structured-outputs is part of the stored run"),
           qPrintable(resume.err));
}

namespace {

struct DocugamiRun {
  json report;
  std::vector<json> bodies;
  eval::JudgeReport stored;
  std::size_t calls = 0;  // the store's items but the answers (the offline reader: no request)
};

// The Docugami sec-10-q questions judged from the CLI (bm25 top 5, the offline reader's answers,
// the notebook metrics) by the offline heuristics scripted behind the test server.
DocugamiRun runDocugami(ResponseFormatMode mode, const QString& store, QStringList extra) {
  ragscope::testserver::Options options;
  options.answer = offlineJudge;
  options.responseFormat = mode;
  ragscope::testserver::TestServer server(options);
  DocugamiRun out;
  if (!server.start()) return out;
  const auto r = ragscope::test::runCliText(
      QStringList{"judge", "--dataset",
                  QString::fromStdString(ragscope::test::dataPath(kSec10q).string()), "--retriever",
                  "bm25", "--k", "5", "--metrics", "notebook", "--judge",
                  QString::fromStdString(server.baseUrl()), "--judge-model", "test-model",
                  "--no-cache", "--store", store, "--json", "--quiet"} +
      extra);
  if (r.exitCode != 0) {
    qWarning("judge failed (%d): %s", r.exitCode, qPrintable(r.err));
    return out;
  }
  out.report = json::parse(r.out.toStdString());
  out.bodies = chatBodies(server);
  out.stored = eval::readJudgeReport(store.toStdString(), {});
  store::RunStore s;
  std::string err;
  if (s.openReadOnly(store.toStdString(), &err))
    for (const auto& item : s.items()) out.calls += item.key.rfind("gen:", 0) != 0;
  return out;
}

}  // namespace

void TestStructured::docugamiHonouredHasNoUnparsed() {
  RAGSCOPE_REQUIRE_DATA(kSec10q);
  // The text run, as today, and the structured run against a server that honours the schema:
  // the claim x chunk matrix too (--matrix), every claim list and verdict list through JSON.
  const DocugamiRun text =
      runDocugami(ResponseFormatMode::Honour, m_dir.filePath("docugami-text.db"), {"--matrix"});
  const DocugamiRun structured =
      runDocugami(ResponseFormatMode::Honour, m_dir.filePath("docugami-structured.db"),
                  {"--matrix", "--structured-outputs"});
  QVERIFY(!text.report.is_null() && !structured.report.is_null());
  const json& paths = structured.report["parse_paths"];
  qInfo("%zu judge calls per run; structured: %s", structured.calls, paths.dump().c_str());
  QCOMPARE(structured.report["n"].get<int>(), 195);
  QCOMPARE(paths["structured"]["extractions"].get<int>(), 2 * 195);
  QCOMPARE(paths["structured"]["extractions_unparsed"].get<int>(), 0);
  QVERIFY(paths["structured"]["verdict_replies"].get<int>() > 195 * 3);
  QCOMPARE(paths["structured"]["verdicts_unparsed"].get<int>(), 0);
  QCOMPARE(paths["text"]["extractions"].get<int>() + paths["text"]["verdict_replies"].get<int>(),
           0);
  QCOMPARE(structured.report["repairs"].get<int>(), 0);
  for (const char* m : {"faithfulness", "correctness", "coverage"})
    QCOMPARE(structured.report["states"][m]["unparsed"].get<int>(), 0);
  // The same calls, labels and figures as the text run: the JSON carries the same verdicts.
  QCOMPARE(structured.calls, text.calls);
  QCOMPARE_JSON(structured.report["per_query"], text.report["per_query"]);
  QCOMPARE_JSON(structured.report["mean"], text.report["mean"]);
  QCOMPARE_JSON(structured.report["n_total"], text.report["n_total"]);
  QCOMPARE(structured.stored.queries.size(), text.stored.queries.size());
  std::size_t cells = 0;
  for (std::size_t q = 0; q < text.stored.queries.size(); ++q) {
    const auto& a = text.stored.queries[q];
    const auto& b = structured.stored.queries[q];
    QCOMPARE(b.responseClaims.claims, a.responseClaims.claims);
    QCOMPARE(b.goldClaims.claims, a.goldClaims.claims);
    QCOMPARE(b.verdicts.size(), a.verdicts.size());
    for (std::size_t v = 0; v < a.verdicts.size(); ++v) {
      QCOMPARE(labelLetters(b.verdicts[v].labels), labelLetters(a.verdicts[v].labels));
      cells += a.verdicts[v].labels.size();
    }
  }
  qInfo("%zu claim verdicts compared", cells);
  // Every chat request of the structured run carried its schema, and none of the text run.
  QCOMPARE(structured.bodies.size(), structured.calls);
  for (const auto& b : structured.bodies) {
    const bool extract = lastUserMessage(b).rfind("Break the text", 0) == 0;
    QCOMPARE_JSON(b["response_format"], extract
                                            ? formatDoc("claim_list", json::parse(kClaimListDoc))
                                            : formatDoc("claim_verdicts_binary", kBinaryDoc));
  }
  for (const auto& b : text.bodies) QVERIFY(!b.contains("response_format"));
}

void TestStructured::docugamiOffAgainstProseKeepsTodaysStates() {
  RAGSCOPE_REQUIRE_DATA(kSec10q);
  // Off, against a server whose model wraps JSON in prose: the text parser finds no "- " line
  // in any claim list, so every answer's claims are unparsed after one repair each, and every
  // metric of every answer is "unparsed" (no verdict call is made on claims that are not there).
  const DocugamiRun prose =
      runDocugami(ResponseFormatMode::ProseJson, m_dir.filePath("docugami-prose.db"), {});
  QVERIFY(!prose.report.is_null());
  const json& paths = prose.report["parse_paths"];
  QCOMPARE(paths["text"]["extractions"].get<int>(), 2 * 195);
  QCOMPARE(paths["text"]["extractions_unparsed"].get<int>(), 2 * 195);
  QCOMPARE(paths["text"]["verdict_replies"].get<int>(), 0);
  QCOMPARE(paths["structured"]["extractions"].get<int>(), 0);
  QCOMPARE(prose.report["repairs"].get<int>(), 0);  // repairs of verdict replies: none made
  for (const char* m : {"faithfulness", "correctness", "coverage"}) {
    QCOMPARE(prose.report["states"][m]["unparsed"].get<int>(), 195);
    QVERIFY(prose.report["mean"][m].is_null());
  }
  QCOMPARE(prose.calls, std::size_t{4 * 195});  // two extractions and their repairs
  QCOMPARE(prose.bodies.size(), prose.calls);
  for (const auto& b : prose.bodies) QVERIFY(!b.contains("response_format"));
  // Today's reader on each stored reply gives the same: no claim line.
  for (const auto& q : prose.stored.queries) {
    QCOMPARE(q.responseClaims.failed, std::optional<ScoreState>(ScoreState::Unparsed));
    QCOMPARE(q.responseClaims.problem,
             std::string("the reply has no \"- \" claim lines (after the repair)"));
  }
}

QTEST_GUILESS_MAIN(TestStructured)
#include "tst_structured.moc"
