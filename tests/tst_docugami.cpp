// Docugami KG-RAG SEC 10-Q loader: CSV reader, chunker, PDF text, SOURCE(S) parsing and the real
// qna_data.csv + 20 PDFs. Known answers come from the data set's manifest, Python's csv module run
// by hand on the file (record lines, mini row count, SOURCE(S) totals) and `pdfinfo` (page counts).

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include "common/testdata.h"
#include "core/data/chunker.h"
#include "core/data/csvreader.h"
#include "core/data/docugami.h"
#include "core/data/loaders.h"
#include "core/data/pdftext.h"

using namespace ragscope::core;
namespace fs = std::filesystem;

namespace {

const char* kSec10q = "docugami/KG-RAG-datasets/sec-10-q/data/v1";

fs::path writeFile(const QTemporaryDir& dir, const std::string& name, const QByteArray& bytes) {
  fs::path p = fs::path(dir.path().toStdString()) / name;
  fs::create_directories(p.parent_path());
  QFile f(QString::fromStdString(p.string()));
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(bytes);
  return p;
}

std::string attribute(const Query& q, const std::string& key) {
  for (const auto& [k, v] : q.attributes)
    if (k == key) return v;
  return "<none>";
}

int countDiagnostics(const LoadReport& r, Severity s, const std::string& needle) {
  int n = 0;
  for (const auto& d : r.diagnostics)
    if (d.severity == s && d.toString().find(needle) != std::string::npos) ++n;
  return n;
}

bool validUtf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80         ? 1
                      : (c >> 5) == 6  ? 2
                      : (c >> 4) == 14 ? 3
                      : (c >> 3) == 30 ? 4
                                       : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (std::size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += len;
  }
  return true;
}

const QByteArray kHeader = "Question,Source Docs,Question Type,Source Chunk Type,Answer\r\n";

}  // namespace

class TestDocugami : public QObject {
  Q_OBJECT

 private:
  Dataset m_full;  // the real folder, loaded once (PDF extraction takes a few seconds)
  LoadReport m_fullReport;
  bool m_fullLoaded = false;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> m_progress;

 private slots:
  void initTestCase();

  // CSV reader on hand-made input
  void csvRecords();
  void csvUnterminatedQuote();
  void csvFieldCountMismatch();
  void csvOverlongRecord();
  void csvTextAfterClosingQuote();
  void csvBinaryGarbage();

  // chunker
  void chunkSizesAndOverlap_data();
  void chunkSizesAndOverlap();
  void chunkPrefersBoundaries();
  void chunkUtf8();
  void chunkIds();

  // SOURCE(S) and globs
  void sources_data();
  void sources();
  void glob_data();
  void glob();

  // loader on hand-made folders
  void loaderMissingColumn();
  void loaderSkipVersusStop();
  void loaderGarbagePdf();

  // real data
  void realQuestions();
  void realFlaggedRows();
  void realCounts();
  void realMini();
  void realPageCounts_data();
  void realPageCounts();
  void realCorpus();
  void realProgressAndCancel();
};

void TestDocugami::initTestCase() {
  if (!fs::exists(ragscope::test::dataPath(kSec10q))) return;  // the real-data tests skip/fail
  LoadOptions opts;
  opts.progress = [this](std::uint64_t done, std::uint64_t total) {
    m_progress.emplace_back(done, total);
    return true;
  };
  QElapsedTimer t;
  t.start();
  m_fullReport = loadDocugami(ragscope::test::dataPath(kSec10q), m_full, opts);
  qInfo("loaded qna_data.csv + docs/: %zu queries, %zu chunks in %lld ms", m_full.queries.size(),
        m_full.corpus.size(), static_cast<long long>(t.elapsed()));
  m_fullLoaded = true;
}

// ---------------------------------------------------------------------------------------------
// CSV reader

void TestDocugami::csvRecords() {
  QTemporaryDir dir;
  // BOM, CRLF record ends, a quoted field with bare LF and CRLF inside, commas, doubled quotes,
  // an empty quoted field, blank lines between records, and no final newline.
  QByteArray data =
      "\xEF\xBB\xBF"
      "a,b,c\r\n"
      "1,\"x, y\",\"he said \"\"hi\"\"\"\r\n"
      "\r\n"
      "2,\"line1\nline2\r\nline3\",\"\"\r\n"
      "\n"
      "3,plain,end";
  auto path = writeFile(dir, "t.csv", data);
  CsvReader csv(path, 1 << 20);
  QVERIFY(csv.isOpen());
  std::vector<std::string> f;
  QCOMPARE(csv.readHeader(f), CsvReader::Status::Record);
  QCOMPARE(f, (std::vector<std::string>{"a", "b", "c"}));
  QCOMPARE(csv.recordLine(), 1u);

  QCOMPARE(csv.next(f), CsvReader::Status::Record);
  QCOMPARE(f, (std::vector<std::string>{"1", "x, y", "he said \"hi\""}));
  QCOMPARE(csv.recordLine(), 2u);

  QCOMPARE(csv.next(f), CsvReader::Status::Record);
  QCOMPARE(f, (std::vector<std::string>{"2", "line1\nline2\r\nline3", ""}));
  QCOMPARE(csv.recordLine(), 4u);

  QCOMPARE(csv.next(f), CsvReader::Status::Record);
  QCOMPARE(f, (std::vector<std::string>{"3", "plain", "end"}));
  QCOMPARE(csv.recordLine(), 8u);

  QCOMPARE(csv.next(f), CsvReader::Status::End);
  QCOMPARE(csv.bytesRead(), static_cast<std::uint64_t>(data.size()));
}

