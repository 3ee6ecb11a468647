// eRAG (core/eval/jobs/README.md, "eRAG"): the aggregation rules against hand-computed values, the
// eRAG and end-to-end jobs over the run engine with the offline heuristic reader, the correlation
// analysis, and the CLI on the Docugami 10-Q set (all 195 questions, BM25 top 5), including a run
// killed mid-way against the test server and resumed.

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <chrono>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "common/cli.h"
#include "common/testdata.h"
#include "core/data/dataset.h"
#include "core/eval/engine/runengine.h"
#include "core/eval/jobs/correlationanalysis.h"
#include "core/eval/jobs/e2ejob.h"
#include "core/eval/jobs/eragaggregate.h"
#include "core/eval/jobs/eragjob.h"
#include "core/llm/httpprovider.h"
#include "core/llm/llmjson.h"
#include "core/llm/offline.h"
#include "core/llm/prompts.h"
#include "core/metrics/downstream.h"
#include "core/metrics/measurename.h"
#include "core/store/runstore.h"
#include "testserver/testserver.h"

using namespace ragscope::core;
using nlohmann::json;

namespace {

constexpr double kEps = 1e-9;

QByteArray readAll(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  return f.readAll();
}

Run makeRun(const std::vector<std::pair<std::string, std::vector<std::string>>>& lists) {
  Run run;
  run.tag = "test";
  for (const auto& [qid, docs] : lists) {
    Ranking r;
    r.queryId = qid;
    for (std::size_t j = 0; j < docs.size(); ++j) {
      const auto stored = run.arena->store(docs[j]);
      RunEntry e;
      e.doc = stored.data();
      e.docLen = static_cast<std::uint32_t>(stored.size());
      e.score = 10.0 - static_cast<double>(j);
      r.entries.push_back(e);
    }
    run.rankings.push_back(std::move(r));
  }
  return run;
}

Query makeQuery(std::string id, std::string text, std::vector<std::string> answers) {
  Query q;
  q.id = std::move(id);
  q.text = std::move(text);
  for (auto& a : answers) {
    GoldOutput g;
    g.answer = std::move(a);
    g.hasAnswer = true;
    q.gold.push_back(std::move(g));
  }
  return q;
}

// A small dataset whose heuristic-reader outputs are known: the reader answers with the passage
// sentence that best overlaps the question.
Dataset pumpDataset() {
  Dataset d;
  d.corpus.add({"d1", "", "The pump station opened in 1973. Cats sleep a lot.", "", 0, -1});
  d.corpus.add({"d2", "", "Bananas are yellow.", "", 0, -1});
  d.corpus.add({"d3", "", "The pump station was painted blue in 1990.", "", 0, -1});
  d.queries.push_back(
      makeQuery("a", "When did the pump station open?", {"The pump station opened in 1973."}));
  // Same text, different id and gold: must stay a separate query.
  d.queries.push_back(makeQuery("b", "When did the pump station open?", {"painted blue"}));
  return d;
}

bool runOffline(store::RunStore& runStore, const std::vector<store::NewItem>& items) {
  std::string err;
  if (!runStore.addItems(items, &err)) return false;
  auto provider = llm::makeOfflineProvider(llm::OfflineRole::Reader);
  const auto summary = eval::executeRun(runStore, *provider, {}, nullptr, {});
  return summary.outcome == eval::RunOutcome::Done;
}

store::RunRecord record(std::string_view kind, json plan, std::string metric,
                        std::string measures) {
  store::RunRecord r;
  r.kind = std::string(kind);
  r.settings = {
      {"plan", std::move(plan)}, {"metric", std::move(metric)}, {"measures", std::move(measures)}};
  r.templateText = llm::defaultRagTemplate();
  r.templateHash = llm::templateHash(r.templateText);
  return r;
}

}  // namespace

class TestErag : public QObject {
  Q_OBJECT

 private slots:
  void measureNames_data();
  void measureNames();
  void binaryLabelsUseTheEvaluator_data();
  void binaryLabelsUseTheEvaluator();
  void continuousLabels_data();
  void continuousLabels();
  void continuousRefusesOtherMeasures();
  void binaryDecidedForTheWholeRun();
  void badLabels();
  void duplicateQueryTextsStaySeparate();
  void endToEndJob();
  void correlationAnalysis();
  void correlationOverSystems();
  void cliDemo();
  void docugamiPipeline();
  void docugamiKilledAndResumed();
  void resumeSendsKeysOnlyToTrustedEndpoints();
  void ownRunResumesWithoutConfirming();
};

void TestErag::measureNames_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("name");
  QTest::addColumn<QString>("params");  // "-" = none, "!" = error
  QTest::newRow("P_5") << "P_5"
                       << "P"
                       << "5";
  QTest::newRow("P.5") << "P.5"
                       << "P"
                       << "5";
  QTest::newRow("success_1") << "success_1"
                             << "success"
                             << "1";
  QTest::newRow("ndcg_cut_10") << "ndcg_cut_10"
                               << "ndcg_cut"
                               << "10";
  QTest::newRow("map_cut_5") << "map_cut_5"
                             << "map_cut"
                             << "5";
  QTest::newRow("map") << "map"
                       << "map"
                       << "-";
  QTest::newRow("recip_rank") << "recip_rank"
                              << "recip_rank"
                              << "-";
  QTest::newRow("P") << "P"
                     << "P"
                     << "-";
  QTest::newRow("unknown") << "precision_5"
                           << ""
                           << "!";
  QTest::newRow("not implemented") << "yaap"
                                   << ""
                                   << "!";
  // ir_measures names.
  QTest::newRow("P@5") << "P@5"
                       << "P"
                       << "5";
  QTest::newRow("nDCG@10") << "nDCG@10"
                           << "ndcg_cut"
                           << "10";
  QTest::newRow("Success@1") << "Success@1"
                             << "success"
                             << "1";
  QTest::newRow("AP") << "AP"
                      << "map"
                      << "-";
  QTest::newRow("RR") << "RR"
                      << "recip_rank"
                      << "-";
  QTest::newRow("inexpressible") << "nDCG(dcg=exp-log2)@10"
                                 << ""
                                 << "!";
}

