// Issue 35 (hardening, round four), the items about where ragscope reads and writes: a project
// named without a folder keeps its folder boundary (item 3), no command writes over one of its own
// inputs (item 6), and no output replaces a FIFO (item 15). One test per case, named after the
// item; each runs the CLI as a user would, on copies of the demo in a temporary folder.

#include <sys/stat.h>
#include <unistd.h>

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <string>
#include <vector>

#include "common/cli.h"
#include "common/files.h"
#include "core/store/project.h"
#include "core/util/atomicfile.h"
#include "core/util/outputcheck.h"

using namespace ragscope;
namespace fs = std::filesystem;

namespace {

QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

fs::path demo(const char* name) {
  return fs::path(RAGSCOPE_SOURCE_DIR) / "resources" / "demo" / name;
}

// ragscope-cli run from `dir`, as a user who typed the command there.
test::CliText runCliIn(const fs::path& dir, const QStringList& args) {
  QProcess p;
  p.setWorkingDirectory(q(dir));
  p.start(QStringLiteral(RAGSCOPE_CLI_PATH), args);
  test::CliText r;
  if (!p.waitForFinished(120000)) {
    p.kill();
    p.waitForFinished(5000);
    return r;
  }
  r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

// A labels store with one answer label, made by `labels import` (as a user would).
fs::path labelsStore(const fs::path& dir) {
  test::writeText(dir / "human.csv", "qid,label\nq01,correct\n");
  const fs::path store = dir / "L.db";
  const auto r = test::runCliText({"labels", "import", "--labels", q(store), "--format", "csv",
                                   q(dir / "human.csv"), "--annotator", "ana", "--scope", "demo",
                                   "--kind", "answer", "--no-check"});
  if (r.exitCode != 0) qWarning("%s", qPrintable(r.err));
  return store;
}

}  // namespace

class TestHardeningOutputs : public QObject {
  Q_OBJECT

 private slots:
  void item03_bareProjectNameKeepsItsFolder();
  void item03_reportFromInsideTheProjectFolder();
  void item06_sameFileByInodeLinkAndSideFile();
  void item06_batchExportOverItsStore();
  void item06_batchFileOverTheDataset();
  void item06_labelsExportOverTheLabelsStore();
  void item06_linksToAnInputAreTheInput();
  void item06_distinctFilesStillWritten();
  void item15_labelsExportToAFifoRefused();
};

void TestHardeningOutputs::item03_bareProjectNameKeepsItsFolder() {
  // Hand-made: the project p.json lists one part beside it, one in the folder above and one by
  // an absolute path elsewhere; read as "p.json" from its own folder, only the first is inside.
  QTemporaryDir dir;
  const fs::path root = fs::path(dir.path().toStdString());
  const fs::path elsewhere = root / "elsewhere" / "secret.tsv";
  test::writeText(root / "up.tsv", "q1\tup\n");
  test::writeText(elsewhere, "q1\tsecret\n");
  test::writeText(root / "proj" / "topics.tsv", "q1\thello\n");
  test::writeText(root / "proj" / "p.json",
                  R"({"version": 1, "name": "p", "datasets": [{"name": "d", "parts": [)"
                  R"({"path": "topics.tsv"}, {"path": "../up.tsv"}, {"path": ")" +
                      elsewhere.string() + R"("}]}]})");
  const QString before = QDir::currentPath();
  QVERIFY(QDir::setCurrent(q(root / "proj")));
  const auto bare = core::readProject("p.json");
  const auto dotted = core::readProject("./p.json");
  QVERIFY(bare.report.ok());
  std::vector<core::PartPlace> places;
  for (const auto* loaded : {&bare, &dotted})
    for (const std::string& part : {std::string("topics.tsv"), std::string("../up.tsv"),
                                    elsewhere.string(), std::string("../proj/topics.tsv")})
      places.push_back(loaded->value.checkPart(part).place);
  // The folder of a bare name is the current folder, never an empty path.
  const fs::path folder = core::folderOf("p.json");
  const fs::path normalised = core::folderOf("a/../b/p.json");
  const fs::path cwd = fs::current_path();
  QVERIFY(QDir::setCurrent(before));
  using core::PartPlace;
  const std::vector<PartPlace> expected = {PartPlace::Inside, PartPlace::Outside,
                                           PartPlace::Outside, PartPlace::Inside};
  for (std::size_t i = 0; i < places.size(); ++i)
    QVERIFY2(places[i] == expected[i % 4], std::to_string(i).c_str());
  QCOMPARE(folder, cwd);
  QCOMPARE(normalised, cwd / "b");
}

