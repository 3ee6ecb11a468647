// Project files: versioned JSON, atomic writes, relative paths, diagnostics for bad files, and the
// bundled demo project.

#include <sys/stat.h>

#include <QTemporaryDir>
#include <QTest>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <thread>

#include "common/files.h"
#include "common/testdata.h"
#include "core/data/dataset.h"
#include "core/eval/jobs/e2ejob.h"
#include "core/eval/jobs/eragjob.h"
#include "core/eval/jobs/judgejob.h"
#include "core/store/project.h"
#include "core/store/runstore.h"

using namespace ragscope::core;
using ragscope::test::diagnosticsText;
using ragscope::test::writeText;
namespace fs = std::filesystem;

namespace {

fs::path tempRoot(const QTemporaryDir& dir) { return fs::path(dir.path().toStdString()); }

std::string readText(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Project sampleProject() {
  Project p;
  p.name = "Retriever bake-off";
  p.description = "Three retrievers, one LLM; \"quoted\" text and ünïcode survive";
  ProjectDataset a;
  a.name = "TREC DL 2019";
  a.parts.push_back({"data/qrels.txt", std::string("trec-qrels")});
  a.parts.push_back({"data/run.bm25", std::string("trec-run")});
  a.parts.push_back({"data/topics.tsv", std::nullopt});
  ProjectDataset b;
  b.name = "Empty";
  p.datasets = {a, b};
  return p;
}

}  // namespace

class TestProject : public QObject {
  Q_OBJECT

 private slots:
  void roundTrip() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path file = tempRoot(dir) / "bakeoff.ragscope.json";
    const Project original = sampleProject();

    const auto error = writeProject(original, file);
    QVERIFY2(!error, error ? error->c_str() : "");

    const auto loaded = readProject(file);
    QVERIFY2(loaded.report.ok(), qPrintable(diagnosticsText(loaded.report)));
    QCOMPARE(loaded.report.errors, std::uint64_t{0});
    QCOMPARE(loaded.report.warnings, std::uint64_t{0});
    const Project& p = loaded.value;
    QCOMPARE(p.version, Project::kVersion);
    QCOMPARE(p.name, original.name);
    QCOMPARE(p.description, original.description);
    QCOMPARE(p.file, file);
    QCOMPARE(p.datasets.size(), std::size_t{2});
    QCOMPARE(p.datasets[0].name, std::string("TREC DL 2019"));
    QCOMPARE(p.datasets[0].parts.size(), std::size_t{3});
    QCOMPARE(p.datasets[0].parts[0].path, std::string("data/qrels.txt"));
    QCOMPARE(p.datasets[0].parts[0].format, std::optional<std::string>("trec-qrels"));
    QCOMPARE(p.datasets[0].parts[1].format, std::optional<std::string>("trec-run"));
    QVERIFY(!p.datasets[0].parts[2].format.has_value());
    QCOMPARE(p.datasets[1].name, std::string("Empty"));
    QVERIFY(p.datasets[1].parts.empty());

    // Writing what was read gives the same bytes: the file format is stable.
    const std::string first = readText(file);
    QVERIFY(!writeProject(p, file));
    QCOMPARE(readText(file), first);
    // Keys come in a readable order, version first.
    QVERIFY(first.rfind("{\n  \"version\": 1,", 0) == 0);
  }

  void atomicWriteLeavesNoTempFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path file = tempRoot(dir) / "p.ragscope.json";
    Project p = sampleProject();
    QVERIFY(!writeProject(p, file));
    p.name = "second version";
    QVERIFY(!writeProject(p, file));  // overwrite in place

    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(tempRoot(dir)))
      names.push_back(entry.path().filename().string());
    QCOMPARE(names.size(), std::size_t{1});
    QCOMPARE(names[0], std::string("p.ragscope.json"));
    QCOMPARE(readProject(file).value.name, std::string("second version"));
  }

  void writeFailureIsReported() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path file = tempRoot(dir) / "no-such-folder" / "p.ragscope.json";
    const auto error = writeProject(sampleProject(), file);
    QVERIFY(error.has_value());
    QVERIFY2(error->find(file.string()) == 0, error->c_str());
    QVERIFY(!fs::exists(file));

    // An existing project survives a failed write untouched (the rename never happened).
    const fs::path good = tempRoot(dir) / "good.ragscope.json";
    QVERIFY(!writeProject(sampleProject(), good));
    const std::string before = readText(good);
    Project bad = sampleProject();
    bad.name = std::string("\xff\xfe not UTF-8");  // cannot be serialised as JSON
    QVERIFY(writeProject(bad, good).has_value());
    QCOMPARE(readText(good), before);
    QCOMPARE(std::distance(fs::directory_iterator(tempRoot(dir)), fs::directory_iterator{}), 1L);
  }

  void datasetFromOpenedFiles() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path root = tempRoot(dir);
    const fs::path file = root / "projects" / "new.ragscope.json";  // not written yet
    const ProjectDataset ds = makeProjectDataset("DL19",
                                                 {{root / "data" / "qrels.txt", Format::TrecQrels},
                                                  {root / "projects" / "run.trec", Format::TrecRun},
                                                  {root / "bundle", std::nullopt}},
                                                 file);
    QCOMPARE(ds.name, std::string("DL19"));
    QCOMPARE(ds.parts.size(), std::size_t{3});
    QCOMPARE(ds.parts[0].path, std::string("../data/qrels.txt"));
    QCOMPARE(ds.parts[0].format, std::optional<std::string>("trec-qrels"));
    QCOMPARE(ds.parts[1].path, std::string("run.trec"));
    QCOMPARE(ds.parts[1].format, std::optional<std::string>("trec-run"));
    QCOMPARE(ds.parts[2].path, std::string("../bundle"));
    QVERIFY(!ds.parts[2].format);  // a bundle folder: detected again on load

    Project p;
    p.name = "n";
    p.putDataset(ds);
    ProjectDataset other = ds;
    other.name = "other";
    p.putDataset(other);
    ProjectDataset replaced = ds;
    replaced.parts.pop_back();
    p.putDataset(replaced);  // same name: replaces, keeps its place
    QCOMPARE(p.datasets.size(), std::size_t{2});
    QCOMPARE(p.datasets[0].name, std::string("DL19"));
    QCOMPARE(p.datasets[0].parts.size(), std::size_t{2});
    QCOMPARE(p.datasets[1].name, std::string("other"));

    // Written and read back, the paths resolve to the files that were opened.
    fs::create_directories(file.parent_path());
    QVERIFY(!writeProject(p, file));
    const auto loaded = readProject(file);
    QVERIFY2(loaded.report.ok(), qPrintable(diagnosticsText(loaded.report)));
    QCOMPARE(loaded.value.resolve(loaded.value.datasets[0].parts[0]), root / "data" / "qrels.txt");
    QCOMPARE(loaded.value.resolve(loaded.value.datasets[0].parts[1]),
             root / "projects" / "run.trec");
  }

  void relativePathResolution() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path root = tempRoot(dir);
    const fs::path file = root / "projects" / "p.ragscope.json";
    writeText(file, R"({"version": 1, "name": "r", "datasets": [{"name": "d", "parts": [
        {"path": "qrels.txt", "format": "trec-qrels"},
        {"path": "../data/run.txt"},
        {"path": "/srv/shared/collection.tsv", "format": "msmarco-collection"}]}]})");
    const auto loaded = readProject(file);
    QVERIFY2(loaded.report.ok(), qPrintable(diagnosticsText(loaded.report)));
    const Project& p = loaded.value;
    const auto& parts = p.datasets.at(0).parts;
    QCOMPARE(p.resolve(parts[0]), root / "projects" / "qrels.txt");
    QCOMPARE(p.resolve(parts[1]), root / "data" / "run.txt");  // ".." folded away
    QCOMPARE(p.resolve(parts[2]), fs::path("/srv/shared/collection.tsv"));

    // "Save as" into another folder rebases relative paths so they name the same files.
    const fs::path moved = root / "elsewhere" / "deeper" / "p.ragscope.json";
    fs::create_directories(moved.parent_path());
    QVERIFY(!writeProject(p, moved));
    const auto reread = readProject(moved);
    QVERIFY(reread.report.ok());
    const auto& movedParts = reread.value.datasets.at(0).parts;
    QCOMPARE(movedParts[0].path, std::string("../../projects/qrels.txt"));
    QCOMPARE(reread.value.resolve(movedParts[0]), root / "projects" / "qrels.txt");
    QCOMPARE(reread.value.resolve(movedParts[1]), root / "data" / "run.txt");
    QCOMPARE(movedParts[2].path, std::string("/srv/shared/collection.tsv"));
  }

  void badProject_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("problem");  // a substring of the problem sentence
    QTest::addColumn<int>("line");

    QTest::newRow("invalid JSON") << QByteArray("{\n  \"version\": 1,\n  \"name\": oops\n}\n") << ""
                                  << "invalid JSON" << 3;
    QTest::newRow("truncated") << QByteArray("{\"version\": 1, \"name\": \"x\"") << ""
                               << "invalid JSON" << 1;
    QTest::newRow("empty file") << QByteArray("") << ""
                                << "invalid JSON" << 1;
    QTest::newRow("not an object") << QByteArray("[1, 2]") << ""
                                   << "expected a JSON object" << 0;
    QTest::newRow("missing version") << QByteArray(R"({"name": "x", "datasets": []})") << "version"
                                     << "missing" << 0;
    QTest::newRow("newer version")
        << QByteArray(R"({"version": 2, "name": "x", "datasets": []})") << "version"
        << "unsupported project version 2 (this ragscope reads version 1)" << 0;
    QTest::newRow("version zero") << QByteArray(R"({"version": 0, "name": "x", "datasets": []})")
                                  << "version"
                                  << "unsupported project version 0" << 0;
    QTest::newRow("version as string")
        << QByteArray(R"({"version": "1", "name": "x", "datasets": []})") << "version"
        << "expected an integer, found string" << 0;
    QTest::newRow("missing name") << QByteArray(R"({"version": 1, "datasets": []})") << "name"
                                  << "missing" << 0;
    QTest::newRow("name not string")
        << QByteArray(R"({"version": 1, "name": 7, "datasets": []})") << "name"
        << "expected a string, found number" << 0;
    QTest::newRow("missing datasets") << QByteArray(R"({"version": 1, "name": "x"})") << "datasets"
                                      << "missing" << 0;
    QTest::newRow("datasets not array")
        << QByteArray(R"({"version": 1, "name": "x", "datasets": {}})") << "datasets"
        << "expected an array, found object" << 0;
    QTest::newRow("dataset missing parts")
        << QByteArray(R"({"version": 1, "name": "x", "datasets": [{"name": "d"}]})")
        << "datasets[0].parts"
        << "missing" << 0;
    QTest::newRow("dataset missing name")
        << QByteArray(R"({"version": 1, "name": "x", "datasets": [{"parts": []}]})")
        << "datasets[0].name"
        << "missing" << 0;
    QTest::newRow("part missing path")
        << QByteArray(
               R"({"version": 1, "name": "x", "datasets": [{"name": "d", "parts": [{"path": "a"}, {"format": "kilt"}]}]})")
        << "datasets[0].parts[1].path"
        << "missing" << 0;
    QTest::newRow("part empty path")
        << QByteArray(
               R"({"version": 1, "name": "x", "datasets": [{"name": "d", "parts": [{"path": ""}]}]})")
        << "datasets[0].parts[0].path"
        << "empty" << 0;
    QTest::newRow("format not string")
        << QByteArray(
               R"({"version": 1, "name": "x", "datasets": [{"name": "d", "parts": [{"path": "a", "format": 3}]}]})")
        << "datasets[0].parts[0].format"
        << "expected a string or null, found number" << 0;
    QTest::newRow("too deep") << QByteArray(200, '[') << ""
                              << "nested deeper than" << 1;
    // Issue 35, item 13: a member given twice (json::parse keeps the last, so one file would
    // name two paths) is refused with its field and line.
    QTest::newRow("path given twice")
        << QByteArray(
               "{\"version\": 1, \"name\": \"x\", \"datasets\": [{\"name\": \"d\",\n"
               "  \"parts\": [{\"path\": \"a.jsonl\",\n    \"path\": \"/etc/x.jsonl\"}]}]}")
        << "datasets[0].parts[0].path"
        << "member \"path\" appears twice in one object" << 3;
  }

  void badProject() {
    QFETCH(QByteArray, content);
    QFETCH(QString, field);
    QFETCH(QString, problem);
    QFETCH(int, line);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path file = tempRoot(dir) / "bad.ragscope.json";
    writeText(file, content.toStdString());

    const auto loaded = readProject(file);
    QVERIFY(!loaded.report.ok());
    QVERIFY(loaded.report.hasErrors());
    QVERIFY(!loaded.report.diagnostics.empty());
    const Diagnostic& d = loaded.report.diagnostics.front();
    QCOMPARE(d.severity, Severity::Error);
    QCOMPARE(QString::fromStdString(d.file), QString::fromStdString(file.string()));
    QCOMPARE(QString::fromStdString(d.field), field);
    QVERIFY2(QString::fromStdString(d.problem).contains(problem), d.problem.c_str());
    QCOMPARE(d.line, std::uint64_t(line));
    // The message the user sees: file[:line]: [field: ]problem
    QString expectedPrefix = QString::fromStdString(file.string());
    if (line > 0) expectedPrefix += ":" + QString::number(line);
    expectedPrefix += ": ";
    if (!field.isEmpty()) expectedPrefix += field + ": ";
    QVERIFY2(QString::fromStdString(d.toString()).startsWith(expectedPrefix), d.toString().c_str());
  }

  void missingFileIsReported() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path file = tempRoot(dir) / "absent.ragscope.json";
    const auto loaded = readProject(file);
    QVERIFY(!loaded.report.ok());
    QCOMPARE(loaded.report.diagnostics.size(), std::size_t{1});
    QVERIFY(loaded.report.diagnostics[0].problem.find("cannot open") == 0);
    QVERIFY(!readProject(tempRoot(dir)).report.ok());  // a folder is not a project file
  }

  void toleratedInput() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path file = tempRoot(dir) / "p.ragscope.json";
    // BOM, CRLF, null format and description, and an unknown key (a warning, not an error).
    writeText(
        file,
        "\xEF\xBB\xBF{\r\n\"version\": 1, \"name\": \"n\", \"description\": null, \"colour\": "
        "\"red\",\r\n\"datasets\": [{\"name\": \"d\", \"parts\": [{\"path\": \"a.tsv\", "
        "\"format\": null}]}]}\r\n");
    const auto loaded = readProject(file);
    QVERIFY2(loaded.report.ok(), qPrintable(diagnosticsText(loaded.report)));
    QCOMPARE(loaded.report.errors, std::uint64_t{0});
    QCOMPARE(loaded.report.warnings, std::uint64_t{1});
    QCOMPARE(loaded.report.diagnostics[0].field, std::string("colour"));
    QVERIFY(!loaded.value.datasets.at(0).parts.at(0).format.has_value());
  }

  void datasetPartsReportsProblems() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path file = tempRoot(dir) / "p.ragscope.json";
    writeText(tempRoot(dir) / "qrels.txt", "1 0 d1 1\n");
    writeText(file, R"({"version": 1, "name": "n", "datasets": [{"name": "d", "parts": [
        {"path": "qrels.txt", "format": "trec-qrels"},
        {"path": "x.bin", "format": "no-such-format"},
        {"path": "missing.tsv"},
        {"path": "./qrels.txt"}]}]})");
    const auto loaded = readProject(file);
    QVERIFY(loaded.report.ok());
    LoadReport report;
    const auto parts = loaded.value.datasetParts(loaded.value.datasets.at(0), report);
    QCOMPARE(parts.size(), std::size_t{2});
    QCOMPARE(parts[0].path, tempRoot(dir) / "qrels.txt");
    QVERIFY(parts[0].format == Format::TrecQrels);
    QCOMPARE(parts[1].path, tempRoot(dir) / "qrels.txt");
    QVERIFY(!parts[1].format.has_value());  // no format named: loadDataset() detects it
    QCOMPARE(report.errors, std::uint64_t{2});
    QCOMPARE(report.diagnostics.size(), std::size_t{2});
    QCOMPARE(report.diagnostics[0].field, std::string("datasets[0].parts[1].format"));
    QVERIFY2(report.diagnostics[0].problem.find("unknown format 'no-such-format'") == 0,
             report.diagnostics[0].problem.c_str());
    QVERIFY(report.diagnostics[0].problem.find("trec-run") != std::string::npos);  // lists names
    QCOMPARE(report.diagnostics[1].field, std::string("datasets[0].parts[2].path"));
    QVERIFY(report.diagnostics[1].problem.find("not found") == 0);
  }

  void demoProjectExistsAndListsReadableFiles() {
    const auto found = findDemoProject();
    QVERIFY(found.has_value());
    const fs::path expected =
        ragscope::test::sourceRoot() / "resources" / "demo" / "demo.ragscope.json";
    QCOMPARE(fs::canonical(*found), fs::canonical(expected));

    const auto loaded = readProject(*found);
    QVERIFY2(loaded.report.ok(), qPrintable(diagnosticsText(loaded.report)));
    QCOMPARE(loaded.report.errors + loaded.report.warnings, std::uint64_t{0});
    const Project& p = loaded.value;
    QCOMPARE(p.name, std::string("ragscope demo"));
    QCOMPARE(p.datasets.size(), std::size_t{2});
    QCOMPARE(p.datasets[0].name, std::string("Harbor City demo"));
    QCOMPARE(p.datasets[0].parts.size(), std::size_t{6});
    QCOMPARE(p.datasets[1].name, std::string("Harbor City RAG answers"));
    QCOMPARE(p.datasets[1].parts.size(), std::size_t{1});
    QCOMPARE(p.runStores.size(), std::size_t{5});
    for (const auto& store : p.runStores)
      QVERIFY2(fs::is_regular_file(p.resolve(store)), store.c_str());
    for (const auto& ds : p.datasets) {
      for (const auto& part : ds.parts) {
        const fs::path path = p.resolve(part);
        QVERIFY2(fs::is_regular_file(path), path.c_str());
        QVERIFY2(fs::file_size(path) > 0, path.c_str());
        std::ifstream in(path);
        QVERIFY2(in.good(), path.c_str());
        QVERIFY(part.format.has_value());  // the demo names every format explicitly
        QVERIFY2(formatFromName(*part.format).has_value(), part.format->c_str());
      }
      LoadReport report;
      const auto parts = p.datasetParts(ds, report);
      QCOMPARE(parts.size(), ds.parts.size());
      QVERIFY2(report.diagnostics.empty(), qPrintable(diagnosticsText(report)));
    }
  }

  void runStoresRoundTrip() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path root = tempRoot(dir);
    Project p;
    p.name = "with runs";
    p.runStores = {"runs/erag.db", "/srv/shared/e2e.db"};
    const fs::path file = root / "p.ragscope.json";
    QVERIFY(!writeProject(p, file));
    auto loaded = readProject(file);
    QVERIFY2(loaded.report.ok(), qPrintable(diagnosticsText(loaded.report)));
    QCOMPARE(loaded.value.runStores, p.runStores);
    QCOMPARE(loaded.value.resolve(loaded.value.runStores[0]), root / "runs" / "erag.db");
    // Save as elsewhere: rebased like dataset parts.
    const fs::path moved = root / "sub" / "p.ragscope.json";
    fs::create_directories(moved.parent_path());
    QVERIFY(!writeProject(loaded.value, moved));
    const auto reread = readProject(moved);
    QCOMPARE(reread.value.runStores[0], std::string("../runs/erag.db"));
    QCOMPARE(reread.value.runStores[1], std::string("/srv/shared/e2e.db"));
    // No stores: no "runs" key at all (older files keep their shape).
    p.runStores.clear();
    QVERIFY(!writeProject(p, file));
    QVERIFY(readText(file).find("\"runs\"") == std::string::npos);
    // A wrong type is an error naming the field.
    writeText(file, R"({"version": 1, "name": "n", "datasets": [], "runs": ["a.db", 3]})");
    loaded = readProject(file);
    QCOMPARE(loaded.report.errors, std::uint64_t{1});
    QCOMPARE(loaded.report.diagnostics.at(0).field, std::string("runs[1]"));
  }

  void demoRunStoresMoveWithTheProject() {
    // The demo's eRAG and end-to-end stores are listed by the project and work from any checkout:
    // copied to another folder, each opens and yields its plan (29 questions) and report. The
    // stores record their input files only as provenance (path + sha256); nothing reads them back.
    const auto found = findDemoProject();
    QVERIFY(found.has_value());
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const fs::path copy = tempRoot(dir) / "moved-demo";
    fs::copy(found->parent_path(), copy, fs::copy_options::recursive);
    const auto loaded = readProject(copy / "demo.ragscope.json");
    QVERIFY2(loaded.report.ok(), qPrintable(diagnosticsText(loaded.report)));
    const Project& p = loaded.value;
    QCOMPARE(p.runStores,
             (std::vector<std::string>{"runs/erag-good.db", "runs/erag-weak.db", "runs/e2e-good.db",
                                       "runs/e2e-weak.db", "runs/claims-offline.db"}));
    for (const auto& relative : p.runStores) {
      const fs::path path = p.resolve(relative);
      if (relative.find("claims") != std::string::npos) {
        // The claims run holds its answers, chunks and replies: the metrics come from it alone.
        const auto report = eval::readJudgeReport(path, {.resamples = 0});
        QVERIFY2(report.error.empty(), report.error.c_str());
        QCOMPARE(report.queries.size(), std::size_t{13});
        QCOMPARE(report.pendingItems, std::size_t{0});
        QVERIFY(report.heuristic);
        continue;
      }
      QCOMPARE(path, copy / relative);
      store::RunStore runStore;
      std::string error;
      QVERIFY2(runStore.open(path, &error), error.c_str());
      const bool erag = relative.find("erag") != std::string::npos;
      const auto plan = eval::readStoredPlan(
          runStore, erag ? eval::kEragJobKind : eval::kE2eJobKind, relative, &error);
      QVERIFY2(plan.has_value(), error.c_str());
      QCOMPARE(plan->queries.size(), std::size_t{29});
      QCOMPARE(plan->metricKey, std::string("rouge-l"));
      if (erag) {
        const auto report = eval::computeEragReport(runStore, {}, {});
        QVERIFY2(report.error.empty(), report.error.c_str());
        QVERIFY(report.incomplete.empty());  // every label is stored: nothing to recompute
      }
    }
  }

  void demoDatasetLoads() {
    const auto found = findDemoProject();
    QVERIFY(found.has_value());
    const auto project = readProject(*found).value;
    QCOMPARE(project.datasets.size(), std::size_t{2});
    auto load = [&](const ProjectDataset& pd) {
      LoadReport partsReport;
      const auto parts = project.datasetParts(pd, partsReport);
      return loadDataset(parts, LoadOptions{});
    };

    const auto retrieval = load(project.datasets[0]);
    QVERIFY2(
        retrieval.report.ok() && !retrieval.report.hasErrors() && retrieval.report.warnings == 0,
        qPrintable(diagnosticsText(retrieval.report)));
    const Dataset& ds = retrieval.value;
    // Counts from resources/demo/README.md.
    QCOMPARE(ds.corpus.size(), std::size_t{52});
    QCOMPARE(ds.queries.size(), std::size_t{29});  // KILT and topics.tsv merge by id
    QCOMPARE(ds.qrels.byQuery.size(), std::size_t{29});
    QCOMPARE(ds.qrels.judgmentCount(), std::size_t{225});
    const auto grades = ds.qrels.gradeCounts();
    QCOMPARE(grades.at(0), std::size_t{175});
    QCOMPARE(grades.at(1), std::size_t{20});
    QCOMPARE(grades.at(2), std::size_t{30});
    QCOMPARE(ds.runs.size(), std::size_t{2});
    QCOMPARE(ds.runs[0].entryCount(), std::size_t{339});
    QCOMPARE(ds.runs[1].entryCount(), std::size_t{435});
    QVERIFY(ds.examples.empty());

    const Query* q13 = ds.findQuery("q13");
    QVERIFY(q13 != nullptr);
    QCOMPARE(q13->goldDocIds(), (std::vector<std::string>{"hc04", "hc05", "hc06"}));
    const Query* q01 = ds.findQuery("q01");
    QVERIFY(q01 != nullptr);
    QCOMPARE(q01->goldAnswers(), (std::vector<std::string>{"1962", "in 1962"}));
    // Every provenance id names a passage of the collection, and every run docno too.
    for (const auto& q : ds.queries)
      for (const auto& id : q.goldDocIds()) QVERIFY2(ds.corpus.contains(id), id.c_str());
    for (const auto& run : ds.runs)
      for (const auto& ranking : run.rankings)
        for (const auto& e : ranking.entries)
          QVERIFY2(ds.corpus.contains(e.docId()), std::string(e.docId()).c_str());

    const auto rag = load(project.datasets[1]);
    QVERIFY2(rag.report.ok() && !rag.report.hasErrors() && rag.report.warnings == 0,
             qPrintable(diagnosticsText(rag.report)));
    QCOMPARE(rag.value.examples.size(), std::size_t{13});
    for (const auto& ex : rag.value.examples) {
      QVERIFY(!ex.query.empty());
      QVERIFY(!ex.response.empty());
      QVERIFY(!ex.reference.empty());
      QVERIFY(!ex.contexts.empty());
    }
  }

  // ---- issue 12 ---------------------------------------------------------------------------------

  // Item 1: a number that overflows a double is nlohmann's out_of_range, not parse_error.
  void overflowingNumber() {
    QTemporaryDir dir;
    const fs::path file = tempRoot(dir) / "p.ragscope.json";
    writeText(file, "{\"version\": 1, \"name\": \"n\",\n\"datasets\": [], \"x\": 1e400}\n");
    const auto loaded = readProject(file);  // must not throw
    QVERIFY(!loaded.report.ok());
    QCOMPARE(loaded.report.diagnostics.size(), std::size_t{1});
    const std::string text = loaded.report.diagnostics[0].toString();
    QVERIFY2(text.find(file.string() + ":2: ") == 0, text.c_str());
    QVERIFY2(text.find("number overflow") != std::string::npos, text.c_str());

    writeText(file, "{\"version\": 1e400, \"name\": \"n\", \"datasets\": []}");
    QVERIFY(!readProject(file).report.ok());
  }

  // Item 3: a project "file" that never ends or blocks is refused before it is read.
  void specialProjectFileIsRefused() {
    QTemporaryDir dir;
    const fs::path fifo = tempRoot(dir) / "fifo.ragscope.json";
    QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
    for (const fs::path& file : {fs::path("/dev/zero"), fifo, fs::path("/proc/self/status")}) {
      // On a thread: before the fix /dev/zero was read for ever and the FIFO blocked its open.
      auto result = std::make_shared<std::promise<LoadReport>>();
      auto future = result->get_future();
      std::thread([file, result] { result->set_value(readProject(file).report); }).detach();
      QVERIFY2(future.wait_for(std::chrono::seconds(10)) == std::future_status::ready,
               file.c_str());
      const LoadReport report = future.get();
      QVERIFY(!report.ok());
      QVERIFY2(report.diagnostics.at(0).problem.find("not a regular file") != std::string::npos ||
                   report.diagnostics.at(0).problem.find("system file") != std::string::npos,
               report.diagnostics.at(0).toString().c_str());
    }
  }

  // Item 10: parts are classified as inside or outside the project's folder; special files
  // (devices, FIFOs, /proc, /sys, /dev) are never returned for reading.
  void partsOutsideTheFolderAreReported() {
    QTemporaryDir dir;
    const fs::path root = tempRoot(dir);
    const fs::path file = root / "proj" / "p.ragscope.json";
    writeText(root / "proj" / "topics.tsv", "1\tq\n");
    writeText(root / "outside.tsv", "1 0 d 1\n");
    fs::create_symlink(root / "outside.tsv", root / "proj" / "link.tsv");  // leads outside
    QCOMPARE(::mkfifo((root / "proj" / "fifo.trec").c_str(), 0600), 0);
    writeText(file, R"({"version": 1, "name": "n", "datasets": [{"name": "d", "parts": [
        {"path": "topics.tsv"},
        {"path": "../outside.tsv"},
        {"path": "../../../../../../../../../../etc/passwd"},
        {"path": "/etc/shadow"},
        {"path": "/proc/self/environ"},
        {"path": "link.tsv"},
        {"path": "fifo.trec"},
        {"path": "/dev/zero", "format": "trec-run"},
        {"path": "."}]}]})");
    const auto loaded = readProject(file);
    QVERIFY(loaded.report.ok());
    const Project& project = loaded.value;
    const ProjectDataset& ds = project.datasets.at(0);

    QCOMPARE(project.checkPart("topics.tsv").place, PartPlace::Inside);
    QCOMPARE(project.checkPart(".").place, PartPlace::Inside);
    QCOMPARE(project.checkPart("../outside.tsv").place, PartPlace::Outside);
    QCOMPARE(project.checkPart("../outside.tsv").resolved, root / "outside.tsv");
    QCOMPARE(project.checkPart("link.tsv").place, PartPlace::Outside);
    QCOMPARE(project.checkPart("link.tsv").resolved, root / "outside.tsv");
    QCOMPARE(project.checkPart("../../../../../../../../../../etc/passwd").resolved,
             fs::path("/etc/passwd"));
    QCOMPARE(project.checkPart("/etc/passwd").place, PartPlace::Outside);
    QCOMPARE(project.checkPart("/proc/self/environ").place, PartPlace::Special);
    QCOMPARE(project.checkPart("fifo.trec").place, PartPlace::Special);
    QCOMPARE(project.checkPart("/dev/zero").place, PartPlace::Special);
    QCOMPARE(project.checkPart("/dev").place, PartPlace::Special);

    const auto outside = project.outsideParts(ds);
    QCOMPARE(outside.size(), std::size_t{4});
    QCOMPARE(outside[0], root / "outside.tsv");
    QCOMPARE(outside[1], fs::path("/etc/passwd"));
    QCOMPARE(outside[2], fs::path("/etc/shadow"));
    QCOMPARE(outside[3], root / "outside.tsv");

    LoadReport report;
    const auto parts = project.datasetParts(ds, report);
    const QString all = diagnosticsText(report);
    // Special files: errors, never handed to a loader.
    for (const auto& part : parts) {
      QVERIFY2(part.path != "/proc/self/environ" && part.path != "/dev/zero" &&
                   part.path.filename() != "fifo.trec",
               part.path.c_str());
    }
    const std::string f = file.string() + ": datasets[0].parts[";
    QVERIFY2(all.contains(QString::fromStdString(
                 f + "4].path: not read: /proc/self/environ is a system file")),
             qPrintable(all));
    QVERIFY2(all.contains(QString::fromStdString(
                 f + "6].path: not read: " + (root / "proj" / "fifo.trec").string() +
                 " is not a regular file (a FIFO (named pipe))")),
             qPrintable(all));
    QVERIFY2(all.contains(
                 QString::fromStdString(f + "7].path: not read: /dev/zero is not a regular file")),
             qPrintable(all));
    // Outside parts: a warning naming the part and where it leads.
    QVERIFY2(all.contains(QString::fromStdString(
                 f + "1].path: outside the project folder: " + (root / "outside.tsv").string())),
             qPrintable(all));
    QVERIFY2(all.contains(
                 QString::fromStdString(f + "2].path: outside the project folder: /etc/passwd")),
             qPrintable(all));
    QVERIFY2(all.contains(QString::fromStdString(
                 f + "5].path: outside the project folder: " + (root / "outside.tsv").string())),
             qPrintable(all));
    QCOMPARE(report.errors, std::uint64_t{3});
  }
};

QTEST_GUILESS_MAIN(TestProject)
#include "tst_project.moc"