void TestDocugami::csvUnterminatedQuote() {
  QTemporaryDir dir;
  auto path = writeFile(dir, "t.csv", "a,b\n1,2\n3,\"open\nstill open\nand more\n");
  CsvReader csv(path, 1 << 20);
  std::vector<std::string> f;
  QCOMPARE(csv.readHeader(f), CsvReader::Status::Record);
  QCOMPARE(csv.next(f), CsvReader::Status::Record);
  QCOMPARE(csv.next(f), CsvReader::Status::Error);
  QCOMPARE(csv.error().line, 3u);  // where the record began, not where the file ended
  QVERIFY(csv.error().problem.find("unterminated") != std::string::npos);
  QVERIFY(csv.error().problem.find("line 3") != std::string::npos);
  QVERIFY(!csv.canContinue());
  QCOMPARE(csv.next(f), CsvReader::Status::End);
}

void TestDocugami::csvFieldCountMismatch() {
  QTemporaryDir dir;
  auto path = writeFile(dir, "t.csv", "Question,Answer\nq1,a1\nq2\nq3,a3,extra\nq4,\"a\n4\"\n");
  CsvReader csv(path, 1 << 20);
  std::vector<std::string> f;
  QCOMPARE(csv.readHeader(f), CsvReader::Status::Record);
  QCOMPARE(csv.next(f), CsvReader::Status::Record);
  QCOMPARE(csv.next(f), CsvReader::Status::Error);
  QCOMPARE(csv.error().line, 3u);
  QCOMPARE(csv.error().problem, std::string("has 1 fields, expected 2 (Question, Answer)"));
  QVERIFY(csv.canContinue());
  QCOMPARE(csv.next(f), CsvReader::Status::Error);
  QCOMPARE(csv.error().line, 4u);
  QCOMPARE(csv.error().problem, std::string("has 3 fields, expected 2 (Question, Answer)"));
  QCOMPARE(csv.next(f), CsvReader::Status::Record);  // reading goes on after a bad record
  QCOMPARE(f, (std::vector<std::string>{"q4", "a\n4"}));
  QCOMPARE(csv.recordLine(), 5u);
  QCOMPARE(csv.next(f), CsvReader::Status::End);
}

void TestDocugami::csvOverlongRecord() {
  QTemporaryDir dir;
  QByteArray big = "x,\"" + QByteArray(5000, 'y') + "\n" + QByteArray(5000, 'z') + "\"\n";
  auto path = writeFile(dir, "t.csv", "a,b\n1,2\n" + big + "3,4\n");
  CsvReader csv(path, 1000);
  std::vector<std::string> f;
  QCOMPARE(csv.readHeader(f), CsvReader::Status::Record);
  QCOMPARE(csv.next(f), CsvReader::Status::Record);
  QCOMPARE(csv.next(f), CsvReader::Status::Error);
  QCOMPARE(csv.error().line, 3u);
  QVERIFY(csv.error().problem.find("longer than 1000 bytes") != std::string::npos);
  QVERIFY(csv.canContinue());
  // The quoted newline inside the skipped record still counts: the next record is on line 5.
  QCOMPARE(csv.next(f), CsvReader::Status::Record);
  QCOMPARE(f, (std::vector<std::string>{"3", "4"}));
  QCOMPARE(csv.recordLine(), 5u);
}

void TestDocugami::csvTextAfterClosingQuote() {
  QTemporaryDir dir;
  auto path = writeFile(dir, "t.csv", "a,b\n1,\"ok\"junk\n2,\"fine\"\n");
  CsvReader csv(path, 1 << 20);
  std::vector<std::string> f;
  QCOMPARE(csv.readHeader(f), CsvReader::Status::Record);
  QCOMPARE(csv.next(f), CsvReader::Status::Error);
  QCOMPARE(csv.error().line, 2u);
  QCOMPARE(csv.error().field, std::string("b"));
  QCOMPARE(csv.next(f), CsvReader::Status::Record);
  QCOMPARE(f, (std::vector<std::string>{"2", "fine"}));
}

void TestDocugami::csvBinaryGarbage() {
  QTemporaryDir dir;
  std::mt19937 rng(12345);
  QByteArray junk;
  for (int i = 0; i < 200000; ++i) junk.append(static_cast<char>(rng() & 0xFF));
  auto path = writeFile(dir, "junk.csv", junk);
  CsvReader csv(path, 4096);
  std::vector<std::string> f;
  int records = 0, errors = 0, steps = 0;
  csv.readHeader(f);
  for (; steps < 1000000; ++steps) {
    auto st = csv.next(f);
    if (st == CsvReader::Status::End) break;
    if (st == CsvReader::Status::Error) {
      ++errors;
      if (!csv.canContinue()) break;
    } else {
      ++records;
    }
  }
  QVERIFY(steps < 1000000);
  QVERIFY(errors > 0);
  QVERIFY(csv.bytesRead() <= static_cast<std::uint64_t>(junk.size()));

  // Through the loader: errors, no crash, nothing loaded from junk, in both modes.
  QTemporaryDir d2;
  auto csvPath = writeFile(d2, "qna_data.csv", junk);
  for (OnError mode : {OnError::Skip, OnError::Stop}) {
    Dataset ds;
    LoadOptions o;
    o.onError = mode;
    auto r = loadDocugami(csvPath, ds, o);
    QVERIFY(r.hasErrors());
    QVERIFY(ds.queries.empty());
  }
}

// ---------------------------------------------------------------------------------------------
// chunker

void TestDocugami::chunkSizesAndOverlap_data() {
  QTest::addColumn<int>("size");
  QTest::addColumn<int>("overlap");
  QTest::newRow("1500/200") << 1500 << 200;
  QTest::newRow("100/20") << 100 << 20;
  QTest::newRow("50/0") << 50 << 0;
  QTest::newRow("10/9") << 10 << 9;
  QTest::newRow("10/50 (overlap clamped)") << 10 << 50;
  QTest::newRow("1/0") << 1 << 0;
}