void TestErag::measureNames() {
  QFETCH(QString, text);
  QFETCH(QString, name);
  QFETCH(QString, params);
  const auto parsed = parseMeasureName(text.toStdString());
  if (params == "!") {
    QVERIFY(!parsed.ok());
    return;
  }
  QVERIFY2(parsed.ok(), parsed.error.c_str());
  const MeasureRequest& request = parsed.value.request;
  QCOMPARE(QString::fromStdString(request.name), name);
  QCOMPARE(request.params ? QString::fromStdString(*request.params) : QString("-"), params);
}

void TestErag::binaryLabelsUseTheEvaluator_data() {
  // Labels q1 = [1,0,1], q2 = [0,0,0], q3 = [0,1], q4 = [] (nothing retrieved).
  QTest::addColumn<QString>("measure");
  QTest::addColumn<double>("q1");
  QTest::addColumn<double>("q2");
  QTest::addColumn<double>("q3");
  QTest::addColumn<double>("q4");
  // P_5: relevant in the top 5 / 5 (trec_eval divides by the cutoff).
  QTest::newRow("P_5") << "P_5" << 2.0 / 5 << 0.0 << 1.0 / 5 << 0.0;
  QTest::newRow("P_2") << "P_2" << 1.0 / 2 << 0.0 << 1.0 / 2 << 0.0;
  QTest::newRow("success_1") << "success_1" << 1.0 << 0.0 << 0.0 << 0.0;
  // AP: q1 relevant at ranks 1 and 3 of 2 relevant: (1/1 + 2/3) / 2; q3: (1/2) / 1.
  QTest::newRow("map") << "map" << (1.0 + 2.0 / 3) / 2 << 0.0 << 0.5 << 0.0;
  QTest::newRow("recip_rank") << "recip_rank" << 1.0 << 0.0 << 0.5 << 0.0;
  // nDCG@3: q1 DCG = 1 + 1/log2(4) = 1.5, ideal 1 + 1/log2(3); q3 DCG = 1/log2(3), ideal 1.
  QTest::newRow("ndcg_cut_3") << "ndcg_cut_3" << 1.5 / (1 + 1 / std::log2(3.0)) << 0.0
                              << 1 / std::log2(3.0) << 0.0;
  // Recall@2: only the retrieved documents are judged, so q1 has 2 relevant.
  QTest::newRow("recall_2") << "recall_2" << 0.5 << 0.0 << 1.0 << 0.0;
}

void TestErag::binaryLabelsUseTheEvaluator() {
  QFETCH(QString, measure);
  QFETCH(double, q1);
  QFETCH(double, q2);
  QFETCH(double, q3);
  QFETCH(double, q4);
  const std::vector<eval::EragQueryLabels> labels = {
      {"q1", {1, 0, 1}}, {"q2", {0, 0, 0}}, {"q3", {0, 1}}, {"q4", {}}};
  const auto a = eval::aggregateErag(labels, std::vector<std::string>{measure.toStdString()});
  QVERIFY2(a.ok(), a.error.c_str());
  QVERIFY(a.binary);
  const std::string m = measure.toStdString();
  QVERIFY(std::fabs(a.value(m, 0) - q1) < 1e-4);
  QVERIFY(std::fabs(a.value(m, 1) - q2) < 1e-4);
  QVERIFY(std::fabs(a.value(m, 2) - q3) < 1e-4);
  QVERIFY(std::fabs(a.value(m, 3) - q4) < 1e-4);
  QVERIFY(std::fabs(a.mean(m) - (q1 + q2 + q3 + q4) / 4) < 1e-4);
}

void TestErag::continuousLabels_data() {
  // Labels q1 = [0.5, 0.2, 1.0], q2 = [0.3].
  QTest::addColumn<QString>("measure");
  QTest::addColumn<QString>("column");
  QTest::addColumn<double>("q1");
  QTest::addColumn<double>("q2");
  QTest::newRow("P_5 padded") << "P_5"
                              << "P_5" << 1.7 / 5 << 0.3 / 5;
  QTest::newRow("P_2") << "P_2"
                       << "P_2" << 0.7 / 2 << 0.3 / 2;
  QTest::newRow("P = list length") << "P"
                                   << "P" << 1.7 / 3 << 0.3;
  QTest::newRow("success_1") << "success_1"
                             << "success_1" << 0.5 << 0.3;
  QTest::newRow("success_2") << "success_2"
                             << "success_2" << 0.5 << 0.3;
  QTest::newRow("success_5") << "success_5"
                             << "success_5" << 1.0 << 0.3;
  QTest::newRow("success") << "success"
                           << "success" << 1.0 << 0.3;
  QTest::newRow("P.1,3") << "P.1,3"
                         << "P_3" << 1.7 / 3 << 0.3 / 3;
}

void TestErag::continuousLabels() {
  QFETCH(QString, measure);
  QFETCH(QString, column);
  QFETCH(double, q1);
  QFETCH(double, q2);
  const std::vector<eval::EragQueryLabels> labels = {{"q1", {0.5, 0.2, 1.0}}, {"q2", {0.3}}};
  const auto a = eval::aggregateErag(labels, std::vector<std::string>{measure.toStdString()});
  QVERIFY2(a.ok(), a.error.c_str());
  QVERIFY(!a.binary);
  const std::string c = column.toStdString();
  QVERIFY2(a.measureIndex(c).has_value(), c.c_str());
  QVERIFY(std::fabs(a.value(c, 0) - q1) < kEps);
  QVERIFY(std::fabs(a.value(c, 1) - q2) < kEps);
  QVERIFY(std::fabs(a.mean(c) - (q1 + q2) / 2) < kEps);
}

void TestErag::continuousRefusesOtherMeasures() {
  const std::vector<eval::EragQueryLabels> labels = {{"q1", {0.5, 0.2, 1.0}}, {"q2", {0.3}}};
  for (const char* m : {"map", "ndcg_cut_10", "recip_rank", "recall_5", "Rprec"}) {
    const auto a = eval::aggregateErag(labels, std::vector<std::string>{"P_5", m});
    QVERIFY2(!a.ok(), m);
    // The error names the measure and the rule.
    QVERIFY2(a.error.find(std::string("'") + m + "'") != std::string::npos, a.error.c_str());
    QVERIFY2(a.error.find("P_k") != std::string::npos, a.error.c_str());
    QVERIFY2(a.error.find("success_k") != std::string::npos, a.error.c_str());
    QVERIFY2(a.error.find("eRAG reference code") != std::string::npos, a.error.c_str());
    QVERIFY(a.values.empty());
  }
}

