// Human labels (core/labels/README.md): the append-only store (round trip, latest of an annotator
// wins with history kept, several annotators, refusals that store nothing, a writer killed with
// SIGKILL mid-burst), imports and exports (qrels round trip, merged qrels conflicts, duplicate
// targets in one file), the catalog of targets, Krippendorff's alpha on Krippendorff's own
// worked example, agreement from labels (a hand-computed claim case; answer labels equal to the
// CSV path's figures), and the CLI commands `labels` and `agreement --labels`.
//
// The kill test runs this binary as the writer: `tst_labels --labels-burst-child STORE N` adds
// labels one per transaction and prints "committed <id> <i>" after each add() returns.

#include <signal.h>
#include <sqlite3.h>
#include <sys/types.h>

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>
#include <sstream>

#include "common/cli.h"
#include "common/testdata.h"
#include "core/data/linereader.h"
#include "core/data/loaders.h"
#include "core/data/trecid.h"
#include "core/eval/inputs/agreementinputs.h"
#include "core/eval/inputs/labelsources.h"
#include "core/eval/jobs/eragjob.h"
#include "core/labels/krippendorff.h"
#include "core/labels/label.h"
#include "core/labels/labelagreement.h"
#include "core/labels/labelcatalog.h"
#include "core/labels/labelio.h"
#include "core/labels/labelscope.h"
#include "core/labels/labelstore.h"
#include "core/llm/responsecache.h"
#include "core/store/runstore.h"
#include "core/util/sqlitedb.h"

using namespace ragscope::core;
using namespace ragscope::core::labels;
namespace fs = std::filesystem;