void TestDocugami::chunkSizesAndOverlap() {
  QFETCH(int, size);
  QFETCH(int, overlap);
  std::string text;
  std::mt19937 rng(7);
  const char* words[] = {"alpha", "beta", "gamma", "delta.", "epsilon", "zeta!", "eta", "theta?"};
  for (int i = 0; i < 800; ++i) {
    text += words[rng() % 8];
    text += (i % 37 == 36) ? "\n\n" : (i % 11 == 10) ? "\n" : " ";
  }
  auto spans = chunkText(text, static_cast<std::size_t>(size), static_cast<std::size_t>(overlap));
  QVERIFY(!spans.empty());
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const auto& s = spans[i];
    QVERIFY(s.begin < s.end);
    QVERIFY(s.end - s.begin <= static_cast<std::size_t>(size));  // ASCII: bytes == characters
    QVERIFY(text[s.begin] != ' ' && text[s.end - 1] != ' ');
    if (i > 0) {
      QVERIFY(s.begin > spans[i - 1].begin);  // progress
      // Nothing lost between chunks: each starts no later than the previous one ended (plus the
      // blanks trimmed between them).
      std::string_view gap(text.data() + spans[i - 1].end,
                           s.begin > spans[i - 1].end ? s.begin - spans[i - 1].end : 0);
      QVERIFY(gap.find_first_not_of(" \n") == std::string_view::npos);
      if (overlap > 0 && size > 1) {
        std::size_t effective = std::min(overlap, size - 1);
        QVERIFY(s.begin < spans[i - 1].end || effective < 6);  // words are up to 7 characters
        QVERIFY(spans[i - 1].end <= s.begin + effective);
      }
    }
  }
  QCOMPARE(spans.front().begin, std::size_t{0});
  QCOMPARE(spans.back().end, text.find_last_not_of(" \n") + 1);
  if (size >= 50 && overlap == 0) {
    // Non-overlapping word-boundary chunks: concatenating them gives back every word in order.
    std::string joinedWords, originalWords;
    for (const auto& s : spans) joinedWords += text.substr(s.begin, s.end - s.begin) + " ";
    auto squash = [](std::string s) {
      std::string out;
      for (char c : s)
        if (c != ' ' && c != '\n') out.push_back(c);
      return out;
    };
    QCOMPARE(squash(joinedWords), squash(text));
  }
}

void TestDocugami::chunkPrefersBoundaries() {
  // Paragraph break wins over a later sentence end; a sentence end wins over a later space.
  std::string para = "First paragraph has words here.\n\nSecond paragraph. It goes on and on";
  auto s1 = chunkText(para, 50, 0);
  QVERIFY(s1.size() >= 2);
  QCOMPARE(para.substr(s1[0].begin, s1[0].end - s1[0].begin),
           std::string("First paragraph has words here."));

  std::string sent = "One two three four. Five six seven eight nine ten eleven";
  auto s2 = chunkText(sent, 30, 0);
  QCOMPARE(sent.substr(s2[0].begin, s2[0].end - s2[0].begin), std::string("One two three four."));

  std::string words = "aaaa bbbb cccc dddd eeee ffff";
  auto s3 = chunkText(words, 12, 0);
  QCOMPARE(words.substr(s3[0].begin, s3[0].end - s3[0].begin), std::string("aaaa bbbb"));

  std::string solid(25, 'x');  // no boundary at all: hard cuts of exactly the size
  auto s4 = chunkText(solid, 10, 0);
  QCOMPARE(s4.size(), std::size_t{3});
  QCOMPARE(s4[0].end - s4[0].begin, std::size_t{10});
  QCOMPARE(s4[2].end - s4[2].begin, std::size_t{5});

  // Overlap starts at a word start, never mid-word.
  std::string ov = "alpha beta gamma delta epsilon zeta eta theta iota kappa";
  auto s5 = chunkText(ov, 20, 8);
  for (std::size_t i = 1; i < s5.size(); ++i) QVERIFY(ov[s5[i].begin - 1] == ' ');

  QVERIFY(chunkText("", 10, 2).empty());
  QVERIFY(chunkText(" \n\n \t", 10, 2).empty());
  auto whole = chunkText("  short text \n", 100, 10);
  QCOMPARE(whole.size(), std::size_t{1});
  QCOMPARE(whole[0].begin, std::size_t{2});
  QCOMPARE(whole[0].end, std::size_t{12});
  auto unchunked = chunkText(ov, 0, 0);  // size 0 = one chunk per text
  QCOMPARE(unchunked.size(), std::size_t{1});
  QCOMPARE(unchunked[0].end, ov.size());
}

void TestDocugami::chunkUtf8() {
  // 2-, 3- and 4-byte sequences with no spaces: every cut must fall between code points.
  std::string s;
  for (int i = 0; i < 40; ++i) s += "é€😀a";  // 2+3+4+1 bytes, 4 characters
  QCOMPARE(utf8Length(s), std::size_t{160});
  for (std::size_t size : {1u, 2u, 3u, 5u, 7u, 13u}) {
    auto spans = chunkText(s, size, size / 3);
    std::size_t covered = 0;
    for (const auto& sp : spans) {
      std::string piece = s.substr(sp.begin, sp.end - sp.begin);
      QVERIFY2(validUtf8(piece), piece.c_str());
      QVERIFY(utf8Length(piece) <= size);
      covered = std::max(covered, sp.end);
    }
    QCOMPARE(covered, s.size());
  }
  // Character count, not bytes: 10 two-byte characters fit a 10-character chunk.
  std::string ten;
  for (int i = 0; i < 10; ++i) ten += "ü";
  QCOMPARE(chunkText(ten, 10, 0).size(), std::size_t{1});
}

