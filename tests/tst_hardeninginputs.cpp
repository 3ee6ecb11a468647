// Hardening, round three (issue 24), the engine's inputs: a remote retriever named by a project
// file needs trust with or without a key (item 4), judge replies are parsed in linear time and an
// answer's claims are capped with the rest recorded as Unparsed (item 6), '%' in TREC ids is
// escaped so every id round-trips through a run file (item 9), and a CSV naming one column twice
// is refused (item 12). Each test is named after its item.

#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/cli.h"
#include "common/files.h"
#include "common/notebook.h"
#include "core/claims/judgeparse.h"
#include "core/data/csvreader.h"
#include "core/data/loaders.h"
#include "core/data/trecid.h"
#include "core/eval/api/job.h"
#include "core/eval/jobs/judgejob.h"
#include "core/llm/trustedendpoints.h"
#include "core/retrieval/retriever.h"
#include "core/retrieval/retrieverspec.h"
#include "testserver/testserver.h"

using namespace ragscope;
using namespace ragscope::core;
using claims::Label;
namespace fs = std::filesystem;

namespace {

fs::path pathOf(const QTemporaryDir& dir) { return fs::path(dir.path().toStdString()); }

// "- Claim number 7 names item 7." ... : distinct texts, also after normalizeClaimText.
std::string claimText(std::size_t i) {
  return "Claim number " + std::to_string(i) + " names item " + std::to_string(i) + ".";
}

// The verdict the scripted judge gives claim i (0-based): every third one is unsupported.
bool supported(std::size_t i) { return i % 3 != 0; }

// A run of one ranking per qid, entries in the given order, scores descending.
Run makeRun(const std::vector<std::pair<std::string, std::vector<std::string>>>& rankings) {
  Run run;
  run.tag = "hardening";
  for (const auto& [qid, docs] : rankings) {
    Ranking r;
    r.queryId = qid;
    double score = 100.0;
    for (const auto& d : docs) {
      const auto stored = run.arena->store(d);
      r.entries.push_back(
          RunEntry{stored.data(), static_cast<std::uint32_t>(stored.size()), 0, score});
      score -= 1.0;
    }
    run.rankings.push_back(std::move(r));
  }
  return run;
}

// qid -> docnos in file order.
using Ids = std::map<std::string, std::vector<std::string>>;

Ids idsOf(const Run& run) {
  Ids out;
  for (const auto& r : run.rankings)
    for (const auto& e : r.entries) out[r.queryId].emplace_back(e.docId());
  return out;
}

}  // namespace

class TestHardeningInputs : public QObject {
  Q_OBJECT

 private slots:
  void item04_remoteRetrieverNeedsTrustKeyOrNot();
  void item06_verdictParsingIsLinear();
  void item06_outOfOrderKnownAnswers();
  void item06_claimsPerAnswerCapped();
  void item09_percentInIdsRoundTrips();
  void item09_runFileRoundTripsThroughTheReaders();
  void item09_generateFindsPercentIds();
  void item12_duplicateCsvColumnsRefused();
};