namespace {

Label makeLabel(TargetKind kind, std::string scope, std::string qid, std::string item,
                std::string value, std::string annotator) {
  Label l;
  l.target = {kind, std::move(scope), std::move(qid), std::move(item)};
  l.value = std::move(value);
  l.annotator = std::move(annotator);
  l.time = "2026-11-27T10:00:00Z";
  return l;
}

std::string readText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeText(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

bool hasText(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A judged answer built by hand: four response claims with the faithfulness verdicts below, two
// gold claims with coverage verdicts.
std::shared_ptr<eval::JudgeReport> handJudgedReport() {
  auto report = std::make_shared<eval::JudgeReport>();
  eval::JudgedQuery q;
  q.qid = "q1";
  q.responseClaims.claims = {"a", "b", "c", "d"};
  q.goldClaims.claims = {"g0", "g1"};
  eval::PremiseVerdicts faith;
  faith.premise = "faith";
  faith.labels = {claims::Label::Entailment, claims::Label::Contradiction, claims::Label::Neutral,
                  claims::Label::Entailment};
  eval::PremiseVerdicts cover;
  cover.premise = "cover";
  cover.labels = {claims::Label::Entailment, claims::Label::Unparsed};
  q.verdicts = {faith, cover};
  report->queries.push_back(std::move(q));
  return report;
}

// The child of killedWriterLosesNothing: adds labels one per transaction, forever (until
// killed) or `count` of them, and reports each after add() has returned.
int burstChild(const char* path, long count) {
  LabelStore store;
  std::string error;
  if (!store.open(path, &error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 2;
  }
  for (long i = 0; i < count; ++i) {
    std::vector<Label> one = {makeLabel(TargetKind::Relevance, "burst", "q" + std::to_string(i),
                                        "d" + std::to_string(i % 7), std::to_string(i % 4),
                                        "annotator" + std::to_string(i % 3))};
    if (!store.add(one, &error)) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 2;
    }
    std::printf("committed %lld %ld\n", static_cast<long long>(one[0].id), i);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

class TestLabels : public QObject {
  Q_OBJECT

 private slots:
  void valuesAreCanonical();
  void storeRoundTrip();
  void latestOfAnnotatorWinsHistoryKept();
  void readerSeesLaterWrites();
  void refusalsStoreNothing();
  void foreignFileRefused();
  void catalogRefusesUnknownTargets();
  void eragAndE2eRunsAsSources();
  void killedWriterLosesNothing();
  void qrelsRoundTrip();
  void mergedQrelsListConflicts();
  void importRefusesDuplicatesAndBadLines();
  void jsonlAndCsvRoundTrip();
  void krippendorffWorkedExample();
  void krippendorffSmallCases();
  void claimAgreementByHand();
  void interAnnotatorAgreement();
  void answerAgreementEqualsCsvPath();
  void cliImportExportAndAgreement();
  void cliRefusesBadImport();
  void storeDefinitionsNormalised();
  void craftedLabelsTablesRefused();
  void everyStoreKindChecksItsTables();
  void importStreamsInPieces();
  void importSizeBoundPerFormat();
  void qrelsExportRoundTripsEveryByte();
  void labelFieldsBounded();
  // Issue 35, items 10 and 11: claim labels say what they judged; stores are matched by path.
  void claimPremiseIsPartOfTheTarget();
  void schemaOneStoreReadAndMigrated();
  void importsWithoutPremiseReadTheDefault();
  void claimAgreementByPremise();
  void sameFileNameIsAnotherStore();
};

void TestLabels::valuesAreCanonical() {
  QCOMPARE(canonicalValue(TargetKind::Claim, "Cannot tell").value(), std::string("cannot_tell"));
  QCOMPARE(canonicalValue(TargetKind::Claim, " Supported ").value(), std::string("supported"));
  QCOMPARE(canonicalValue(TargetKind::Relevance, " 2 ").value(), std::string("2"));
  QCOMPARE(canonicalValue(TargetKind::Answer, "0.750").value(), std::string("0.75"));
  QCOMPARE(canonicalValue(TargetKind::Answer, "Partially").value(), std::string("partially"));
  std::string why;
  QVERIFY(!canonicalValue(TargetKind::Relevance, "4", &why));
  QVERIFY2(hasText(why, "out of range"), why.c_str());
  QVERIFY(!canonicalValue(TargetKind::EragDoc, "1.5", &why));
  QVERIFY2(hasText(why, "out of range"), why.c_str());
  QVERIFY(!canonicalValue(TargetKind::EragDoc, "nan", &why));
  QVERIFY(!canonicalValue(TargetKind::Claim, "maybe", &why));
  QVERIFY2(hasText(why, "not a claim verdict"), why.c_str());
  QCOMPARE(numericValue(TargetKind::Claim, "supported").value(), 1.0);
  QCOMPARE(numericValue(TargetKind::Claim, "contradiction").value(), 0.0);
  QVERIFY(!numericValue(TargetKind::Claim, "cannot_tell"));
  QCOMPARE(numericValue(TargetKind::Answer, "partially").value(), 0.5);
  QCOMPARE(numericValue(TargetKind::Relevance, "3").value(), 3.0);
  QCOMPARE(labelsStorePath(fs::path("/p/demo.ragscope.json")),
           fs::path("/p/demo.ragscope.labels.db"));
}

void TestLabels::storeRoundTrip() {
  QTemporaryDir dir;
  const fs::path path = dir.filePath("l.labels.db").toStdString();
  std::vector<Label> labels = {
      makeLabel(TargetKind::Claim, "claims.db", "q7", "response:2", "supported", "ana"),
      makeLabel(TargetKind::Relevance, "demo", "q7", "doc 9", "3", "ana"),
      makeLabel(TargetKind::Answer, "claims.db", "q7", "", "0.25", "bo"),
      makeLabel(TargetKind::EragDoc, "erag.db", "q8", "d1", "1", "bo")};
  labels[0].comment = "the chunk says so\n(second line)";
  labels[0].context = "The plant opened in 1998.";
  {
    LabelStore store;
    std::string error;
    QVERIFY2(store.open(path, &error), error.c_str());
    QVERIFY2(store.add(labels, &error), error.c_str());
    for (const auto& l : labels) QVERIFY(l.id > 0);
  }
  LabelStore store;
  std::string error;
  QVERIFY2(store.openReadOnly(path, &error), error.c_str());
  QCOMPARE(store.rowCount(), std::int64_t{4});
  const auto current = store.current();
  QCOMPARE(current.size(), std::size_t{4});
  for (const auto& l : labels) {
    auto it = std::find_if(current.begin(), current.end(), [&](const Label& c) {
      return c.target == l.target && c.annotator == l.annotator;
    });
    QVERIFY(it != current.end());
    QCOMPARE(it->value, l.value);
    QCOMPARE(it->time, l.time);
    QCOMPARE(it->comment, l.comment);
    QCOMPARE(it->context, l.context);
    QCOMPARE(it->id, l.id);
  }
  QCOMPARE(store.annotators(), (std::vector<std::string>{"ana", "bo"}));
  // Read-only: nothing can be added.
  std::vector<Label> more = {labels[0]};
  QVERIFY(!store.add(more, &error));
  QVERIFY2(hasText(error, "read-only"), error.c_str());
}

void TestLabels::latestOfAnnotatorWinsHistoryKept() {
  QTemporaryDir dir;
  LabelStore store;
  std::string error;
  QVERIFY(store.open(dir.filePath("x.db").toStdString(), &error));
  const Target t{TargetKind::Claim, "claims.db", "q1", "response:0"};
  std::vector<Label> first = {makeLabel(t.kind, t.scope, t.qid, t.item, "supported", "ana"),
                              makeLabel(t.kind, t.scope, t.qid, t.item, "neutral", "bo")};
  QVERIFY(store.add(first, &error));
  std::vector<Label> second = {makeLabel(t.kind, t.scope, t.qid, t.item, "contradiction", "ana")};
  second[0].time = "2026-11-27T11:00:00Z";
  QVERIFY(store.add(second, &error));
  // An unrelated target in between keeps the ordering honest.
  std::vector<Label> other = {makeLabel(t.kind, t.scope, "q0", "gold:1", "supported", "ana")};
  QVERIFY(store.add(other, &error));

  const auto current = store.current();
  QCOMPARE(current.size(), std::size_t{3});
  // Ordered by target key then annotator: q0's claim first, then q1 by ana, q1 by bo.
  QCOMPARE(current[0].target.qid, std::string("q0"));
  QCOMPARE(current[1].annotator, std::string("ana"));
  QCOMPARE(current[1].value, std::string("contradiction"));  // the later of ana's two
  QCOMPARE(current[2].annotator, std::string("bo"));
  QCOMPARE(current[2].value, std::string("neutral"));
  const auto history = store.history(t);
  QCOMPARE(history.size(), std::size_t{3});
  QCOMPARE(history[0].value, std::string("supported"));  // kept, oldest first
  QCOMPARE(history[1].value, std::string("neutral"));
  QCOMPARE(history[2].value, std::string("contradiction"));
  QCOMPARE(store.rowCount(), std::int64_t{4});
}

void TestLabels::readerSeesLaterWrites() {
  // A reader opened while no process had the store open (read as an immutable file) still sees
  // labels a writer adds afterwards, and after the writer has closed.
  QTemporaryDir dir;
  const fs::path path = dir.filePath("l.db").toStdString();
  std::string error;
  {
    LabelStore writer;
    QVERIFY(writer.open(path, &error));
    std::vector<Label> one = {makeLabel(TargetKind::Relevance, "d", "q1", "a", "1", "ana")};
    QVERIFY(writer.add(one, &error));
  }
  QVERIFY(!fs::exists(path.string() + "-wal"));  // closed: everything in the main file
  LabelStore reader;
  QVERIFY2(reader.openReadOnly(path, &error), error.c_str());
  QCOMPARE(reader.rowCount(), std::int64_t{1});
  {
    LabelStore writer;
    QVERIFY(writer.open(path, &error));
    std::vector<Label> two = {makeLabel(TargetKind::Relevance, "d", "q1", "b", "2", "ana")};
    QVERIFY(writer.add(two, &error));
    QCOMPARE(reader.rowCount(), std::int64_t{2});  // while the writer is open
    std::vector<Label> three = {makeLabel(TargetKind::Relevance, "d", "q1", "c", "3", "bo")};
    QVERIFY(writer.add(three, &error));
  }
  QCOMPARE(reader.current().size(), std::size_t{3});  // after it closed
  QCOMPARE(reader.annotators(), (std::vector<std::string>{"ana", "bo"}));
}

void TestLabels::refusalsStoreNothing() {
  QTemporaryDir dir;
  LabelStore store;
  std::string error;
  QVERIFY(store.open(dir.filePath("x.db").toStdString(), &error));
  const Label good = makeLabel(TargetKind::Relevance, "demo", "q1", "d1", "2", "ana");
  struct Case {
    const char* name;
    Label bad;
    const char* expected;  // in the message
  };
  std::vector<Case> cases;
  {
    Label l = good;
    l.value = "4";
    cases.push_back({"grade out of range", l, "value \"4\" is out of range"});
  }
  {
    Label l = good;
    l.annotator = "ana\x1b[2J";
    cases.push_back({"annotator with an escape", l, "annotator \"ana\\x1b[2J\" has control"});
  }
  {
    Label l = good;
    l.annotator = "a\nb";
    cases.push_back({"annotator with a line break", l, "annotator"});
  }
  {
    Label l = good;
    l.target.qid = "";
    cases.push_back({"empty qid", l, "qid is empty"});
  }
  {
    Label l = good;
    l.target.kind = static_cast<TargetKind>(9);
    cases.push_back({"unknown kind", l, "target kind is unknown"});
  }
  {
    Label l = makeLabel(TargetKind::Claim, "c.db", "q1", "response:x", "supported", "ana");
    cases.push_back({"bad claim key", l, "is not a claim key"});
  }
  {
    Label l = good;
    l.time = "yesterday";
    cases.push_back({"bad time", l, "time \"yesterday\""});
  }
  for (const auto& c : cases) {
    std::vector<Label> batch = {good, good, c.bad};
    batch[1].target.item = "d2";
    QVERIFY2(!store.add(batch, &error), c.name);
    QVERIFY2(hasText(error, "label 3 of 3"), error.c_str());
    QVERIFY2(hasText(error, c.expected), error.c_str());
    QVERIFY2(hasText(error, "no label was stored"), error.c_str());
    QCOMPARE(store.rowCount(), std::int64_t{0});
    for (const auto& l : batch) QCOMPARE(l.id, std::int64_t{0});
  }
}

void TestLabels::foreignFileRefused() {
  QTemporaryDir dir;
  const fs::path notSqlite = dir.filePath("text.db").toStdString();
  writeText(notSqlite, "hello, not a database\n");
  LabelStore store;
  std::string error;
  QVERIFY(!store.open(notSqlite, &error));
  QVERIFY2(hasText(error, "not a ragscope labels store"), error.c_str());
  QCOMPARE(readText(notSqlite), std::string("hello, not a database\n"));  // untouched
  // A run store is SQLite but not a labels store.
  const fs::path runStore = ragscope::test::sourceRoot() / "resources/demo/runs/claims-offline.db";
  QVERIFY(!store.openReadOnly(runStore, &error));
  QVERIFY2(hasText(error, "not a ragscope labels store"), error.c_str());
  // A project without labels, opened for reading: said in words.
  QVERIFY(!store.openProjectOrStore(dir.filePath("p.ragscope.json").toStdString(), true, &error));
  QVERIFY2(hasText(error, "no labels yet"), error.c_str());
}

void TestLabels::catalogRefusesUnknownTargets() {
  auto sources = std::make_shared<LabelSources>();
  sources->runs.push_back(eval::labelSourceOfReport("runs/claims.db", {}, *handJudgedReport()));
  auto dataset = std::make_shared<Dataset>();
  dataset->queries.push_back(Query{"q1", "What?", {}, {}, 0, {}, {}});
  dataset->qrels.byQuery["q1"] = {Judgment{"d1", 2, 1}};
  Document inCorpus;
  inCorpus.id = "d1";
  dataset->corpus.add(inCorpus);
  sources->datasets.push_back({"demo", dataset});
  const LabelCatalog catalog = makeLabelCatalog(sources);

  QVERIFY(!catalog({TargetKind::Claim, "runs/claims.db", "q1", "response:3"}));
  QVERIFY(!catalog({TargetKind::Claim, "runs/claims.db", "q1", "gold:1"}));
  // Never by the file name alone (core/labels/labelscope.h): another file of that name.
  auto problem = catalog({TargetKind::Claim, "claims.db", "q1", "gold:1"});
  QVERIFY(problem);
  QVERIFY2(hasText(*problem,
                   "no run store named \"claims.db\" is known (a store of that file name: "
                   "\"runs/claims.db\""),
           problem->c_str());
  problem = catalog({TargetKind::Claim, "runs/claims.db", "q1", "response:4"});
  QVERIFY(problem);
  QVERIFY2(hasText(*problem, "the answer has 4 response claims"), problem->c_str());
  problem = catalog({TargetKind::Claim, "runs/claims.db", "q9", "response:0"});
  QVERIFY(problem && hasText(*problem, "query \"q9\" is not in"));
  problem = catalog({TargetKind::Claim, "other.db", "q1", "response:0"});
  QVERIFY(problem && hasText(*problem, "no run store named \"other.db\""));
  // Relevance: any document of a known query, judged or not.
  QVERIFY(!catalog({TargetKind::Relevance, "demo", "q1", "d1"}));
  QVERIFY(!catalog({TargetKind::Relevance, "demo", "q1", "never-judged"}));
  problem = catalog({TargetKind::Relevance, "demo", "q2", "d1"});
  QVERIFY(problem && hasText(*problem, "is not in dataset \"demo\""));
  const auto status = documentStatus(*dataset, "q1", "never-judged");
  QVERIFY(status.queryKnown);
  QVERIFY(!status.qrelsGrade);
  QVERIFY(!status.inCorpus);
  QCOMPARE(documentStatus(*dataset, "q1", "d1").qrelsGrade.value(), 2);
  QVERIFY(documentStatus(*dataset, "q1", "d1").inCorpus);

  // Through the store: nothing stored when one label's target is unknown.
  QTemporaryDir dir;
  LabelStore store;
  std::string error;
  QVERIFY(store.open(dir.filePath("x.db").toStdString(), &error));
  std::vector<Label> batch = {
      makeLabel(TargetKind::Claim, "runs/claims.db", "q1", "response:0", "supported", "ana"),
      makeLabel(TargetKind::Claim, "runs/claims.db", "q1", "response:7", "supported", "ana")};
  QVERIFY(!store.add(batch, &error, catalog));
  QVERIFY2(hasText(error, "label 2 of 2 (claim \"response:7\" of query \"q1\""), error.c_str());
  QVERIFY2(hasText(error, "4 response claims"), error.c_str());
  QCOMPARE(store.rowCount(), std::int64_t{0});
}

void TestLabels::eragAndE2eRunsAsSources() {
  // The demo's eRAG run labelled q01's top 5 (hc01 0.16, hc38 0.2105..., hc51 0.1538..., hc02,
  // hc04: resources/demo/runs/erag-good.db, table erag_labels); its end-to-end run answered q01.
  const fs::path runs = ragscope::test::sourceRoot() / "resources/demo/runs";
  auto sources = std::make_shared<LabelSources>();
  RunSource erag, e2e;
  std::string error;
  QVERIFY2(eval::readLabelRunSource(runs / "erag-good.db", "runs/erag-good.db", erag, &error),
           error.c_str());
  QVERIFY2(eval::readLabelRunSource(runs / "e2e-good.db", {}, e2e, &error), error.c_str());
  QCOMPARE(erag.kind, std::string("erag"));
  // No scope given: the store's absolute path (never its file name alone).
  QCOMPARE(e2e.scope, fs::weakly_canonical(runs / "e2e-good.db").string());
  QCOMPARE(erag.eragDocs.at("q01").size(), std::size_t{5});
  QVERIFY(std::abs(erag.eragDocs.at("q01").at("hc01").value() - 0.16) < 1e-12);
  QVERIFY(e2e.qids.contains("q01"));
  QVERIFY(!e2e.scores.columns.empty());
  sources->runs = {erag, e2e};
  sources->folder = runs.parent_path();  // the demo project's folder
  const LabelCatalog catalog = makeLabelCatalog(sources);
  QVERIFY(!catalog({TargetKind::EragDoc, "runs/erag-good.db", "q01", "hc01"}));
  // The same file by another spelling is the same store; a file name alone is not.
  QVERIFY(!catalog({TargetKind::EragDoc, (runs / "erag-good.db").string(), "q01", "hc01"}));
  QVERIFY(catalog({TargetKind::EragDoc, "erag-good.db", "q01", "hc01"}));
  auto problem = catalog({TargetKind::EragDoc, "runs/erag-good.db", "q01", "hc99"});
  QVERIFY(problem && hasText(*problem, "was not labelled by the eRAG run"));
  problem = catalog({TargetKind::Claim, "runs/e2e-good.db", "q01", "response:0"});
  QVERIFY(problem && hasText(*problem, "has no claims"));
  QVERIFY(!catalog({TargetKind::Answer, "runs/e2e-good.db", "q01", ""}));
  // Human eRAG labels vs the stored ones (judge, human): hc01 (0.16, 0.16), hc51 (0.1538..., 0).
  // Not whole numbers: no kappa, no confusion matrix. Pearson of two points is +1 or -1; both
  // sides rank hc01 above hc51, so +1.
  std::vector<Label> current = {
      makeLabel(TargetKind::EragDoc, "runs/erag-good.db", "q01", "hc01", "0.16", "ana"),
      makeLabel(TargetKind::EragDoc, "runs/erag-good.db", "q01", "hc51", "0", "ana")};
  const auto report = computeLabelAgreement(current, *sources, {});
  QCOMPARE(report.judgeVsHuman.size(), std::size_t{1});
  const auto& a = report.judgeVsHuman[0];
  QCOMPARE(a.n, std::size_t{2});
  QVERIFY(std::isnan(a.kappa));
  QVERIFY(a.confusion.judge.empty());
  QVERIFY(a.correlation);
  QVERIFY(std::abs(a.correlation->pearson.value - 1.0) < 1e-12);
}

void TestLabels::killedWriterLosesNothing() {
  QTemporaryDir dir;
  const QString path = dir.filePath("burst.labels.db");
  QProcess child;
  child.setProcessChannelMode(QProcess::SeparateChannels);
  child.start(QCoreApplication::applicationFilePath(), {"--labels-burst-child", path, "100000000"});
  QVERIFY(child.waitForStarted());
  // Wait for a few hundred acknowledged labels, then kill the writer mid-burst.
  QByteArray out;
  while (out.count('\n') < 300) {
    if (!child.waitForReadyRead(60000)) break;
    out += child.readAllStandardOutput();
  }
  QVERIFY2(out.count('\n') >= 300, child.readAllStandardError().constData());
  QVERIFY(child.state() == QProcess::Running);  // killed mid-burst, not finished
  ::kill(pid_t(child.processId()), SIGKILL);
  QVERIFY(child.waitForFinished(30000));
  QCOMPARE(child.exitStatus(), QProcess::CrashExit);
  out += child.readAllStandardOutput();

  // Every label the child was told is committed (complete lines only).
  std::map<std::int64_t, long> acknowledged;
  std::istringstream lines(out.toStdString());
  std::string line;
  while (std::getline(lines, line)) {
    if (lines.eof()) break;  // a line cut by the kill has no '\n'
    long long id = 0;
    long i = 0;
    QVERIFY2(std::sscanf(line.c_str(), "committed %lld %ld", &id, &i) == 2, line.c_str());
    acknowledged[id] = i;
  }
  QVERIFY(acknowledged.size() >= 300);

  // Read first as a reader would (the killed writer's WAL still beside the file), then reopened
  // for writing, as the next labelling session does.
  for (bool readOnly : {true, false}) {
    LabelStore store;
    std::string error;
    const bool opened = readOnly ? store.openReadOnly(path.toStdString(), &error)
                                 : store.open(path.toStdString(), &error);
    QVERIFY2(opened, error.c_str());
    const auto rows = store.history();
    QVERIFY(rows.size() >= acknowledged.size());
    std::map<std::int64_t, const Label*> byId;
    for (const auto& r : rows) byId[r.id] = &r;
    for (const auto& [id, i] : acknowledged) {
      auto it = byId.find(id);
      QVERIFY2(it != byId.end(), ("acknowledged label " + std::to_string(id) + " lost").c_str());
      QCOMPARE(it->second->target.qid, "q" + std::to_string(i));
      QCOMPARE(it->second->value, std::to_string(i % 4));
      QCOMPARE(it->second->annotator, "annotator" + std::to_string(i % 3));
    }
    // Rows are a gap-free sequence: nothing half-written between acknowledged ones.
    QCOMPARE(rows.front().id, std::int64_t{1});
    QCOMPARE(rows.back().id, std::int64_t(rows.size()));
  }
  // The reopened store takes new labels after the crash.
  LabelStore store;
  std::string error;
  QVERIFY(store.open(path.toStdString(), &error));
  const auto before = store.rowCount();
  std::vector<Label> one = {makeLabel(TargetKind::Relevance, "burst", "after", "d", "1", "ana")};
  QVERIFY2(store.add(one, &error), error.c_str());
  QCOMPARE(store.rowCount(), before + 1);
}

void TestLabels::qrelsRoundTrip() {
  std::vector<Label> current = {
      makeLabel(TargetKind::Relevance, "dl19", "q1", "d1", "2", "ana"),
      makeLabel(TargetKind::Relevance, "dl19", "q1", "d3", "0", "ana"),
      makeLabel(TargetKind::Relevance, "dl19", "q2", "d1", "3", "ana"),
      makeLabel(TargetKind::Claim, "c.db", "q1", "response:0", "supported", "ana")};
  for (std::size_t i = 0; i < current.size(); ++i) current[i].id = std::int64_t(i + 1);
  const LabelExport out = exportLabels(current, LabelFileFormat::Qrels, {});
  QVERIFY2(out.ok(), out.error.c_str());
  QCOMPARE(out.text, std::string("q1 0 d1 2\nq1 0 d3 0\nq2 0 d1 3\n"));
  QCOMPARE(out.rows, std::size_t{3});

  LabelImportOptions options;
  options.annotator = "ana";
  options.scope = "dl19";
  const LabelImport in = parseLabelsText(out.text, "x.qrels", LabelFileFormat::Qrels, options);
  QVERIFY2(in.ok(), in.error.c_str());
  QCOMPARE(in.labels.size(), std::size_t{3});
  for (std::size_t i = 0; i < 3; ++i) {
    QCOMPARE(in.labels[i].target, current[i].target);
    QCOMPARE(in.labels[i].value, current[i].value);
    QCOMPARE(in.labels[i].annotator, std::string("ana"));
  }
  // Through a store and back out: the same file.
  QTemporaryDir dir;
  LabelStore store;
  std::string error;
  QVERIFY(store.open(dir.filePath("x.db").toStdString(), &error));
  auto labels = in.labels;
  QVERIFY(store.add(labels, &error));
  QCOMPARE(exportLabels(store.current(), LabelFileFormat::Qrels, {}).text, out.text);
}

void TestLabels::mergedQrelsListConflicts() {
  // The dataset's qrels: q1 d1 1, q1 d2 0, q3 d9 2. People graded q1 d1 as 2 (a conflict), q1 d2
  // as 0 (agrees), q1 d5 as 1 (new). Two annotators disagree on q1 d5 (bo later): bo's grade.
  Qrels qrels;
  qrels.byQuery["q1"] = {Judgment{"d1", 1, 1}, Judgment{"d2", 0, 2}};
  qrels.byQuery["q3"] = {Judgment{"d9", 2, 3}};
  std::vector<Label> current = {makeLabel(TargetKind::Relevance, "dl", "q1", "d1", "2", "ana"),
                                makeLabel(TargetKind::Relevance, "dl", "q1", "d2", "0", "ana"),
                                makeLabel(TargetKind::Relevance, "dl", "q1", "d5", "1", "ana"),
                                makeLabel(TargetKind::Relevance, "dl", "q1", "d5", "3", "bo")};
  for (std::size_t i = 0; i < current.size(); ++i) current[i].id = std::int64_t(i + 1);
  const LabelExport out = exportLabels(current, LabelFileFormat::Qrels, {}, &qrels);
  QVERIFY2(out.ok(), out.error.c_str());
  QCOMPARE(out.text, std::string("q1 0 d1 2\nq1 0 d2 0\nq1 0 d5 3\nq3 0 d9 2\n"));
  QCOMPARE(out.conflicts.size(), std::size_t{1});
  QCOMPARE(out.conflicts[0].qid, std::string("q1"));
  QCOMPARE(out.conflicts[0].doc, std::string("d1"));
  QCOMPARE(out.conflicts[0].qrelsGrade, 1);
  QCOMPARE(out.conflicts[0].humanGrade, 2);
  QCOMPARE(out.notes.size(), std::size_t{1});  // ana and bo disagree on d5
  QVERIFY2(hasText(out.notes[0], "\"d5\""), out.notes[0].c_str());
  // One annotator only: ana's grade of d5.
  LabelFilter ana;
  ana.annotator = "ana";
  QVERIFY(hasText(exportLabels(current, LabelFileFormat::Qrels, ana, &qrels).text, "q1 0 d5 1\n"));
}

void TestLabels::importRefusesDuplicatesAndBadLines() {
  LabelImportOptions options;
  options.annotator = "ana";
  options.scope = "dl19";
  auto in = parseLabelsText("q1 0 d1 2\nq1 0 d2 1\n\nq1 0 d1 0\n", "g.qrels",
                            LabelFileFormat::Qrels, options);
  QVERIFY(!in.ok());
  QVERIFY(in.labels.empty());
  QCOMPARE(in.error, std::string("g.qrels:4: docno: document \"d1\" of query \"q1\" is graded "
                                 "twice (first on line 1)"));
  in = parseLabelsText("q1 0 d1 7\n", "g.qrels", LabelFileFormat::Qrels, options);
  QVERIFY2(hasText(in.error, "g.qrels:1: rel: \"7\" is out of range"), in.error.c_str());
  in = parseLabelsText("q1 0 d1\n", "g.qrels", LabelFileFormat::Qrels, options);
  QVERIFY2(hasText(in.error, "g.qrels:1: record: a qrels line has 4 fields"), in.error.c_str());
  in = parseLabelsText("q1 0 d1 1\n", "g.qrels", LabelFileFormat::Qrels, {});
  QVERIFY2(hasText(in.error, "needs the annotator's name"), in.error.c_str());

  const std::string dupJsonl =
      R"({"kind":"claim","scope":"c.db","qid":"q1","item":"response:0","value":"supported","annotator":"ana"})"
      "\n"
      R"({"kind":"claim","scope":"c.db","qid":"q1","item":"response:0","value":"supported","annotator":"bo"})"
      "\n"
      R"({"kind":"claim","scope":"c.db","qid":"q1","item":"response:0","value":"neutral","annotator":"ana"})"
      "\n";
  in = parseLabelsText(dupJsonl, "l.jsonl", LabelFileFormat::Jsonl, {});
  QVERIFY(!in.ok());
  QVERIFY2(hasText(in.error,
                   "l.jsonl:3: item: claim \"response:0\" of query \"q1\" in \"c.db\" "
                   "against the retrieved chunks is labelled twice by \"ana\" in this file "
                   "(first on line 1)"),
           in.error.c_str());
  in = parseLabelsText(
      R"({"kind":"claim","scope":"c.db","qid":"q1","item":"response:0","value":"supported","annotator":"a\u0007b"})",
      "l.jsonl", LabelFileFormat::Jsonl, {});
  QVERIFY2(hasText(in.error, "l.jsonl:1: annotator: annotator \"a\\x07b\" has control"),
           in.error.c_str());
  in = parseLabelsText(R"({"kind":"vote","scope":"c","qid":"q","value":"1","annotator":"a"})",
                       "l.jsonl", LabelFileFormat::Jsonl, {});
  QVERIFY2(hasText(in.error, "l.jsonl:1: kind: \"vote\" is unknown"), in.error.c_str());
  in = parseLabelsText(
      R"({"kind":"erag","scope":"e","qid":"q","item":"d","value":1.5,"annotator":"a"})", "l.jsonl",
      LabelFileFormat::Jsonl, {});
  QVERIFY2(hasText(in.error, "l.jsonl:1: value: \"1.5\" is out of range"), in.error.c_str());
  in = parseLabelsText(
      R"({"kind":"erag","scope":"e","qid":"q","item":"d","valeu":1,"annotator":"a"})", "l.jsonl",
      LabelFileFormat::Jsonl, {});
  QVERIFY2(hasText(in.error, "l.jsonl:1: valeu: unknown field"), in.error.c_str());

  QTemporaryDir dir;
  const fs::path csv = dir.filePath("h.csv").toStdString();
  writeText(csv, "qid,label\nq1,1\nq2,0.5\nq1,0\n");
  options.scope = "claims.db";
  auto fromCsv = readLabelsFile(csv, LabelFileFormat::Csv, options);
  QVERIFY(!fromCsv.ok());
  QVERIFY2(hasText(fromCsv.error,
                   ":4: qid: answer of query \"q1\" in \"claims.db\" is labelled "
                   "twice by \"ana\" in this file (first on line 2)"),
           fromCsv.error.c_str());
}

void TestLabels::jsonlAndCsvRoundTrip() {
  std::vector<Label> current = {
      makeLabel(TargetKind::Answer, "c.db", "q1", "", "correct", "ana"),
      makeLabel(TargetKind::Answer, "c.db", "q1", "", "0.5", "bo"),
      makeLabel(TargetKind::Answer, "c.db", "q2", "", "incorrect", "ana"),
      makeLabel(TargetKind::Claim, "c.db", "q1", "gold:0", "cannot_tell", "ana")};
  current[3].comment = "unclear, \"see\" p. 3\n\ttabbed";
  current[3].context = "Pumps run at night.";
  const LabelExport jsonl = exportLabels(current, LabelFileFormat::Jsonl, {});
  QVERIFY(jsonl.ok());
  const LabelImport back = parseLabelsText(jsonl.text, "x.jsonl", LabelFileFormat::Jsonl, {});
  QVERIFY2(back.ok(), back.error.c_str());
  QCOMPARE(back.labels.size(), current.size());
  for (std::size_t i = 0; i < current.size(); ++i) {
    QCOMPARE(back.labels[i].target, current[i].target);
    QCOMPARE(back.labels[i].value, current[i].value);
    QCOMPARE(back.labels[i].annotator, current[i].annotator);
    QCOMPARE(back.labels[i].time, current[i].time);
    QCOMPARE(back.labels[i].comment, current[i].comment);
    QCOMPARE(back.labels[i].context, current[i].context);
  }
  // CSV: answers as numbers, rows in (qid, annotator) order, as `agreement --human` reads them.
  const LabelExport csv = exportLabels(current, LabelFileFormat::Csv, {});
  QVERIFY2(csv.ok(), csv.error.c_str());
  QCOMPARE(csv.text, std::string("qid,label\nq1,1\nq1,0.5\nq2,0\n"));
  LabelFilter bo;
  bo.annotator = "bo";
  QCOMPARE(exportLabels(current, LabelFileFormat::Csv, bo).text,
           std::string("qid,label\nq1,0.5\n"));
  LabelFilter claimsOnly;
  claimsOnly.kind = TargetKind::Claim;
  QCOMPARE(exportLabels(current, LabelFileFormat::Csv, claimsOnly).text,
           std::string("qid,item,premise,label\nq1,gold:0,response,cannot_tell\n"));
}

void TestLabels::krippendorffWorkedExample() {
  // Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: four observers,
  // twelve units, values 1..5, missing marked '.':
  //   A: 1 2 3 3 2 1 4 1 2 . . .
  //   B: 1 2 3 3 2 2 4 1 2 5 . 3
  //   C: . 3 3 3 2 3 4 2 2 5 1 .
  //   D: 1 2 3 3 2 4 4 1 2 5 1 .
  // Unit 12 has one value (not pairable): n = 40 pairable values. The coincidence matrix
  // (rows/columns 1..5), each unit u adding 1/(m_u - 1) per ordered pair:
  //   1: 7    4/3  1/3  1/3  0        n_1 = 9
  //   2: 4/3  10   4/3  1/3  0        n_2 = 13
  //   3: 1/3  4/3  8    1/3  0        n_3 = 10
  //   4: 1/3  1/3  1/3  4    0        n_4 = 5
  //   5: 0    0    0    0    3        n_5 = 3
  // Nominal: D_o = (off-diagonal sum 8) / 40 = 1/5; D_e = (40^2 - sum n_c^2) / (40 * 39) =
  //   (1600 - 384) / 1560 = 152/195; alpha = 1 - (1/5) / (152/195) = 113/152 = 0.743421...
  //   (the paper: 0.743).
  // Interval: D_o = 13/30, D_e = 112/39; alpha = 951/1120 = 0.849107... (the paper: 0.849).
  const double m = std::nan("");
  const std::vector<std::vector<double>> coders = {{1, 2, 3, 3, 2, 1, 4, 1, 2, m, m, m},
                                                   {1, 2, 3, 3, 2, 2, 4, 1, 2, 5, m, 3},
                                                   {m, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, m},
                                                   {1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, m}};
  std::vector<std::vector<double>> units(12);
  for (const auto& row : coders)
    for (std::size_t u = 0; u < 12; ++u)
      if (!std::isnan(row[u])) units[u].push_back(row[u]);
  const AlphaResult nominal = krippendorffAlpha(units, AlphaMetric::Nominal);
  QCOMPARE(nominal.pairableValues, std::size_t{40});
  QCOMPARE(nominal.pairableUnits, std::size_t{11});
  QVERIFY(std::abs(nominal.observedDisagreement - 1.0 / 5.0) < 1e-12);
  QVERIFY(std::abs(nominal.expectedDisagreement - 152.0 / 195.0) < 1e-12);
  QVERIFY(std::abs(nominal.alpha - 113.0 / 152.0) < 1e-12);
  const AlphaResult interval = krippendorffAlpha(units, AlphaMetric::Interval);
  QVERIFY(std::abs(interval.observedDisagreement - 13.0 / 30.0) < 1e-12);
  QVERIFY(std::abs(interval.expectedDisagreement - 112.0 / 39.0) < 1e-12);
  QVERIFY(std::abs(interval.alpha - 951.0 / 1120.0) < 1e-12);
}

void TestLabels::krippendorffSmallCases() {
  // Units {1,1} and {1,2}: o_11 = 2, o_12 = o_21 = 1; n_1 = 3, n_2 = 1, n = 4.
  // D_o = 2/4 = 0.5; D_e = (3*1 + 1*3) / (4*3) = 0.5; alpha = 0.
  QCOMPARE(krippendorffAlpha({{1, 1}, {1, 2}}, AlphaMetric::Nominal).alpha, 0.0);
  // Perfect agreement with variation: alpha = 1.
  QCOMPARE(krippendorffAlpha({{1, 1, 1}, {2, 2}, {3, 3}}, AlphaMetric::Nominal).alpha, 1.0);
  // One value everywhere: D_e = 0, alpha undefined (NaN), never 1 or 0.
  QVERIFY(std::isnan(krippendorffAlpha({{1, 1}, {1, 1}}, AlphaMetric::Nominal).alpha));
  // Nothing pairable.
  const AlphaResult none = krippendorffAlpha({{1}, {2}}, AlphaMetric::Interval);
  QVERIFY(std::isnan(none.alpha));
  QCOMPARE(none.pairableUnits, std::size_t{0});
}

void TestLabels::claimAgreementByHand() {
  // The judge (handJudgedReport) on q1's response claims 0..3: Entailment, Contradiction,
  // Neutral, Entailment; on gold claim 0 Entailment, gold claim 1 Unparsed.
  // Annotator ana: response:0 supported, response:1 supported, response:2 unsupported,
  // response:3 cannot_tell (abstains), gold:1 supported (the judge's verdict is unparsed).
  // Pairs on the supported scale (judge, human): (1,1) (0,1) (0,0): n = 3, 1 abstained, 1
  // without a judge verdict. Accuracy 2/3. Kappa: po = 2/3; judge 1 once of 3, human 1 twice of
  // 3: pe = (1/3)(2/3) + (2/3)(1/3) = 4/9; kappa = (2/3 - 4/9) / (1 - 4/9) = 0.4.
  // Confusion (rows judge, columns human): supported->supported 1, neutral->unsupported 1,
  // contradiction->supported 1.
  LabelSources sources;
  sources.runs.push_back(eval::labelSourceOfReport("claims.db", {}, *handJudgedReport()));
  const std::vector<Label> current = {
      makeLabel(TargetKind::Claim, "claims.db", "q1", "gold:1", "supported", "ana"),
      makeLabel(TargetKind::Claim, "claims.db", "q1", "response:0", "supported", "ana"),
      makeLabel(TargetKind::Claim, "claims.db", "q1", "response:1", "supported", "ana"),
      makeLabel(TargetKind::Claim, "claims.db", "q1", "response:2", "unsupported", "ana"),
      makeLabel(TargetKind::Claim, "claims.db", "q1", "response:3", "cannot_tell", "ana")};
  // One group per question: gold claims vs the response (gold:1, no judge verdict), response
  // claims vs the chunks (the four others).
  const auto report = computeLabelAgreement(current, sources, {});
  QCOMPARE(report.judgeVsHuman.size(), std::size_t{2});
  const JudgeHumanAgreement& g = report.judgeVsHuman[0];
  QVERIFY(g.goldClaims);
  QCOMPARE(g.premise, std::optional(ClaimPremise::Response));
  QCOMPARE(g.n, std::size_t{0});
  QCOMPARE(g.judgeMissing, std::size_t{1});
  const JudgeHumanAgreement& a = report.judgeVsHuman[1];
  QVERIFY(!a.goldClaims);
  QCOMPARE(a.premise, std::optional(ClaimPremise::Chunks));
  QCOMPARE(a.n, std::size_t{3});
  QCOMPARE(a.abstained, std::size_t{1});
  QCOMPARE(a.judgeMissing, std::size_t{0});
  QVERIFY(std::abs(a.accuracy - 2.0 / 3.0) < 1e-12);
  QVERIFY(std::abs(a.kappa - 0.4) < 1e-12);
  QCOMPARE(a.confusion.judge, (std::vector<std::string>{"supported", "neutral", "contradiction"}));
  QCOMPARE(a.confusion.human, (std::vector<std::string>{"supported", "unsupported"}));
  QCOMPARE(a.confusion.counts, (std::vector<std::vector<std::size_t>>{{1, 0}, {0, 1}, {1, 0}}));
  QVERIFY(report.unmatched.empty());
  // Labels of a run nobody loaded are named, not dropped.
  auto lost = current;
  lost[0].target.scope = "gone.db";
  QCOMPARE(computeLabelAgreement(lost, sources, {}).unmatched.size(), std::size_t{1});
}

void TestLabels::interAnnotatorAgreement() {
  // Relevance grades of 4 documents by ana and bo (and a third by cy on two):
  //   d1: ana 2, bo 2        d2: ana 1, bo 0        d3: ana 3, bo 3, cy 3      d4: ana 0 only
  // Two annotators only (cy left out below): items d1..d3, ana = [2,1,3], bo = [2,0,3]:
  //   po = 2/3; pe = sum over grades of p_ana * p_bo = (0)(1/3) + (1/3)(0) + (1/3)(1/3) +
  //   (1/3)(1/3) = 2/9; kappa = (2/3 - 2/9) / (7/9) = 4/7.
  // Krippendorff nominal over units {2,2}, {1,0}, {3,3}: o_22 = 2, o_33 = 2, o_10 = o_01 = 1;
  //   n = 6, n_0 = n_1 = 1, n_2 = n_3 = 2; D_o = 2/6; D_e = (36 - (1+1+4+4)) / 30 = 26/30;
  //   alpha = 1 - (1/3) / (13/15) = 1 - 5/13 = 8/13.
  std::vector<Label> current = {makeLabel(TargetKind::Relevance, "dl", "q", "d1", "2", "ana"),
                                makeLabel(TargetKind::Relevance, "dl", "q", "d1", "2", "bo"),
                                makeLabel(TargetKind::Relevance, "dl", "q", "d2", "1", "ana"),
                                makeLabel(TargetKind::Relevance, "dl", "q", "d2", "0", "bo"),
                                makeLabel(TargetKind::Relevance, "dl", "q", "d3", "3", "ana"),
                                makeLabel(TargetKind::Relevance, "dl", "q", "d3", "3", "bo"),
                                makeLabel(TargetKind::Relevance, "dl", "q", "d4", "0", "ana")};
  const auto two = computeLabelAgreement(current, {}, {});
  QCOMPARE(two.interAnnotator.size(), std::size_t{1});
  const auto& b = two.interAnnotator[0];
  QCOMPARE(b.items, std::size_t{3});
  QCOMPARE(b.annotators, (std::vector<std::string>{"ana", "bo"}));
  QVERIFY(std::abs(b.cohenKappa - 4.0 / 7.0) < 1e-12);
  QVERIFY(std::abs(b.alphaNominal.alpha - 8.0 / 13.0) < 1e-12);
  QVERIFY(b.alphaInterval);
  QCOMPARE(two.unmatched.size(), std::size_t{1});  // no dataset "dl" to compare with the judge
  // Three annotators: no kappa, alpha over every value.
  current.push_back(makeLabel(TargetKind::Relevance, "dl", "q", "d3", "3", "cy"));
  const auto three = computeLabelAgreement(current, {}, {});
  QVERIFY(std::isnan(three.interAnnotator[0].cohenKappa));
  QCOMPARE(three.interAnnotator[0].alphaNominal.pairableValues, std::size_t{7});
}

void TestLabels::answerAgreementEqualsCsvPath() {
  // Answer labels of the demo's judging run by two annotators, compared from the labels and from
  // the same labels exported as the qid,label CSV the agreement command reads: the same figures,
  // bootstrap intervals included.
  QTemporaryDir dir;
  const fs::path storePath = dir.filePath("claims-offline.db").toStdString();
  fs::copy_file(ragscope::test::sourceRoot() / "resources/demo/runs/claims-offline.db", storePath);
  RunSource run;
  std::string error;
  QVERIFY2(eval::readLabelRunSource(storePath, "claims-offline.db", run, &error), error.c_str());
  QVERIFY(run.qids.size() >= 6);
  std::vector<std::string> qids(run.qids.begin(), run.qids.end());
  LabelStore store;
  QVERIFY(store.open(dir.filePath("l.db").toStdString(), &error));
  std::vector<Label> labels;
  const char* anaValues[] = {"correct", "incorrect", "partially", "correct", "0.25", "incorrect"};
  const char* boValues[] = {"correct", "partially", "partially", "incorrect"};
  for (std::size_t i = 0; i < 6; ++i)
    labels.push_back(
        makeLabel(TargetKind::Answer, "claims-offline.db", qids[i], "", anaValues[i], "ana"));
  for (std::size_t i = 0; i < 4; ++i)
    labels.push_back(
        makeLabel(TargetKind::Answer, "claims-offline.db", qids[i], "", boValues[i], "bo"));
  QVERIFY2(store.add(labels, &error), error.c_str());

  LabelSources sources;
  sources.runs.push_back(run);
  LabelAgreementOptions options;
  options.agreement.resamples = 200;
  const auto report = computeLabelAgreement(store.current(), sources, options);
  QCOMPARE(report.answers.size(), std::size_t{3});  // ana, bo, and both together
  for (const auto& fromLabels : report.answers) {
    LabelFilter filter;
    filter.annotator = fromLabels.annotator;
    const LabelExport csv = exportLabels(store.current(), LabelFileFormat::Csv, filter);
    QVERIFY2(csv.ok(), csv.error.c_str());
    const fs::path csvPath =
        dir.filePath(QString::fromStdString("h-" + fromLabels.annotator + ".csv")).toStdString();
    writeText(csvPath, csv.text);
    const auto fromCsv = eval::compareAgreementFiles(csvPath, storePath, "x", options.agreement);
    QVERIFY2(fromCsv.ok(), fromCsv.error.c_str());
    QVERIFY(fromLabels.result.ok());
    QCOMPARE(fromLabels.result.aspects.size(), fromCsv.result.aspects.size());
    QVERIFY(!fromCsv.result.aspects.empty());
    std::size_t compared = 0;
    for (std::size_t k = 0; k < fromCsv.result.aspects.size(); ++k) {
      const auto& x = fromLabels.result.aspects[k];
      const auto& y = fromCsv.result.aspects[k];
      QCOMPARE(x.aspect, y.aspect);
      QCOMPARE(x.instances, y.instances);
      QCOMPARE(x.judge.n, y.judge.n);
      QCOMPARE(x.judgeValues, y.judgeValues);
      QCOMPARE(x.humanValues, y.humanValues);
      auto same = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; };
      QVERIFY(same(x.judge.pearson.value, y.judge.pearson.value));
      QVERIFY(same(x.judge.spearman.value, y.judge.spearman.value));
      QVERIFY(same(x.judge.kendallTauB.value, y.judge.kendallTauB.value));
      QVERIFY(same(x.judge.cohenKappa.value, y.judge.cohenKappa.value));
      QVERIFY(same(x.judge.pearson.ci.low, y.judge.pearson.ci.low));
      QVERIFY(same(x.judge.pearson.ci.high, y.judge.pearson.ci.high));
      QCOMPARE(x.hasCeiling, y.hasCeiling);
      if (x.hasCeiling) {
        QCOMPARE(x.ceiling.n, y.ceiling.n);
        QVERIFY(same(x.ceiling.pearson.value, y.ceiling.pearson.value));
      }
      compared += std::isfinite(x.judge.pearson.value) ? 1 : 0;
    }
    QVERIFY(compared > 0);  // some aspect had a defined coefficient
    if (fromLabels.annotator.empty()) {
      QVERIFY(fromLabels.result.aspects[0].hasCeiling);  // ana vs bo on the four shared qids
      QCOMPARE(fromLabels.result.aspects[0].ceiling.n, std::size_t{4});
    }
  }
}

void TestLabels::cliImportExportAndAgreement() {
  QTemporaryDir dir;
  const fs::path demo = fs::path(dir.path().toStdString()) / "demo";
  fs::copy(ragscope::test::sourceRoot() / "resources/demo", demo, fs::copy_options::recursive);
  const QString project = QString::fromStdString((demo / "demo.ragscope.json").string());
  // Grades of the demo's q01 by ana: hc01 as the qrels say (2), hc02 differently (1; qrels 0),
  // hc05 unjudged by the qrels (0).
  writeText(demo / "ana.qrels", "q01 0 hc01 2\nq01 0 hc02 1\nq01 0 hc05 0\n");
  auto r = ragscope::test::runCliText({"labels", "import", "--labels", project, "--format", "qrels",
                                       QString::fromStdString((demo / "ana.qrels").string()),
                                       "--annotator", "ana", "--scope", "Harbor City demo"});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  QVERIFY2(r.out.contains("3 labels added"), qPrintable(r.out));
  QVERIFY(fs::exists(demo / "demo.ragscope.labels.db"));

  // A claim label naming the store by its absolute path is stored under the project's path of
  // the store; by its file name alone it names no store (core/labels/labelscope.h).
  writeText(demo / "c.jsonl",
            R"({"kind":"claim","scope":")" + (demo / "runs/claims-offline.db").string() +
                R"(","qid":"q01","item":"response:0","value":"Supported","annotator":"bo"})"
                "\n");
  r = ragscope::test::runCliText({"labels", "import", "--labels", project, "--format", "jsonl",
                                  QString::fromStdString((demo / "c.jsonl").string())});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  r = ragscope::test::runCliText({"labels", "list", "--labels", project, "--kind", "claim"});
  QVERIFY2(r.out.contains("\truns/claims-offline.db\tq01\tresponse:0\tchunks\tsupported\tbo\t"),
           qPrintable(r.out));
  writeText(
      demo / "byname.jsonl",
      R"({"kind":"claim","scope":"claims-offline.db","qid":"q01","item":"response:0","value":"Supported","annotator":"cy"})"
      "\n");
  r = ragscope::test::runCliText({"labels", "import", "--labels", project, "--format", "jsonl",
                                  QString::fromStdString((demo / "byname.jsonl").string())});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("no run store named \"claims-offline.db\" is known"), qPrintable(r.err));