void TestDocugami::chunkIds() {
  QCOMPARE(makeChunkId("2022 Q3 AAPL.pdf", 3, 0), std::string("2022 Q3 AAPL.pdf#3#0"));
  QCOMPARE(documentOfChunk("2022 Q3 AAPL.pdf#3#0"), std::string("2022 Q3 AAPL.pdf"));
  QCOMPARE(documentOfChunk("2023 Q1 MSFT.pdf#72#12"), std::string("2023 Q1 MSFT.pdf"));
  QCOMPARE(documentOfChunk("report #2.pdf#1#0"), std::string("report #2.pdf"));
  QCOMPARE(documentOfChunk("2022 Q3 AAPL.pdf"), std::string("2022 Q3 AAPL.pdf"));
  QCOMPARE(documentOfChunk("a#b"), std::string("a#b"));
  QCOMPARE(documentOfChunk(""), std::string(""));
}

// ---------------------------------------------------------------------------------------------
// SOURCE(S) parsing and globs

void TestDocugami::sources_data() {
  QTest::addColumn<QString>("answer");
  QTest::addColumn<bool>("found");
  QTest::addColumn<QStringList>("docs");
  QTest::newRow("plain") << "Text.\n\nSOURCE(S): 2022 Q3 AAPL.pdf, 2023 Q1 AAPL.pdf" << true
                         << QStringList{"2022 Q3 AAPL.pdf", "2023 Q1 AAPL.pdf"};
  QTest::newRow("quoted+trailing")
      << "x\nSOURCE(S): \"2023 Q1 INTC.pdf\", \"2023 Q3 INTC.pdf\" documents." << true
      << QStringList{"2023 Q1 INTC.pdf", "2023 Q3 INTC.pdf"};
  QTest::newRow("quoted+period") << "SOURCE(S): \"2023 Q3 NVDA.pdf\", \"2022 Q3 NVDA.pdf\"." << true
                                 << QStringList{"2023 Q3 NVDA.pdf", "2022 Q3 NVDA.pdf"};
  QTest::newRow("sections")
      << "SOURCE(S): 2023 Q3 NVDA.pdf, Notes to Statements, Note 1 - Policies." << true
      << QStringList{"2023 Q3 NVDA.pdf"};
  QTest::newRow("several lines, dedup")
      << "- a\n  SOURCE(S): 2023 Q1 AAPL.pdf, Item 2\n- b\n  SOURCE(S): "
         "2023 Q3 AAPL.pdf, Item 2\n- c\nSOURCE(S): 2023 Q1 AAPL.pdf"
      << true << QStringList{"2023 Q1 AAPL.pdf", "2023 Q3 AAPL.pdf"};
  QTest::newRow("inline SOURCE is not the line")
      << "sales rose (SOURCE: 2022 Q3 AAPL.pdf)." << false << QStringList{};
  QTest::newRow("none") << "Microsoft's success depends on its ability to" << false
                        << QStringList{};
  QTest::newRow("CRLF") << "t\r\nSOURCE(S): 2023 Q2 MSFT.pdf\r\n"
                        << true << QStringList{"2023 Q2 MSFT.pdf"};
  QTest::newRow("no pdf") << "SOURCE(S): the filing" << true << QStringList{};
}

void TestDocugami::sources() {
  QFETCH(QString, answer);
  QFETCH(bool, found);
  QFETCH(QStringList, docs);
  auto parsed = parseSources(answer.toStdString());
  QCOMPARE(parsed.found, found);
  QStringList got;
  for (const auto& d : parsed.documents) got << QString::fromStdString(d);
  QCOMPARE(got, docs);
  QCOMPARE(parseSourcesLine(answer.toStdString()), parsed.documents);
}

void TestDocugami::glob_data() {
  QTest::addColumn<QString>("pattern");
  QTest::addColumn<QString>("name");
  QTest::addColumn<bool>("match");
  QTest::newRow("*AAPL*") << "*AAPL*"
                          << "2023 Q1 AAPL.pdf" << true;
  QTest::newRow("*AAPL* no") << "*AAPL*"
                             << "2023 Q1 AMZN.pdf" << false;
  QTest::newRow("*2023 Q3 AAPL*") << "*2023 Q3 AAPL*"
                                  << "2023 Q3 AAPL.pdf" << true;
  QTest::newRow("*2023 Q3 AAPL* no") << "*2023 Q3 AAPL*"
                                     << "2022 Q3 AAPL.pdf" << false;
  QTest::newRow("case") << "*aapl*"
                        << "2023 Q3 AAPL.pdf" << false;
  QTest::newRow("?") << "2023 Q? AAPL.pdf"
                     << "2023 Q2 AAPL.pdf" << true;
  QTest::newRow("exact") << "x.pdf"
                         << "x.pdf" << true;
  QTest::newRow("exact no") << "x.pdf"
                            << "xx.pdf" << false;
  QTest::newRow("**") << "**"
                      << "" << true;
  QTest::newRow("backtrack") << "*a*b"
                             << "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaac" << false;
}

void TestDocugami::glob() {
  QFETCH(QString, pattern);
  QFETCH(QString, name);
  QFETCH(bool, match);
  QCOMPARE(globMatch(pattern.toStdString(), name.toStdString()), match);
}

// ---------------------------------------------------------------------------------------------
// loader on hand-made folders

