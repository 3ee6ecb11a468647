// What ragscope-cli loads: a command that writes no PDF, reads no PDF and makes no HTTP request
// starts without Qt, poppler and libcurl (core/util/lazylibrary.h); each is opened when first
// needed, and when it is missing the error names it. Every run is traced by the dynamic loader
// itself (LD_DEBUG=files lists each object it opens, at start-up or by dlopen), so what is
// checked is what the process really mapped.

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <fstream>

#include "common/testdata.h"

namespace fs = std::filesystem;

namespace {

struct Traced {
  int exitCode = -1;  // -1: crashed or did not finish
  QString out;
  QString err;
  QStringList loaded;  // file names of every object the loader opened
};

// Runs the CLI with the loader's trace written to files in a fresh folder, and reads it back.
Traced runTraced(const QStringList& args, const QProcessEnvironment& extra = {}) {
  QTemporaryDir traceDir;
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("LD_DEBUG", "files");
  env.insert("LD_DEBUG_OUTPUT", traceDir.filePath("ld"));  // the loader appends ".PID"
  for (const QString& key : extra.keys()) env.insert(key, extra.value(key));
  p.setProcessEnvironment(env);
  p.start(QStringLiteral(RAGSCOPE_CLI_PATH), args);
  Traced t;
  if (!p.waitForFinished(300000)) {
    p.kill();
    p.waitForFinished(5000);
    return t;
  }
  t.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  t.out = QString::fromUtf8(p.readAllStandardOutput());
  t.err = QString::fromUtf8(p.readAllStandardError());
  for (const QString& name : QDir(traceDir.path()).entryList(QDir::Files)) {
    QFile f(traceDir.filePath(name));
    if (!f.open(QIODevice::ReadOnly)) continue;
    // "   1234:	file=libcurl.so.4 [0];  needed by ..." / "file=/x/libm.so [0];  dynamically
    // loaded"
    for (const QByteArray& line : f.readAll().split('\n')) {
      const int at = line.indexOf("file=");
      if (at < 0) continue;
      const int end = line.indexOf(" [", at);
      const QString file = QString::fromUtf8(line.mid(at + 5, end < 0 ? -1 : end - at - 5));
      t.loaded << QFileInfo(file).fileName();
    }
  }
  return t;
}

// The heavy libraries (and the modules that bring them) a plain command must not load.
const QStringList kHeavy = {"libQt6", "poppler", "libcurl", "libragscope_pdfreport",
                            "libragscope_pdftext"};

QString heavyIn(const QStringList& loaded) {
  QStringList found;
  for (const QString& lib : loaded)
    for (const QString& heavy : kHeavy)
      if (lib.contains(heavy)) found << lib;
  return found.join(", ");
}

bool loadedAny(const QStringList& loaded, const QString& prefix) {
  for (const QString& lib : loaded)
    if (lib.startsWith(prefix)) return true;
  return false;
}

QProcessEnvironment envWith(const QString& key, const QString& value) {
  QProcessEnvironment e;
  e.insert(key, value);
  return e;
}

void writeText(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

class TestStartup : public QObject {
  Q_OBJECT

 private slots:
  void versionLoadsNothingHeavy();
  void evalLoadsNothingHeavy();
  void qtOnlyForPdfReports();
  void popplerOnlyForPdfInputs();
  void curlOnlyForRequests();
  void missingLibrariesAreNamed();
};

void TestStartup::versionLoadsNothingHeavy() {
  const Traced t = runTraced({"--version"});
  QCOMPARE(t.exitCode, 0);
  QVERIFY(t.out.startsWith("ragscope-cli "));
  // The trace is real: the C++ runtime is in it.
  QVERIFY2(loadedAny(t.loaded, "libstdc++"), qPrintable(t.loaded.join(", ")));
  QVERIFY2(heavyIn(t.loaded).isEmpty(), qPrintable(heavyIn(t.loaded)));
}

void TestStartup::evalLoadsNothingHeavy() {
  RAGSCOPE_REQUIRE_DATA("trec_eval/test");
  const fs::path dir = ragscope::test::dataPath("trec_eval/test");
  const Traced t = runTraced({"eval", QString::fromStdString((dir / "qrels.test").string()),
                              QString::fromStdString((dir / "results.test").string())});
  QCOMPARE(t.exitCode, 0);
  QVERIFY(t.out.contains("num_q"));
  QVERIFY(loadedAny(t.loaded, "libstdc++"));
  QVERIFY2(heavyIn(t.loaded).isEmpty(), qPrintable(heavyIn(t.loaded)));
}

// An offline judging run and its report: JSON without Qt, the PDF with Qt GUI (the writer
// module), and neither with libcurl.
void TestStartup::qtOnlyForPdfReports() {
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  writeText(root / "answers.jsonl",
            R"({"id": "q1", "question": "What does the plant do?", "contexts": ["The plant treats )"
            R"(water for the city."], "response": "The plant treats water.", "reference": "It )"
            R"(treats water."})"
            "\n");
  const QString store = QString::fromStdString((root / "judge.db").string());
  Traced t =
      runTraced({"judge", "--dataset", QString::fromStdString((root / "answers.jsonl").string()),
                 "--format", "rag-jsonl", "--judge", "offline", "--store", store, "--quiet"});
  QVERIFY2(t.exitCode == 0, qPrintable(t.err));
  QVERIFY2(heavyIn(t.loaded).isEmpty(), qPrintable(heavyIn(t.loaded)));

  t = runTraced({"report", "--store", store, "--out", dir.filePath("r.json")});
  QVERIFY2(t.exitCode == 0, qPrintable(t.err));
  QVERIFY2(heavyIn(t.loaded).isEmpty(), qPrintable(heavyIn(t.loaded)));

  const QString pdf = dir.filePath("r.pdf");
  t = runTraced({"report", "--store", store, "--out", pdf});
  QVERIFY2(t.exitCode == 0, qPrintable(t.err));
  QVERIFY2(loadedAny(t.loaded, "libragscope_pdfreport"), qPrintable(t.loaded.join(", ")));
  QVERIFY(loadedAny(t.loaded, "libQt6Gui"));
  QVERIFY(!loadedAny(t.loaded, "libcurl"));
  QFile f(pdf);
  QVERIFY(f.open(QIODevice::ReadOnly) && f.read(5) == "%PDF-");
}

