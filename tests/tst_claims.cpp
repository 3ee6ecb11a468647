// Claim-level judging without an LLM (core/claims, `ragscope-cli ragchecker`, `agreement`):
// RAGChecker's metrics against its example file and the synthetic cases of core/claims/README.md
// ("RAGChecker metrics"), missing labels in both modes, the notebook's and RAGAS's formulas,
// judge-human agreement against RAGChecker's meta-evaluation, and bad input.

#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/cli.h"
#include "common/testdata.h"
#include "core/claims/agreement.h"
#include "core/claims/agreementreport.h"
#include "core/claims/checkingfile.h"
#include "core/claims/metaeval.h"
#include "core/claims/notebook.h"
#include "core/claims/numpycompat.h"
#include "core/claims/ragas.h"
#include "core/claims/ragchecker.h"
#include "core/stats/correlation.h"
#include "core/stats/kappa.h"
#include "core/stats/random.h"

using namespace ragscope::core;
using namespace ragscope::core::claims;
using nlohmann::json;
using ragscope::test::runCli;
namespace fs = std::filesystem;

namespace {

constexpr const char* kExample = "ragchecker/examples/checking_outputs.json";
constexpr const char* kHuman = "ragchecker/data/meta_evaluation/human_labeled_data.json";
constexpr const char* kBaseline = "ragchecker/data/meta_evaluation/baseline_ragchecker.json";

QString dataArg(const char* relative) {
  return QString::fromStdString(ragscope::test::dataPath(relative).string());
}

fs::path writeFile(const QTemporaryDir& dir, const std::string& name, const std::string& content) {
  const fs::path p = fs::path(dir.path().toStdString()) / name;
  std::ofstream out(p, std::ios::binary);
  out << content;
  return p;
}

json readJson(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

json parseOut(const ragscope::test::CliResult& r) { return json::parse(r.out.toStdString()); }

std::string dump(const LoadReport& r) {
  std::string s;
  for (const auto& d : r.diagnostics) s += d.toString() + "\n";
  return s;
}

Label letter(char c) {
  switch (c) {
    case 'E':
      return Label::Entailment;
    case 'N':
      return Label::Neutral;
    case 'C':
      return Label::Contradiction;
    case 'U':
      return Label::Unparsed;
    default:
      return Label::Error;
  }
}

// "EN" -> labels; "EN|NN" -> a matrix (rows split by '|'); "" -> none; "-" -> rows of length 0.
std::vector<std::vector<Label>> rowsOf(const std::string& spec) {
  std::vector<std::vector<Label>> rows;
  if (spec.empty()) return rows;
  std::vector<Label> row;
  for (char c : spec) {
    if (c == '|') {
      rows.push_back(std::move(row));
      row.clear();
    } else if (c != '-') {
      row.push_back(letter(c));
    }
  }
  rows.push_back(std::move(row));
  return rows;
}

// An example in the notation of the hand-computed cases of core/claims/README.md ("RAGChecker
// metrics"; K given for matrices without rows).
ClaimExample makeSynthetic(const std::string& a2r, const std::string& r2a, const std::string& mResp,
                           const std::string& mAns, std::size_t k) {
  ClaimExample ex;
  const auto resp = rowsOf(mResp), ans = rowsOf(mAns);
  ex.resize(a2r.size(), r2a.size(), k);
  for (std::size_t i = 0; i < a2r.size(); ++i) ex.answer2response[i] = letter(a2r[i]);
  for (std::size_t j = 0; j < r2a.size(); ++j) ex.response2answer[j] = letter(r2a[j]);
  for (std::size_t i = 0; i < resp.size() && i < a2r.size(); ++i)
    for (std::size_t c = 0; c < resp[i].size(); ++c) ex.retrieved2response.at(i, c) = resp[i][c];
  for (std::size_t j = 0; j < ans.size() && j < r2a.size(); ++j)
    for (std::size_t c = 0; c < ans[j].size(); ++c) ex.retrieved2answer.at(j, c) = ans[j][c];
  return ex;
}

json labelsJson(const std::string& spec) {
  json a = json::array();
  for (char c : spec) a.push_back(std::string(labelName(letter(c))));
  return a;
}

json matrixJson(const std::string& spec, std::size_t rows) {
  json m = json::array();
  if (spec.empty() && rows == 0) return m;
  if (spec == "-") {
    for (std::size_t i = 0; i < rows; ++i) m.push_back(json::array());
    return m;
  }
  for (const auto& row : rowsOf(spec)) {
    json labels = json::array();
    for (Label l : row) labels.push_back(std::string(labelName(l)));
    m.push_back(labels);
  }
  return m;
}

struct Synthetic {
  const char* name;
  const char* a2r;
  const char* r2a;
  const char* mResp;
  const char* mAns;
  std::size_t k;
  double expected[kMetricCount];  // P R F1 CR CP CU NSrel NSirr Hal SK Faith
};

// The hand-computed cases S1-S5 of core/claims/README.md, "RAGChecker metrics".
const Synthetic kSynthetic[] = {
    {"S1 R=0", "", "EN", "", "EN|NN", 2, {0, .5, 0, .5, .5, 1, 0, 0, 0, 0, 0}},
    {"S2 G=0", "NN", "", "E|N", "", 1, {0, 0, 0, 0, 0, 0, 0, 0, .5, 0, .5}},
    {"S3 K=0", "EN", "E", "-", "-", 0, {.5, 1, 2.0 / 3.0, 0, 0, 0, 0, 0, 0, 0, 0}},
    {"S4",
     "ENCN",
     "EE",
     "ENN|EEN|NEN|NNC",
     "ENN|NNC",
     3,
     {.25, 1, .4, .5, 1.0 / 3.0, 1, .25, .25, .25, 0, .75}},
    {"S5", "EE", "E", "N|E", "N", 1, {1, 1, 1, 0, 0, 0, 0, 0, 0, .5, .5}},
};

// "d3" (spelled out: GCC 12 warns falsely on "d" + std::to_string(3), its PR 105329).
std::string numbered(char prefix, std::size_t i) {
  std::string s(1, prefix);
  s += std::to_string(i);
  return s;
}

// The synthetic cases as a RAGChecker checking-output file.
json syntheticFile() {
  json results = json::array();
  for (const auto& s : kSynthetic) {
    const std::size_t r = std::string(s.a2r).size(), g = std::string(s.r2a).size();
    json rec;
    rec["query_id"] = s.name;
    rec["query"] = "q";
    json chunks = json::array();
    for (std::size_t c = 0; c < s.k; ++c)
      chunks.push_back({{"doc_id", numbered('d', c)}, {"text", "chunk"}});
    rec["retrieved_context"] = chunks;
    json rc = json::array(), gc = json::array();
    for (std::size_t i = 0; i < r; ++i) rc.push_back({"s", "r", numbered('o', i)});
    for (std::size_t j = 0; j < g; ++j) gc.push_back({"s", "r", numbered('g', j)});
    rec["response_claims"] = rc;
    rec["gt_answer_claims"] = gc;
    rec["answer2response"] = labelsJson(s.a2r);
    rec["response2answer"] = labelsJson(s.r2a);
    rec["retrieved2response"] = matrixJson(s.mResp, r);
    rec["retrieved2answer"] = matrixJson(s.mAns, g);
    results.push_back(rec);
  }
  return json{{"results", results}};
}

// A file with missing labels: a null, a short list, a short row, a missing matrix.
constexpr const char* kMissingLabels = R"({"results": [{
  "query_id": "m1", "query": "q", "gt_answer": "g", "response": "r",
  "retrieved_context": [{"doc_id": "a", "text": "A"}, {"doc_id": "b", "text": "B"}],
  "response_claims": [["x", "is", "1"], ["y", "is", "2"]],
  "gt_answer_claims": [["x", "is", "1"], ["z", "is", "3"]],
  "answer2response": ["Entailment", null],
  "response2answer": ["Entailment"],
  "retrieved2response": [["Entailment", "Neutral"], ["Neutral"]]
}]})";

}  // namespace