void TestHardeningOutputs::item03_reportFromInsideTheProjectFolder() {
  // The issue's case: `report --project NAME` typed in the project's folder read the dataset
  // parts outside it without --read-outside; `./NAME` refused them.
  QTemporaryDir dir;
  const fs::path root = fs::path(dir.path().toStdString());
  fs::create_directories(root / "outside");
  fs::copy_file(demo("qrels.txt"), root / "outside" / "qrels.txt");
  fs::copy_file(demo("run-good.trec"), root / "outside" / "run-good.trec");
  test::writeText(root / "proj" / "p.json",
                  R"({"version": 1, "name": "p", "datasets": [{"name": "d", "parts": [)"
                  R"({"path": "../outside/qrels.txt", "format": "trec-qrels"}, {"path": ")" +
                      (root / "outside" / "run-good.trec").string() +
                      R"(", "format": "trec-run"}]}]})");
  for (const QString& name : {QStringLiteral("p.json"), QStringLiteral("./p.json")}) {
    const auto r = runCliIn(root / "proj", {"report", "--project", name, "--out", "r.json"});
    QVERIFY2(r.exitCode == 2, qPrintable(name + ": " + r.err));
    QVERIFY2(r.err.contains("qrels.txt: outside the project folder") &&
                 r.err.contains("run-good.trec: outside the project folder"),
             qPrintable(r.err));
    QVERIFY(!fs::exists(root / "proj" / "r.json"));
  }
  // Asked for, they are read.
  const auto allowed = runCliIn(
      root / "proj", {"report", "--project", "p.json", "--out", "r.json", "--read-outside"});
  QVERIFY2(allowed.exitCode == 0, qPrintable(allowed.err));
  QVERIFY(fs::exists(root / "proj" / "r.json"));
}

void TestHardeningOutputs::item06_sameFileByInodeLinkAndSideFile() {
  // The check itself, on hand-made files.
  QTemporaryDir dir;
  const fs::path root = fs::path(dir.path().toStdString());
  test::writeText(root / "in.db", "x");
  test::writeText(root / "other.txt", "y");
  fs::create_hard_link(root / "in.db", root / "hard.db");
  fs::create_symlink(root / "in.db", root / "soft.db");
  fs::create_directories(root / "sub");
  using core::NamedPath;
  using core::PathUse;
  auto clash = [&](const fs::path& out, const fs::path& in) {
    return core::outputOverInput({{"--in", in, PathUse::Read}, {"--out", out, PathUse::Written}});
  };
  QVERIFY(!clash(root / "other.txt", root / "in.db"));
  QVERIFY(!clash(root / "new.txt", root / "in.db"));  // a new file is no input
  for (const fs::path& same :
       {root / "in.db", root / "hard.db", root / "soft.db", root / "sub" / ".." / "in.db",
        root / "in.db-wal", root / "in.db-shm", root / "in.db-journal"}) {
    const auto why = clash(same, root / "in.db");
    QVERIFY2(why, same.c_str());
    // Names both, as given.
    QVERIFY2(why->find("--out '" + same.string() + "'") != std::string::npos &&
                 why->find("--in '" + (root / "in.db").string() + "'") != std::string::npos,
             why->c_str());
  }
  QCOMPARE(*clash(root / "in.db", root / "in.db"),
           "--out '" + (root / "in.db").string() + "' would overwrite --in '" +
               (root / "in.db").string() +
               "', one of the inputs (the same file); choose another output");
  // An input that is a side file of a store written: SQLite would write into it.
  test::writeText(root / "s.db-wal", "w");
  QVERIFY(clash(root / "s.db", root / "s.db-wal"));
  // Two outputs on one file; a store both read and written is one entry, never its own clash.
  QVERIFY(core::outputOverInput({{"--out", root / "a.json", PathUse::Written},
                                 {"--claims-out", root / "a.json", PathUse::Written}}));
  QVERIFY(!core::outputOverInput({{"RUN.db", root / "in.db", PathUse::ReadAndWritten}}));
  QVERIFY(core::outputOverInput({{"RUN.db", root / "in.db", PathUse::ReadAndWritten},
                                 {"--out", root / "hard.db", PathUse::Written}}));
  // Standard input and output are never a clash.
  QVERIFY(!clash("-", "-"));
}

