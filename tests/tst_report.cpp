// Reports and export (core/eval/resultsreport, core/export/reportcsv and reportjson, and
// `ragscope-cli report`): figures checked against values recomputed from the report's own rows
// and against trec_eval's expected output; hostile text read back through Python's csv module (an
// independent RFC 4180 reader); the same inputs giving the same bytes; bad sources named. The
// PDF (which needs Qt GUI) is tested in tst_gui with the report dialog.

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/cli.h"
#include "common/testdata.h"
#include "core/eval/reports/resultsreport.h"
#include "core/export/json.h"
#include "core/export/reportcsv.h"
#include "core/export/reportjson.h"

using namespace ragscope::core;
namespace fs = std::filesystem;
using exporting::CsvGrain;

namespace {

std::string readAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The demo project's run stores, copied: tests never open files in the source tree for writing.
fs::path copyDemoRuns(const QTemporaryDir& dir) {
  const fs::path to = fs::path(dir.path().toStdString()) / "runs";
  fs::create_directories(to);
  for (const auto& e : fs::directory_iterator(ragscope::test::sourceRoot() / "resources/demo/runs"))
    if (e.path().extension() == ".db") fs::copy_file(e.path(), to / e.path().filename());
  return to;
}

std::string csvOf(const exporting::Report& r, CsvGrain g) {
  std::ostringstream out;
  exporting::writeReportCsv(out, r, g);
  return out.str();
}

// CSV read back by Python's csv module: rows of cells, as JSON.
nlohmann::json pythonCsvRows(const fs::path& csvFile) {
  QProcess p;
  p.start("python3", {"-c",
                      "import csv, json, sys\n"
                      "csv.field_size_limit(sys.maxsize)\n"
                      "with open(sys.argv[1], newline='', encoding='utf-8') as f:\n"
                      "    json.dump(list(csv.reader(f)), sys.stdout)\n",
                      QString::fromStdString(csvFile.string())});
  if (!p.waitForFinished(60000) || p.exitCode() != 0) {
    qWarning() << p.readAllStandardError();
    return nullptr;
  }
  return nlohmann::json::parse(p.readAllStandardOutput().toStdString());
}

}  // namespace

class TstReport : public QObject {
  Q_OBJECT

 private slots:
  void eragStoreFiguresFollowTheLabels();
  void claimsStoreFiguresFollowTheVerdicts();
  void e2eStore();
  void retrievalMatchesTrecEval();
  void hostileTextSurvivesCsvAndJson();
  void sameInputsSameBytes();
  void cliReport();
  void cliReportErrors();
  void pairedComparisonsAsCompare();
};

// Each eRAG query's P_k and success_k are recomputed here from the document rows (the labels at
// ranks 1..k), and each mean from the per-query rows.
void TstReport::eragStoreFiguresFollowTheLabels() {
  QTemporaryDir dir;
  const fs::path runs = copyDemoRuns(dir);
  stats::BootstrapOptions b;
  b.resamples = 500;
  std::string err;
  const auto run = eval::reportOfStore(runs / "erag-good.db", b, &err);
  QVERIFY2(run, err.c_str());
  QCOMPARE(QString::fromStdString(run->kind), QString("erag"));
  QVERIFY(!run->documents.empty());
  QVERIFY(!run->metrics.empty());
  std::map<std::string, std::vector<double>> labels;  // qid -> labels by rank
  for (const auto& d : run->documents) {
    QVERIFY(d.label.has_value());
    auto& l = labels[d.qid];
    QCOMPARE(d.rank, l.size() + 1);
    l.push_back(*d.label);
  }
  int checked = 0;
  for (const auto& v : run->values) {
    if (v.state != "scored") continue;
    QVERIFY(v.value.has_value());
    const auto& l = labels.at(v.qid);
    for (const std::string prefix : {"P_", "success_"}) {
      if (!v.metric.starts_with(prefix)) continue;
      const std::size_t k = std::stoul(v.metric.substr(prefix.size()));
      // eRAG's rules, which hold for binary and continuous labels alike: P_k the mean of the
      // first k labels (a missing rank counts 0), success_k their maximum.
      double sum = 0, best = 0;
      for (std::size_t r = 0; r < k && r < l.size(); ++r) {
        sum += l[r];
        best = std::max(best, l[r]);
      }
      const double expected = prefix == "P_" ? sum / static_cast<double>(k) : best;
      QCOMPARE(*v.value, expected);
      ++checked;
    }
  }
  QVERIFY2(checked > 0, "the demo eRAG run has P_k or success_k measures");
  for (const auto& m : run->metrics) {
    double sum = 0;
    std::size_t n = 0;
    for (const auto& v : run->values)
      if (v.metric == m.name && v.value) {
        sum += *v.value;
        ++n;
      }
    QCOMPARE(m.n, n);
    QVERIFY(m.mean.has_value());
    QVERIFY(std::abs(*m.mean - sum / static_cast<double>(n)) < 1e-12);
    QVERIFY(m.ciLow && m.ciHigh && *m.ciLow <= *m.mean + 1e-12 && *m.mean <= *m.ciHigh + 1e-12);
  }
  // The method appendix names the model and the template's hash; the offline reader is named.
  bool model = false, hash = false;
  for (const auto& [k, v] : run->method) {
    model = model || (k == "model" && !v.empty());
    hash = hash || (k == "template hash" && v.size() == 64);
  }
  QVERIFY(model && hash);
}