void TestDocugami::loaderMissingColumn() {
  QTemporaryDir dir;
  auto path = writeFile(dir, "qna_data.csv",
                        "\xEF\xBB\xBFQuestion,Source Docs,Question Type,Answer\nq,*,t,a\n");
  Dataset ds;
  auto r = loadDocugami(path, ds, LoadOptions{});
  QVERIFY(r.stopped);
  QCOMPARE(r.errors, 1u);
  QVERIFY(ds.queries.empty());
  const std::string msg = r.diagnostics.back().toString();
  QVERIFY2(msg.find(":1: header: missing column 'Source Chunk Type'") != std::string::npos,
           msg.c_str());

  // A folder without qna_data.csv.
  QTemporaryDir empty;
  Dataset ds2;
  auto r2 = loadDocugami(empty.path().toStdString(), ds2, LoadOptions{});
  QVERIFY(r2.stopped);
  QCOMPARE(countDiagnostics(r2, Severity::Error, "no qna_data.csv"), 1);
}

void TestDocugami::loaderSkipVersusStop() {
  QTemporaryDir dir;
  QByteArray csv =
      "\xEF\xBB\xBF" + kHeader +
      "Q one?,*A*,Multi-Doc RAG,Table,\"Ans\n\nSOURCE(S): A.pdf, B.pdf\"\r\n"  // line 2
      "bad row,only three,fields\r\n"                                          // line 5
      "Q three?,*A*,Single-Doc RAG,Text,\"cut off mid\"\r\n"                   // line 6
      ",*A*,x,y,\"empty question\"\r\n"                                        // line 7
      "Q five?,*ZZZ*,t,Text,\"ok\nSOURCE(S): C.pdf\"\r\n";                     // line 8
  auto path = writeFile(dir, "qna_data.csv", csv);

  {  // Skip: bad records are listed and counted, the others load with their row-number ids.
    Dataset ds;
    LoadOptions o;
    o.onError = OnError::Skip;
    auto r = loadDocugami(path, ds, o);
    QVERIFY(!r.stopped);
    QCOMPARE(r.skipped, 2u);
    QCOMPARE(r.errors, 2u);
    QCOMPARE(ds.queries.size(), std::size_t{3});
    QCOMPARE(ds.queries[0].id, std::string("r1"));
    QCOMPARE(ds.queries[1].id, std::string("r3"));
    QCOMPARE(ds.queries[2].id, std::string("r5"));
    QCOMPARE(ds.queries[0].line, 2u);
    QCOMPARE(ds.queries[2].line, 8u);
    QCOMPARE(ds.queries[0].goldDocIds(), (std::vector<std::string>{"A.pdf", "B.pdf"}));
    QCOMPARE(ds.queries[1].flags, (std::vector<std::string>{"no SOURCE(S) line"}));
    QVERIFY(ds.queries[1].goldDocIds().empty());
    QCOMPARE(ds.queries[1].goldAnswers(), (std::vector<std::string>{"cut off mid"}));
    QCOMPARE(countDiagnostics(r, Severity::Error, ":5: record: has 3 fields, expected 5"), 1);
    QCOMPARE(countDiagnostics(r, Severity::Error, ":7: Question: empty question"), 1);
    QCOMPARE(countDiagnostics(r, Severity::Warning, ":6: Answer: no SOURCE(S) line"), 1);
    // No docs/ beside the file: one warning, globs and SOURCE(S) names unchecked.
    QCOMPARE(countDiagnostics(r, Severity::Warning, "no docs/ folder"), 1);
    QCOMPARE(attribute(ds.queries[0], "Source Docs files"), std::string("<none>"));
    QVERIFY(ds.corpus.empty());
  }
  {  // Stop: the first bad record ends the load; what came before stays.
    Dataset ds;
    auto r = loadDocugami(path, ds, LoadOptions{});
    QVERIFY(r.stopped);
    QCOMPARE(r.skipped, 0u);
    QCOMPARE(r.errors, 1u);
    QCOMPARE(ds.queries.size(), std::size_t{1});
  }
  {  // Unterminated quote: the error names the line where the record began.
    QTemporaryDir d2;
    auto p2 = writeFile(d2, "qna_data.csv", kHeader + "q,g,t,c,\"a\r\nb\r\n" + "q2,g,t,c,a\r\n");
    Dataset ds;
    LoadOptions o;
    o.onError = OnError::Skip;
    auto r = loadDocugami(p2, ds, o);
    QCOMPARE(countDiagnostics(r, Severity::Error, ":2: record: unterminated quoted field"), 1);
    QVERIFY(ds.queries.empty());
  }
  {  // Over-long record with a small maxLineBytes.
    QTemporaryDir d3;
    auto p3 = writeFile(d3, "qna_data.csv",
                        kHeader + "q,g,t,c,\"" + QByteArray(3000, 'a') + "\"\r\nq2,g,t,c,a\r\n");
    Dataset ds;
    LoadOptions o;
    o.onError = OnError::Skip;
    o.maxLineBytes = 1000;
    auto r = loadDocugami(p3, ds, o);
    QCOMPARE(countDiagnostics(r, Severity::Error, ":2: record: record longer than 1000 bytes"), 1);
    QCOMPARE(ds.queries.size(), std::size_t{1});
    QCOMPARE(ds.queries[0].id, std::string("r2"));
  }
}