void TestHardeningInputs::item04_remoteRetrieverNeedsTrustKeyOrNot() {
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const llm::TrustedEndpoints registry(pathOf(dir) / "trusted-endpoints.json");
  // BM25 is local: nothing to trust.
  RetrieverSpec bm25;
  QVERIFY(!retrieverTrustEndpoint(bm25));
  // An http and an es retriever with no key still send the queries: both need trust.
  std::string error;
  auto http = parseRetrieverArg("http:http://127.0.0.1:9/retrieve", &error);
  auto es = parseRetrieverArg("es:http://127.0.0.1:9/index", &error);
  QVERIFY2(http && es, error.c_str());
  for (const RetrieverSpec* spec : {&*http, &*es}) {
    const auto endpoint = retrieverTrustEndpoint(*spec);
    QVERIFY(endpoint.has_value());
    QCOMPARE(endpoint->baseUrl, spec->url);
    QVERIFY(endpoint->apiKeyEnv.empty() && endpoint->keychainEntry.empty());
    QVERIFY(llm::needsTrust(*endpoint));
    QVERIFY(!registry.isTrusted(*endpoint));
    QCOMPARE(llm::describeEndpointTrust(*endpoint), spec->url + " (no key)");
  }
  // "This URL without a key" is an entry of its own: trusting it does not let a key go there.
  QVERIFY(registry.add(*retrieverTrustEndpoint(*http), "retrievers page", &error));
  QVERIFY(registry.isTrusted(*retrieverTrustEndpoint(*http)));
  QVERIFY(!registry.isTrusted(*retrieverTrustEndpoint(*es)));
  RetrieverSpec keyed = *http;
  keyed.apiKeyEnv = "RAGSCOPE_TEST_HARDENING_KEY";
  QVERIFY(!registry.isTrusted(*retrieverTrustEndpoint(keyed)));
  // A URL trusted with its key may also be called without it.
  RetrieverSpec esKeyed = *es;
  esKeyed.apiKeyEnv = "RAGSCOPE_TEST_HARDENING_KEY";
  QVERIFY(registry.add(*retrieverTrustEndpoint(esKeyed), "retrievers page", &error));
  QVERIFY(registry.isTrusted(*retrieverTrustEndpoint(*es)));
  // A retriever read from a project file maps to the same endpoint as one typed in.
  auto fromProject = retrieverSpecFromJson({{"kind", "http"}, {"url", http->url}}, &error);
  QVERIFY2(fromProject, error.c_str());
  QCOMPARE(retrieverTrustEndpoint(*fromProject)->baseUrl, http->url);
}

void TestHardeningInputs::item06_verdictParsingIsLinear() {
  // 200,000 claims in order, every third unsupported, except that two neighbouring lines are
  // swapped (both out of order) and one line lost its verdict.
  constexpr std::size_t n = 200000;
  constexpr std::size_t swapped = 1000, verdictless = 150000;
  std::vector<std::string> claims;
  claims.reserve(n);
  for (std::size_t i = 0; i < n; ++i) claims.push_back(claimText(i));
  std::vector<std::string> lines(n);
  for (std::size_t i = 0; i < n; ++i)
    lines[i] = "- " + claims[i] +
               (i == verdictless ? ""
                : supported(i)   ? " SUPPORTED=1"
                                 : " SUPPORTED=0");
  std::swap(lines[swapped], lines[swapped + 1]);
  std::string reply;
  for (const auto& l : lines) reply += l + "\n";
  QVERIFY(reply.size() > 6'000'000);

  const auto parsed = claims::parseVerdicts(reply, claims);
  QCOMPARE(parsed.labels.size(), n);
  for (std::size_t i = 0; i < n; ++i) {
    const Label expected = i == swapped || i == swapped + 1 || i == verdictless ? Label::Unparsed
                           : supported(i)                                       ? Label::Supported
                                          : Label::Unsupported;
    if (parsed.labels[i] != expected)
      QFAIL(qPrintable(QString("claim %1 has the wrong label").arg(i + 1)));
  }
  QCOMPARE(parsed.unparsed(), std::size_t{3});
  const std::vector<std::string> problems = {"claim 1001: out of order", "claim 1002: out of order",
                                             "claim 150001: its line has no verdict"};
  std::vector<std::string> got = parsed.problems;
  std::sort(got.begin(), got.end());
  std::vector<std::string> want = problems;
  std::sort(want.begin(), want.end());
  QCOMPARE(got, want);

  // The other quadratic shape: 100,000 equal claims, each on a line without a verdict.
  constexpr std::size_t m = 100000;
  const std::vector<std::string> same(m, "The sky is blue.");
  std::string bare;
  for (std::size_t i = 0; i < m; ++i) bare += "- The sky is blue.\n";
  const auto unlabelled = claims::parseVerdicts(bare, same);
  QCOMPARE(unlabelled.unparsed(), m);
  QCOMPARE(unlabelled.problems.size(), m);
  QCOMPARE(unlabelled.problems.front(), std::string("claim 1: its line has no verdict"));
  QCOMPARE(unlabelled.problems.back(), "claim " + std::to_string(m) + ": its line has no verdict");

  // The claim list of a 200,000-line extraction reply: every claim, in order.
  std::string extraction;
  for (const auto& c : claims) extraction += "- " + c + "\n";
  const auto list = claims::parseClaimList(extraction);
  QVERIFY(list.problem.empty());
  QCOMPARE(list.claims, claims);
}