// In ragscope mode a query's faithfulness is the share of its response claims supported by the
// chunks, over the claims with a verdict; correctness the same against the gold answer.
void TstReport::claimsStoreFiguresFollowTheVerdicts() {
  QTemporaryDir dir;
  const fs::path runs = copyDemoRuns(dir);
  std::string err;
  const auto run = eval::reportOfStore(runs / "claims-offline.db", {}, &err);
  QVERIFY2(run, err.c_str());
  QCOMPARE(QString::fromStdString(run->kind), QString("judge"));
  QVERIFY(!run->claims.empty());
  const std::map<std::string, std::string> premiseOf = {{"faithfulness", "chunks"},
                                                        {"correctness", "gold"}};
  int checked = 0;
  for (const auto& v : run->values) {
    const auto it = premiseOf.find(v.metric);
    if (it == premiseOf.end() || v.state != "scored") continue;
    double supported = 0, decided = 0;
    for (const auto& c : run->claims)
      if (c.qid == v.qid && c.side == "response" && c.premise == it->second &&
          (c.verdict == "supported" || c.verdict == "unsupported")) {
        decided += 1;
        supported += c.verdict == "supported" ? 1 : 0;
      }
    QVERIFY(decided > 0);
    QVERIFY2(std::abs(*v.value - supported / decided) < 1e-12, (v.qid + " " + v.metric).c_str());
    ++checked;
  }
  QVERIFY(checked >= 10);
  bool heuristicNamed = false;
  for (const auto& n : run->notes)
    heuristicNamed = heuristicNamed || n.find("heuristic") != std::string::npos;
  QVERIFY(heuristicNamed);
  QCOMPARE(QString::fromStdString(run->mode), QString("ragscope"));
}

void TstReport::e2eStore() {
  QTemporaryDir dir;
  const fs::path runs = copyDemoRuns(dir);
  std::string err;
  const auto run = eval::reportOfStore(runs / "e2e-good.db", {}, &err);
  QVERIFY2(run, err.c_str());
  QCOMPARE(run->metrics.size(), std::size_t{1});
  double sum = 0;
  std::size_t n = 0;
  for (const auto& v : run->values)
    if (v.value) {
      sum += *v.value;
      ++n;
    }
  QCOMPARE(run->metrics[0].n, n);
  QVERIFY(n > 0 && std::abs(*run->metrics[0].mean - sum / static_cast<double>(n)) < 1e-12);
  // Not a run store at all: refused, named.
  const fs::path junk = runs / "junk.db";
  std::ofstream(junk) << "not sqlite";
  QVERIFY(!eval::reportOfStore(junk, {}, &err));
  QVERIFY2(err.find("junk.db") != std::string::npos, err.c_str());
}