// Docugami questions with their PDF: the PDF text module (and poppler) loads for it, and not for
// a dataset without PDFs.
void TestStartup::popplerOnlyForPdfInputs() {
  const char* sec10q = "docugami/KG-RAG-datasets/sec-10-q/data/v1";
  RAGSCOPE_REQUIRE_DATA(sec10q);
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  fs::create_directories(root / "docs");
  // The real PDF by symlink, never copied.
  fs::create_symlink(ragscope::test::dataPath(sec10q) / "docs" / "2022 Q3 AAPL.pdf",
                     root / "docs" / "2022 Q3 AAPL.pdf");
  writeText(root / "qna_data.csv",
            "Question,Source Docs,Question Type,Source Chunk Type,Answer\r\n"
            "Q?,*AAPL*,Single-Doc RAG,Table,\"a\nSOURCE(S): 2022 Q3 AAPL.pdf\"\r\n");
  Traced t =
      runTraced({"dataset", "info", QString::fromStdString(root.string()), "--format", "docugami"});
  QVERIFY2(t.exitCode == 0, qPrintable(t.err + t.out));
  QVERIFY2(loadedAny(t.loaded, "libragscope_pdftext"), qPrintable(t.loaded.join(", ")));
  QVERIFY(loadedAny(t.loaded, "libpoppler-cpp"));
  QVERIFY(!loadedAny(t.loaded, "libQt6"));
  QVERIFY(!loadedAny(t.loaded, "libcurl"));

  writeText(root / "q.tsv", "q1\twhat does the plant do\n");
  t = runTraced({"dataset", "info", QString::fromStdString((root / "q.tsv").string()), "--format",
                 "topics-tsv"});
  QVERIFY2(t.exitCode == 0, qPrintable(t.err));
  QVERIFY2(heavyIn(t.loaded).isEmpty(), qPrintable(heavyIn(t.loaded)));

  // Without the module: the PDF is an input error naming it.
  const QString empty = dir.filePath("no-modules");
  QVERIFY(QDir().mkpath(empty));
  t = runTraced({"dataset", "info", QString::fromStdString(root.string()), "--format", "docugami"},
                envWith("RAGSCOPE_MODULE_DIR", empty));
  QCOMPARE(t.exitCode, 2);
  QVERIFY2((t.err + t.out).contains("no PDF reader: cannot load libragscope_pdftext.so"),
           qPrintable(t.err + t.out));
}