  r = ragscope::test::runCliText({"labels", "summary", "--labels", project, "--json"});
  QCOMPARE(r.exitCode, 0);
  const QJsonObject summary = QJsonDocument::fromJson(r.out.toUtf8()).object();
  QCOMPARE(summary["rows"].toInt(), 4);
  QCOMPARE(summary["annotators"].toArray().size(), 2);

  // Export merged with the dataset's qrels: one conflict (hc02: qrels 0, ana 1).
  const QString out = QString::fromStdString((demo / "merged.qrels").string());
  r = ragscope::test::runCliText(
      {"labels", "export", "--labels", project, "--format", "qrels", "--merge-qrels",
       QString::fromStdString((demo / "qrels.txt").string()), "--out", out});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  QVERIFY2(r.err.contains("conflict: query q01, document hc02: qrels grade 0, ana graded 1"),
           qPrintable(r.err));
  const std::string merged = readText(out.toStdString());
  QVERIFY(hasText(merged, "q01 0 hc02 1\n"));
  QVERIFY(hasText(merged, "q01 0 hc05 0\n"));
  QVERIFY(hasText(merged, "q01 0 hc38 1\n"));  // the qrels' own, untouched
  QVERIFY(hasText(merged, "q01 0 hc01 2\n"));

  // Agreement from the project's labels: relevance vs the qrels (hc01 2/2, hc02 0/1; hc05 is
  // unjudged: no judge verdict), the claim vs the judge's verdict.
  r = ragscope::test::runCliText({"agreement", "--labels", project, "--resamples", "0", "--json"});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  const QJsonObject doc = QJsonDocument::fromJson(r.out.toUtf8()).object();
  QCOMPARE(doc["labels"].toInt(), 4);
  bool sawRelevance = false, sawClaim = false;
  for (const auto& v : doc["judge_vs_human"].toArray()) {
    const QJsonObject a = v.toObject();
    if (a["kind"].toString() == "relevance") {
      sawRelevance = true;
      QCOMPARE(a["annotator"].toString(), QString("ana"));
      QCOMPARE(a["n"].toInt(), 2);
      QCOMPARE(a["no_judge_verdict"].toInt(), 1);
      QCOMPARE(a["accuracy"].toDouble(), 0.5);
    }
    if (a["kind"].toString() == "claim") {
      sawClaim = true;
      QCOMPARE(a["n"].toInt() + a["no_judge_verdict"].toInt(), 1);
    }
  }
  QVERIFY(sawRelevance && sawClaim);
  QVERIFY(doc["unmatched"].toArray().isEmpty());
  // The text form names the table.
  r = ragscope::test::runCliText({"agreement", "--labels", project, "--resamples", "0"});
  QVERIFY2(r.out.contains("Judge vs human"), qPrintable(r.out));
  // --labels replaces --human and --judge.
  r = ragscope::test::runCliText({"agreement", "--labels", project, "--human", "x.csv"});
  QCOMPARE(r.exitCode, 2);