void TestErag::binaryDecidedForTheWholeRun() {
  // q1's labels are 0/1 but q2 has a 0.5: the whole run is continuous (the reference's rule),
  // so MAP is refused for every query and P_2 is a plain mean.
  const std::vector<eval::EragQueryLabels> labels = {{"q1", {1, 0}}, {"q2", {0.5}}};
  QVERIFY(!eval::labelsAreBinary(labels));
  QVERIFY(!eval::aggregateErag(labels, std::vector<std::string>{"map"}).ok());
  const auto a = eval::aggregateErag(labels, std::vector<std::string>{"P_2"});
  QVERIFY(a.ok());
  QVERIFY(!a.binary);
  QVERIFY(std::fabs(a.value("P_2", 0) - 0.5) < kEps);
  QVERIFY(std::fabs(a.value("P_2", 1) - 0.25) < kEps);
  // Labels 1.0 and 0.0 as doubles are binary.
  QVERIFY(eval::labelsAreBinary({{"q1", {1.0, 0.0}}, {"q2", {}}}));
}

void TestErag::badLabels() {
  QVERIFY(!eval::aggregateErag({{"q1", {1.5}}}, std::vector<std::string>{"P_1"}).ok());
  QVERIFY(!eval::aggregateErag({{"q1", {-0.1}}}, std::vector<std::string>{"P_1"}).ok());
  QVERIFY(!eval::aggregateErag({{"q1", {std::nan("")}}}, std::vector<std::string>{"P_1"}).ok());
  // Queries are keyed by id: the same id twice is an input error.
  const auto dup = eval::aggregateErag({{"q1", {1}}, {"q1", {0}}}, std::vector<std::string>{"P_1"});
  QVERIFY(!dup.ok());
  QVERIFY(dup.error.find("twice") != std::string::npos);
}

void TestErag::duplicateQueryTextsStaySeparate() {
  QTemporaryDir dir;
  const Dataset dataset = pumpDataset();
  const Run run = makeRun({{"a", {"d1", "d2", "missing"}}, {"b", {"d3", "d1"}}});
  const auto plan = eval::planErag(dataset, run, 5, llm::defaultRagTemplate());
  // One item per (query, document); the missing document is skipped, not generated.
  QCOMPARE(plan.items.size(), std::size_t{4});
  QCOMPARE(plan.top.missingDocuments, std::size_t{1});
  QCOMPARE(QString::fromStdString(plan.items[0].key), QString("erag:a:1:d1"));
  QCOMPARE(QString::fromStdString(plan.items[3].key), QString("erag:b:2:d1"));
  // Each prompt holds the question and only its own document.
  const auto req0 = json::parse(plan.items[0].requestJson).dump();
  QVERIFY(req0.find("opened in 1973") != std::string::npos);
  QVERIFY(req0.find("Bananas") == std::string::npos);
  // Contains-answer labels of the documents (the paper's "Answers" baseline).
  QCOMPARE(plan.plan[0]["docs"][0]["contains"].get<double>(), 1.0);
  QCOMPARE(plan.plan[1]["docs"][0]["contains"].get<double>(), 1.0);
  QCOMPARE(plan.plan[1]["docs"][1]["contains"].get<double>(), 0.0);

  store::RunStore runStore;
  std::string err;
  QVERIFY2(runStore.create((dir.path() + "/erag.db").toStdString(),
                           record(eval::kEragJobKind, plan.plan, "em", "P_1,P_2,map"), &err),
           err.c_str());
  QVERIFY(runOffline(runStore, plan.items));
  const auto report = eval::computeEragReport(runStore, {}, {});
  QVERIFY2(report.error.empty(), report.error.c_str());
  QCOMPARE(report.queries.size(), std::size_t{2});
  // The heuristic reader answers "The pump station opened in 1973." from d1 (EM 1 for query a),
  // "I do not know." style non-answers elsewhere; query b's gold differs, so the same outputs
  // get different labels.
  QCOMPARE(report.outputs[0][0], std::string("The pump station opened in 1973."));
  QCOMPARE(*report.labels[0][0], 1.0);
  QCOMPARE(*report.labels[0][1], 0.0);
  QCOMPARE(*report.labels[1][0], 0.0);  // "...painted blue in 1990." != "painted blue" under EM
  QCOMPARE(*report.labels[1][1], 0.0);  // the d1 answer is right for a, wrong for b
  QVERIFY(report.aggregate.binary);
  QCOMPARE(report.aggregate.value("P_1", 0), 1.0);
  QCOMPARE(report.aggregate.value("P_1", 1), 0.0);
  QCOMPARE(report.aggregate.value("map", 0), 1.0);
  QCOMPARE(report.aggregate.value("map", 1), 0.0);
  // Labels export and the tables in the store.
  const json labels = eval::labelsJson(report);
  QCOMPARE(labels["a"].size(), std::size_t{2});
  QCOMPARE(labels["b"][0].get<double>(), 0.0);
  QVERIFY(eval::storeEragScores(runStore.path(), report, &err));
  // With a continuous metric the same outputs give ROUGE-L labels in (0, 1).
  store::RunStore rougeStore;
  QVERIFY(rougeStore.create((dir.path() + "/erag-rouge.db").toStdString(),
                            record(eval::kEragJobKind, plan.plan, "rouge-l", "P_2,success_2"),
                            &err));
  QVERIFY(runOffline(rougeStore, plan.items));
  const auto rouge = eval::computeEragReport(rougeStore, {}, {});
  QVERIFY(rouge.error.empty());
  QVERIFY(!rouge.aggregate.binary);
  const double expected = rougeL(report.outputs[1][0], "painted blue");
  QVERIFY(expected > 0 && expected < 1);
  QVERIFY(std::fabs(*rouge.labels[1][0] - expected) < kEps);
  QVERIFY(std::fabs(rouge.aggregate.value("success_2", 1) - expected) < kEps);
}