class TestClaims : public QObject {
  Q_OBJECT

 private slots:
  // ---- RAGChecker: the example file ---------------------------------------------------------
  void exampleFileCore() {
    RAGSCOPE_REQUIRE_DATA(kExample);
    const auto path = ragscope::test::dataPath(kExample);
    auto file = readCheckingOutput(path);
    QVERIFY2(file.report.ok() && !file.report.hasErrors(), dump(file.report).c_str());
    QCOMPARE(file.value.size(), std::size_t(2));
    QCOMPARE(file.report.warnings, std::uint64_t(0));
    const ClaimExample& q0 = file.value[0];
    QCOMPARE(q0.responseClaimCount(), std::size_t(11));
    QCOMPARE(q0.answerClaimCount(), std::size_t(22));
    QCOMPARE(q0.chunkCount(), std::size_t(4));
    QCOMPARE(file.value[1].responseClaimCount(), std::size_t(5));
    QCOMPARE(file.value[1].answerClaimCount(), std::size_t(8));
    QCOMPARE(file.value[1].chunkCount(), std::size_t(3));

    const CorpusScores s = scoreCorpus(file.value, Mode::RagChecker);
    // All 22 per-example values bit-identical to the stored floats.
    for (std::size_t e = 0; e < 2; ++e) {
      QCOMPARE(file.value[e].storedMetrics.size(), kMetricCount);
      for (Metric m : allMetrics()) {
        const double stored = file.value[e].storedMetrics.at(std::string(metricKey(m)));
        QVERIFY2(s.perExample[e][m].value == stored,
                 (metricName(m) + " of example " + std::to_string(e)).c_str());
      }
    }
    // The example file's values (core/claims/README.md, "RAGChecker metrics"), written out.
    QCOMPARE(s.perExample[0][Metric::Precision].value, 8.0 / 11.0);
    QCOMPARE(s.perExample[0][Metric::F1].value, 0.5925925925925926);
    QCOMPARE(s.perExample[0][Metric::ClaimRecall].value, 0.22727272727272727);
    QCOMPARE(s.perExample[0][Metric::NoiseSensitivityInRelevant].value, 0.18181818181818182);
    QCOMPARE(s.perExample[0][Metric::Hallucination].value, 0.09090909090909091);
    QCOMPARE(s.perExample[0][Metric::SelfKnowledge].value, 0.5454545454545454);
    QCOMPARE(s.perExample[0][Metric::Faithfulness].value, 0.36363636363636365);
    QCOMPARE(s.perExample[1][Metric::F1].value, 0.7741935483870969);
    QCOMPARE(s.perExample[1][Metric::ContextUtilization].value, 0.75);

    // All 11 corpus figures equal the stored ones; F1 is the mean of the F1s (68.3, not 68.7).
    std::string error;
    const auto stored = readStoredCorpusMetrics(path, &error);
    QVERIFY2(error.empty(), error.c_str());
    QCOMPARE(stored.size(), std::size_t(3));
    for (Metric m : allMetrics()) {
      const double want = stored.at(std::string(metricGroup(m))).at(std::string(metricKey(m)));
      QVERIFY2(s[m].percent == want, metricName(m).c_str());
    }
    QCOMPARE(s[Metric::F1].percent, 68.3);
    const double p = s[Metric::Precision].mean, r = s[Metric::Recall].mean;
    QCOMPARE(ragcheckerPercent(2 * p * r / (p + r)), 68.7);

    // ragscope's mode gives the same numbers on a file without missing labels.
    const CorpusScores own = scoreCorpus(file.value, Mode::RagScope);
    for (Metric m : allMetrics()) {
      QCOMPARE(own[m].scored, std::size_t(2));
      QCOMPARE(own[m].mean, s[m].mean);
    }
  }