  // Answer labels imported from a CSV (by the store's file name), exported as the qid,label CSV,
  // and compared both ways: `agreement --labels` and the CSV path give the same aspects.
  writeText(demo / "answers.csv",
            "qid,label\nq01,correct\nq02,0.25\nq04,incorrect\nq07,1\n"
            "q11,partially\n");
  r = ragscope::test::runCliText({"labels", "import", "--labels", project, "--format", "csv",
                                  QString::fromStdString((demo / "answers.csv").string()),
                                  "--annotator", "ana", "--scope", "runs/claims-offline.db"});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  const QString csvOut = QString::fromStdString((demo / "exported.csv").string());
  r = ragscope::test::runCliText(
      {"labels", "export", "--labels", project, "--format", "csv", "--out", csvOut});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  QCOMPARE(readText(csvOut.toStdString()),
           std::string("qid,label\nq01,1\nq02,0.25\nq04,0\nq07,1\nq11,0.5\n"));
  const QString judgeStore = QString::fromStdString((demo / "runs/claims-offline.db").string());
  r = ragscope::test::runCliText(
      {"agreement", "--human", csvOut, "--judge", judgeStore, "--resamples", "100", "--json"});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  const QJsonObject viaCsv = QJsonDocument::fromJson(r.out.toUtf8()).object();
  r = ragscope::test::runCliText(
      {"agreement", "--labels", project, "--resamples", "100", "--json"});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  const QJsonArray answers = QJsonDocument::fromJson(r.out.toUtf8()).object()["answers"].toArray();
  QCOMPARE(answers.size(), 1);
  const QJsonObject viaLabels = answers[0].toObject()["agreement"].toObject();
  QVERIFY(!viaCsv["aspects"].toObject().isEmpty());
  QCOMPARE(viaLabels["aspects"].toObject(), viaCsv["aspects"].toObject());
}