void TestErag::endToEndJob() {
  QTemporaryDir dir;
  const Dataset dataset = pumpDataset();
  const Run run = makeRun({{"a", {"d1", "d2"}}, {"b", {"d3", "d1"}}});
  const auto plan = eval::planE2e(dataset, run, 5, llm::defaultRagTemplate());
  QCOMPARE(plan.items.size(), std::size_t{2});
  QCOMPARE(QString::fromStdString(plan.items[1].key), QString("e2e:b"));
  const auto body = json::parse(plan.items[0].requestJson).dump();
  QVERIFY(body.find("opened in 1973") != std::string::npos);
  QVERIFY(body.find("Bananas") != std::string::npos);  // all top-k documents
  store::RunStore runStore;
  std::string err;
  QVERIFY(runStore.create((dir.path() + "/e2e.db").toStdString(),
                          record(eval::kE2eJobKind, plan.plan, "em", ""), &err));
  QVERIFY(runOffline(runStore, plan.items));
  const auto report = eval::computeE2eReport(runStore, {});
  QVERIFY2(report.error.empty(), report.error.c_str());
  QCOMPARE(report.values.size(), std::size_t{2});
  QCOMPARE(report.values[0], 1.0);  // best sentence over both passages: the 1973 one
  QVERIFY(eval::storeE2eScores(runStore.path(), report, &err));
  // An e2e store is not an eRAG store.
  QVERIFY(!eval::computeEragReport(runStore, {}, {}).error.empty());
}

void TestErag::correlationAnalysis() {
  // Hand-made reports: eRAG P_1 equal to the e2e scores' order gives tau = rho = 1.
  eval::EragReport erag;
  erag.metricKey = "f1";
  eval::E2eReport e2e;
  e2e.metricKey = "f1";
  const std::vector<double> e2eScores = {0.9, 0.1, 0.5, 0.7};
  const std::vector<double> firstLabels = {0.8, 0.0, 0.4, 0.6};
  for (int i = 0; i < 4; ++i) {
    eval::PlannedQuery q;
    q.qid = "q" + std::to_string(i);
    q.docIds = {"d" + std::to_string(i), "x"};
    q.contains = {i % 2 == 0 ? 1.0 : 0.0, 0.0};
    erag.queries.push_back(q);
    erag.labels.push_back({firstLabels[i], 0.0});
    e2e.qids.push_back(q.qid);
    e2e.values.push_back(e2eScores[i]);
  }
  e2e.mean = 0.55;
  std::vector<eval::EragQueryLabels> lists;
  for (int i = 0; i < 4; ++i) lists.push_back({erag.queries[i].qid, {firstLabels[i], 0.0}});
  erag.aggregate = eval::aggregateErag(lists, std::vector<std::string>{"P_1"});
  QVERIFY(erag.aggregate.ok());
  Qrels qrels;
  qrels.byQuery["q0"] = {{"d0", 1, 0}};
  qrels.byQuery["q1"] = {{"x", 1, 0}};
  qrels.byQuery["q2"] = {{"d2", 1, 0}};
  qrels.byQuery["q3"] = {{"nothing", 1, 0}};
  eval::CorrelationAnalysisOptions options;
  options.measures = {{"P", std::string("1")}, {"map", std::nullopt}};
  options.qrels = &qrels;
  options.stats.resamples = 200;
  const auto a = eval::analyseCorrelation({{"sys", &erag, &e2e}}, options);
  QVERIFY2(a.ok(), a.error.c_str());
  QCOMPARE(a.tables.size(), std::size_t{1});
  const auto find = [&](const std::string& method,
                        const std::string& measure) -> const eval::CorrelationRow* {
    for (const auto& r : a.tables[0].rows) {
      if (r.method == method && r.measure == measure) return &r;
    }
    return nullptr;
  };
  const auto* eragRow = find("eRAG (f1)", "P_1");
  QVERIFY(eragRow);
  QCOMPARE(eragRow->n, std::size_t{4});
  QVERIFY(std::fabs(eragRow->result.kendall.value - 1.0) < kEps);
  QVERIFY(std::fabs(eragRow->result.spearman.value - 1.0) < kEps);
  // Continuous eRAG labels: map is listed with the rule, not computed.
  const auto* eragMap = find("eRAG (f1)", "map");
  QVERIFY(eragMap);
  QVERIFY(!eragMap->note.empty());
  // qrels P_1: q0 1, q1 0, q2 1, q3 0 against e2e 0.9, 0.1, 0.5, 0.7: tau-b by hand:
  // pairs (x tied within {q0,q2} and {q1,q3}): concordant 3 ((q0,q1),(q2,q1),(q0,q3)),
  // discordant 1 ((q2,q3)), ties in x 2, n0 = 6: tau-b = 2 / sqrt(4 * 6).
  const auto* qrelsRow = find("qrels", "P_1");
  QVERIFY(qrelsRow);
  QVERIFY(std::fabs(qrelsRow->result.kendall.value - 2.0 / std::sqrt(24.0)) < 1e-9);
  // Contains-answer P_1 = 1, 0, 1, 0: the same as qrels here.
  const auto* containsRow = find("contains-answer", "P_1");
  QVERIFY(containsRow);
  QVERIFY(std::fabs(containsRow->result.kendall.value - 2.0 / std::sqrt(24.0)) < 1e-9);
  QVERIFY(eval::formatCorrelationAnalysis(a).find("eRAG (f1)") != std::string::npos);
  // Two systems: a per-system table over the systems' means follows.
  const auto two = eval::analyseCorrelation({{"s1", &erag, &e2e}, {"s2", &erag, &e2e}}, options);
  QCOMPARE(two.tables.size(), std::size_t{3});
  // Different downstream metrics are refused.
  eval::E2eReport other = e2e;
  other.metricKey = "em";
  QVERIFY(!eval::analyseCorrelation({{"s", &erag, &other}}, options).ok());
}