void TestHardeningInputs::item06_outOfOrderKnownAnswers() {
  // The linear order check decides as the pairwise rule did: a claim is out of order when a
  // claim before it is on a later line or one after it on an earlier line.
  const std::vector<std::string> abc = {"Alpha holds.", "Beta holds.", "Gamma holds."};
  struct Case {
    const char* reply;
    std::vector<Label> labels;
  };
  const Label S = Label::Supported, U = Label::Unsupported, X = Label::Unparsed;
  const std::vector<Case> cases = {
      {"- Alpha holds. SUPPORTED=1\n- Beta holds. SUPPORTED=0\n- Gamma holds. SUPPORTED=1\n",
       {S, U, S}},
      {"- Alpha holds. SUPPORTED=1\n- Gamma holds. SUPPORTED=1\n- Beta holds. SUPPORTED=0\n",
       {S, X, X}},
      {"- Gamma holds. SUPPORTED=1\n- Alpha holds. SUPPORTED=1\n- Beta holds. SUPPORTED=0\n",
       {X, X, X}},
      {"- Beta holds. SUPPORTED=0\n- Alpha holds. SUPPORTED=1\n- Gamma holds. SUPPORTED=1\n",
       {X, X, S}},
      // A missing line decides nothing about the others' order.
      {"- Alpha holds. SUPPORTED=0\n- Gamma holds. SUPPORTED=1\n", {U, X, S}},
  };
  for (const auto& c : cases) QCOMPARE(claims::parseVerdicts(c.reply, abc).labels, c.labels);
}

void TestHardeningInputs::item06_claimsPerAnswerCapped() {
  QCOMPARE(claims::kMaxClaimsPerAnswer, std::size_t{200});
  QCOMPARE(claims::claimsOverCapProblem(200), std::string());
  QCOMPARE(claims::claimsOverCapProblem(201),
           std::string("claim 201: not judged (at most 200 claims of an answer are)"));

  // A scripted judge that extracts 250 claims from the answer and labels whatever it is asked
  // about; it records how many claims each assessment listed.
  constexpr std::size_t listed = 250;
  struct Judge {
    std::mutex mutex;
    std::vector<std::size_t> asked;
  };
  auto judge = std::make_shared<Judge>();
  testserver::Options options;
  options.answer = [judge](const std::string& prompt) {
    std::string out;
    if (prompt.rfind("Break the text", 0) == 0) {
      for (std::size_t i = 0; i < listed; ++i) out += "- " + claimText(i) + "\n";
      return out;
    }
    const auto asked = test::notebook::claimsOfPrompt(prompt);
    {
      std::lock_guard lock(judge->mutex);
      judge->asked.push_back(asked.size());
    }
    for (std::size_t i = 0; i < asked.size(); ++i)
      out += "- " + asked[i] + (supported(i) ? " SUPPORTED=1\n" : " SUPPORTED=0\n");
    return out;
  };
  testserver::TestServer server(options);
  QVERIFY(server.start());
  QTemporaryDir dir;
  QVERIFY(dir.isValid());

  eval::JobSpec spec;
  spec.kind = eval::JobKind::Judge;
  spec.judge.metrics = "faithfulness";
  spec.judge.inputs = {{"q1",
                        "What items are named?",
                        std::string("A long answer."),
                        "",
                        {{"d1", "Items are named here."}},
                        {}}};
  spec.judge.judge.name = "scripted";
  spec.judge.judge.baseUrl = server.baseUrl();
  spec.judge.judge.model = "test-model";
  spec.limits.useCache = false;
  spec.limits.concurrency = 1;
  spec.store = pathOf(dir) / "capped.db";
  spec.frontEnd = "test";
  const Dataset none;
  const auto plan = eval::planJob(spec, none);
  QVERIFY2(plan.ok(), plan.error.c_str());
  eval::ResultOptions results;
  results.bootstrap.resamples = 0;
  const auto result = eval::runJob(plan, spec, {}, results);
  QVERIFY2(result.error.empty(), result.error.c_str());
  QVERIFY(result.judge.has_value());
  const eval::JudgeReport& r = *result.judge;

  // The judge was asked about the first 200 claims only, once, and no repair was needed.
  QCOMPARE(judge->asked, std::vector<std::size_t>{200});
  QCOMPARE(r.repairs, std::size_t{0});
  // Every claim is kept; the 50 past the cap are Unparsed, the others carry the judge's verdict.
  const eval::JudgedQuery& q = r.queries.front();
  QCOMPARE(q.responseClaims.claims.size(), listed);
  QCOMPARE(q.responseClaims.claims.back(), claimText(listed - 1));
  QVERIFY(!q.responseClaims.failed);
  QCOMPARE(q.responseClaims.problem,
           std::string("claims 201-250: not judged (at most 200 claims of an answer are)"));
  const eval::PremiseVerdicts* faith = q.find("faith");
  QVERIFY(faith);
  QCOMPARE(faith->labels.size(), listed);
  for (std::size_t i = 0; i < listed; ++i) {
    const Label expected = i >= 200       ? Label::Unparsed
                           : supported(i) ? Label::Supported
                                          : Label::Unsupported;
    QCOMPARE(faith->labels[i], expected);
  }
  QVERIFY(std::find(faith->problems.begin(), faith->problems.end(), q.responseClaims.problem) !=
          faith->problems.end());
  // The metric counts all 250 claims and decides on the 200 judged: 133 of them supported.
  const auto& m = r.metrics.front();
  QCOMPARE(m.itemsTotal, std::uint64_t{250});
  QCOMPARE(m.itemsScored, std::uint64_t{200});
  QCOMPARE(m.mean, 133.0 / 200.0);
  // The report says so, in text and JSON.
  QCOMPARE(r.claimListsOverCap, std::size_t{1});
  QCOMPARE(r.claimsNotJudged, std::uint64_t{50});
  const auto j = eval::judgeReportJson(r);
  QCOMPARE(j["claims_over_cap"]["cap"].get<std::size_t>(), std::size_t{200});
  QCOMPARE(j["claims_over_cap"]["lists"].get<std::size_t>(), std::size_t{1});
  QCOMPARE(j["claims_over_cap"]["claims_not_judged"].get<std::size_t>(), std::size_t{50});
  QCOMPARE(j["n_total"]["faithfulness"].get<std::size_t>(), std::size_t{250});
}