void TestLabels::cliRefusesBadImport() {
  QTemporaryDir dir;
  const fs::path store = fs::path(dir.path().toStdString()) / "x.labels.db";
  const fs::path file = fs::path(dir.path().toStdString()) / "bad.jsonl";
  writeText(
      file,
      R"({"kind":"relevance","scope":"d","qid":"q1","item":"a","value":"1","annotator":"ana"})"
      "\n"
      R"({"kind":"relevance","scope":"d","qid":"q1","item":"b","value":"9","annotator":"ana"})"
      "\n");
  auto r = ragscope::test::runCliText({"labels", "import", "--labels",
                                       QString::fromStdString(store.string()), "--format", "jsonl",
                                       QString::fromStdString(file.string())});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("bad.jsonl:2: value: \"9\" is out of range"), qPrintable(r.err));
  QVERIFY2(r.err.contains("nothing was stored"), qPrintable(r.err));
  QVERIFY(!fs::exists(store));
  // A good file, then a duplicate-target file: the store keeps only the good one.
  writeText(
      file,
      R"({"kind":"relevance","scope":"d","qid":"q1","item":"a","value":"1","annotator":"ana"})"
      "\n");
  r = ragscope::test::runCliText({"labels", "import", "--labels",
                                  QString::fromStdString(store.string()), "--format", "jsonl",
                                  QString::fromStdString(file.string())});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  QVERIFY2(r.out.contains("(targets not checked)"), qPrintable(r.out));
  writeText(file, "q1 0 a 2\nq1 0 a 3\n");
  r = ragscope::test::runCliText(
      {"labels", "import", "--labels", QString::fromStdString(store.string()), "--format", "qrels",
       QString::fromStdString(file.string()), "--annotator", "bo", "--scope", "d"});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains(":2: docno: document \"a\" of query \"q1\" is graded twice"),
           qPrintable(r.err));
  LabelStore s;
  std::string error;
  QVERIFY(s.openReadOnly(store, &error));
  QCOMPARE(s.rowCount(), std::int64_t{1});
  // The file is read twice (checked, then stored): standard input is refused, nothing stored.
  r = ragscope::test::runCliText({"labels", "import", "--labels",
                                  QString::fromStdString(store.string()), "--format", "jsonl",
                                  "-"});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("must be a named file"), qPrintable(r.err));
  // Unknown subcommand and missing options: usage errors.
  QCOMPARE(ragscope::test::runCliText({"labels", "frobnicate"}).exitCode, 2);
  QCOMPARE(ragscope::test::runCliText({"labels", "export", "--labels", "x"}).exitCode, 2);
  QCOMPARE(ragscope::test::runCliText({"labels", "import", "--help"}).exitCode, 0);
}

namespace {

// Plain SQLite on a file, as somebody crafting a store would use it.
std::string rawSql(const fs::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  if (sqlite3_open(db.c_str(), &h) != SQLITE_OK) return "cannot open";
  char* msg = nullptr;
  const int rc = sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &msg);
  std::string error = rc == SQLITE_OK ? "" : (msg ? msg : "error");
  sqlite3_free(msg);
  sqlite3_close(h);
  return error;
}