// An HTTP retriever opens libcurl (the request fails: nothing listens on the discard port) and
// stays without Qt and poppler.
void TestStartup::curlOnlyForRequests() {
  QTemporaryDir dir;
  writeText(dir.filePath("q.tsv").toStdString(), "q1\twhat does the plant do\n");
  const Traced t = runTraced({"retrieve", "--dataset", dir.filePath("q.tsv"), "--format",
                              "topics-tsv", "--retriever", "http:http://127.0.0.1:9/search",
                              "--out", dir.filePath("run.trec")});
  QVERIFY2(t.exitCode > 0, qPrintable(t.err));
  QVERIFY2(t.err.contains("127.0.0.1:9"), qPrintable(t.err));
  QVERIFY2(loadedAny(t.loaded, "libcurl"), qPrintable(t.loaded.join(", ")));
  QVERIFY(!loadedAny(t.loaded, "libQt6"));
  QVERIFY(!loadedAny(t.loaded, "libpoppler"));
}

// A library that is not there: an error naming it and an exit code, never a crash.
void TestStartup::missingLibrariesAreNamed() {
  QTemporaryDir dir;
  writeText(dir.filePath("q.tsv").toStdString(), "q1\twhat does the plant do\n");
  Traced t = runTraced(
      {"retrieve", "--dataset", dir.filePath("q.tsv"), "--format", "topics-tsv", "--retriever",
       "http:http://127.0.0.1:9/search", "--out", dir.filePath("run.trec")},
      envWith("RAGSCOPE_LIBCURL", "libcurl-absent.so.9"));
  QVERIFY2(t.exitCode > 0, qPrintable(t.err));
  QVERIFY2(t.err.contains("cannot load libcurl-absent.so.9"), qPrintable(t.err));

  // The PDF writer module looked for in an empty folder only.
  const QString empty = dir.filePath("no-modules");
  QVERIFY(QDir().mkpath(empty));
  writeText(
      dir.filePath("answers.jsonl").toStdString(),
      R"({"id": "q1", "question": "Q?", "contexts": ["c"], "response": "r", "reference": "r"})"
      "\n");
  t = runTraced({"judge", "--dataset", dir.filePath("answers.jsonl"), "--format", "rag-jsonl",
                 "--judge", "offline", "--store", dir.filePath("judge.db"), "--quiet"});
  QVERIFY2(t.exitCode == 0, qPrintable(t.err));
  t = runTraced({"report", "--store", dir.filePath("judge.db"), "--out", dir.filePath("r.pdf")},
                envWith("RAGSCOPE_MODULE_DIR", empty));
  QCOMPARE(t.exitCode, 2);
  QVERIFY2(t.err.contains("cannot load libragscope_pdfreport.so: not found (looked in " + empty),
           qPrintable(t.err));
  QVERIFY(!QFile::exists(dir.filePath("r.pdf")));
}

QTEST_GUILESS_MAIN(TestStartup)
#include "tst_startup.moc"