void TestDocugami::loaderGarbagePdf() {
  RAGSCOPE_REQUIRE_DATA(kSec10q);
  const fs::path realDocs = ragscope::test::dataPath(kSec10q) / "docs";
  QTemporaryDir dir;
  const fs::path root = dir.path().toStdString();
  fs::create_directories(root / "docs");
  // Real PDFs by symlink (never copied), plus a garbage and an empty "PDF".
  fs::create_symlink(realDocs / "2022 Q3 AAPL.pdf", root / "docs" / "2022 Q3 AAPL.pdf");
  fs::create_symlink(realDocs / "2023 Q2 AAPL.pdf", root / "docs" / "2023 Q2 AAPL.pdf");
  std::mt19937 rng(99);
  QByteArray junk = "%PDF-1.7\n";
  for (int i = 0; i < 50000; ++i) junk.append(static_cast<char>(rng() & 0xFF));
  writeFile(dir, "docs/x.pdf", junk);
  writeFile(dir, "docs/empty.PDF", "");
  writeFile(dir, "docs/notes.txt", "not a pdf, not listed");
  writeFile(
      dir, "qna_data.csv",
      kHeader +
          "Q?,*AAPL*,Multi-Doc RAG,Table,\"a\nSOURCE(S): 2022 Q3 AAPL.pdf, 2099 Q9 AAPL.pdf\"\r\n");

  Dataset ds;
  LoadOptions o;
  o.onError = OnError::Skip;
  auto r = loadDocugami(root, ds, o);  // the folder form
  QVERIFY(r.ok());
  QCOMPARE(r.skipped, 2u);
  QCOMPARE(countDiagnostics(r, Severity::Error, "x.pdf: pdf: not a readable PDF"), 1);
  QCOMPARE(countDiagnostics(r, Severity::Error, "empty.PDF: pdf: empty file"), 1);
  QCOMPARE(
      countDiagnostics(r, Severity::Warning, "SOURCE(S) names '2099 Q9 AAPL.pdf', which is not in"),
      1);
  QCOMPARE(ds.queries.size(), std::size_t{1});
  QCOMPARE(attribute(ds.queries[0], "Source Docs files"),
           std::string("2022 Q3 AAPL.pdf, 2023 Q2 AAPL.pdf"));
  std::set<std::string> parents;
  for (const auto& d : ds.corpus.documents()) parents.insert(d.parentId);
  QCOMPARE(parents, (std::set<std::string>{"2022 Q3 AAPL.pdf", "2023 Q2 AAPL.pdf"}));

  // Stop: files are read in name order ("2022 Q3 AAPL", "2023 Q2 AAPL", "empty.PDF", "x.pdf"),
  // so the two real ones load and the empty file stops the load.
  Dataset ds2;
  auto r2 = loadDocugami(root, ds2, LoadOptions{});
  QVERIFY(r2.stopped);
  QCOMPARE(r2.errors, 1u);
  parents.clear();
  for (const auto& d : ds2.corpus.documents()) parents.insert(d.parentId);
  QCOMPARE(parents.size(), std::size_t{2});

  // Loading the same folder's questions again does not read the PDFs twice.
  auto r3 = loadDocugami(root, ds, o);
  QCOMPARE(countDiagnostics(r3, Severity::Warning, "already in the corpus"), 2);
  QCOMPARE(ds.queries.size(), std::size_t{2});
  QCOMPARE(countDiagnostics(r3, Severity::Warning, "query id r1 is already loaded"), 1);
}

// ---------------------------------------------------------------------------------------------
// real data

void TestDocugami::realQuestions() {
  RAGSCOPE_REQUIRE_DATA(kSec10q);
  QVERIFY(m_fullLoaded);
  QVERIFY(m_fullReport.ok());
  QCOMPARE(m_fullReport.errors, 0u);
  QCOMPARE(m_full.queries.size(), std::size_t{195});
  const Query& q1 = m_full.queries.front();
  QCOMPARE(q1.id, std::string("r1"));
  QCOMPARE(q1.line, 2u);
  QCOMPARE(q1.text, std::string("How has Apple's total net sales changed over time?"));
  QCOMPARE(q1.task, std::string("Multi-Doc RAG"));
  QCOMPARE(q1.goldDocIds(), (std::vector<std::string>{"2022 Q3 AAPL.pdf", "2023 Q1 AAPL.pdf",
                                                      "2023 Q2 AAPL.pdf", "2023 Q3 AAPL.pdf"}));
  QCOMPARE(attribute(q1, "Source Docs"), std::string("*AAPL*"));
  QCOMPARE(attribute(q1, "Source Chunk Type"), std::string("Table"));
  QCOMPARE(attribute(q1, "Source Docs files"),
           std::string("2022 Q3 AAPL.pdf, 2023 Q1 AAPL.pdf, 2023 Q2 AAPL.pdf, 2023 Q3 AAPL.pdf"));
  QCOMPARE(q1.gold.size(), std::size_t{1});
  QVERIFY(q1.gold[0].answer.rfind("Based on the provided documents, Apple's total net sales", 0) ==
          0);
  QVERIFY(q1.gold[0].answer.find("\n\nSOURCE(S): 2022 Q3 AAPL.pdf, 2023 Q1 AAPL.pdf") !=
          std::string::npos);

  // Irregular SOURCE(S) lines of the real file (rows checked by hand).
  auto docsOf = [&](int row) {
    return m_full.queries[static_cast<std::size_t>(row - 1)].goldDocIds();
  };
  QCOMPARE(docsOf(4),
           (std::vector<std::string>{"2022 Q3 AAPL.pdf", "2023 Q1 AAPL.pdf", "2023 Q2 AAPL.pdf",
                                     "2023 Q3 AAPL.pdf"}));  // quoted names
  QCOMPARE(docsOf(6), (std::vector<std::string>{"2023 Q1 AAPL.pdf", "2023 Q2 AAPL.pdf",
                                                "2023 Q3 AAPL.pdf"}));   // four per-bullet lines
  QCOMPARE(docsOf(35), (std::vector<std::string>{"2023 Q3 NVDA.pdf"}));  // + section names
  QCOMPARE(docsOf(52),
           (std::vector<std::string>{"2022 Q3 INTC.pdf", "2023 Q1 INTC.pdf", "2023 Q2 INTC.pdf",
                                     "2023 Q3 INTC.pdf"}));  // `... .pdf" documents.`
  QCOMPARE(docsOf(59),
           (std::vector<std::string>{"2023 Q1 AMZN.pdf", "2023 Q2 AMZN.pdf", "2023 Q3 AMZN.pdf"}));

  const Query& last = m_full.queries.back();
  QCOMPARE(last.id, std::string("r195"));
  QCOMPARE(last.line, 1684u);
}