void TestHardeningInputs::item09_percentInIdsRoundTrips() {
  // Every byte alone and all 256 in one id.
  std::string all;
  for (int c = 0; c < 256; ++c) {
    const std::string one(1, static_cast<char>(c));
    QCOMPARE(decodeTrecId(encodeTrecId(one)), one);
    all += one;
  }
  QCOMPARE(decodeTrecId(encodeTrecId(all)), all);
  // Random byte strings, drawn mostly from the bytes that matter ('%', hex digits, blanks).
  std::mt19937 rng(24);
  const std::string tricky = "%%%0123456789abcdefABCDEF  \t\n\x7f\x01zZ#";
  for (int round = 0; round < 20000; ++round) {
    std::string s(rng() % 24, '\0');
    for (char& c : s)
      c = rng() % 4 == 0 ? static_cast<char>(rng() % 256) : tricky[rng() % tricky.size()];
    const std::string encoded = encodeTrecId(s);
    if (decodeTrecId(encoded) != s)
      QFAIL(qPrintable("no round trip for " + QByteArray::fromStdString(s).toHex()));
    // The encoded id is one TREC field, and it reads as itself (an id with nothing to escape
    // is written unchanged).
    for (unsigned char c : encoded) QVERIFY(c > 0x20 && c != 0x7f);
    const bool plain = std::none_of(s.begin(), s.end(), [](char c) {
      return static_cast<unsigned char>(c) <= 0x20 || c == 0x7f || c == '%';
    });
    QCOMPARE(encoded == s, plain);
    QCOMPARE(hasTrecEscape(encoded), !plain);
  }
  // Hand-known encodings.
  QCOMPARE(encodeTrecId("doc%20x"), std::string("doc%2520x"));
  QCOMPARE(encodeTrecId("100%"), std::string("100%25"));
  QCOMPARE(encodeTrecId("2023 Q3 AAPL.pdf#3#0"), std::string("2023%20Q3%20AAPL.pdf#3#0"));
  QCOMPARE(encodeTrecId("MARCO_123#4"), std::string("MARCO_123#4"));
  // Ids from elsewhere: a '%' that starts no escape reads as written.
  for (const char* id : {"50%", "%zz", "a%2", "%", "%41", "%7e", "x%g0", "%2G"}) {
    QCOMPARE(decodeTrecId(id), std::string(id));
    QVERIFY(!hasTrecEscape(id));
  }
  QCOMPARE(decodeTrecId("a%20b"), std::string("a b"));
  QCOMPARE(decodeTrecId("a%2520b"), std::string("a%20b"));
  QCOMPARE(decodeTrecId("100%25"), std::string("100%"));
  QCOMPARE(decodeTrecId("tab%09x%0a"), std::string("tab\tx\n"));
}