void TestHardeningOutputs::item06_batchExportOverItsStore() {
  QTemporaryDir dir;
  const fs::path root = fs::path(dir.path().toStdString());
  const fs::path store = root / "RUN.db";
  // Planned with every call pending (nothing is sent with --batch-file).
  const auto planned = test::runCliText(
      {"generate", "--dataset", q(demo("topics.tsv")), "--dataset", q(demo("collection.tsv")),
       "--run", q(demo("run-good.trec")), "--k", "2", "--generator", "http://127.0.0.1:9/v1",
       "--model", "m", "--store", q(store), "--batch-file", q(root / "calls.jsonl"), "-q"});
  QVERIFY2(planned.exitCode == 0, qPrintable(planned.err));
  const std::string before = test::readText(store);
  const auto r = test::runCliText({"batch", "export", q(store), "--out", q(store)});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("--out '" + q(store) + "' would overwrite RUN.db '" + q(store) + "'"),
           qPrintable(r.err));
  QVERIFY(test::readText(store) == before);
  // Nor a side file of it.
  const auto wal = test::runCliText({"batch", "export", q(store), "--out", q(store) + "-wal"});
  QCOMPARE(wal.exitCode, 2);
  QVERIFY2(wal.err.contains("SQLite side file"), qPrintable(wal.err));
  QVERIFY(!fs::exists(store.string() + "-wal"));
  // batch import of the store as its own output file.
  const auto self = test::runCliText({"batch", "import", q(store), q(store)});
  QCOMPARE(self.exitCode, 2);
  QVERIFY(test::readText(store) == before);
}

void TestHardeningOutputs::item06_batchFileOverTheDataset() {
  QTemporaryDir dir;
  const fs::path root = fs::path(dir.path().toStdString());
  const fs::path data = root / "DATA.jsonl";
  fs::copy_file(demo("rag-examples.jsonl"), data);
  const std::string before = test::readText(data);
  const auto r =
      test::runCliText({"generate", "--batch-file", q(data), "--dataset", q(data), "--generator",
                        "http://127.0.0.1:9/v1", "--store", q(root / "g.db"), "-q"});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("--batch-file '" + q(data) + "' would overwrite --dataset '" + q(data)),
           qPrintable(r.err));
  QVERIFY(test::readText(data) == before);
  QVERIFY(!fs::exists(root / "g.db"));  // refused before anything was made
  // The answers file and the store as well.
  const auto out = test::runCliText(
      {"generate", "--dataset", q(data), "--out", q(data), "--store", q(root / "g.db"), "-q"});
  QCOMPARE(out.exitCode, 2);
  const auto store = test::runCliText({"generate", "--dataset", q(data), "--store", q(data), "-q"});
  QCOMPARE(store.exitCode, 2);
  QVERIFY(test::readText(data) == before);
}

void TestHardeningOutputs::item06_labelsExportOverTheLabelsStore() {
  QTemporaryDir dir;
  const fs::path root = fs::path(dir.path().toStdString());
  const fs::path store = labelsStore(root);
  QVERIFY(fs::exists(store));
  const std::string before = test::readText(store);
  const auto r = test::runCliText(
      {"labels", "export", "--labels", q(store), "--format", "jsonl", "--out", q(store)});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("--out '" + q(store) + "' would overwrite --labels '" + q(store)),
           qPrintable(r.err));
  QVERIFY(test::readText(store) == before);
  // Through a project: its labels store (PROJECT.labels.db beside it) is an input too.
  test::writeText(root / "P.json", R"({"version": 1, "name": "P", "datasets": []})");
  fs::copy_file(store, root / "P.labels.db");
  const auto viaProject = test::runCliText({"labels", "export", "--labels", q(root / "P.json"),
                                            "--format", "jsonl", "--out", q(root / "P.labels.db")});
  QCOMPARE(viaProject.exitCode, 2);
  QVERIFY2(viaProject.err.contains("the labels store of --labels"), qPrintable(viaProject.err));
  QVERIFY(test::readText(root / "P.labels.db") == before);
  // labels import of the store into itself.
  const auto self = test::runCliText({"labels", "import", "--labels", q(store), "--format", "jsonl",
                                      q(store), "--annotator", "a", "--no-check"});
  QCOMPARE(self.exitCode, 2);
  QVERIFY(test::readText(store) == before);
}