void TestErag::correlationOverSystems() {
  // Five hand-built systems, two queries each, continuous f1 labels with one document per query:
  // eRAG P_1 of a query is its first label. Values are dyadic, so the means are exact.
  struct System {
    std::string name;
    std::vector<double> firstLabels;  // per query
    std::vector<double> e2e;          // per query
  };
  const std::vector<System> systems = {{"s1", {0.25, 0.25}, {0.5, 0.75}},  // x 0.25,  y 0.625
                                       {"s2", {0.5, 0.5}, {0.25, 0.5}},    // x 0.5,   y 0.375
                                       {"s3", {0.75, 0.75}, {0.75, 1.0}},  // x 0.75,  y 0.875
                                       {"s4", {0.0, 0.25}, {0.0, 0.25}},   // x 0.125, y 0.125
                                       {"s5", {0.25, 0.75}, {0.5, 0.5}}};  // x 0.5,   y 0.5
  std::vector<eval::EragReport> eragReports(systems.size());
  std::vector<eval::E2eReport> e2eReports(systems.size());
  std::vector<eval::SystemInput> inputs;
  for (std::size_t s = 0; s < systems.size(); ++s) {
    eval::EragReport& erag = eragReports[s];
    eval::E2eReport& e2e = e2eReports[s];
    erag.metricKey = e2e.metricKey = "f1";
    std::vector<eval::EragQueryLabels> lists;
    double sum = 0.0;
    for (std::size_t i = 0; i < 2; ++i) {
      eval::PlannedQuery q;
      q.qid = "q" + std::to_string(i);
      q.docIds = {systems[s].name + "-d" + std::to_string(i)};
      q.contains = {0.0};
      erag.queries.push_back(q);
      erag.labels.push_back({systems[s].firstLabels[i]});
      lists.push_back({q.qid, {systems[s].firstLabels[i]}});
      e2e.qids.push_back(q.qid);
      e2e.values.push_back(systems[s].e2e[i]);
      sum += systems[s].e2e[i];
    }
    e2e.mean = sum / 2;
    erag.aggregate = eval::aggregateErag(lists, std::vector<std::string>{"P_1"});
    QVERIFY2(erag.aggregate.ok(), erag.aggregate.error.c_str());
    QVERIFY(!erag.aggregate.binary);
    inputs.push_back({systems[s].name, &erag, &e2e});
  }
  eval::CorrelationAnalysisOptions options;
  options.measures = {{"P", std::string("1")}};
  options.stats.resamples = 0;
  const auto a = eval::analyseCorrelation(inputs, options);
  QVERIFY2(a.ok(), a.error.c_str());
  QCOMPARE(a.tables.size(), systems.size() + 1);  // one per system, then the one over systems
  const auto& table = a.tables.back();
  QCOMPARE(QString::fromStdString(table.title), QString("over 5 systems' means"));
  QCOMPARE(table.targetMean, 0.5);  // (0.625 + 0.375 + 0.875 + 0.125 + 0.5) / 5
  const eval::CorrelationRow* eragRow = nullptr;
  const eval::CorrelationRow* containsRow = nullptr;
  for (const auto& r : table.rows) {
    if (r.method == "eRAG (f1)" && r.measure == "P_1") eragRow = &r;
    if (r.method == "contains-answer" && r.measure == "P_1") containsRow = &r;
  }
  QVERIFY(eragRow && containsRow);
  QCOMPARE(eragRow->n, std::size_t{5});
  QCOMPARE(eragRow->methodMean, 0.425);  // (0.25 + 0.5 + 0.75 + 0.125 + 0.5) / 5
  // By hand over the 10 system pairs, x = (0.25, 0.5, 0.75, 0.125, 0.5), y = (0.625, 0.375,
  // 0.875, 0.125, 0.5): discordant (s1,s2) and (s1,s5), tied in x (s2,s5), the other 7
  // concordant. tau-b = (7 - 2) / sqrt((10 - 1)(10 - 0)) = 5 / sqrt(90).
  QVERIFY(std::fabs(eragRow->result.kendall.value - 5.0 / std::sqrt(90.0)) < kEps);
  // Average ranks x (2, 3.5, 5, 1, 3.5), y (4, 2, 5, 1, 3), both centred on 3:
  // sum dx dy = 6.5, sum dx^2 = 9.5, sum dy^2 = 10, rho = 6.5 / sqrt(95).
  QVERIFY(std::fabs(eragRow->result.spearman.value - 6.5 / std::sqrt(95.0)) < kEps);
  // Contains-answer labels are all 0: a constant side, the coefficients are undefined.
  QVERIFY(std::isnan(containsRow->result.kendall.value));
  QVERIFY(std::isnan(containsRow->result.spearman.value));
  QCOMPARE(
      QString::fromStdString(containsRow->note),
      QString("the method's values are all 0: no correlation is defined"));  // said, not left blank
  QVERIFY(eragRow->note.empty());
  // Each system's own table correlates its two queries: s1's x (0.25, 0.25) is constant.
  QCOMPARE(a.tables[0].rows.size(), table.rows.size());
  QCOMPARE(a.tables[0].queries, std::size_t{2});
}

void TestErag::cliDemo() {
  QTemporaryDir dir;
  const QString demo = QString(RAGSCOPE_SOURCE_DIR) + "/resources/demo/";
  const QStringList inputs = {
      "--dataset", demo + "collection.tsv", "--dataset", demo + "demo-kilt.jsonl",
      "--run",     demo + "run-good.trec",  "--k",       "5",
      "--quiet"};
  // Refused before any call: MAP with continuous ROUGE-L labels.
  QProcess refused;
  refused.start(RAGSCOPE_CLI_PATH, QStringList{"erag"} + inputs +
                                       QStringList{"--metric", "rouge-l", "--measures", "map",
                                                   "--store", dir.path() + "/no.db"});
  QVERIFY(refused.waitForFinished(60000));
  QCOMPARE(refused.exitCode(), 2);
  QVERIFY(refused.readAllStandardError().contains("P_k"));
  QVERIFY(!QFile::exists(dir.path() + "/no.db"));
  // Binary labels (contains) with MAP through the evaluator, as JSON.
  QProcess cli;
  cli.start(RAGSCOPE_CLI_PATH,
            QStringList{"erag"} + inputs +
                QStringList{"--metric", "contains", "--measures", "P_5,success_1,map", "--store",
                            dir.path() + "/e.db", "--json"});
  QVERIFY(cli.waitForFinished(60000));
  const QByteArray out = cli.readAllStandardOutput();
  QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
  const json j = json::parse(out.toStdString());
  QVERIFY(j["binary_labels"].get<bool>());
  QCOMPARE(j["queries"].get<int>(), 29);
  QCOMPARE(j["per_query"].size(), std::size_t{29});
  QVERIFY(j["mean"].contains("map"));
  QVERIFY(j["ci95"].contains("P_5"));
  QCOMPARE(j["run"]["done"].get<int>(), 135);  // 29 queries, top 5 (q05 2 passages, q26 1, ...)
  QCOMPARE(j["n"]["map"].get<int>(), 29);
  // The summary shows each measure's mean, CI and n.
  QProcess summary;
  summary.start(RAGSCOPE_CLI_PATH, QStringList{"erag"} + inputs +
                                       QStringList{"--metric", "contains", "--measures", "P_5,map",
                                                   "--store", dir.path() + "/s.db"});
  QVERIFY(summary.waitForFinished(60000));
  QCOMPARE(summary.exitCode(), 0);
  const QString text = QString::fromUtf8(summary.readAllStandardOutput());
  for (const char* m : {"P_5", "map"}) {
    const QString mean = QString::number(j["mean"][m].get<double>(), 'f', 4);
    const QRegularExpression row(
        QString("\\n  %1 +%2   95% CI \\[[0-9.]+, [0-9.]+\\] +n 29\\n").arg(m, mean));
    QVERIFY2(row.match(text).hasMatch(), qPrintable(text));
  }
}