// A project whose dataset is trec_eval's own test qrels and run: every summary mean equals the
// figure trec_eval prints in its expected output (out.test, four decimals).
void TstReport::retrievalMatchesTrecEval() {
  RAGSCOPE_REQUIRE_DATA("trec_eval/test/out.test");
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  fs::copy_file(ragscope::test::dataPath("trec_eval/test/qrels.test"), root / "qrels.test");
  fs::copy_file(ragscope::test::dataPath("trec_eval/test/results.test"), root / "results.test");
  std::ofstream(root / "p.ragscope.json")
      << R"({"version": 1, "name": "trec_eval test", "datasets": [{"name": "te", "parts": [
            {"path": "qrels.test", "format": "trec-qrels"}, {"path": "results.test", "format": "trec-run"}]}]})";
  eval::ReportSources s;
  s.project = root / "p.ragscope.json";
  eval::ReportOptions o;
  o.bootstrap.resamples = 200;
  const auto report = eval::collectReport(s, o);
  QVERIFY2(report.problems.empty(), report.problems.empty() ? "" : report.problems.front().c_str());
  QCOMPARE(report.runs.size(), std::size_t{1});
  const auto& run = report.runs.front();
  QCOMPARE(QString::fromStdString(run.kind), QString("retrieval"));
  QCOMPARE(QString::fromStdString(report.title), QString("trec_eval test"));
  std::map<std::string, double> expected;
  std::istringstream lines(readAll(ragscope::test::dataPath("trec_eval/test/out.test")));
  std::string name, qid, value;
  while (lines >> name >> qid >> value)
    if (name != "runid") expected[name] = std::stod(value);
  int checked = 0;
  for (const auto& m : run.metrics) {
    const auto it = expected.find(m.name);
    if (it == expected.end()) continue;
    QVERIFY(m.mean.has_value());
    QVERIFY2(std::abs(*m.mean - it->second) <= 0.00005 + 1e-9, m.name.c_str());
    ++checked;
  }
  QCOMPARE(checked, static_cast<int>(expected.size()) - 1);  // all but num_q
  QVERIFY(!run.conventions.empty());
  // Means have intervals; sums (num_ret) and the geometric gm_map do not, and the notes say so.
  for (const auto& m : run.metrics) {
    const bool isMean =
        m.name != "num_ret" && m.name != "num_rel" && m.name != "num_rel_ret" && m.name != "gm_map";
    QVERIFY2(m.ciLow.has_value() == isMean, m.name.c_str());
  }
  QVERIFY(!run.notes.empty() && run.notes.front().find("gm_map") != std::string::npos);
  // -l 2 from the CLI: the same map as `eval -l 2`, and the conventions say so.
  const QString json = QString::fromStdString((root / "l2.json").string());
  const auto r = ragscope::test::runCliText(
      {"report", "--project", QString::fromStdString((root / "p.ragscope.json").string()), "-l",
       "2", "--B", "0", "--out", json});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  const auto e = ragscope::test::runCliText(
      {"eval", "-l", "2", "-m", "map", QString::fromStdString((root / "qrels.test").string()),
       QString::fromStdString((root / "results.test").string())});
  QVERIFY2(e.exitCode == 0, qPrintable(e.err));
  const double map2 = e.out.section('\t', 2, 2).trimmed().toDouble();
  const auto j = nlohmann::json::parse(readAll(json.toStdString()));
  bool found = false;
  for (const auto& m : j["runs"][0]["summary"])
    if (m["metric"] == "map") {
      QCOMPARE(QString::number(m["mean"].get<double>(), 'f', 4).toDouble(), map2);
      QVERIFY(map2 != *std::find_if(run.metrics.begin(), run.metrics.end(), [](const auto& x) {
                         return x.name == "map";
                       })->mean);
      found = true;
    }
  QVERIFY(found);
  QVERIFY(j["runs"][0]["conventions"].dump().find("grade >= 2") != std::string::npos);
}