void TestHardeningOutputs::item06_linksToAnInputAreTheInput() {
  QTemporaryDir dir;
  const fs::path root = fs::path(dir.path().toStdString());
  const fs::path store = labelsStore(root);
  const std::string before = test::readText(store);
  fs::create_hard_link(store, root / "hard.db");
  fs::create_symlink(store, root / "soft.db");
  for (const char* name : {"hard.db", "soft.db"}) {
    const auto r = test::runCliText(
        {"labels", "export", "--labels", q(store), "--format", "jsonl", "--out", q(root / name)});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("(the same file)"), qPrintable(r.err));
    QVERIFY(test::readText(store) == before);
  }
  QVERIFY(fs::is_symlink(root / "soft.db"));
  // A link to the dataset as --out of retrieve (and its checkpoint RUN.partial).
  fs::copy_file(demo("topics.tsv"), root / "topics.tsv");
  fs::create_symlink(root / "topics.tsv", root / "run.trec");
  const auto r = test::runCliText({"retrieve", "--dataset", q(root / "topics.tsv"), "--retriever",
                                   "bm25", "--out", q(root / "run.trec")});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("--dataset"), qPrintable(r.err));
  fs::create_symlink(root / "topics.tsv", root / "other.trec.partial");
  const auto partial = test::runCliText({"retrieve", "--dataset", q(root / "topics.tsv"),
                                         "--retriever", "bm25", "--out", q(root / "other.trec")});
  QCOMPARE(partial.exitCode, 2);
  QVERIFY2(partial.err.contains("the checkpoint of --out"), qPrintable(partial.err));
  QCOMPARE(test::readText(root / "topics.tsv"), test::readText(demo("topics.tsv")));
}

void TestHardeningOutputs::item06_distinctFilesStillWritten() {
  // The check refuses clashes only: the same commands with other outputs run.
  QTemporaryDir dir;
  const fs::path root = fs::path(dir.path().toStdString());
  const fs::path store = labelsStore(root);
  const auto r = test::runCliText({"labels", "export", "--labels", q(store), "--format", "jsonl",
                                   "--out", q(root / "labels.jsonl")});
  QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  QVERIFY(test::readText(root / "labels.jsonl").find("\"q01\"") != std::string::npos);
  // Two outputs on one file are refused too.
  const auto two = test::runCliText({"generate", "--dataset", q(demo("rag-examples.jsonl")),
                                     "--out", q(root / "a.jsonl"), "--kilt-out",
                                     q(root / "a.jsonl"), "--store", q(root / "g.db"), "-q"});
  QCOMPARE(two.exitCode, 2);
  QVERIFY2(two.err.contains("another output"), qPrintable(two.err));
}

void TestHardeningOutputs::item15_labelsExportToAFifoRefused() {
  QTemporaryDir dir;
  const fs::path root = fs::path(dir.path().toStdString());
  const fs::path store = labelsStore(root);
  const fs::path fifo = root / "out.fifo";
  QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
  const auto r = test::runCliText(
      {"labels", "export", "--labels", q(store), "--format", "jsonl", "--out", q(fifo)});
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.contains("FIFO") && r.err.contains("regular files"), qPrintable(r.err));
  QVERIFY(fs::is_fifo(fifo));
  // The safe writer itself, which every output goes through: a FIFO and a folder stay as they
  // are; a symlink is replaced (never written through).
  std::string err;
  QVERIFY(!core::writeBytesAtomically(fifo, "x", &err));
  QVERIFY2(
      err.find("is a FIFO (named pipe); ragscope writes only regular files") != std::string::npos,
      err.c_str());
  QVERIFY(fs::is_fifo(fifo));
  fs::create_directories(root / "folder");
  QVERIFY(!core::writeBytesAtomically(root / "folder", "x", &err));
  QVERIFY(fs::is_directory(root / "folder"));
  test::writeText(root / "victim.txt", "keep\n");
  fs::create_symlink(root / "victim.txt", root / "link.txt");
  QVERIFY2(core::writeBytesAtomically(root / "link.txt", "new\n", &err), err.c_str());
  QVERIFY(!fs::is_symlink(root / "link.txt"));
  QCOMPARE(test::readText(root / "victim.txt"), std::string("keep\n"));
}

QTEST_GUILESS_MAIN(TestHardeningOutputs)
#include "tst_hardeningoutputs.moc"