std::string rawText(const fs::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  std::string out;
  if (sqlite3_open(db.c_str(), &h) != SQLITE_OK) return out;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
    out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

// Rebuilds `table` of a store under the definition `mutate` makes of its own, rows kept (the
// columns both definitions have), its named indexes made again.
std::string redefineTable(const fs::path& db, const std::string& table,
                          const std::function<std::string(std::string)>& mutate) {
  const std::string sql =
      rawText(db, "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = '" + table + "'");
  const std::string indexes = rawText(
      db,
      "SELECT group_concat(sql, '; ') FROM sqlite_schema WHERE type = 'index' AND tbl_name = '" +
          table + "' AND sql IS NOT NULL");
  const std::string columns =
      rawText(db, "SELECT group_concat(name, ', ') FROM pragma_table_info('" + table + "')");
  if (sql.empty() || columns.empty()) return "no table " + table;
  // legacy_alter_table: the other tables' REFERENCES keep naming `table`, not its old copy.
  return rawSql(
      db, "PRAGMA foreign_keys = OFF; PRAGMA legacy_alter_table = ON; BEGIN; ALTER TABLE " + table +
              " RENAME TO old_" + table + "; " + mutate(sql) + "; INSERT INTO " + table + "(" +
              columns + ") SELECT " + columns + " FROM old_" + table + "; DROP TABLE old_" + table +
              "; " + indexes + "; COMMIT");
}

// `sql` with `extra` put before its last ')'.
std::string beforeLastParen(std::string sql, const std::string& extra) {
  sql.insert(sql.rfind(')'), extra);
  return sql;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string fileBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

void TestLabels::storeDefinitionsNormalised() {
  // What SqliteDb::schemaProblem compares: case, whitespace, comments and IF NOT EXISTS do not
  // count; quoted text and every other token do.
  QCOMPARE(sqliteDefinition("CREATE TABLE IF NOT EXISTS t (\n  a TEXT NOT NULL, -- why\n  b "
                            "/* note */ INTEGER\n);"),
           std::string("create table t(a text not null,b integer)"));
  QCOMPARE(sqliteDefinition("create table T(A text NOT  NULL,B integer)"),
           std::string("create table t(a text not null,b integer)"));
  QCOMPARE(sqliteDefinition("CREATE TABLE t (s TEXT DEFAULT 'A  B -- c')"),
           std::string("create table t(s text default 'A  B -- c')"));
  QVERIFY(sqliteDefinition("CREATE TABLE t (a TEXT UNIQUE ON CONFLICT IGNORE)") !=
          sqliteDefinition("CREATE TABLE t (a TEXT UNIQUE)"));
  QVERIFY(sqliteDefinition("CREATE TABLE t (id INTEGER PRIMARY KEY)") !=
          sqliteDefinition("CREATE TABLE t (id INTEGER)"));
  QVERIFY(sqliteDefinition("CREATE TABLE t (\"a b\" TEXT)") !=
          sqliteDefinition("CREATE TABLE t (\"a  b\" TEXT)"));
  QCOMPARE(
      sqliteDefinitions("CREATE TABLE a (x TEXT DEFAULT ';'); CREATE INDEX i ON a(x);\n"),
      (std::vector<std::string>{"create table a(x text default ';')", "create index i on a(x)"}));
}

void TestLabels::craftedLabelsTablesRefused() {
  // Issue 35, item 5: a table named `labels` defined otherwise than ragscope defines it was
  // accepted. Each crafted definition below is made from the store's own one, its rows kept.
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  const fs::path good = root / "good.labels.db";
  {
    LabelStore store;
    std::string error;
    QVERIFY2(store.open(good, &error), error.c_str());
    std::vector<Label> bo = {makeLabel(TargetKind::Relevance, "d", "q1", "a", "1", "bo")};
    QVERIFY2(store.add(bo, &error), error.c_str());
  }
  struct Case {
    const char* name;
    std::function<std::string(std::string)> mutate;
  };
  const std::vector<Case> cases = {
      {"ignore",
       [](std::string sql) {
         return beforeLastParen(sql, ", UNIQUE (kind, scope, qid, item) ON CONFLICT IGNORE");
       }},
      {"replace",
       [](std::string sql) {
         return beforeLastParen(sql, ", UNIQUE (kind, scope, qid, item) ON CONFLICT REPLACE");
       }},
      {"notrowid",
       [](std::string sql) { return replaced(sql, "id INTEGER PRIMARY KEY", "id INTEGER"); }},
      {"default",
       [](std::string sql) {
         return beforeLastParen(sql, ", pad BLOB DEFAULT (randomblob(1000))");
       }},
  };
  writeText(root / "ana.qrels", "q1 0 a 3\nq1 0 b 2\n");
  for (const auto& c : cases) {
    const fs::path crafted = root / (std::string(c.name) + ".labels.db");
    fs::copy_file(good, crafted);
    const std::string made = redefineTable(crafted, "labels", c.mutate);
    QVERIFY2(made.empty(), made.c_str());
    const std::string before = fileBytes(crafted);
    for (bool readOnly : {false, true}) {
      LabelStore store;
      std::string error;
      QVERIFY2(!(readOnly ? store.openReadOnly(crafted, &error) : store.open(crafted, &error)),
               c.name);
      QVERIFY2(hasText(error, crafted.string() + ": not a ragscope labels store") &&
                   hasText(error, "table \"labels\" otherwise than ragscope"),
               error.c_str());
    }
    // The import that reported "2 labels added" (and stored none, or replaced bo's label).
    const auto r = ragscope::test::runCliText(
        {"labels", "import", "--labels", QString::fromStdString(crafted.string()), "--format",
         "qrels", QString::fromStdString((root / "ana.qrels").string()), "--annotator", "ana",
         "--scope", "d"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(QString::fromStdString(crafted.string())) &&
                 r.err.contains("table \"labels\""),
             qPrintable(r.err));
    QCOMPARE(fileBytes(crafted), before);  // refused untouched
  }
  // The same definition spelled otherwise (case, spaces, a comment) is the same table.
  const fs::path respelled = root / "respelled.labels.db";
  fs::copy_file(good, respelled);
  const std::string made = redefineTable(respelled, "labels", [](std::string sql) {
    std::string out = "create table labels /* made by hand */ (";
    out += sql.substr(sql.find('(') + 1);
    for (char& ch : out)
      if (ch == '\n') ch = ' ';
    return out;
  });
  QVERIFY2(made.empty(), made.c_str());
  LabelStore store;
  std::string error;
  QVERIFY2(store.open(respelled, &error), error.c_str());
  QCOMPARE(store.rowCount(), std::int64_t{1});
}

void TestLabels::everyStoreKindChecksItsTables() {
  // Run stores, response caches and the jobs' score writers check each table's definition too.
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  const fs::path runs = ragscope::test::sourceRoot() / "resources/demo/runs";
  std::string error;
  // The demo's stores (their eRAG and end-to-end tables written by earlier versions) are read.
  for (const char* name : {"claims-offline.db", "erag-good.db", "e2e-good.db"}) {
    store::RunStore s;
    QVERIFY2(s.openReadOnly(runs / name, &error), error.c_str());
  }
  // items.key UNIQUE ON CONFLICT REPLACE: a second item of one key would delete the first.
  const fs::path run = root / "run.db";
  fs::copy_file(runs / "claims-offline.db", run);
  {
    const std::string made = redefineTable(run, "items", [](std::string sql) {
      return replaced(sql, "key TEXT NOT NULL UNIQUE",
                      "key TEXT NOT NULL UNIQUE ON CONFLICT REPLACE");
    });
    QVERIFY2(made.empty(), made.c_str());
  }
  {
    store::RunStore s;
    QVERIFY(!s.openReadOnly(run, &error));
    QVERIFY2(hasText(error, run.string()) && hasText(error, "table \"items\" otherwise"),
             error.c_str());
  }
  // A query_scores table with a default that grows every row: the eRAG writer refuses the store.
  const fs::path erag = root / "erag.db";
  fs::copy_file(runs / "erag-good.db", erag);
  {
    const std::string made = redefineTable(erag, "query_scores", [](std::string sql) {
      return replaced(sql, "value REAL", "value REAL, pad BLOB DEFAULT (randomblob(1000))");
    });
    QVERIFY2(made.empty(), made.c_str());
  }
  QVERIFY(!eval::storeEragScores(erag, eval::EragReport{}, &error));
  QVERIFY2(hasText(error, "table \"query_scores\" otherwise"), error.c_str());
  // A response cache whose key ignores a conflict: a new answer would never replace the old.
  const fs::path cache = root / "cache.db";
  {
    llm::ResponseCache made;
    QVERIFY2(made.open(cache, &error), error.c_str());
  }
  {
    const std::string made = redefineTable(cache, "responses", [](std::string sql) {
      return replaced(sql, "key TEXT PRIMARY KEY", "key TEXT PRIMARY KEY ON CONFLICT IGNORE");
    });
    QVERIFY2(made.empty(), made.c_str());
  }
  llm::ResponseCache refused;
  QVERIFY(!refused.open(cache, &error));
  QVERIFY2(hasText(error, "table \"responses\" otherwise"), error.c_str());
  QVERIFY(!llm::ResponseCache::isCacheFile(cache));
}

void TestLabels::importStreamsInPieces() {
  // Issue 35, item 8: labels are checked and added in pieces (3 labels here) inside one
  // transaction. Ten good lines: all stored, in file order.
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  std::string ten;
  for (int i = 0; i < 10; ++i) ten += "q" + std::to_string(i) + " 0 d" + std::to_string(i) + " 1\n";
  writeText(root / "ten.qrels", ten);
  LabelImportOptions options;
  options.annotator = "ana";
  options.scope = "dl";
  options.pieceLabels = 3;
  std::size_t largestPiece = 0, pieces = 0;
  bool linesKept = true;
  const auto counted = streamLabelsFile(root / "ten.qrels", LabelFileFormat::Qrels, options,
                                        [&](LabelPiece& p) -> std::optional<LabelPieceProblem> {
                                          largestPiece = std::max(largestPiece, p.labels.size());
                                          linesKept &= p.lines.size() == p.labels.size();
                                          ++pieces;
                                          return std::nullopt;
                                        });
  QVERIFY(linesKept);
  QVERIFY2(counted.ok(), counted.error.c_str());
  QCOMPARE(counted.labels, std::uint64_t{10});
  QCOMPARE(pieces, std::size_t{4});  // 3 + 3 + 3 + 1
  QCOMPARE(largestPiece, std::size_t{3});

  LabelStore store;
  std::string error;
  QVERIFY(store.open(root / "l.db", &error));
  auto done = importLabelsFile(store, root / "ten.qrels", LabelFileFormat::Qrels, options);
  QVERIFY2(done.ok(), done.error.c_str());
  QCOMPARE(done.added, std::uint64_t{10});
  const auto rows = store.history();
  QCOMPARE(rows.size(), std::size_t{10});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    QCOMPARE(rows[i].id, std::int64_t(i + 1));
    QCOMPARE(rows[i].target.qid, "q" + std::to_string(i));
  }

  // A bad line after two pieces were added: nothing of the file is stored.
  writeText(root / "bad.qrels",
            "x1 0 a 1\nx2 0 a 1\nx3 0 a 1\nx4 0 a 1\nx5 0 a 1\nx6 0 a 1\n"
            "x7 0 a 1\nx8 0 a 9\n");
  done = importLabelsFile(store, root / "bad.qrels", LabelFileFormat::Qrels, options);
  QVERIFY(!done.ok());
  QCOMPARE(done.error, (root / "bad.qrels").string() +
                           ":8: rel: \"9\" is out of range (relevance grades are "
                           "0, 1, 2, 3)");
  QCOMPARE(store.rowCount(), std::int64_t{10});
  // A target twice in one file, three pieces apart: found (in bounded memory), nothing stored.
  writeText(root / "dup.qrels",
            "y1 0 a 1\ny2 0 a 1\ny3 0 a 1\ny4 0 a 1\ny5 0 a 1\ny6 0 a 1\n"
            "y7 0 a 1\ny2 0 a 0\n");
  done = importLabelsFile(store, root / "dup.qrels", LabelFileFormat::Qrels, options);
  QCOMPARE(done.error, (root / "dup.qrels").string() +
                           ":8: docno: document \"a\" of query \"y2\" is graded twice (first on "
                           "line 2)");
  QCOMPARE(store.rowCount(), std::int64_t{10});
  // A target the catalog does not know, in the third piece: named by its line.
  writeText(root / "unknown.qrels",
            "z1 0 a 1\nz2 0 a 1\nz3 0 a 1\nz4 0 a 1\nz5 0 a 1\n"
            "z6 0 a 1\nz7 0 a 1\n");
  const LabelCatalog catalog = [](const Target& t) -> std::optional<std::string> {
    if (t.qid == "z7") return std::string("query \"z7\" is not in dataset \"dl\"");
    return std::nullopt;
  };
  done = importLabelsFile(store, root / "unknown.qrels", LabelFileFormat::Qrels, options, catalog);
  QVERIFY2(hasText(done.error,
                   "unknown.qrels:7: target: relevance of document \"a\" for query "
                   "\"z7\" in dataset \"dl\": query \"z7\" is not in dataset"),
           done.error.c_str());
  QCOMPARE(store.rowCount(), std::int64_t{10});
  // CSV and JSONL the same way: the JSONL one fails in its last piece.
  writeText(root / "a.csv", "qid,label\nc1,1\nc2,0\nc3,0.5\nc4,correct\nc5,incorrect\n");
  options.scope = "run.db";
  done = importLabelsFile(store, root / "a.csv", LabelFileFormat::Csv, options);
  QVERIFY2(done.ok(), done.error.c_str());
  QCOMPARE(done.added, std::uint64_t{5});
  std::string jsonl;
  for (int i = 0; i < 7; ++i)
    jsonl += R"({"kind":"erag","scope":"e.db","qid":"j)" + std::to_string(i) +
             R"(","item":"d","value":)" + (i == 6 ? "2" : "1") + "}\n";
  writeText(root / "e.jsonl", jsonl);
  done = importLabelsFile(store, root / "e.jsonl", LabelFileFormat::Jsonl, options);
  QVERIFY2(hasText(done.error, "e.jsonl:7: value: \"2\" is out of range"), done.error.c_str());
  QCOMPARE(store.rowCount(), std::int64_t{15});
}

void TestLabels::importSizeBoundPerFormat() {
  // One bound per input kind (CSV had none); a smaller one is given here to test the same path.
  QVERIFY(maxLabelFileBytes(LabelFileFormat::Csv) > 0);
  QCOMPARE(maxLabelFileBytes(LabelFileFormat::Qrels), kMaxQrelsLabelFileBytes);
  QCOMPARE(maxLabelFileBytes(LabelFileFormat::Csv), kMaxCsvLabelFileBytes);
  QCOMPARE(maxLabelFileBytes(LabelFileFormat::Jsonl), kMaxJsonlLabelFileBytes);
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  std::string csv = "qid,label\n", qrels, jsonl;
  for (int i = 0; i < 20; ++i) {
    csv += "q" + std::to_string(i) + ",1\n";
    qrels += "q" + std::to_string(i) + " 0 d 1\n";
    jsonl += R"({"kind":"answer","qid":"q)" + std::to_string(i) +
             R"(","value":1})"
             "\n";
  }
  writeText(root / "a.csv", csv);
  writeText(root / "a.qrels", qrels);
  writeText(root / "a.jsonl", jsonl);
  LabelImportOptions options;
  options.annotator = "ana";
  options.scope = "s";
  options.maxFileBytes = 100;
  struct Case {
    const char* file;
    LabelFileFormat format;
    const char* kind;
  };
  for (const Case& c : {Case{"a.csv", LabelFileFormat::Csv, "csv"},
                        Case{"a.qrels", LabelFileFormat::Qrels, "qrels"},
                        Case{"a.jsonl", LabelFileFormat::Jsonl, "jsonl"}}) {
    const auto in = readLabelsFile(root / c.file, c.format, options);
    QVERIFY(!in.ok());
    QCOMPARE(in.error, (root / c.file).string() + ": is larger than 100 bytes, the limit for a " +
                           c.kind + " labels file");
    QVERIFY(in.labels.empty());
  }
  options.maxFileBytes = 0;
  for (const Case& c : {Case{"a.csv", LabelFileFormat::Csv, "csv"},
                        Case{"a.qrels", LabelFileFormat::Qrels, "qrels"},
                        Case{"a.jsonl", LabelFileFormat::Jsonl, "jsonl"}})
    QCOMPARE(readLabelsFile(root / c.file, c.format, options).labels.size(), std::size_t{20});
  // A line past kMaxLabelLineBytes is refused by its number, never buffered whole.
  writeText(root / "long.jsonl", R"({"kind":"answer","qid":"q","value":1})"
                                 "\n" +
                                     std::string(kMaxLabelLineBytes + 10, ' ') + "\n");
  const auto in = readLabelsFile(root / "long.jsonl", LabelFileFormat::Jsonl, options);
  QVERIFY2(hasText(in.error, "long.jsonl:2: record: longer than"), in.error.c_str());
}