void TestErag::docugamiPipeline() {
  RAGSCOPE_REQUIRE_DATA("docugami/KG-RAG-datasets/sec-10-q/data/v1/qna_data.csv");
  QTemporaryDir dir;
  const QString data = QString::fromStdString(
      ragscope::test::dataPath("docugami/KG-RAG-datasets/sec-10-q/data/v1").string());
  const QStringList inputs = {
      "--dataset",           data,  "--format", "docugami", "--retriever", "bm25",   "--index",
      dir.path() + "/index", "--k", "5",        "--metric", "rouge-l",     "--quiet"};
  QProcess erag;
  erag.start(RAGSCOPE_CLI_PATH,
             QStringList{"erag"} + inputs +
                 QStringList{"--measures", "P_5,success_5", "--store", dir.path() + "/erag.db",
                             "--labels-out", dir.path() + "/labels.json", "--json"});
  QVERIFY(erag.waitForFinished(300000));
  QVERIFY2(erag.exitCode() == 0, erag.readAllStandardError().constData());
  const json e = json::parse(erag.readAllStandardOutput().toStdString());
  QCOMPARE(e["queries"].get<int>(), 195);
  QCOMPARE(e["run"]["items"].get<int>(), 975);  // 195 questions x 5 chunks
  QCOMPARE(e["run"]["done"].get<int>(), 975);
  QVERIFY(!e["binary_labels"].get<bool>());
  const double p5 = e["mean"]["P_5"].get<double>();
  const double s5 = e["mean"]["success_5"].get<double>();
  QVERIFY(p5 > 0 && p5 <= s5 && s5 < 1);
  const json labels = json::parse(readAll(dir.path() + "/labels.json").toStdString());
  QCOMPARE(labels.size(), std::size_t{195});
  for (const auto& [qid, row] : labels.items()) QCOMPARE(row.size(), std::size_t{5});

  QProcess e2e;
  e2e.start(RAGSCOPE_CLI_PATH,
            QStringList{"e2e"} + inputs + QStringList{"--store", dir.path() + "/e2e.db", "--json"});
  QVERIFY(e2e.waitForFinished(300000));
  QVERIFY2(e2e.exitCode() == 0, e2e.readAllStandardError().constData());
  const json t = json::parse(e2e.readAllStandardOutput().toStdString());
  QCOMPARE(t["queries"].get<int>(), 195);
  const double e2eMean = t["mean"].get<double>();
  QVERIFY(e2eMean > 0 && e2eMean < 1);

  QProcess corr;
  corr.start(RAGSCOPE_CLI_PATH, {"erag-correlate", "--erag", dir.path() + "/erag.db", "--e2e",
                                 dir.path() + "/e2e.db", "--json"});
  QVERIFY(corr.waitForFinished(120000));
  QVERIFY2(corr.exitCode() == 0, corr.readAllStandardError().constData());
  const json c = json::parse(corr.readAllStandardOutput().toStdString());
  QCOMPARE(c["tables"].size(), std::size_t{1});
  QCOMPARE(c["tables"][0]["queries"].get<int>(), 195);
  double tau = std::nan(""), rho = std::nan("");
  bool sawProvenance = false, sawContains = false;
  for (const auto& row : c["tables"][0]["rows"]) {
    const auto method = row["method"].get<std::string>();
    if (method == "eRAG (rouge-l)" && row["measure"] == "P_5") {
      QCOMPARE(row["n"].get<int>(), 195);
      tau = row["kendall_tau"].get<double>();
      rho = row["spearman_rho"].get<double>();
    }
    sawProvenance |= method == "provenance (document)";
    sawContains |= method == "contains-answer";
  }
  QVERIFY(sawProvenance && sawContains);
  QVERIFY(tau > -1 && tau <= 1 && rho > -1 && rho <= 1);
  qInfo(
      "Docugami 10-Q, BM25 top 5, offline heuristic reader, ROUGE-L: eRAG P_5 %.4f, success_5 "
      "%.4f, e2e %.4f, eRAG P_5 vs e2e tau %.4f rho %.4f",
      p5, s5, e2eMean, tau, rho);
}