void TestHardeningInputs::item09_runFileRoundTripsThroughTheReaders() {
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const Ids written = {
      {"q1", {"plain", "doc%20x", "50%", "%25", "2023 Q3 AAPL.pdf#3#0", "tab\there", "%zz"}},
      {"q 2", {"caf\xc3\xa9", "a%b", "ctl\x01", "MARCO_123#4"}},
      {"q%3", {"x"}},
  };
  std::vector<std::pair<std::string, std::vector<std::string>>> rankings(written.begin(),
                                                                         written.end());
  const Run run = makeRun(rankings);
  const fs::path path = pathOf(dir) / "run.trec";
  std::string error;
  QVERIFY2(writeTrecRun(run, path, &error), error.c_str());
  const std::string text = test::readText(path);
  // Ordinary ids are written as they are; '%' and blanks escaped.
  QVERIFY(text.find("q1 Q0 plain 1 ") != std::string::npos);
  QVERIFY(text.find("q1 Q0 doc%2520x 2 ") != std::string::npos);
  QVERIFY(text.find("q1 Q0 50%25 3 ") != std::string::npos);
  QVERIFY(text.find("q%202 Q0 MARCO_123#4 4 ") != std::string::npos);
  QVERIFY(text.find("q%253 Q0 x 1 ") != std::string::npos);

  LoadOptions lo;
  // The two-pass reader (regular files, held), the one-pass streaming reader, and load into a
  // dataset: the same ids as written.
  const auto held = readTrecRun(path, lo);
  QVERIFY2(held.report.ok(), qPrintable(test::diagnosticsText(held.report)));
  QCOMPARE(idsOf(held.value), written);
  Ids streamed;
  std::mutex mutex;
  const auto visited = streamTrecRun(
      path, lo,
      [&](const RankingView& r) {
        std::lock_guard lock(mutex);
        for (const auto& e : r.entries) streamed[std::string(r.queryId)].emplace_back(e.docId());
      },
      [&] { streamed.clear(); });
  QVERIFY(visited.report.ok());
  QCOMPARE(streamed, written);
  Dataset ds;
  QVERIFY(loadTrecRun(path, ds, lo).ok());
  QCOMPARE(idsOf(ds.runs.front()), written);

  // Qrels name the same ids.
  const fs::path qrels = pathOf(dir) / "qrels.txt";
  test::writeText(qrels, encodeTrecId("q 2") + " 0 " + encodeTrecId("a%b") + " 1\n" + "q1 0 " +
                             encodeTrecId("doc%20x") + " 2\n" + "q1 0 50% 1\n");
  const auto judged = readTrecQrels(qrels, lo);
  QVERIFY(judged.report.ok());
  QCOMPARE(judged.value.byQuery.at("q 2").front().docId, std::string("a%b"));
  QCOMPARE(judged.value.byQuery.at("q1")[0].docId, std::string("doc%20x"));
  QCOMPARE(judged.value.byQuery.at("q1")[1].docId, std::string("50%"));  // from elsewhere: as is
}