void TestLabels::qrelsExportRoundTripsEveryByte() {
  // Issue 35, item 12: qrels are written with the TREC id escapes the run writer uses
  // (core/data/trecid.h), so every id reads back as itself through the qrels reader, `eval` and
  // a labels import. Ids "a<b>b" for every byte b: from the dataset's qrels (merged), and as
  // labels where a label may hold the byte (printable UTF-8; bytes above 0x7F inside a
  // character).
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  auto withByte = [](int b) {
    std::string id = "a";
    if (b < 0x80) {
      id += static_cast<char>(b);
    } else if (b < 0xC0) {
      id += "\xE4\xB8";  // a continuation byte: inside U+4E00..U+4E3F
      id += static_cast<char>(b);
    } else {
      id += static_cast<char>(b);  // a lead byte (and 0xC0, 0xC1, 0xF5..0xFF, never valid)
      id += b < 0xE0 ? "\xA0" : b < 0xF0 ? "\xA0\x80" : "\x90\x80\x80";
    }
    return id + "b";
  };
  Qrels merged;
  std::vector<Label> current;
  std::set<int> asLabels;
  for (int b = 0; b < 256; ++b) {
    const std::string id = withByte(b);
    merged.byQuery["m" + id].push_back(Judgment{"doc" + id, 1, std::uint64_t(b + 1)});
    Label l = makeLabel(TargetKind::Relevance, "dl", "q" + id, "d" + id, "2", "ana");
    l.id = b + 1;
    if (labelProblem(l)) continue;
    current.push_back(l);
    asLabels.insert(b);
  }
  // Every printable ASCII byte, the space inside an id and '%' are label bytes; so are bytes
  // inside valid UTF-8 characters (0x80..0xBF as continuations, 0xC2.. as leads).
  for (int b = 0x20; b < 0x7F; ++b) QVERIFY2(asLabels.contains(b), std::to_string(b).c_str());
  QVERIFY(asLabels.contains(0xA0) && asLabels.contains(0xE4));
  const LabelExport out = exportLabels(current, LabelFileFormat::Qrels, {}, &merged);
  QVERIFY2(out.ok(), out.error.c_str());
  QCOMPARE(out.rows, 256 + asLabels.size());
  // Every line has 4 fields: nothing in an id splits it.
  std::istringstream lines(out.text);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string_view> fields;
    splitWhitespace(line, fields);
    QVERIFY2(fields.size() == 4, line.c_str());
  }
  const fs::path qrelsFile = root / "exported.qrels";
  writeText(qrelsFile, out.text);
  auto back = readTrecQrels(qrelsFile, LoadOptions{});
  QVERIFY(back.report.ok() && !back.report.hasErrors());
  for (int b = 0; b < 256; ++b) {
    const std::string id = withByte(b);
    const auto m = back.value.byQuery.find("m" + id);
    QVERIFY2(
        m != back.value.byQuery.end() && m->second.size() == 1 && m->second[0].docId == "doc" + id,
        ("byte " + std::to_string(b)).c_str());
    if (!asLabels.contains(b)) continue;
    const auto q = back.value.byQuery.find("q" + id);
    QVERIFY2(
        q != back.value.byQuery.end() && q->second[0].docId == "d" + id && q->second[0].rel == 2,
        ("byte " + std::to_string(b)).c_str());
  }
  // A labels import reads the labels' own export back as they were.
  const LabelExport own = exportLabels(current, LabelFileFormat::Qrels, {});
  QVERIFY2(own.ok(), own.error.c_str());
  writeText(root / "labels.qrels", own.text);
  LabelImportOptions options;
  options.annotator = "ana";
  options.scope = "dl";
  const LabelImport imported =
      readLabelsFile(root / "labels.qrels", LabelFileFormat::Qrels, options);
  QVERIFY2(imported.ok(), imported.error.c_str());
  QCOMPARE(imported.labels.size(), current.size());
  std::set<std::pair<std::string, std::string>> wanted, got;
  for (const auto& l : current) wanted.insert({l.target.qid, l.target.item});
  for (const auto& l : imported.labels) got.insert({l.target.qid, l.target.item});
  QVERIFY(wanted == got);
  // `ragscope-cli eval` reads it: a run that retrieves each query's relevant document first.
  std::string run;
  for (const auto& [qid, judgments] : back.value.byQuery)
    run += encodeTrecId(qid) + " Q0 " + encodeTrecId(judgments[0].docId) + " 1 1.0 t\n";
  writeText(root / "run.trec", run);
  const auto r = ragscope::test::runCliText({"eval", QString::fromStdString(qrelsFile.string()),
                                             QString::fromStdString((root / "run.trec").string())});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  const std::string n = std::to_string(back.value.byQuery.size());
  QVERIFY2(r.out.contains(QString::fromStdString("num_q                 \tall\t" + n)) ||
               r.out.contains(QRegularExpression("num_q\\s+all\\s+" + QString::fromStdString(n))),
           qPrintable(r.out));
  QVERIFY2(r.out.contains(QRegularExpression("num_rel_ret\\s+all\\s+" + QString::fromStdString(n))),
           qPrintable(r.out));
  QVERIFY2(r.out.contains(QRegularExpression("\\bmap\\s+all\\s+1\\.0000")), qPrintable(r.out));
}

void TestLabels::labelFieldsBounded() {
  // Issue 35, item 14: a label's time had no length bound (a 50 MB time was stored). Every
  // free-text field is bounded, and an import names the line and the field.
  const Label good = makeLabel(TargetKind::Claim, "c.db", "q1", "response:0", "supported", "ana");
  QVERIFY(!labelProblem(good));
  Label l = good;
  l.time = "2026-11-27T10:00:00.123456789Z";  // 30 bytes: nanoseconds
  QVERIFY(!labelProblem(l));
  l.time = "2026-11-27T10:00:00.1234567891Z";
  QVERIFY2(hasText(labelProblem(l).value_or(""), "time is longer than 30 bytes"),
           labelProblem(l).value_or("").c_str());
  l.time = "2026-11-27T10:00:00." + std::string(50 << 20, '1') + "Z";
  QVERIFY(labelProblem(l));
  struct Case {
    const char* field;
    std::size_t bound;
    std::function<void(Label&, std::string)> set;
  };
  const std::vector<Case> cases = {
      {"annotator", 200, [](Label& x, std::string v) { x.annotator = std::move(v); }},
      {"comment", 16384, [](Label& x, std::string v) { x.comment = std::move(v); }},
      {"context", 16384, [](Label& x, std::string v) { x.context = std::move(v); }},
      {"qid", 4096, [](Label& x, std::string v) { x.target.qid = std::move(v); }},
      {"scope", 4096, [](Label& x, std::string v) { x.target.scope = std::move(v); }},
  };
  for (const auto& c : cases) {
    Label at = good, over = good;
    c.set(at, std::string(c.bound, 'x'));
    c.set(over, std::string(c.bound + 1, 'x'));
    QVERIFY2(!labelProblem(at), c.field);
    QVERIFY2(hasText(labelProblem(over).value_or(""), std::string(c.field) + " is longer than " +
                                                          std::to_string(c.bound) + " bytes"),
             c.field);
  }
  // Through an import: "file:line: field: ...".
  const std::string row =
      R"({"kind":"claim","scope":"c.db","qid":"q1","item":"response:0","value":"supported","annotator":"ana","time":")";
  auto in = parseLabelsText(
      R"({"kind":"claim","scope":"c.db","qid":"q1","item":"response:1","value":"supported","annotator":"ana"})"
      "\n" +
          row + "2026-11-27T10:00:00." + std::string(40000, '0') + "Z\"}\n",
      "t.jsonl", LabelFileFormat::Jsonl, {});
  QVERIFY2(hasText(in.error, "t.jsonl:2: time: time is longer than 30 bytes"), in.error.c_str());
  // A store holding such a row (written by hand) is refused whole.
  QTemporaryDir dir;
  const fs::path path = dir.filePath("l.db").toStdString();
  {
    LabelStore store;
    std::string error;
    QVERIFY(store.open(path, &error));
    std::vector<Label> one = {good};
    QVERIFY(store.add(one, &error));
  }
  QVERIFY(
      rawSql(path, "UPDATE labels SET time = '2026-11-27T10:00:00." + std::string(1000, '0') + "Z'")
          .empty());
  LabelStore store;
  std::string error;
  QVERIFY(!store.openReadOnly(path, &error));
  QVERIFY2(hasText(error, "row 1") && hasText(error, "time is longer than 30 bytes"),
           error.c_str());
}

void TestLabels::claimPremiseIsPartOfTheTarget() {
  // A verdict against the chunks and one against the gold answer are two questions: two targets,
  // both kept as the annotator's current labels; a claim without a premise is the default one.
  const Target chunks{TargetKind::Claim, "runs/c.db", "q1", "response:0", ClaimPremise::Chunks};
  const Target gold{TargetKind::Claim, "runs/c.db", "q1", "response:0", ClaimPremise::GoldAnswer};
  const Target unsaid{TargetKind::Claim, "runs/c.db", "q1", "response:0"};
  QCOMPARE(chunks.key(), std::string("claim\truns/c.db\tq1\tresponse:0\tchunks"));
  QCOMPARE(gold.key(), std::string("claim\truns/c.db\tq1\tresponse:0\tgold_answer"));
  QVERIFY(unsaid == chunks);
  QVERIFY(!(gold == chunks));
  QCOMPARE(Target({TargetKind::Claim, "c", "q", "gold:2"}).claimPremise(),
           std::optional(ClaimPremise::Response));
  QVERIFY(!Target({TargetKind::Answer, "c", "q", ""}).claimPremise());
  QVERIFY2(hasText(describeTarget(gold), "against the gold answer"), describeTarget(gold).c_str());
  // Premises that are no question about the claim, or on other kinds, are refused.
  Label l = makeLabel(TargetKind::Claim, "c.db", "q1", "response:0", "supported", "ana");
  l.target.premise = ClaimPremise::Response;
  auto problem = labelProblem(l);
  QVERIFY(problem && hasText(*problem, "premise \"response\" is not a question about a response"));
  l.target.item = "gold:0";
  QVERIFY(!labelProblem(l));
  l.target.premise = ClaimPremise::GoldAnswer;
  QVERIFY(labelProblem(l));
  Label grade = makeLabel(TargetKind::Relevance, "d", "q1", "doc", "2", "ana");
  grade.target.premise = ClaimPremise::Chunks;
  problem = labelProblem(grade);
  QVERIFY(problem && hasText(*problem, "premise applies to claim labels only"));

  QTemporaryDir dir;
  const fs::path path = dir.filePath("p.labels.db").toStdString();
  LabelStore store;
  std::string error;
  QVERIFY2(store.open(path, &error), error.c_str());
  std::vector<Label> add = {
      makeLabel(TargetKind::Claim, "runs/c.db", "q1", "response:0", "supported", "ana"),
      makeLabel(TargetKind::Claim, "runs/c.db", "q1", "response:0", "unsupported", "ana"),
      makeLabel(TargetKind::Claim, "runs/c.db", "q1", "gold:0", "supported", "ana")};
  add[1].target.premise = ClaimPremise::GoldAnswer;
  QVERIFY2(store.add(add, &error), error.c_str());
  LabelStore reader;
  QVERIFY2(reader.openReadOnly(path, &error), error.c_str());
  const auto current = reader.current();
  QCOMPARE(current.size(), std::size_t{3});
  std::map<std::string, std::string> byKey;
  for (const auto& c : current) byKey[c.target.key()] = c.value;
  QCOMPARE(byKey.at(chunks.key()), std::string("supported"));
  QCOMPARE(byKey.at(gold.key()), std::string("unsupported"));
  QCOMPARE(byKey.at("claim\truns/c.db\tq1\tgold:0\tresponse"), std::string("supported"));
  QCOMPARE(reader.history(gold).size(), std::size_t{1});
  QCOMPARE(reader.history(unsaid).size(), std::size_t{1});
}

void TestLabels::schemaOneStoreReadAndMigrated() {
  // A labels store of schema 1 (no premise column), as an earlier ragscope made it.
  QTemporaryDir dir;
  const fs::path path = dir.filePath("old.labels.db").toStdString();
  {
    SqliteDb db;
    std::string error;
    QVERIFY2(db.open(path, true, &error), error.c_str());
    QVERIFY2(db.exec("CREATE TABLE IF NOT EXISTS labels (\n"
                     "  id INTEGER PRIMARY KEY,\n"
                     "  kind TEXT NOT NULL,\n"
                     "  scope TEXT NOT NULL,\n"
                     "  qid TEXT NOT NULL,\n"
                     "  item TEXT NOT NULL,\n"
                     "  value TEXT NOT NULL,\n"
                     "  annotator TEXT NOT NULL,\n"
                     "  time TEXT NOT NULL,\n"
                     "  comment TEXT NOT NULL,\n"
                     "  context TEXT NOT NULL\n"
                     ");\n"
                     "CREATE INDEX IF NOT EXISTS labels_target ON labels(kind, scope, qid, item, "
                     "annotator, id);\n"
                     "PRAGMA user_version = 1;",
                     &error),
             error.c_str());
    QVERIFY2(db.exec("INSERT INTO labels VALUES (3, 'claim', 'runs/c.db', 'q1', 'response:0', "
                     "'supported', 'ana', '2026-11-27T10:00:00Z', '', 'A');"
                     "INSERT INTO labels VALUES (7, 'claim', 'runs/c.db', 'q1', 'gold:1', "
                     "'unsupported', 'ana', '2026-11-27T10:00:00Z', '', '');"
                     "INSERT INTO labels VALUES (9, 'relevance', 'demo', 'q1', 'd1', '2', 'bo', "
                     "'2026-11-27T10:00:00Z', '', '')",
                     &error),
             error.c_str());
  }
  const auto expectDefaults = [](const std::vector<Label>& labels) {
    QCOMPARE(labels.size(), std::size_t{3});
    QCOMPARE(labels[0].id, std::int64_t{3});
    QCOMPARE(labels[0].target.premise, std::optional(ClaimPremise::Chunks));
    QCOMPARE(labels[1].id, std::int64_t{7});
    QCOMPARE(labels[1].target.premise, std::optional(ClaimPremise::Response));
    QCOMPARE(labels[2].id, std::int64_t{9});
    QVERIFY(!labels[2].target.premise);
    QCOMPARE(labels[0].context, std::string("A"));
  };
  std::string error;
  {
    // Read as it is: claim labels without a premise read with the default one; nothing written.
    LabelStore reader;
    QVERIFY2(reader.openReadOnly(path, &error), error.c_str());
    expectDefaults(reader.history());
    SqliteDb check;
    QVERIFY(check.openReadOnly(path, &error));
    QCOMPARE(check.userVersion(), 1);
  }
  {
    // Opened for writing: migrated in place to schema 2, every row and id kept.
    LabelStore writer;
    QVERIFY2(writer.open(path, &error), error.c_str());
    expectDefaults(writer.history());
    std::vector<Label> more = {
        makeLabel(TargetKind::Claim, "runs/c.db", "q1", "response:0", "unsupported", "ana")};
    more[0].target.premise = ClaimPremise::GoldAnswer;
    QVERIFY2(writer.add(more, &error), error.c_str());
    QCOMPARE(more[0].id, std::int64_t{10});
  }
  SqliteDb check;
  QVERIFY(check.openReadOnly(path, &error));
  QCOMPARE(check.userVersion(), 2);
  auto st = check.prepare("SELECT name, sql FROM sqlite_schema ORDER BY name");
  std::vector<std::string> names;
  std::string tableSql;
  while (st.step()) {
    names.push_back(st.text(0));
    if (st.text(0) == "labels") tableSql = st.text(1);
  }
  QCOMPARE(names, (std::vector<std::string>{"labels", "labels_target"}));  // no labels_v1 left
  QVERIFY2(hasText(tableSql, "context TEXT NOT NULL,\n  premise TEXT NOT NULL\n)"),
           tableSql.c_str());
  QVERIFY2(!hasText(tableSql, "labels_v1") && !hasText(tableSql, "\"labels\""), tableSql.c_str());
  QCOMPARE(check.scalarInt("SELECT count(*) FROM labels WHERE premise = 'chunks'").value_or(-1),
           std::int64_t{1});
  QCOMPARE(check.scalarInt("SELECT count(*) FROM labels WHERE premise = ''").value_or(-1),
           std::int64_t{1});
  LabelStore reader;
  QVERIFY2(reader.openReadOnly(path, &error), error.c_str());
  QCOMPARE(reader.current().size(), std::size_t{4});  // response:0 vs chunks and vs the gold
}