void TestDocugami::realFlaggedRows() {
  RAGSCOPE_REQUIRE_DATA(kSec10q);
  QVERIFY(m_fullLoaded);
  std::vector<std::string> flagged;
  std::size_t withGold = 0;
  for (const auto& q : m_full.queries) {
    if (!q.goldDocIds().empty()) ++withGold;
    if (!q.flags.empty()) {
      flagged.push_back(q.id);
      QCOMPARE(q.flags, (std::vector<std::string>{"no SOURCE(S) line"}));
      QVERIFY(q.goldDocIds().empty());
      QCOMPARE(q.goldAnswers().size(), std::size_t{1});  // the (cut-off) answer still loads
    }
  }
  QCOMPARE(withGold, std::size_t{193});
  QCOMPARE(flagged, (std::vector<std::string>{"r17", "r98"}));
  QCOMPARE(m_full.findQuery("r17")->line, 161u);
  QCOMPARE(m_full.findQuery("r98")->line, 859u);
  QVERIFY(m_full.findQuery("r98")->gold[0].answer.ends_with(
      "Microsoft's success depends on its ability to"));
  QCOMPARE(countDiagnostics(m_fullReport, Severity::Warning,
                            "qna_data.csv:161: Answer: no SOURCE(S) line"),
           1);
  QCOMPARE(countDiagnostics(m_fullReport, Severity::Warning,
                            "qna_data.csv:859: Answer: no SOURCE(S) line"),
           1);
  // Every SOURCE(S) document and every Source Docs glob resolves in docs/.
  QCOMPARE(countDiagnostics(m_fullReport, Severity::Warning, "which is not in"), 0);
  QCOMPARE(countDiagnostics(m_fullReport, Severity::Warning, "matches no PDF"), 0);
  QCOMPARE(countDiagnostics(m_fullReport, Severity::Warning, "qna_data.csv:"), 2);
}

void TestDocugami::realCounts() {
  RAGSCOPE_REQUIRE_DATA(kSec10q);
  QVERIFY(m_fullLoaded);
  std::map<std::string, int> types, chunkTypes;
  std::size_t goldRefs = 0;
  for (const auto& q : m_full.queries) {
    ++types[q.task];
    ++chunkTypes[attribute(q, "Source Chunk Type")];
    goldRefs += q.goldDocIds().size();
    // Each SOURCE(S) document lies in the question's Source Docs glob... except where the file
    // itself disagrees; at least every gold document is a corpus document.
    for (const auto& d : q.goldDocIds()) QVERIFY(m_full.corpus.contains(makeChunkId(d, 1, 0)));
  }
  QCOMPARE(types, (std::map<std::string, int>{{"Single-Doc Single-Chunk RAG", 76},
                                              {"Multi-Doc RAG", 65},
                                              {"Single-Doc Multi-Chunk RAG", 54}}));
  QCOMPARE(chunkTypes, (std::map<std::string, int>{{"Table", 114}, {"Text", 81}}));
  QCOMPARE(goldRefs, std::size_t{361});  // Python: distinct *.pdf names on SOURCE(S) lines per row
}

void TestDocugami::realMini() {
  RAGSCOPE_REQUIRE_DATA(kSec10q);
  // 10 rows including the header: 9 questions (Python's csv module agrees). The CSV-file form
  // picks up docs/ beside it; chunkSize 0 keeps it quicker to check (one chunk per page).
  Dataset ds;
  LoadOptions o;
  o.chunkSize = 0;
  auto r = loadDocugami(ragscope::test::dataPath(kSec10q) / "qna_data_mini.csv", ds, o);
  QVERIFY(r.ok());
  QCOMPARE(r.errors, 0u);
  QCOMPARE(ds.queries.size(), std::size_t{9});
  QCOMPARE(ds.queries.front().text,
           std::string("How has Apple's total net sales changed over time?"));
  QCOMPARE(ds.queries.back().id, std::string("r9"));
  QCOMPARE(ds.queries.back().task, std::string("Single-Doc Multi-Chunk RAG"));
  QCOMPARE(ds.queries.back().goldDocIds(), (std::vector<std::string>{"2023 Q3 AMZN.pdf"}));
  for (const auto& d : ds.corpus.documents()) QCOMPARE(d.chunk, 0);
}

void TestDocugami::realPageCounts_data() {
  QTest::addColumn<QString>("file");
  QTest::addColumn<int>("pages");
  QTest::addColumn<int>("emptyPage");
  // Pages: `pdfinfo "$f" | grep Pages` (poppler-utils 22.12). Empty page: the one page for which
  // `pdftotext -f p -l p -layout` prints only blanks (0 = none).
  const std::tuple<const char*, int, int> known[] = {
      {"2022 Q3 AAPL.pdf", 28, 0},  {"2022 Q3 AMZN.pdf", 50, 0},  {"2022 Q3 INTC.pdf", 61, 0},
      {"2022 Q3 MSFT.pdf", 80, 0},  {"2022 Q3 NVDA.pdf", 49, 0},  {"2023 Q1 AAPL.pdf", 46, 0},
      {"2023 Q1 AMZN.pdf", 52, 0},  {"2023 Q1 INTC.pdf", 43, 0},  {"2023 Q1 MSFT.pdf", 72, 0},
      {"2023 Q1 NVDA.pdf", 49, 0},  {"2023 Q2 AAPL.pdf", 28, 0},  {"2023 Q2 AMZN.pdf", 51, 0},
      {"2023 Q2 INTC.pdf", 50, 0},  {"2023 Q2 MSFT.pdf", 74, 74}, {"2023 Q2 NVDA.pdf", 51, 0},
      {"2023 Q3 AAPL.pdf", 29, 0},  {"2023 Q3 AMZN.pdf", 51, 0},  {"2023 Q3 INTC.pdf", 54, 0},
      {"2023 Q3 MSFT.pdf", 67, 67}, {"2023 Q3 NVDA.pdf", 52, 0},
  };
  for (const auto& [f, n, empty] : known) QTest::newRow(f) << QString(f) << n << empty;
}