  void exampleFileCli() {
    RAGSCOPE_REQUIRE_DATA(kExample);
    const auto r = runCli({"ragchecker", dataArg(kExample), "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const json out = parseOut(r);
    const json file = readJson(ragscope::test::dataPath(kExample));
    QCOMPARE(out["mode"].get<std::string>(), std::string("ragchecker"));
    QCOMPARE(out["n"].get<int>(), 2);
    int compared = 0;
    for (const auto& rec : file["results"]) {
      const json& mine = out["per_example"][rec["query_id"].get<std::string>()];
      for (auto it = rec["metrics"].begin(); it != rec["metrics"].end(); ++it) {
        QVERIFY2(mine["ragchecker." + it.key()].get<double>() == it.value().get<double>(),
                 it.key().c_str());
        ++compared;
      }
    }
    QCOMPARE(compared, 22);
    int figures = 0;
    for (auto g = file["metrics"].begin(); g != file["metrics"].end(); ++g)
      for (auto m = g.value().begin(); m != g.value().end(); ++m, ++figures)
        QVERIFY2(out["metrics"][g.key()][m.key()].get<double>() == m.value().get<double>(),
                 m.key().c_str());
    QCOMPARE(figures, 11);
    QCOMPARE(out["mean"]["ragchecker.precision"].get<double>(), (8.0 / 11.0 + 0.8) / 2);
    QCOMPARE(out["stored_check"]["equal"].get<int>(), 22);

    const auto text = runCli({"ragchecker", dataArg(kExample)});
    QCOMPARE(text.exitCode, 0);
    QVERIFY(text.out.contains("ragchecker.f1"));
    QVERIFY(text.out.contains("68.3"));
    QVERIFY(text.out.contains("22 compared, 22 equal"));
  }

  // ---- RAGChecker: hand-computed cases (core/claims/README.md) ------------------------------
  void synthetic_data() {
    QTest::addColumn<int>("row");
    for (int i = 0; i < int(std::size(kSynthetic)); ++i) QTest::newRow(kSynthetic[i].name) << i;
  }
  void synthetic() {
    QFETCH(int, row);
    const Synthetic& s = kSynthetic[row];
    const ClaimExample ex = makeSynthetic(s.a2r, s.r2a, s.mResp, s.mAns, s.k);
    QVERIFY(!shapeProblem(ex));
    const ExampleScores scores = scoreExample(ex, Mode::RagChecker);
    for (Metric m : allMetrics()) {
      QVERIFY2(scores[m].hasValue(), metricName(m).c_str());
      QVERIFY2(scores[m].value == s.expected[index(m)],
               (metricName(m) + " = " + std::to_string(scores[m].value)).c_str());
    }
  }

  void syntheticCli() {
    QTemporaryDir dir;
    const auto path = writeFile(dir, "synthetic.json", syntheticFile().dump(1));
    const auto r = runCli({"ragchecker", QString::fromStdString(path.string()), "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const json out = parseOut(r);
    for (const auto& s : kSynthetic)
      for (Metric m : allMetrics())
        QVERIFY2(out["per_example"][s.name][metricName(m)].get<double>() == s.expected[index(m)],
                 (std::string(s.name) + " " + metricName(m)).c_str());
    // Corpus figure: the five values averaged, 0.0s included.
    double sum = 0;
    for (const auto& s : kSynthetic) sum += s.expected[index(Metric::Faithfulness)];
    QCOMPARE(out["metrics"]["generator"]["faithfulness"].get<double>(),
             numpyRound(sum / 5 * 100, 1));
  }

  // ragscope's mode: empty sets are states, an OR over no chunks is false.
  void syntheticOwnMode() {
    const auto s1 = scoreExample(makeSynthetic("", "EN", "", "EN|NN", 2), Mode::RagScope);
    QCOMPARE(s1[Metric::Precision].state, ScoreState::Empty);
    QCOMPARE(s1[Metric::F1].state, ScoreState::Empty);
    QCOMPARE(s1[Metric::Faithfulness].state, ScoreState::Empty);
    QCOMPARE(s1[Metric::Recall].value, 0.5);
    QCOMPARE(s1[Metric::ContextPrecision].value, 0.5);

    const auto s3 = scoreExample(makeSynthetic("EN", "E", "-", "-", 0), Mode::RagScope);
    QCOMPARE(s3[Metric::ContextPrecision].state, ScoreState::Empty);    // no chunk
    QCOMPARE(s3[Metric::ContextUtilization].state, ScoreState::Empty);  // nothing recalled
    QCOMPARE(s3[Metric::ClaimRecall].value, 0.0);
    QCOMPARE(s3[Metric::Faithfulness].value, 0.0);
    QCOMPARE(s3[Metric::Hallucination].value, 0.5);
    QCOMPARE(s3[Metric::SelfKnowledge].value, 0.5);  // faithfulness + hallucination + SK = 1

    const auto s4 =
        scoreExample(makeSynthetic("ENCN", "EE", "ENN|EEN|NEN|NNC", "ENN|NNC", 3), Mode::RagScope);
    const auto s4c = scoreExample(makeSynthetic("ENCN", "EE", "ENN|EEN|NEN|NNC", "ENN|NNC", 3),
                                  Mode::RagChecker);
    for (Metric m : allMetrics()) QCOMPARE(s4[m].value, s4c[m].value);
  }

  // ---- Missing labels ----------------------------------------------------------------------
  void missingLabels() {
    QTemporaryDir dir;
    const auto path = writeFile(dir, "missing.json", kMissingLabels);
    auto file = readCheckingOutput(path);
    QVERIFY2(file.report.ok() && !file.report.hasErrors(), dump(file.report).c_str());
    QCOMPARE(file.report.warnings, std::uint64_t(4));  // one per label set
    QVERIFY(dump(file.report).find("retrieved2answer: missing: all 4 labels read as unparsed") !=
            std::string::npos);
    const ClaimExample& ex = file.value.at(0);
    QCOMPARE(ex.answer2response[1], Label::Unparsed);
    QCOMPARE(ex.response2answer[1], Label::Unparsed);
    QCOMPARE(ex.retrieved2response.at(1, 1), Label::Unparsed);

    // RAGChecker's mode: missing labels are Neutral.
    const auto rc = scoreExample(ex, Mode::RagChecker);
    QCOMPARE(rc[Metric::Precision].value, 0.5);
    QCOMPARE(rc[Metric::Recall].value, 0.5);
    QCOMPARE(rc[Metric::ClaimRecall].value, 0.0);
    QCOMPARE(rc[Metric::ContextUtilization].value, 0.0);
    QCOMPARE(rc[Metric::Hallucination].value, 0.5);
    QCOMPARE(rc[Metric::Faithfulness].value, 0.5);

    // ragscope's mode: counted states, never 0 or 1 in their place.
    const auto own = scoreExample(ex, Mode::RagScope);
    QCOMPARE(own[Metric::Precision].value, 1.0);
    QCOMPARE(own[Metric::Precision].scored, 1u);
    QCOMPARE(own[Metric::Precision].total, 2u);
    QCOMPARE(own[Metric::Precision].unparsed, 1u);
    QCOMPARE(own[Metric::ClaimRecall].state, ScoreState::Unparsed);
    QVERIFY(std::isnan(own[Metric::ClaimRecall].value));
    QCOMPARE(own[Metric::ContextPrecision].state, ScoreState::Unparsed);
    QCOMPARE(own[Metric::ContextUtilization].state, ScoreState::Unparsed);
    QCOMPARE(own[Metric::Faithfulness].value, 1.0);  // claim 0 decided by chunk 0; claim 1 open
    QCOMPARE(own[Metric::Faithfulness].scored, 1u);
    // An incorrect-or-not question decided by a2r alone: claim 0 is correct, so not noise.
    QCOMPARE(own[Metric::NoiseSensitivityInRelevant].value, 0.0);
    QCOMPARE(own[Metric::NoiseSensitivityInRelevant].scored, 1u);

    const auto r = runCli(
        {"ragchecker", QString::fromStdString(path.string()), "--json", "--mode", "ragscope"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.err.contains("answer2response: 1 of 2 labels missing"));
    const json out = parseOut(r);
    QCOMPARE(out["mode"].get<std::string>(), std::string("ragscope"));
    QVERIFY(out["per_example"]["m1"]["ragchecker.claim_recall"].is_null());
    QVERIFY(out["metrics"]["retriever"]["claim_recall"].is_null());
    QCOMPARE(out["states"]["ragchecker.claim_recall"]["unparsed"].get<int>(), 1);
    QCOMPARE(out["states"]["ragchecker.claim_recall"]["scored"].get<int>(), 0);
    QCOMPARE(out["n_scored"]["ragchecker.precision"].get<int>(), 1);
    QCOMPARE(out["items"]["ragchecker.precision"]["unparsed"].get<int>(), 1);
    const json& st = out["per_example_states"]["m1"]["ragchecker.precision"];
    QCOMPARE(st["n_scored"].get<int>(), 1);
    QCOMPARE(st["n_total"].get<int>(), 2);
    QCOMPARE(out["labels"]["unparsed"].get<int>(), 7);

    const auto compat = runCli({"ragchecker", QString::fromStdString(path.string()), "--json"});
    QCOMPARE(compat.exitCode, 0);
    const json c = parseOut(compat);
    QCOMPARE(c["per_example"]["m1"]["ragchecker.claim_recall"].get<double>(), 0.0);
    QCOMPARE(c["metrics"]["overall"]["precision"].get<double>(), 50.0);

    const auto text =
        runCli({"ragchecker", QString::fromStdString(path.string()), "--mode", "ragscope"});
    QCOMPARE(text.exitCode, 0);
    QVERIFY(text.out.contains("unparsed"));
  }

  // Errors and unknown label names in three-valued logic.
  void errorLabels() {
    ClaimExample ex = makeSynthetic("XE", "E", "X|E", "E", 1);  // X = Error
    const auto own = scoreExample(ex, Mode::RagScope);
    QCOMPARE(own[Metric::Precision].errors, 1u);
    QCOMPARE(own[Metric::Precision].value, 1.0);
    QCOMPARE(own[Metric::Faithfulness].errors, 1u);
    QCOMPARE(
        scoreExample(makeSynthetic("X", "E", "X", "E", 1), Mode::RagScope)[Metric::Precision].state,
        ScoreState::Error);
    QCOMPARE(scoreExample(ex, Mode::RagChecker)[Metric::Precision].value, 0.5);
  }

  // Examples with up to 64 chunks and resolved labels take a bit-mask path, the others
  // three-valued logic: widening an example past 64 chunks with all-Neutral columns must change
  // nothing but context_precision's denominator, in both modes, with or without holes.
  void pathsAgree() {
    stats::Rng rng(7);
    const Label pool[] = {Label::Entailment, Label::Neutral,     Label::Contradiction,
                          Label::Supported,  Label::Unsupported, Label::Unparsed,
                          Label::Error};
    for (int round = 0; round < 400; ++round) {
      const std::size_t r = rng.below32(6), g = rng.below32(6), k = rng.below32(12);
      const bool holes = round % 2 == 1;
      ClaimExample narrow;
      narrow.resize(r, g, k);
      const auto draw = [&] { return pool[rng.below32(holes ? 7 : 5)]; };
      for (auto& l : narrow.answer2response) l = draw();
      for (auto& l : narrow.response2answer) l = draw();
      for (std::size_t i = 0; i < r; ++i)
        for (std::size_t c = 0; c < k; ++c) narrow.retrieved2response.at(i, c) = draw();
      for (std::size_t j = 0; j < g; ++j)
        for (std::size_t c = 0; c < k; ++c) narrow.retrieved2answer.at(j, c) = draw();
      ClaimExample wide = narrow;
      wide.retrieved2response = LabelMatrix(r, k + 64, Label::Neutral);
      wide.retrieved2answer = LabelMatrix(g, k + 64, Label::Neutral);
      for (std::size_t i = 0; i < r; ++i)
        for (std::size_t c = 0; c < k; ++c)
          wide.retrieved2response.at(i, c) = narrow.retrieved2response.at(i, c);
      for (std::size_t j = 0; j < g; ++j)
        for (std::size_t c = 0; c < k; ++c)
          wide.retrieved2answer.at(j, c) = narrow.retrieved2answer.at(j, c);
      for (Mode mode : {Mode::RagChecker, Mode::RagScope}) {
        const auto a = scoreExample(narrow, mode), b = scoreExample(wide, mode);
        for (Metric m : allMetrics()) {
          const std::string where = "round " + std::to_string(round) + " " + metricName(m) + " " +
                                    std::string(modeName(mode));
          if (m == Metric::ContextPrecision) {
            if (k == 0 || g == 0) continue;  // RAGChecker's guards see K = 0 but not K = 64
            QVERIFY2(a[m].scored == 0 || b[m].hasValue(), where.c_str());
            if (a[m].hasValue())
              QVERIFY2(std::abs(a[m].value * a[m].scored - b[m].value * b[m].scored) < 1e-12,
                       where.c_str());
            continue;
          }
          if (k == 0 && mode == Mode::RagChecker) continue;  // K = 0 forces 0.0 there
          QVERIFY2(a[m].state == b[m].state, where.c_str());
          QVERIFY2(a[m].scored == b[m].scored && a[m].unparsed == b[m].unparsed &&
                       a[m].errors == b[m].errors,
                   where.c_str());
          if (a[m].hasValue()) QVERIFY2(a[m].value == b[m].value, where.c_str());
        }
      }
    }
  }

  // ---- Writer ------------------------------------------------------------------------------
  void writeAndReadBack() {
    RAGSCOPE_REQUIRE_DATA(kExample);
    auto file = readCheckingOutput(ragscope::test::dataPath(kExample));
    QVERIFY(file.report.ok());
    file.value[0].answer2response[0] =
        Label::Supported;  // binary labels are written as RAGChecker's
    file.value[0].answer2response[1] = Label::Unparsed;
    const CorpusScores scores = scoreCorpus(file.value, Mode::RagChecker);
    QTemporaryDir dir;
    const fs::path out = fs::path(dir.path().toStdString()) / "written.json";
    std::string error;
    QVERIFY2(writeCheckingOutput(out, file.value, &scores, &error), error.c_str());
    const json doc = readJson(out);
    QCOMPARE(doc["results"][0]["answer2response"][0].get<std::string>(), std::string("Entailment"));
    QCOMPARE(doc["results"][0]["answer2response"][1].get<std::string>(), std::string("Unparsed"));
    QCOMPARE(doc["results"][0]["response_claims"][0][0].get<std::string>(), std::string("Nile"));
    QCOMPARE(doc["metrics"]["overall"]["precision"].get<double>(),
             scores[Metric::Precision].percent);

    auto back = readCheckingOutput(out);
    QVERIFY2(back.report.ok() && !back.report.hasErrors(), dump(back.report).c_str());
    QCOMPARE(back.value.size(), file.value.size());
    QCOMPARE(back.value[0].answer2response[0], Label::Entailment);
    QCOMPARE(back.value[0].answer2response[1], Label::Unparsed);
    QCOMPARE(back.value[0].retrieved2answer.cells(), file.value[0].retrieved2answer.cells());
    QCOMPARE(back.value[1].responseClaims, file.value[1].responseClaims);
    QCOMPARE(back.value[1].retrieved[2].id, file.value[1].retrieved[2].id);
    const CorpusScores again = scoreCorpus(back.value, Mode::RagChecker);
    for (Metric m : allMetrics()) {
      QCOMPARE(again[m].mean, scores[m].mean);
      QCOMPARE(back.value[0].storedMetrics.at(std::string(metricKey(m))),
               scores.perExample[0][m].value);
    }
  }

  // ---- Bad input: exit 2 with file, record and field ---------------------------------------
  void badInput_data() {
    QTest::addColumn<QString>("content");
    QTest::addColumn<QString>("expected");
    QTest::newRow("malformed JSON") << R"({"results": [{"query_id": "a", "answer2response": [}]})"
                                    << "bad.json:1: results[0]";
    QTest::newRow("label of the wrong type")
        << "{\"results\": [\n{\"query_id\": \"a\", \"response_claims\": [\"c1\", \"c2\"],\n"
           " \"answer2response\": [\"Entailment\", 1]}]}"
        << "bad.json:2: results[0].answer2response[1]: a label must be a string";
    QTest::newRow("matrix with too many rows")
        << R"({"results": [{"query_id": "q7", "response_claims": ["c1", "c2"], "retrieved_context": [{"doc_id": "d", "text": "t"}], "retrieved2response": [["Neutral"], ["Neutral"], ["Entailment"]]}]})"
        << "results[0].retrieved2response: has 3 rows for 2 response claims: the matrix has the "
           "wrong shape (query_id q7)";
    QTest::newRow("matrix row too long")
        << R"({"results": [{"query_id": "q8", "retrieved_context": [{"doc_id": "d", "text": "t"}], "response_claims": ["c1"], "retrieved2response": [["Neutral", "Neutral"]]}]})"
        << "results[0].retrieved2response[0]: has 2 labels for 1 retrieved chunks";
    QTest::newRow("matrix row not a list")
        << R"({"results": [{"query_id": "q9", "retrieved2answer": ["Neutral"]}]})"
        << "results[0].retrieved2answer[0]: must be a list of labels";
    QTest::newRow("labels not a list")
        << R"({"results": [{"query_id": "q", "response2answer": "Entailment"}]})"
        << "results[0].response2answer: must be a list of labels";
    QTest::newRow("record not an object") << R"({"results": [3]})"
                                          << "results[0]: must be a JSON object";
    QTest::newRow("missing query_id") << R"({"results": [{"query": "x"}]})"
                                      << "results[0].query_id: missing";
    QTest::newRow("repeated query_id")
        << "{\"results\": [{\"query_id\": \"a\"},\n{\"query_id\": \"a\"}]}"
        << "bad.json:2: results[1].query_id: repeats the query_id of the record at line 1";
    QTest::newRow("claim of the wrong type")
        << R"({"results": [{"query_id": "a", "response_claims": [["s", 2, "o"]]}]})"
        << "results[0].response_claims[0]: a claim's parts must be strings";
  }
  void badInput() {
    QFETCH(QString, content);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const auto path = writeFile(dir, "bad.json", content.toStdString());
    for (const char* mode : {"ragchecker", "ragscope"}) {
      const auto r = runCli({"ragchecker", QString::fromStdString(path.string()), "--mode", mode});
      QCOMPARE(r.exitCode, 2);
      QVERIFY2(r.err.contains(expected.toUtf8()), r.err.constData());
      QVERIFY(r.err.contains(QByteArray::fromStdString(path.string())));
    }
  }

  void usage() {
    const auto help = runCli({"ragchecker", "--help"});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains("--mode ragchecker"));
    QCOMPARE(runCli({"ragchecker"}).exitCode, 2);
    QCOMPARE(runCli({"ragchecker", "x.json", "--mode", "ragas"}).exitCode, 2);
    QCOMPARE(runCli({"ragchecker", "/nonexistent/x.json"}).exitCode, 2);
    const auto ahelp = runCli({"agreement", "--help"});
    QCOMPARE(ahelp.exitCode, 0);
    QVERIFY(ahelp.out.contains("--human"));
    QCOMPARE(runCli({"agreement", "--human", "x.json"}).exitCode, 2);
    const auto top = runCli({"--help"});
    QVERIFY(top.out.contains("ragchecker FILE"));
    QVERIFY(top.out.contains("agreement --human FILE --judge FILE"));
  }

  // ---- Notebook (core/claims/README.md, "Notebook metrics") -------------------------------
  void notebook() {
    const auto S = Label::Supported, U = Label::Unsupported;
    const std::vector<Label> faith(6, S);
    const std::vector<Label> faith1922 = {S, S, U, U, S, U};
    const std::vector<Label> correct = {S, S, U, U, S, U};
    const std::vector<Label> coverage = {U, U, U, S, U, S};
    QCOMPARE(notebookFaithfulness(faith).value, 1.0);
    QCOMPARE(notebookFaithfulness(faith1922).value, 0.5);
    QCOMPARE(notebookCorrectness(correct).value, 0.5);
    const ClaimScore cov = notebookCoverage(coverage);
    QCOMPARE(cov.value, 0.3333333333333333);
    QCOMPARE(numpyRound(cov.value, 2), 0.33);
    QCOMPARE(cov.supported, std::size_t(2));
    QCOMPARE(cov.total, std::size_t(6));

    // ragscope's convention: unparsed claims are counted, not scored.
    const ClaimScore partial =
        supportScore(std::vector<Label>{S, Label::Unparsed, U, Label::Error});
    QCOMPARE(partial.value, 0.5);
    QCOMPARE(partial.scored(), std::size_t(2));
    QCOMPARE(partial.unparsed, std::size_t(1));
    QCOMPARE(partial.errors, std::size_t(1));
    QCOMPARE(supportScore(std::vector<Label>{}).state, ScoreState::Empty);
    QCOMPARE(supportScore(std::vector<Label>{Label::Unparsed}).state, ScoreState::Unparsed);
    QVERIFY(!supportScore(std::vector<Label>{Label::Error}).hasValue());
    // Three-way labels: only Entailment is supported.
    QCOMPARE(supportScore(std::vector<Label>{Label::Entailment, Label::Contradiction,
                                             Label::Neutral, Label::Entailment})
                 .value,
             0.5);

    // The notebook's own count over a whole reply (our text, its format).
    const auto counts = countSupportedMarkers(
        "- The sky is blue. SUPPORTED=1\n- Grass is red. SUPPORTED=0\n- Water is wet. "
        "SUPPORTED=1\n");
    QCOMPARE(counts.supported, std::size_t(2));
    QCOMPARE(counts.unsupported, std::size_t(1));
    QCOMPARE(notebookScore(counts), 2.0 / 3.0);
    QVERIFY(std::isnan(notebookScore(countSupportedMarkers("no labels here"))));
  }

  // ---- RAGAS (core/claims/README.md, "RAGAS metrics") -------------------------------------
  void ragasContextPrecision_data() {
    QTest::addColumn<std::vector<int>>("verdicts");
    QTest::addColumn<double>("expected");
    QTest::newRow("[1]") << std::vector<int>{1} << 0.9999999999;
    QTest::newRow("[0,1]") << std::vector<int>{0, 1} << 0.49999999995;
    QTest::newRow("[1,0,1]") << std::vector<int>{1, 0, 1} << 0.8333333332916666;
    QTest::newRow("[1,1,0]") << std::vector<int>{1, 1, 0} << 0.99999999995;
    QTest::newRow("[1,0,0,1]") << std::vector<int>{1, 0, 0, 1} << 0.7499999999625;
    QTest::newRow("[]") << std::vector<int>{} << 0.0;
    QTest::newRow("[0,0]") << std::vector<int>{0, 0} << 0.0;
  }
  void ragasContextPrecision() {
    QFETCH(std::vector<int>, verdicts);
    QFETCH(double, expected);
    const double got = claims::ragasContextPrecision(verdicts);
    QVERIFY2(got == expected, std::to_string(got).c_str());
    std::vector<Label> labels;
    for (int v : verdicts) labels.push_back(v ? Label::Supported : Label::Unsupported);
    QCOMPARE(claims::ragasContextPrecision(labels).value(), expected);
    labels.push_back(Label::Unparsed);
    QVERIFY(!claims::ragasContextPrecision(labels).has_value());
  }

  void ragasDenominators() {
    // Faithfulness: the verdicts returned, not the statements.
    QCOMPARE(ragasFaithfulness(4, std::vector<int>{1, 1, 0}), 2.0 / 3.0);
    QCOMPARE(ragasFaithfulness(2, std::vector<int>{1, 1, 0}), 2.0 / 3.0);  // extra verdicts unseen
    QVERIFY(std::isnan(ragasFaithfulness(0, std::vector<int>{})));
    QVERIFY(std::isnan(ragasFaithfulness(3, std::vector<int>{})));
    // Context recall: attributed / classifications.
    QCOMPARE(ragasContextRecall(std::vector<int>{1, 0, 1, 1}), 0.75);
    QVERIFY(std::isnan(ragasContextRecall(std::vector<int>{})));
  }

  void ragasAnswerRelevancy() {
    const std::vector<double> q = {1, 0, 0};
    std::vector<GeneratedQuestion> gen = {
        {{2, 0, 0}, true, false}, {{0, 3, 0}, false, false}, {{1, 1, 0}, true, false}};
    const double expected = (1.0 + 0.0 + 1.0 / std::sqrt(2.0)) / 3.0;
    QVERIFY(std::abs(claims::ragasAnswerRelevancy(q, gen) - expected) < 1e-15);
    for (auto& g : gen) g.noncommittal = true;  // all noncommittal: 0
    QCOMPARE(claims::ragasAnswerRelevancy(q, gen), 0.0);
    gen[1].noncommittal = false;  // one committal generation is enough
    QVERIFY(claims::ragasAnswerRelevancy(q, gen) > 0.5);
    QVERIFY(std::isnan(claims::ragasAnswerRelevancy(q, std::vector<GeneratedQuestion>{})));
    // Empty generated questions: legacy NaN when all are empty, v0.4 drops them (none left: 0.0).
    std::vector<GeneratedQuestion> empty = {{{0, 0, 0}, false, true}, {{0, 0, 0}, false, true}};
    QVERIFY(std::isnan(claims::ragasAnswerRelevancy(q, empty, RagasVersion::Legacy)));
    QCOMPARE(claims::ragasAnswerRelevancy(q, empty, RagasVersion::V04), 0.0);
    empty.push_back({{1, 0, 0}, false, false});
    QCOMPARE(claims::ragasAnswerRelevancy(q, empty, RagasVersion::V04), 1.0);
    QCOMPARE(cosineSimilarity(std::vector<double>{1, 2}, std::vector<double>{2, 4}), 1.0);
  }

  // ---- Agreement ---------------------------------------------------------------------------
  void coefficients() {
    const std::vector<double> a = {1, 1, 0, 0}, b = {1, 0, 0, 0};
    QCOMPARE(stats::cohenKappa(a, b), 0.5);
    QCOMPARE(stats::cohenKappa(a, a), 1.0);
    QVERIFY(std::isnan(stats::cohenKappa(std::vector<double>{1, 1}, std::vector<double>{1, 1})));
    QCOMPARE(pearson(std::vector<double>{1, 2, 3}, std::vector<double>{2, 4, 6}), 1.0);
    QCOMPARE(pearson(std::vector<double>{1, 2, 3}, std::vector<double>{3, 2, 1}), -1.0);
    QVERIFY(std::isnan(pearson(std::vector<double>{1, 1, 1}, std::vector<double>{1, 2, 3})));
    QVERIFY(isCategorical(std::vector<double>{-2, 0, 1}));
    QVERIFY(!isCategorical(std::vector<double>{0.5}));

    AgreementInput in;
    in.judge = {0.1, 0.4, 0.35, 0.8, 0.7, 0.2, 0.9, 0.5};
    in.human = {0, 1, 0, 2, 1, 0, 2, 1};
    AgreementOptions o;
    o.resamples = 500;
    const Agreement x = computeAgreement(in, o);
    QCOMPARE(x.n, std::size_t(8));
    QVERIFY(x.pearson.ci.low <= x.pearson.value && x.pearson.value <= x.pearson.ci.high);
    QVERIFY(x.kendallTauB.ci.low <= x.kendallTauB.ci.high);
    QVERIFY(std::isnan(x.cohenKappa.value));  // no categories given
    const Agreement y = computeAgreement(in, o);
    QCOMPARE(y.spearman.ci.low, x.spearman.ci.low);  // deterministic for a seed
  }

  void metaEvaluation() {
    RAGSCOPE_REQUIRE_DATA(kHuman);
    RAGSCOPE_REQUIRE_DATA(kBaseline);
    const auto r = runCli({"agreement", "--human", dataArg(kHuman), "--judge", dataArg(kBaseline),
                           "--name", "ragchecker", "--json", "--resamples", "200"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const json out = parseOut(r);
    const json& c = out["aspects"]["correctness"];
    // RAGChecker's figures (core/claims/README.md, "Judge vs human"), as meta_eval.py prints them.
    QCOMPARE(c["pearson"].get<double>(), 49.66);
    QCOMPARE(c["spearman"].get<double>(), 46.95);
    QCOMPARE(c["n"].get<int>(), 560);
    QCOMPARE(c["instances"].get<int>(), 280);
    QCOMPARE(c["judge_metric"].get<std::string>(), std::string("correctness_label"));
    const auto ci = c["ci95"]["pearson"];
    QVERIFY(ci[0].get<double>() < 49.66 && 49.66 < ci[1].get<double>());
    QVERIFY(c["kendall_tau_b"].get<double>() > 0);
    QVERIFY(c["cohen_kappa"].is_number());
    // The other aspects and the ceiling by the same procedure (our re-run of meta_eval.py's
    // steps on the shared files).
    QCOMPARE(out["aspects"]["completeness"]["pearson"].get<double>(), 60.67);
    QCOMPARE(out["aspects"]["completeness"]["spearman"].get<double>(), 58.11);
    QCOMPARE(out["aspects"]["overall"]["pearson"].get<double>(), 61.93);
    QCOMPARE(out["aspects"]["overall"]["spearman"].get<double>(), 60.9);
    const json& ceiling = c["human_ceiling"];
    QCOMPARE(ceiling["n"].get<int>(), 280);
    QCOMPARE(ceiling["pearson"].get<double>(), 63.67);
    QCOMPARE(ceiling["spearman"].get<double>(), 59.19);
    QCOMPARE(out["aspects"]["completeness"]["human_ceiling"]["pearson"].get<double>(), 71.91);
    QCOMPARE(out["aspects"]["overall"]["human_ceiling"]["spearman"].get<double>(), 68.89);

    const auto text = runCli({"agreement", "--human", dataArg(kHuman), "--judge",
                              dataArg(kBaseline), "--resamples", "0"});
    QCOMPARE(text.exitCode, 0);
    QVERIFY(text.out.contains("49.66"));
    QVERIFY(text.out.contains("46.95"));
  }

  // The rescale matters: without it, near-equal deltas stay apart and Spearman prints 46.94.
  void metaEvaluationRescale() {
    RAGSCOPE_REQUIRE_DATA(kHuman);
    auto human = readPairwiseHuman(ragscope::test::dataPath(kHuman));
    auto judge = readPairwiseJudge(ragscope::test::dataPath(kBaseline), "ragchecker");
    QVERIFY2(!human.report.hasErrors() && !judge.report.hasErrors(), dump(judge.report).c_str());
    QCOMPARE(human.value.records.size(), std::size_t(560));
    QCOMPARE(judge.value.instances.size(), std::size_t(280));
    QCOMPARE(human.value.aspects,
             (std::vector<std::string>{"correctness", "completeness", "overall"}));
    std::vector<double> raw, labels;
    for (const auto& rec : human.value.records) {
      const auto& inst = judge.value.instances.at(std::stoul(rec.instanceId));
      raw.push_back(inst.model2[1] - inst.model1[1]);  // metrics sorted: completeness, correctness
      labels.push_back(rec.labels[0]);
    }
    QCOMPARE(judge.value.metrics[1], std::string("correctness_label"));
    QCOMPARE(asPrinted(stats::spearmanRho(raw, labels)), 46.94);
    AgreementOptions o;
    o.resamples = 0;
    const auto result = comparePairwise(human.value, judge.value, o);
    QVERIFY(result.ok());
    QCOMPARE(asPrinted(result.aspects[0].judge.spearman.value), 46.95);
  }

  void pointwise() {
    QTemporaryDir dir;
    const auto human = writeFile(
        dir, "human.csv", "qid,label\nq1,1\nq1,1\nq2,0\nq2,1\nq3,1\nq3,1\nq4,0\nq4,0\nq5,1\n");
    const auto judgeCsv =
        writeFile(dir, "judge.csv", "qid,verdict,score\nq1,1,0.9\nq2,0,0.4\nq3,1,0.8\nq4,0,0.1\n");
    const auto r = runCli({"agreement", "--human", QString::fromStdString(human.string()),
                           "--judge", QString::fromStdString(judgeCsv.string()), "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const json out = parseOut(r);
    QCOMPARE(out["layout"].get<std::string>(), std::string("pointwise"));
    const json& v = out["aspects"]["verdict"];
    QCOMPARE(v["n"].get<int>(), 8);
    QCOMPARE(v["instances"].get<int>(), 4);
    QCOMPARE(v["unpaired_human_labels"].get<int>(), 1);  // q5 has no judge value
    // judge 1,1,0,0,1,1,0,0 vs human 1,1,0,1,1,1,0,0: po = 7/8, pe = 1/2 -> kappa 0.75.
    QCOMPARE(v["cohen_kappa"].get<double>(), 75.0);
    QVERIFY(out["aspects"]["score"]["cohen_kappa"].is_null());  // not categorical
    QCOMPARE(v["human_ceiling"]["n"].get<int>(), 4);

    // A checking output as the judge: each ragchecker.* metric is an aspect.
    RAGSCOPE_REQUIRE_DATA(kExample);
    const auto labels = writeFile(dir, "labels.csv", "qid,label\n0,0.4\n1,0.9\n");
    const auto c = runCli({"agreement", "--human", QString::fromStdString(labels.string()),
                           "--judge", dataArg(kExample), "--json", "--resamples", "0"});
    QVERIFY2(c.exitCode == 0, c.err.constData());
    QCOMPARE(parseOut(c)["aspects"]["ragchecker.precision"]["pearson"].get<double>(), 100.0);
  }

  void agreementBadInput() {
    QTemporaryDir dir;
    const auto human = writeFile(dir, "human.json",
                                 "[{\"instance_id\": 0, \"correctness_label\": 1},\n"
                                 " {\"instance_id\": 0, \"correctness_label\": \"one\"}]");
    const auto judge =
        writeFile(dir, "judge.json",
                  R"([{"instance_id": 0, "model1": {"ragchecker": {"correctness_label": 0.5}},
                                      "model2": {"ragchecker": {"correctness_label": 0.7}}}])");
    auto r = runCli({"agreement", "--human", QString::fromStdString(human.string()), "--judge",
                     QString::fromStdString(judge.string())});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("human.json:2: [1].correctness_label: must be a number"),
             r.err.constData());

    const auto human2 =
        writeFile(dir, "human2.json", R"([{"instance_id": 0, "correctness_label": 1}])");
    r = runCli({"agreement", "--human", QString::fromStdString(human2.string()), "--judge",
                QString::fromStdString(judge.string()), "--name", "ragas"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("model1.ragas: missing"), r.err.constData());

    const auto csv = writeFile(dir, "h.csv", "qid,label\nq1,yes\n");
    r = runCli({"agreement", "--human", QString::fromStdString(csv.string()), "--judge",
                QString::fromStdString(csv.string())});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("h.csv:2: label: 'yes' is not a number"), r.err.constData());
  }

  void numpyConventions() {
    QCOMPARE(numpyRound(68.25, 1), 68.2);  // ties to even (68.25 is exact in binary)
    QCOMPARE(numpyRound(0.125, 2), 0.12);
    QCOMPARE(numpyRound(46.947598, 2), 46.95);
    std::vector<double> v(1000);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.1 * double(i % 7);
    double naive = 0;
    for (double d : v) naive += d;
    QVERIFY(std::abs(numpySum(v) - naive) < 1e-9);
    QVERIFY(std::isnan(numpyMean(std::vector<double>{})));
  }
};

QTEST_GUILESS_MAIN(TestClaims)
#include "tst_claims.moc"