// Queries, answers and claims made of what breaks spreadsheets and readers: every grain parses
// back through Python's csv module to the same text, neutralised where a spreadsheet would
// evaluate it; JSON keeps the text as is.
void TstReport::hostileTextSurvivesCsvAndJson() {
  using namespace std::string_literals;
  const std::vector<std::string> hostile = {"=HYPERLINK(\"http://evil.example\",\"click\")",
                                            "+1",
                                            "@SUM(A1:A9)",
                                            "-2+3",
                                            "\tindented",
                                            "\rcarriage",
                                            "<script>alert('x')</script> <b>bold</b> &amp;",
                                            "abc\xE2\x80\xAE"
                                            "def",  // right-to-left override
                                            "line one\r\nline two",
                                            "nul\0inside"s,
                                            "comma, \"quote\"",
                                            std::string(1 << 20, 'x')};
  exporting::Report r;
  r.title = "hostile";
  exporting::ReportRun run;
  run.name = "run=1";
  run.kind = "judge";
  for (std::size_t i = 0; i < hostile.size(); ++i) {
    run.values.push_back({hostile[i], "faithfulness", 0.5, "scored"});
    run.documents.push_back({hostile[i], 1, hostile[i], 1.0, hostile[i]});
    run.claims.push_back(
        {hostile[i], "response", i + 1, hostile[i], "chunks", "supported", "1 1", false});
  }
  run.metrics.push_back(
      {"faithfulness", 0.5, 0.4, 0.6, hostile.size(), hostile.size(), hostile.size(), 0, 0, 0, 0});
  r.runs.push_back(run);
  auto expectedCell = [](std::string s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i)
      out += s[i] == '\0' ? "\xEF\xBF\xBD"s : std::string(1, s[i]);
    if (!out.empty() && std::string_view("=+-@\t\r").find(out[0]) != std::string_view::npos)
      out = "'" + out;
    return out;
  };
  QTemporaryDir dir;
  for (const auto grain : {CsvGrain::Query, CsvGrain::Document, CsvGrain::Claim}) {
    const fs::path file =
        fs::path(dir.path().toStdString()) / (std::string(exporting::csvGrainName(grain)) + ".csv");
    std::ofstream(file, std::ios::binary) << csvOf(r, grain);
    const auto rows = pythonCsvRows(file);
    QVERIFY2(rows.is_array(), "python3's csv module reads the file");
    QCOMPARE(rows.size(), hostile.size() + 1);
    for (std::size_t i = 0; i < hostile.size(); ++i) {
      const auto& row = rows[i + 1];
      QCOMPARE(row[0].get<std::string>(), expectedCell("run=1"));
      const std::string want = expectedCell(hostile[i]);
      if (grain == CsvGrain::Query) {
        QCOMPARE(row[2].get<std::string>(), want);
        QCOMPARE(row[4].get<std::string>(), std::string("0.5"));  // a number, not neutralised
      } else if (grain == CsvGrain::Document) {
        QCOMPARE(row[1].get<std::string>(), want);
        QCOMPARE(row[3].get<std::string>(), want);
        QCOMPARE(row[5].get<std::string>(), want);
      } else {
        QCOMPARE(row[4].get<std::string>(), want);
        QCOMPARE(row[3].get<std::string>(), std::to_string(i + 1));
      }
    }
  }
  // The summary's numbers stay numbers.
  const fs::path summary = fs::path(dir.path().toStdString()) / "summary.csv";
  std::ofstream(summary, std::ios::binary) << csvOf(r, CsvGrain::Summary);
  const auto rows = pythonCsvRows(summary);
  QCOMPARE(rows[1][4].get<std::string>(), std::string("0.5"));
  QCOMPARE(rows[1][5].get<std::string>(), std::string("0.40000000000000002"));
  // JSON: the text itself, NUL and all.
  const auto j = nlohmann::json::parse(exporting::jsonText(exporting::reportJson(r)));
  for (std::size_t i = 0; i < hostile.size(); ++i) {
    QCOMPARE(j["runs"][0]["claims"][i]["claim"].get<std::string>(), hostile[i]);
    QCOMPARE(j["runs"][0]["per_query"][i]["qid"].get<std::string>(), hostile[i]);
  }
}