void TestHardeningInputs::item09_generateFindsPercentIds() {
  // The issue's case: a corpus id that literally holds "%20", retrieved in a run ragscope wrote.
  // `generate` must find it in the corpus; the one id really missing is the only one reported.
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const fs::path root = pathOf(dir);
  test::writeText(root / "collection.tsv",
                  "doc%20x\tThe harbor was dredged in 1962.\n"
                  "plain\tThe reservoir holds water.\n");
  test::writeText(root / "topics.tsv", "q1\tWhen was the harbor dredged?\n");
  const Run run = makeRun({{"q1", {"doc%20x", "plain", "ghost"}}});
  std::string error;
  QVERIFY2(writeTrecRun(run, root / "run.trec", &error), error.c_str());
  const auto r = test::runCliText(
      {"generate", "--dataset", QString::fromStdString((root / "topics.tsv").string()), "--dataset",
       QString::fromStdString((root / "collection.tsv").string()), "--run",
       QString::fromStdString((root / "run.trec").string()), "--k", "3", "--store",
       QString::fromStdString((root / "g.db").string()), "--estimate"});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  QVERIFY2(r.err.contains("query q1: document ghost is not in the corpus"), qPrintable(r.err));
  QVERIFY2(!r.err.contains("doc%20x") && !r.err.contains("doc x"), qPrintable(r.err));
  QCOMPARE(r.err.count("not in the corpus"), 1);
}

void TestHardeningInputs::item12_duplicateCsvColumnsRefused() {
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const fs::path human = pathOf(dir) / "human.csv";
  const fs::path judge = pathOf(dir) / "judge.csv";
  test::writeText(human, "qid,score\nq1,1\nq2,0\nq3,1\n");
  test::writeText(judge, "qid,score,score\nq1,1,0\nq2,0,1\nq3,1,0\n");

  // The reader itself: the header is an error naming line 1 and the column, and nothing after it
  // is read.
  CsvReader csv(judge, 1 << 20);
  std::vector<std::string> header;
  QCOMPARE(csv.readHeader(header), CsvReader::Status::Error);
  QCOMPARE(csv.error().line, std::uint64_t{1});
  QCOMPARE(csv.error().field, std::string("score"));
  QCOMPARE(csv.error().problem, std::string("duplicate column name 'score' (columns 2 and 3)"));
  QVERIFY(!csv.canContinue());
  std::vector<std::string> fields;
  QCOMPARE(csv.next(fields), CsvReader::Status::End);

  // Through the CLI: refused as an input error, naming the file, line 1 and the column.
  const auto r = test::runCliText({"agreement", "--human", QString::fromStdString(human.string()),
                                   "--judge", QString::fromStdString(judge.string()), "--json"});
  QCOMPARE(r.exitCode, 2);
  const QString where = QString::fromStdString(judge.string()) + ":1: ";
  QVERIFY2(r.err.contains(where) && r.err.contains("duplicate column name 'score'"),
           qPrintable(r.err));
  QVERIFY2(r.out.trimmed().isEmpty(), qPrintable(r.out));
  // The same file with distinct names is read (the test can tell the two apart).
  test::writeText(judge, "qid,score,other\nq1,1,0\nq2,0,1\nq3,1,0\n");
  const auto ok = test::runCliText({"agreement", "--human", QString::fromStdString(human.string()),
                                    "--judge", QString::fromStdString(judge.string()), "--json"});
  QVERIFY2(ok.exitCode == 0, qPrintable(ok.err));

  // Docugami's CSV: the same rule, also for names equal once their blanks are trimmed.
  for (const std::string second : {"Answer", " Answer"}) {
    const fs::path folder = pathOf(dir) / ("docugami" + std::to_string(second.size()));
    test::writeText(folder / "qna_data.csv",
                    "Question,Source Docs,Question Type,Source Chunk Type,Answer," + second +
                        "\nWhat?,*a*,Single-Doc Single-Chunk RAG,Text,yes,no\n");
    Dataset ds;
    const auto report = loadDocugami(folder / "qna_data.csv", ds, LoadOptions{});
    QVERIFY2(!report.ok(), qPrintable(test::diagnosticsText(report)));
    const QString text = test::diagnosticsText(report);
    QVERIFY2(text.contains(QString::fromStdString((folder / "qna_data.csv").string()) + ":1: ") &&
                 text.contains("duplicate column name 'Answer' (columns 5 and 6)"),
             qPrintable(text));
    QVERIFY(ds.queries.empty());
  }
}

QTEST_MAIN(TestHardeningInputs)
#include "tst_hardeninginputs.moc"