void TestErag::docugamiKilledAndResumed() {
  RAGSCOPE_REQUIRE_DATA("docugami/KG-RAG-datasets/sec-10-q/data/v1/qna_data.csv");
  QTemporaryDir dir;
  const QString data = QString::fromStdString(
      ragscope::test::dataPath("docugami/KG-RAG-datasets/sec-10-q/data/v1").string());
  const QString log = dir.path() + "/requests.jsonl";
  const int concurrency = 4;
  QProcess server;
  server.start(RAGSCOPE_TESTSERVER_PATH, {"--port", "0", "--latency-ms", "15", "--log", log});
  QVERIFY(server.waitForStarted());
  QVERIFY(server.waitForReadyRead(10000));
  const int port = server.readLine().trimmed().toInt();
  QVERIFY(port > 0);
  const QString base = QString("http://127.0.0.1:%1/v1").arg(port);
  const QString store = dir.path() + "/erag.db";
  const QString labelsPath = dir.path() + "/labels.json";
  auto countLines = [&] { return readAll(log).count('\n'); };

  QProcess cli;
  cli.start(RAGSCOPE_CLI_PATH, {"erag",
                                "--dataset",
                                data,
                                "--format",
                                "docugami",
                                "--retriever",
                                "bm25",
                                "--index",
                                dir.path() + "/index",
                                "--k",
                                "5",
                                "--metric",
                                "rouge-l",
                                "--measures",
                                "P_5,success_5",
                                "--generator",
                                base,
                                "--model",
                                "test-model",
                                "--concurrency",
                                QString::number(concurrency),
                                "--no-cache",
                                "--store",
                                store,
                                "--labels-out",
                                labelsPath,
                                "--quiet"});
  QVERIFY(cli.waitForStarted());
  const int items = 975;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(4);
  while (countLines() < items * 4 / 10 && std::chrono::steady_clock::now() < deadline &&
         cli.state() == QProcess::Running) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  QVERIFY2(cli.state() == QProcess::Running, "the run ended before it could be killed");
  cli.kill();  // SIGKILL: no cleanup at all
  QVERIFY(cli.waitForFinished(10000));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // requests already sent land
  const int beforeResume = countLines();
  QVERIFY(beforeResume < items);
  std::set<std::string> doneAtKill;  // committed before the kill: never to be asked again
  {
    store::RunStore s;
    std::string err;
    QVERIFY2(s.open(store.toStdString(), &err), err.c_str());
    QCOMPARE(QString::fromStdString(s.run().status), QString("running"));
    const auto c = s.counts();
    QCOMPARE(c.total, std::size_t(items));
    QVERIFY(c.done > 0 && c.done < std::size_t(items));
    for (const auto& item : s.items(store::ItemStatus::Done)) doneAtKill.insert(item.key);
    QCOMPARE(doneAtKill.size(), c.done);
  }

  QProcess resume;
  // The labels file is named again: a resume writes only where its command line says.
  resume.start(RAGSCOPE_CLI_PATH, {"resume", store, "--out", labelsPath, "--quiet"});
  QVERIFY(resume.waitForFinished(300000));
  const QByteArray resumeOut = resume.readAllStandardOutput();
  QVERIFY2(resume.exitCode() == 0, (resumeOut + resume.readAllStandardError()).constData());
  QVERIFY(resumeOut.contains("eRAG:"));

  // Every item has exactly one committed result, and the server saw each call once, except those
  // in flight when the process was killed.
  store::RunStore s;
  std::string err;
  QVERIFY(s.open(store.toStdString(), &err));
  const auto c = s.counts();
  QCOMPARE(c.done, std::size_t(items));
  QCOMPARE(c.errors, std::size_t{0});
  const auto results = s.results();
  QCOMPARE(results.size(), std::size_t(items));
  std::set<std::string> keys;
  for (const auto& r : results) QVERIFY(keys.insert(r.key).second);
  QCOMPARE(keys.size(), std::size_t(items));
  const int requests = countLines();
  QVERIFY2(requests >= items && requests <= items + concurrency,
           qPrintable(QString("server requests %1, items %2").arg(requests).arg(items)));
  qInfo("killed after %d requests; %d requests in all for %d items (concurrency %d)", beforeResume,
        requests, items, concurrency);
  // Counted per call from the server's log (body hashes): every item's call reached the server,
  // one committed before the kill exactly once, one in flight at the kill at most twice.
  std::map<std::string, int> byHash;
  for (const auto& line : readAll(log).trimmed().split('\n'))
    ++byHash[json::parse(line.toStdString())["body_hash"].get<std::string>()];
  llm::EndpointConfig ep;
  ep.baseUrl = base.toStdString();
  ep.model = "test-model";
  const auto http = llm::makeHttpProvider(ep);
  int twice = 0;
  for (const auto& item : s.items()) {
    const auto request = llm::requestFromJson(json::parse(item.requestJson));
    QVERIFY(request.has_value());
    const int sent =
        byHash[ragscope::testserver::TestServer::hashBody(http->requestBody(*request))];
    QVERIFY2(sent >= 1 && sent <= 2, item.key.c_str());
    if (doneAtKill.count(item.key)) QVERIFY2(sent == 1, item.key.c_str());
    if (sent == 2) ++twice;
  }
  QVERIFY(twice <= concurrency);

  // The labels file written by the resumed run parses: 195 queries x 5 labels in [0, 1].
  const json labels = json::parse(readAll(labelsPath).toStdString());
  QCOMPARE(labels.size(), std::size_t{195});
  for (const auto& [qid, row] : labels.items()) {
    QCOMPARE(row.size(), std::size_t{5});
    for (const auto& v : row)
      QVERIFY(v.is_number() && v.get<double>() >= 0 && v.get<double>() <= 1);
  }
  server.terminate();
  server.waitForFinished(5000);
}

namespace {

// A generate store made elsewhere: its endpoint names `baseUrl` and (by name) `keyEnv`, its six
// calls are still to do. Nothing on this machine chose that endpoint.
QString foreignStore(const QString& path, const std::string& baseUrl, const std::string& keyEnv) {
  store::RunRecord r;
  r.kind = "generate";
  r.settings = {
      {"record_version", 2}, {"job", "generate"}, {"front_end", "cli"}, {"concurrency", 2}};
  r.templateText = llm::defaultRagTemplate();
  r.templateHash = llm::templateHash(r.templateText);
  llm::EndpointConfig e;
  e.name = "their server";
  e.baseUrl = baseUrl;
  e.model = "test-model";
  e.apiKeyEnv = keyEnv;
  r.endpoint = llm::toJson(e);
  std::vector<store::NewItem> items;
  for (int i = 0; i < 6; ++i) {
    llm::LlmRequest q;
    q.messages.push_back(
        {"user", "what is in the user's dataset, part " + std::to_string(i) + "?"});
    items.push_back({"gen:q" + std::to_string(i), "generate", llm::toJson(q).dump()});
  }
  store::RunStore st;
  std::string err;
  if (!st.create(path.toStdString(), r, &err) || !st.addItems(items, &err)) return {};
  return path;
}

std::size_t doneCalls(const QString& path) {
  store::RunStore st;
  std::string err;
  return st.open(path.toStdString(), &err) ? st.counts().done : 0;
}

}  // namespace