void TestDocugami::realPageCounts() {
  RAGSCOPE_REQUIRE_DATA(kSec10q);
  QFETCH(QString, file);
  QFETCH(int, pages);
  QFETCH(int, emptyPage);
  QVERIFY(m_fullLoaded);
  std::string error;
  QCOMPARE(pdfPageCount(ragscope::test::dataPath(kSec10q) / "docs" / file.toStdString(), &error),
           pages);
  QVERIFY(error.empty());
  // The loaded corpus has chunks for exactly the pages with text.
  std::set<int> expected, got;
  for (int p = 1; p <= pages; ++p)
    if (p != emptyPage) expected.insert(p);
  for (const auto& d : m_full.corpus.documents())
    if (d.parentId == file.toStdString()) got.insert(d.page);
  QCOMPARE(got, expected);
}

void TestDocugami::realCorpus() {
  RAGSCOPE_REQUIRE_DATA(kSec10q);
  QVERIFY(m_fullLoaded);
  const auto& docs = m_full.corpus.documents();
  QVERIFY(!docs.empty());
  std::set<std::string> parents, ids;
  const LoadOptions defaults;
  std::optional<Document> prev;  // documents() builds each document: keep a copy, not a pointer
  for (const auto& d : docs) {
    parents.insert(d.parentId);
    QVERIFY(ids.insert(d.id).second);
    QCOMPARE(d.id, makeChunkId(d.parentId, d.page, d.chunk));
    QCOMPARE(documentOfChunk(d.id), d.parentId);
    QCOMPARE(d.title, d.parentId + " p." + std::to_string(d.page));
    QVERIFY(!d.text.empty());
    QVERIFY(utf8Length(d.text) <= defaults.chunkSize);
    QVERIFY(validUtf8(d.text));
    if (prev) {
      // File order, then page order, then chunk order, chunk numbers contiguous from 0.
      if (prev->parentId == d.parentId && prev->page == d.page) {
        QCOMPARE(d.chunk, prev->chunk + 1);
      } else {
        QCOMPARE(d.chunk, 0);
        QVERIFY(prev->parentId < d.parentId ||
                (prev->parentId == d.parentId && prev->page < d.page));
      }
    } else {
      QCOMPARE(d.chunk, 0);
    }
    prev = d;
  }
  QCOMPARE(parents.size(), std::size_t{20});
  QCOMPARE(*parents.begin(), std::string("2022 Q3 AAPL.pdf"));
  QCOMPARE(*parents.rbegin(), std::string("2023 Q3 NVDA.pdf"));
  QCOMPARE(m_fullReport.records, m_full.queries.size() + docs.size());

  // Apple's statement of operations (page 4 of the 2022 Q3 filing; `pdftotext -layout` shows the
  // row): physical layout keeps a table row on one line, so the label sits beside its figures.
  bool found = false;
  for (const auto& d : docs)
    if (d.parentId == "2022 Q3 AAPL.pdf" && d.page == 4 &&
        d.text.find("Total net sales  82,959  81,434  304,182  282,457") != std::string::npos)
      found = true;
  QVERIFY(found);

  // Progress: once after the CSV and once per PDF, increasing, ending at the total.
  QCOMPARE(m_progress.size(), std::size_t{21});
  for (std::size_t i = 1; i < m_progress.size(); ++i)
    QVERIFY(m_progress[i].first > m_progress[i - 1].first);
  QCOMPARE(m_progress.back().first, m_progress.back().second);
}

void TestDocugami::realProgressAndCancel() {
  RAGSCOPE_REQUIRE_DATA(kSec10q);
  // Cancel after the third PDF: exactly three files' chunks, report.cancelled, questions kept.
  Dataset ds;
  LoadOptions o;
  int calls = 0;
  o.progress = [&](std::uint64_t, std::uint64_t) { return ++calls < 4; };
  auto r = loadDocugami(ragscope::test::dataPath(kSec10q), ds, o);
  QVERIFY(r.cancelled);
  QVERIFY(!r.ok());
  QCOMPARE(calls, 4);
  std::set<std::string> parents;
  for (const auto& d : ds.corpus.documents()) parents.insert(d.parentId);
  QCOMPARE(parents,
           (std::set<std::string>{"2022 Q3 AAPL.pdf", "2022 Q3 AMZN.pdf", "2022 Q3 INTC.pdf"}));
  QCOMPARE(ds.queries.size(), std::size_t{195});

  // Cancel at the first call (after the CSV): no corpus at all.
  Dataset ds2;
  o.progress = [](std::uint64_t, std::uint64_t) { return false; };
  auto r2 = loadDocugami(ragscope::test::dataPath(kSec10q), ds2, o);
  QVERIFY(r2.cancelled);
  QVERIFY(ds2.corpus.empty());
}

QTEST_GUILESS_MAIN(TestDocugami)
#include "tst_docugami.moc"