void TestLabels::importsWithoutPremiseReadTheDefault() {
  // JSONL: no premise = the default (chunks for a response claim, the response for a gold
  // claim); a premise given is kept; one that is not a premise names the line and the field.
  const std::string jsonl =
      R"({"kind":"claim","scope":"c.db","qid":"q1","item":"response:0","value":"supported","annotator":"ana"})"
      "\n"
      R"({"kind":"claim","scope":"c.db","qid":"q1","item":"gold:0","value":"supported","annotator":"ana"})"
      "\n"
      R"({"kind":"claim","scope":"c.db","qid":"q1","item":"response:0","value":"unsupported","annotator":"ana","premise":"gold_answer"})"
      "\n";
  const LabelImport in = parseLabelsText(jsonl, "c.jsonl", LabelFileFormat::Jsonl, {});
  QVERIFY2(in.ok(), in.error.c_str());
  QCOMPARE(in.labels.size(), std::size_t{3});  // response:0 twice: two premises, two targets
  QCOMPARE(in.labels[0].target.claimPremise(), std::optional(ClaimPremise::Chunks));
  QCOMPARE(in.labels[1].target.claimPremise(), std::optional(ClaimPremise::Response));
  QCOMPARE(in.labels[2].target.claimPremise(), std::optional(ClaimPremise::GoldAnswer));
  const LabelImport bad = parseLabelsText(
      R"({"kind":"claim","scope":"c.db","qid":"q1","item":"response:0","value":"supported","annotator":"ana","premise":"vibes"})"
      "\n",
      "c.jsonl", LabelFileFormat::Jsonl, {});
  QVERIFY2(hasText(bad.error, "c.jsonl:1: premise: \"vibes\" is not a claim premise"),
           bad.error.c_str());
  // CSV: an optional premise column for claims; the export writes it and reads back the same.
  QTemporaryDir dir;
  const fs::path csv = dir.filePath("c.csv").toStdString();
  LabelImportOptions options;
  options.annotator = "ana";
  options.scope = "c.db";
  options.kind = TargetKind::Claim;
  writeText(csv, "qid,item,label\nq1,response:0,supported\nq1,gold:1,unsupported\n");
  auto fromCsv = readLabelsFile(csv, LabelFileFormat::Csv, options);
  QVERIFY2(fromCsv.ok(), fromCsv.error.c_str());
  QCOMPARE(fromCsv.labels[0].target.claimPremise(), std::optional(ClaimPremise::Chunks));
  QCOMPARE(fromCsv.labels[1].target.claimPremise(), std::optional(ClaimPremise::Response));
  writeText(csv,
            "qid,item,premise,label\nq1,response:0,gold_answer,supported\n"
            "q1,response:0,chunks,unsupported\nq1,response:1,response,supported\n");
  fromCsv = readLabelsFile(csv, LabelFileFormat::Csv, options);
  QVERIFY(!fromCsv.ok());  // line 4: "response" is no question about a response claim
  QVERIFY2(hasText(fromCsv.error, ":4: "), fromCsv.error.c_str());
  writeText(csv,
            "qid,item,premise,label\nq1,response:0,gold_answer,supported\n"
            "q1,response:0,chunks,unsupported\n");
  fromCsv = readLabelsFile(csv, LabelFileFormat::Csv, options);
  QVERIFY2(fromCsv.ok(), fromCsv.error.c_str());
  QCOMPARE(fromCsv.labels[0].target.claimPremise(), std::optional(ClaimPremise::GoldAnswer));
  QCOMPARE(fromCsv.labels[1].target.claimPremise(), std::optional(ClaimPremise::Chunks));
  LabelFilter claimsOnly;
  claimsOnly.kind = TargetKind::Claim;
  const LabelExport out = exportLabels(fromCsv.labels, LabelFileFormat::Csv, claimsOnly);
  QCOMPARE(out.text, std::string("qid,item,premise,label\nq1,response:0,gold_answer,supported\n"
                                 "q1,response:0,chunks,unsupported\n"));
}

void TestLabels::claimAgreementByPremise() {
  // handJudgedReport's q1, judged against the gold answer too: response claims 0..3 vs the gold
  // (correct) Unsupported, Supported, Supported, Unsupported. Ana labels response:0 and :1 twice:
  //   vs the chunks: supported, supported      (judge vs the chunks: Entailment, Contradiction)
  //   vs the gold:   unsupported, supported    (judge vs the gold: Unsupported, Supported)
  // Each is compared with the judge's verdict against its own premise: vs the chunks 1 of 2
  // agree; vs the gold 2 of 2 (kappa 1). Compared with the verdicts of the other premise, the
  // chunk labels would agree 1 of 2 and the gold ones 0 of 2.
  auto report = handJudgedReport();
  eval::PremiseVerdicts correct;
  correct.premise = "correct";
  correct.labels = {claims::Label::Unsupported, claims::Label::Supported, claims::Label::Supported,
                    claims::Label::Unsupported};
  report->queries[0].verdicts.push_back(correct);
  LabelSources sources;
  sources.runs.push_back(eval::labelSourceOfReport("runs/claims.db", {}, *report));
  std::vector<Label> current = {
      makeLabel(TargetKind::Claim, "runs/claims.db", "q1", "response:0", "supported", "ana"),
      makeLabel(TargetKind::Claim, "runs/claims.db", "q1", "response:1", "supported", "ana"),
      makeLabel(TargetKind::Claim, "runs/claims.db", "q1", "response:0", "unsupported", "ana"),
      makeLabel(TargetKind::Claim, "runs/claims.db", "q1", "response:1", "supported", "ana")};
  current[2].target.premise = ClaimPremise::GoldAnswer;
  current[3].target.premise = ClaimPremise::GoldAnswer;
  const auto r = computeLabelAgreement(current, sources, {});
  QCOMPARE(r.judgeVsHuman.size(), std::size_t{2});
  const auto& vsChunks = r.judgeVsHuman[0];  // "response:chunks" < "response:gold_answer"
  QCOMPARE(vsChunks.premise, std::optional(ClaimPremise::Chunks));
  QCOMPARE(vsChunks.n, std::size_t{2});
  QCOMPARE(vsChunks.accuracy, 0.5);
  QVERIFY2(hasText(vsChunks.compared, "(faithfulness)"), vsChunks.compared.c_str());
  const auto& vsGold = r.judgeVsHuman[1];
  QCOMPARE(vsGold.premise, std::optional(ClaimPremise::GoldAnswer));
  QCOMPARE(vsGold.n, std::size_t{2});
  QCOMPARE(vsGold.accuracy, 1.0);
  QCOMPARE(vsGold.kappa, 1.0);
  QVERIFY2(hasText(vsGold.compared, "(correctness)"), vsGold.compared.c_str());
  // --claims-vs gold keeps the response-claim labels against the gold answer only.
  LabelAgreementOptions onlyGold;
  onlyGold.responsePremise = ClaimPremise::GoldAnswer;
  const auto g = computeLabelAgreement(current, sources, onlyGold);
  QCOMPARE(g.judgeVsHuman.size(), std::size_t{1});
  QCOMPARE(g.judgeVsHuman[0].premise, std::optional(ClaimPremise::GoldAnswer));
  const auto json = labelAgreementJson(r, {});
  QCOMPARE(json["judge_vs_human"][1]["premise"].get<std::string>(), std::string("gold_answer"));
  QCOMPARE(json["judge_vs_human"][1]["claims"].get<std::string>(), std::string("response"));
}

void TestLabels::sameFileNameIsAnotherStore() {
  // Two copies of one run under one file name in two folders of a project: runs/e2e-good.db and
  // other/e2e-good.db. Labels of the first never stand for the second (core/labels/labelscope.h).
  QTemporaryDir dir;
  const fs::path root = fs::path(dir.path().toStdString());
  const fs::path demoRun = ragscope::test::sourceRoot() / "resources/demo/runs/e2e-good.db";
  fs::create_directories(root / "runs");
  fs::create_directories(root / "other");
  fs::copy_file(demoRun, root / "runs/e2e-good.db");
  fs::copy_file(demoRun, root / "other/e2e-good.db");
  fs::create_symlink(root / "runs/e2e-good.db", root / "link.db");
  const ScopeMatcher runs(root, root / "runs/e2e-good.db");
  QVERIFY(runs("runs/e2e-good.db"));
  QVERIFY(runs((root / "runs/e2e-good.db").string()));
  QVERIFY(runs("link.db"));  // a symbolic link to the same file
  QVERIFY(!runs("other/e2e-good.db"));
  QVERIFY(!runs("e2e-good.db"));
  QCOMPARE(scopeOfStore(root, root / "runs/e2e-good.db"), std::string("runs/e2e-good.db"));
  QCOMPARE(scopeOfStore(root / "runs", root / "other/e2e-good.db"),
           fs::weakly_canonical(root / "other/e2e-good.db").string());

  LabelSources sources;
  sources.folder = root;
  RunSource a, b;
  std::string error;
  QVERIFY2(eval::readLabelRunSource(root / "other/e2e-good.db", "other/e2e-good.db", b, &error),
           error.c_str());
  QVERIFY2(eval::readLabelRunSource(root / "runs/e2e-good.db", "runs/e2e-good.db", a, &error),
           error.c_str());
  sources.runs = {b, a};
  QCOMPARE(sources.findRun("runs/e2e-good.db")->scope, std::string("runs/e2e-good.db"));
  QCOMPARE(sources.findRun((root / "runs/e2e-good.db").string())->scope,
           std::string("runs/e2e-good.db"));
  QCOMPARE(sources.findRun("link.db")->scope, std::string("runs/e2e-good.db"));
  QVERIFY(!sources.findRun("e2e-good.db"));
  // Adopted scopes follow the file, not the name.
  std::vector<Label> labels = {
      makeLabel(TargetKind::Answer, (root / "runs/e2e-good.db").string(), "q01", "", "1", "ana"),
      makeLabel(TargetKind::Answer, "e2e-good.db", "q01", "", "1", "ana")};
  adoptSourceScopes(labels, sources);
  QCOMPARE(labels[0].target.scope, std::string("runs/e2e-good.db"));
  QCOMPARE(labels[1].target.scope, std::string("e2e-good.db"));  // names no store: unchanged
  // Agreement: labels of runs/ are compared with runs/ only, whatever the order of the sources.
  const auto r = computeLabelAgreement({labels[0]}, sources, {});
  QCOMPARE(r.answers.size(), std::size_t{1});
  QCOMPARE(r.answers[0].scope, std::string("runs/e2e-good.db"));
  QVERIFY(r.unmatched.empty());
}

int main(int argc, char** argv) {
  if (argc == 4 && std::string_view(argv[1]) == "--labels-burst-child")
    return burstChild(argv[2], std::atol(argv[3]));
  QCoreApplication app(argc, argv);
  TestLabels test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_labels.moc"