void TestErag::resumeSendsKeysOnlyToTrustedEndpoints() {
  // Issue 12 item 6: a store received from someone else names OPENAI_API_KEY and their URL;
  // `resume` must not send the key (or the prompts) there until the user confirms the endpoint.
  QTemporaryDir dir;
  qputenv("XDG_CONFIG_HOME",
          QFile::encodeName(dir.filePath(QStringLiteral("config"))));  // nothing trusted yet
  // The stores share their prompts: without a cache each resume's calls reach the server.
  qputenv("XDG_CACHE_HOME", QFile::encodeName(dir.filePath(QStringLiteral("cache"))));
  qputenv("OPENAI_API_KEY", "sk-dummy-test-key");
  qputenv("RAGSCOPE_OTHER_KEY", "sk-other-test-key");
  ragscope::testserver::TestServer server;
  QVERIFY(server.start());
  const QString url = QString::fromStdString(server.baseUrl());
  const QString registry = dir.filePath(QStringLiteral("config/ragscope/trusted-endpoints.json"));

  // Refused, naming the URL, the key and the flag that confirms it; the server hears nothing.
  const QString theirs =
      foreignStore(dir.filePath(QStringLiteral("theirs.db")), server.baseUrl(), "OPENAI_API_KEY");
  QVERIFY(!theirs.isEmpty());
  auto refused = ragscope::test::runCliText({"resume", theirs, "--quiet", "--no-cache"});
  QCOMPARE(refused.exitCode, 2);
  QVERIFY2(refused.err.contains(url) && refused.err.contains(QStringLiteral("$OPENAI_API_KEY")) &&
               refused.err.contains(QStringLiteral("--trust-endpoint")),
           qPrintable(refused.err));
  QVERIFY(!refused.err.contains(QStringLiteral("sk-dummy")));
  QCOMPARE(server.requestCount(), std::size_t{0});
  QCOMPARE(doneCalls(theirs), std::size_t{0});
  // The dry run sends nothing and is allowed.
  QCOMPARE(ragscope::test::runCliText({"resume", theirs, "--estimate"}).exitCode, 0);
  // A store naming no key is refused too: the prompts are the user's data (the choice made here).
  const QString keyless =
      foreignStore(dir.filePath(QStringLiteral("keyless.db")), server.baseUrl(), "");
  refused = ragscope::test::runCliText({"resume", keyless, "--quiet", "--no-cache"});
  QCOMPARE(refused.exitCode, 2);
  QVERIFY2(refused.err.contains(url + " (no key)"), qPrintable(refused.err));
  QCOMPARE(server.requestCount(), std::size_t{0});
  QVERIFY(!QFile::exists(registry));

  // Confirmed: the calls go out with the key, and the endpoint is recorded as trusted.
  const auto confirmed =
      ragscope::test::runCliText({"resume", theirs, "--trust-endpoint", "--quiet", "--no-cache"});
  QVERIFY2(confirmed.exitCode == 0, qPrintable(confirmed.err));
  QCOMPARE(server.requestCount(), std::size_t{6});
  for (const auto& e : server.log())
    QCOMPARE(QString::fromStdString(e.authorization), QStringLiteral("Bearer sk-dummy-test-key"));
  QCOMPARE(doneCalls(theirs), std::size_t{6});
  QVERIFY(readAll(registry).contains(url.toUtf8()));
  // Now trusted with that key (and, a fortiori, with none): no flag needed.
  QVERIFY2(ragscope::test::runCliText({"resume", keyless, "--quiet", "--no-cache"}).exitCode == 0,
           "keyless after trust");
  QCOMPARE(server.requestCount(), std::size_t{12});
  const QString again =
      foreignStore(dir.filePath(QStringLiteral("again.db")), server.baseUrl(), "OPENAI_API_KEY");
  QCOMPARE(ragscope::test::runCliText({"resume", again, "--quiet", "--no-cache"}).exitCode, 0);
  QCOMPARE(server.requestCount(), std::size_t{18});
  // Another key for the same URL is another decision.
  const QString other =
      foreignStore(dir.filePath(QStringLiteral("other.db")), server.baseUrl(), "OPENAI_API_KEY");
  refused = ragscope::test::runCliText(
      {"resume", other, "--api-key-env", "RAGSCOPE_OTHER_KEY", "--quiet", "--no-cache"});
  QCOMPARE(refused.exitCode, 2);
  QVERIFY2(refused.err.contains(QStringLiteral("$RAGSCOPE_OTHER_KEY")), qPrintable(refused.err));
  QCOMPARE(server.requestCount(), std::size_t{18});
  // The same URL spelled with a trailing slash or an upper-case host is the same endpoint; another
  // port is not.
  const QString slash =
      foreignStore(dir.filePath(QStringLiteral("slash.db")),
                   "HTTP://127.0.0.1:" + std::to_string(server.port()) + "/v1/", "OPENAI_API_KEY");
  QCOMPARE(ragscope::test::runCliText({"resume", slash, "--quiet", "--no-cache"}).exitCode, 0);
  const QString port = foreignStore(
      dir.filePath(QStringLiteral("port.db")),
      "http://127.0.0.1:" + std::to_string(server.port() == 1 ? 2 : 1) + "/v1", "OPENAI_API_KEY");
  QCOMPARE(ragscope::test::runCliText({"resume", port, "--quiet", "--no-cache"}).exitCode, 2);
}

void TestErag::ownRunResumesWithoutConfirming() {
  // "Resuming your own run on your own machine needs no extra step": a run this machine's CLI
  // started with --generator URL --api-key-env VAR recorded that endpoint as trusted.
  QTemporaryDir dir;
  qputenv("XDG_CONFIG_HOME", QFile::encodeName(dir.filePath(QStringLiteral("config"))));
  qputenv("OPENAI_API_KEY", "sk-dummy-test-key");
  ragscope::testserver::TestServer server;
  ragscope::testserver::Rule unauthorised =
      ragscope::testserver::rule(ragscope::testserver::Behaviour::Status, 3, "/chat/completions");
  unauthorised.status = 401;  // three calls fail at once (not retried)
  server.addRule(unauthorised);
  QVERIFY(server.start());
  QFile topics(dir.filePath(QStringLiteral("topics.tsv")));
  QVERIFY(topics.open(QIODevice::WriteOnly));
  for (int i = 0; i < 8; ++i)
    topics.write("t" + QByteArray::number(i) + "\tquestion " + QByteArray::number(i) + "\n");
  topics.close();
  const QString store = dir.filePath(QStringLiteral("mine.db"));
  const auto made = ragscope::test::runCliText(
      {"generate", "--dataset", topics.fileName(), "--format", "topics-tsv", "--generator",
       QString::fromStdString(server.baseUrl()), "--model", "test-model", "--api-key-env",
       "OPENAI_API_KEY", "--store", store, "--cache", dir.filePath(QStringLiteral("cache.sqlite")),
       "--quiet"});
  QVERIFY2(made.exitCode == 0 || made.exitCode == 1, qPrintable(made.err));
  const std::size_t before = server.requestCount();
  QVERIFY(doneCalls(store) < 8);
  const auto resumed = ragscope::test::runCliText({"resume", store, "--retry-errors", "--quiet"});
  QVERIFY2(resumed.exitCode == 0, qPrintable(resumed.err));
  QVERIFY(server.requestCount() > before);
  QCOMPARE(doneCalls(store), std::size_t{8});
}

QTEST_GUILESS_MAIN(TestErag)
#include "tst_erag.moc"