void TstReport::sameInputsSameBytes() {
  QTemporaryDir dir;
  const fs::path runs = copyDemoRuns(dir);
  eval::ReportSources s;
  for (const char* f : {"erag-good.db", "e2e-good.db", "claims-offline.db"})
    s.stores.push_back(runs / f);
  eval::ReportOptions o;
  o.bootstrap.resamples = 300;
  const auto a = eval::collectReport(s, o);
  const auto b = eval::collectReport(s, o);
  QCOMPARE(a.runs.size(), std::size_t{3});
  QCOMPARE(exporting::jsonText(exporting::reportJson(a), 2),
           exporting::jsonText(exporting::reportJson(b), 2));
  for (const auto g : {CsvGrain::Summary, CsvGrain::Query, CsvGrain::Document, CsvGrain::Claim})
    QCOMPARE(csvOf(a, g), csvOf(b, g));
  // Another seed moves the intervals, not the means.
  o.bootstrap.seed += 1;
  const auto c = eval::collectReport(s, o);
  QCOMPARE(*c.runs[0].metrics[0].mean, *a.runs[0].metrics[0].mean);
}

void TstReport::cliReport() {
  QTemporaryDir dir;
  const fs::path runs = copyDemoRuns(dir);
  const fs::path json = fs::path(dir.path().toStdString()) / "r.json";
  const auto r = ragscope::test::runCliText(
      {"report", "--store", QString::fromStdString((runs / "erag-good.db").string()), "--store",
       QString::fromStdString((runs / "claims-offline.db").string()), "--B", "300", "--out",
       QString::fromStdString(json.string())});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  const auto j = nlohmann::json::parse(readAll(json));
  QCOMPARE(j["schema"].get<std::string>(), std::string("ragscope-report"));
  QCOMPARE(j["schema_version"].get<int>(), exporting::kReportSchemaVersion);
  QCOMPARE(j["runs"].size(), std::size_t{2});
  // The same figures as the collector gives.
  stats::BootstrapOptions b;
  b.resamples = 300;
  std::string err;
  const auto erag = eval::reportOfStore(runs / "erag-good.db", b, &err);
  QVERIFY(erag);
  for (std::size_t m = 0; m < erag->metrics.size(); ++m) {
    QCOMPARE(j["runs"][0]["summary"][m]["metric"].get<std::string>(), erag->metrics[m].name);
    QCOMPARE(j["runs"][0]["summary"][m]["mean"].get<double>(), *erag->metrics[m].mean);
    QCOMPARE(j["runs"][0]["summary"][m]["ci95"][0].get<double>(), *erag->metrics[m].ciLow);
  }
  // CSV at the claim grain: the header, then one row per claim verdict.
  const fs::path csv = fs::path(dir.path().toStdString()) / "claims.csv";
  const auto c = ragscope::test::runCliText(
      {"report", "--store", QString::fromStdString((runs / "claims-offline.db").string()), "--out",
       QString::fromStdString(csv.string()), "--grain", "claim"});
  QVERIFY2(c.exitCode == 0, qPrintable(c.err));
  const std::string text = readAll(csv);
  QVERIFY(text.starts_with("run,qid,side,claim_index,claim,premise,verdict,repeats,flipped\r\n"));
  // The demo project: its two TREC runs and its five stores.
  const fs::path project = fs::path(dir.path().toStdString()) / "demo";
  fs::copy(ragscope::test::sourceRoot() / "resources/demo", project, fs::copy_options::recursive);
  const fs::path all = fs::path(dir.path().toStdString()) / "demo.json";
  const auto p = ragscope::test::runCliText(
      {"report", "--project", QString::fromStdString((project / "demo.ragscope.json").string()),
       "--B", "200", "--out", QString::fromStdString(all.string())});
  QVERIFY2(p.exitCode == 0, qPrintable(p.err));
  const auto dj = nlohmann::json::parse(readAll(all));
  QCOMPARE(dj["runs"].size(), std::size_t{7});
  QCOMPARE(dj["runs"][0]["kind"].get<std::string>(), std::string("retrieval"));
  QCOMPARE(dj["title"].get<std::string>(), std::string("ragscope demo"));
}

void TstReport::cliReportErrors() {
  QTemporaryDir dir;
  const fs::path runs = copyDemoRuns(dir);
  const QString out = dir.path() + "/r.csv";
  // A store that is not there: named, exit 2, nothing written.
  auto r =
      ragscope::test::runCliText({"report", "--store", dir.path() + "/missing.db", "--out", out});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("missing.db"), qPrintable(r.err));
  QVERIFY(!QFile::exists(out));
  // One good, one missing: written, exit 1, the missing one named.
  r = ragscope::test::runCliText({"report", "--store",
                                  QString::fromStdString((runs / "e2e-good.db").string()),
                                  "--store", dir.path() + "/missing.db", "--out", out});
  QCOMPARE(r.exitCode, 1);
  QVERIFY(r.err.contains("missing.db"));
  QVERIFY(QFile::exists(out));
  // Bad arguments.
  const QString store = QString::fromStdString((runs / "e2e-good.db").string());
  QCOMPARE(ragscope::test::runCliText({"report", "--store", store, "--out", dir.path() + "/r.txt"})
               .exitCode,
           2);
  QCOMPARE(ragscope::test::runCliText(
               {"report", "--store", store, "--out", dir.path() + "/r.json", "--grain", "query"})
               .exitCode,
           2);
  QCOMPARE(
      ragscope::test::runCliText({"report", "--store", store, "--out", out, "--grain", "chunk"})
          .exitCode,
      2);
  QCOMPARE(ragscope::test::runCliText({"report", "--out", out}).exitCode, 2);
  QCOMPARE(
      ragscope::test::runCliText({"report", "--store", store, "--out", out, "--B", "-1"}).exitCode,
      2);
  QCOMPARE(ragscope::test::runCliText(
               {"report", "--store", store, "--out", dir.path() + "/r.pdf", "--grain", "claim"})
               .exitCode,
           2);
  const auto badSection = ragscope::test::runCliText(
      {"report", "--store", store, "--out", dir.path() + "/r.pdf", "--sections", "charts,nope"});
  QCOMPARE(badSection.exitCode, 2);
  QVERIFY(badSection.err.contains("'nope'"));
  QCOMPARE(ragscope::test::runCliText({"report", "--store", store, "--out", dir.path() + "/r.json",
                                       "--sections", "charts"})
               .exitCode,
           2);
  QVERIFY(!QFile::exists(dir.path() + "/r.pdf"));
}

// The report's paired comparison of the demo's two TREC runs is `ragscope-cli compare`'s, figure
// for figure (the same resamples and seed).
void TstReport::pairedComparisonsAsCompare() {
  QTemporaryDir dir;
  const fs::path project = fs::path(dir.path().toStdString()) / "demo";
  fs::copy(ragscope::test::sourceRoot() / "resources/demo", project, fs::copy_options::recursive);
  const QString json = dir.path() + "/r.json";
  auto r = ragscope::test::runCliText(
      {"report", "--project", QString::fromStdString((project / "demo.ragscope.json").string()),
       "--B", "10000", "--out", json});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  const auto j = nlohmann::json::parse(readAll(json.toStdString()));
  QCOMPARE(j["comparisons"].size(), std::size_t{3});  // retrieval, eRAG, end-to-end
  const auto& c = j["comparisons"][0];
  QCOMPARE(c["a"].get<std::string>(), std::string("bm25-tuned"));
  QCOMPARE(c["metric"].get<std::string>(), std::string("map"));
  const QString dp = QString::fromStdString(project.string());
  r = ragscope::test::runCliText({"compare", dp + "/run-good.trec", dp + "/run-weak.trec",
                                  "--qrels", dp + "/qrels.txt", "--measure", "map", "--json"});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  const auto cmp = nlohmann::json::parse(r.out.toStdString());
  QCOMPARE(c["n"].get<int>(), cmp["n"].get<int>());
  QCOMPARE(c["mean_diff"].get<double>(), cmp["mean_diff"].get<double>());
  QCOMPARE(c["ci95"][0].get<double>(), cmp["ci_low"].get<double>());
  QCOMPARE(c["ci95"][1].get<double>(), cmp["ci_high"].get<double>());
  QCOMPARE(c["p_randomization"].get<double>(), cmp["p_randomization"].get<double>());
  QCOMPARE(c["p_t"].get<double>(), cmp["p_ttest"].get<double>());
  QCOMPARE(c["wins"].get<int>(), cmp["wins"].get<int>());
}

QTEST_GUILESS_MAIN(TstReport)
#include "tst_report.moc"
