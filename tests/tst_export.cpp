// core/export: the CSV writer and the JSON writers, against hand-written expected bytes, a read
// back through the project's own RFC 4180 reader, and the CLI commands that print through them.

#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "common/cli.h"
#include "core/data/csvreader.h"
#include "core/export/csv.h"
#include "core/export/json.h"

using namespace ragscope::core;
using exporting::CsvWriter;

namespace {

using namespace std::string_literals;  // "a\0b"s keeps the NUL

const std::string kFFFD = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

QByteArray bytes(const std::string& s) {
  return QByteArray(s.data(), static_cast<qsizetype>(s.size()));
}

// One row of one text cell, as written.
std::string textRow(const std::string& cell) {
  std::ostringstream out;
  CsvWriter(out).text(cell).endRow();
  return out.str();
}

std::string readAll(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// Cells that stress every rule; what a reader must get back is each cell as written, with the
// neutralising quote where the first character asks for one.
const std::vector<std::string>& nastyCells() {
  static const std::vector<std::string> cells = {"plain",
                                                 "",
                                                 "a,b",
                                                 "say \"hi\"",
                                                 "\"",
                                                 "line\nbreak",
                                                 "cr\rinside",
                                                 "crlf\r\nend",
                                                 "trailing cr\r",
                                                 "=1+2",
                                                 "+1",
                                                 "-1",
                                                 "@SUM(A1)",
                                                 "\tx",
                                                 "\rx",
                                                 "=HYPERLINK(\"http://x\",\"y\")",
                                                 "a=b",
                                                 "caf\xC3\xA9 \xE2\x9C\x93",
                                                 " lead",
                                                 "trail ",
                                                 "''quoted'",
                                                 ",",
                                                 "\n"};
  return cells;
}

}  // namespace

class TstExport : public QObject {
  Q_OBJECT

 private slots:
  void csvText_data();
  void csvText();
  void csvNumbers_data();
  void csvNumbers();
  void csvIntegers();
  void csvRows();
  void csvCrLf();
  void csvRoundTripThroughReader();
  void csvDeterministic();
  void jsonText();
  void jsonInvalidUtf8();
  void jsonDeterministic();
  void jsonFile();
  void jsonFileFailure();
  void cliEvalCsvNeutralises();
  void cliEvalJsonUnchanged();
};

void TstExport::csvText_data() {
  QTest::addColumn<QByteArray>("cell");
  QTest::addColumn<QByteArray>("expected");
  auto row = [](const char* name, const std::string& cell, const std::string& expected) {
    QTest::newRow(name) << bytes(cell) << bytes(expected);
  };
  row("plain", "abc", "abc\n");
  row("empty alone", "", "\"\"\n");  // a blank line would not be a record
  row("space", " a b ", " a b \n");
  row("comma", "a,b", "\"a,b\"\n");
  row("quote", "say \"hi\"", "\"say \"\"hi\"\"\"\n");
  row("only quote", "\"", "\"\"\"\"\n");
  row("LF", "a\nb", "\"a\nb\"\n");
  row("CR", "a\rb", "\"a\rb\"\n");
  row("CRLF", "a\r\nb", "\"a\r\nb\"\n");
  row("NUL", "a\0b"s, "a" + kFFFD + "b\n");
  row("NUL only", "\0"s, kFFFD + "\n");
  row("invalid UTF-8", "a\xFF"s + "b", "a" + kFFFD + "b\n");
  row("truncated UTF-8", "caf\xC3", "caf" + kFFFD + "\n");
  row("valid UTF-8", "caf\xC3\xA9 \xE2\x9C\x93", "caf\xC3\xA9 \xE2\x9C\x93\n");
  // Formula injection: each dangerous first character.
  row("=", "=1+2", "'=1+2\n");
  row("+", "+1", "'+1\n");
  row("-", "-1", "'-1\n");  // a qid "-1" is text, not a number
  row("- alone", "-", "'-\n");
  row("@", "@SUM(A1)", "'@SUM(A1)\n");
  row("tab", "\tx", "'\tx\n");
  row("CR first", "\rx", "\"'\rx\"\n");  // neutralised, then quoted for the CR
  row("= and quotes", "=HYPERLINK(\"http://x\",\"y\")",
      "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"\n");
  row("= and comma", "=a,b", "\"'=a,b\"\n");
  row("negative decimal text", "-0.5", "'-0.5\n");
  // Only the first character counts.
  row("= inside", "a=b", "a=b\n");
  row("- inside", "a-1", "a-1\n");
  row("space then =", " =1", " =1\n");
  row("quote first", "'=1", "'=1\n");
}

void TstExport::csvText() {
  QFETCH(QByteArray, cell);
  QFETCH(QByteArray, expected);
  QCOMPARE(bytes(textRow(cell.toStdString())), expected);
}

void TstExport::csvNumbers_data() {
  QTest::addColumn<double>("value");
  QTest::addColumn<QByteArray>("expected");
  // Expected text as C's printf("%.17g") prints it (checked against Python's '%.17g' % v).
  QTest::newRow("half") << 0.5 << QByteArray("0.5");
  QTest::newRow("negative") << -0.5 << QByteArray("-0.5");
  QTest::newRow("0.1, 17 digits") << 0.1 << QByteArray("0.10000000000000001");
  QTest::newRow("third") << 1.0 / 3 << QByteArray("0.33333333333333331");
  QTest::newRow("whole") << 3.0 << QByteArray("3");
  QTest::newRow("negative whole") << -2.0 << QByteArray("-2");
  QTest::newRow("minus zero") << -0.0 << QByteArray("-0");
  QTest::newRow("large") << 1e20 << QByteArray("1e+20");
  QTest::newRow("tiny") << 1e-300 << QByteArray("1e-300");
  QTest::newRow("negative exponent") << -1.5e-7 << QByteArray("-1.4999999999999999e-07");
  QTest::newRow("NaN is empty") << std::numeric_limits<double>::quiet_NaN() << QByteArray("");
  QTest::newRow("inf") << std::numeric_limits<double>::infinity() << QByteArray("inf");
  QTest::newRow("-inf") << -std::numeric_limits<double>::infinity() << QByteArray("-inf");
}

void TstExport::csvNumbers() {
  QFETCH(double, value);
  QFETCH(QByteArray, expected);
  std::ostringstream out;
  CsvWriter(out).text("x").number(value).text("y").endRow();
  QCOMPARE(bytes(out.str()), "x," + expected + ",y\n");
  // The text reads back as the same double (round trip of 17 significant digits).
  if (std::isfinite(value)) QCOMPARE(std::stod(expected.toStdString()), value);
}

void TstExport::csvIntegers() {
  std::ostringstream out;
  CsvWriter w(out);
  w.number(0).number(-1).number(42L).number(std::size_t{7});
  w.number(std::numeric_limits<long long>::min()).number(std::numeric_limits<std::uint64_t>::max());
  w.number(static_cast<short>(-3)).number(static_cast<unsigned char>(200)).endRow();
  QCOMPARE(bytes(out.str()),
           QByteArray("0,-1,42,7,-9223372036854775808,18446744073709551615,-3,200\n"));
}

void TstExport::csvRows() {
  std::ostringstream out;
  CsvWriter w(out);
  w.text("run").text("qid").text("n").text("map").endRow();
  w.text("bm25, tuned").text("301").empty().number(0.25).endRow();
  w.empty().empty().endRow();  // two empty cells: ",", a record of two fields
  w.endRow();                  // no cells: a blank line
  w.text("-x").number(-1).endRow();
  QCOMPARE(bytes(out.str()), QByteArray("run,qid,n,map\n"
                                        "\"bm25, tuned\",301,,0.25\n"
                                        ",\n"
                                        "\n"
                                        "'-x,-1\n"));
  QVERIFY(w.ok());
}

void TstExport::csvCrLf() {
  std::ostringstream out;
  CsvWriter w(out, CsvWriter::LineEnd::CrLf);
  w.text("a").text("b\nc").endRow();
  w.empty().endRow();
  QCOMPARE(bytes(out.str()), QByteArray("a,\"b\nc\"\r\n\"\"\r\n"));
}

void TstExport::csvRoundTripThroughReader() {
  // An independent reader: core/data/csvreader (python3 is not among scripts/setup's packages).
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  for (const auto lineEnd : {CsvWriter::LineEnd::Lf, CsvWriter::LineEnd::CrLf}) {
    const auto path = std::filesystem::path(dir.path().toStdString()) / "table.csv";
    const auto& cells = nastyCells();
    {
      std::ofstream file(path, std::ios::binary);
      CsvWriter w(file, lineEnd);
      w.text("text").text("number").endRow();
      for (const auto& cell : cells) w.text(cell).number(-0.5).endRow();
      for (const auto& cell : cells) w.text(cell).endRow();  // single-cell rows too
      QVERIFY(w.ok());
    }
    CsvReader reader(path, 1 << 20);
    QVERIFY(reader.isOpen());
    std::vector<std::string> fields;
    QCOMPARE(reader.readHeader(fields), CsvReader::Status::Record);
    auto expected = [](const std::string& cell) {
      const bool formula =
          !cell.empty() && std::string("=+-@\t\r").find(cell[0]) != std::string::npos;
      return formula ? "'" + cell : cell;
    };
    for (const auto& cell : cells) {
      QCOMPARE(reader.next(fields), CsvReader::Status::Record);
      QCOMPARE(fields.size(), std::size_t{2});
      QCOMPARE(bytes(fields[0]), bytes(expected(cell)));
      QCOMPARE(fields[1], std::string("-0.5"));  // a number: never neutralised
    }
    // Past the two-column part the reader (which holds to the header's width) reports each
    // single-cell row as an error; reopen without a header to read them as records.
    CsvReader singles(path, 1 << 20);
    for (std::size_t i = 0; i <= cells.size(); ++i)
      QVERIFY(singles.next(fields) == CsvReader::Status::Record);
    for (const auto& cell : cells) {
      QCOMPARE(singles.next(fields), CsvReader::Status::Record);
      QCOMPARE(fields.size(), std::size_t{1});
      QCOMPARE(bytes(fields[0]), bytes(expected(cell)));
    }
    QCOMPARE(singles.next(fields), CsvReader::Status::End);
  }
}

void TstExport::csvDeterministic() {
  auto table = [] {
    std::ostringstream out;
    CsvWriter w(out);
    for (const auto& cell : nastyCells()) w.text(cell).number(1.0 / 7).number(-3).empty().endRow();
    return out.str();
  };
  const std::string first = table();
  QVERIFY(!first.empty());
  QCOMPARE(bytes(table()), bytes(first));
}

void TstExport::jsonText() {
  // nlohmann::json sorts keys; ordered_json keeps the order they were added in.
  const nlohmann::json sorted = {{"b", 1}, {"a", {0.5, nullptr, "x"}}};
  QCOMPARE(QByteArray::fromStdString(exporting::jsonText(sorted)),
           QByteArray("{\"a\":[0.5,null,\"x\"],\"b\":1}"));
  nlohmann::ordered_json ordered;
  ordered["b"] = 1;
  ordered["a"] = std::numeric_limits<double>::quiet_NaN();
  ordered["c"] = "caf\xC3\xA9";
  QCOMPARE(QByteArray::fromStdString(exporting::jsonText(ordered)),
           QByteArray("{\"b\":1,\"a\":null,\"c\":\"caf\xC3\xA9\"}"));
  std::ostringstream out;
  QVERIFY(exporting::writeJson(out, ordered, 2));
  QCOMPARE(bytes(out.str()),
           QByteArray("{\n  \"b\": 1,\n  \"a\": null,\n  \"c\": \"caf\xC3\xA9\"\n}\n"));
  std::ostringstream compact;
  QVERIFY(exporting::writeJson(compact, nlohmann::json::array({0.1, -0.5, 3})));
  QCOMPARE(bytes(compact.str()), QByteArray("[0.1,-0.5,3]\n"));
}

void TstExport::jsonInvalidUtf8() {
  // nlohmann's plain dump() throws type_error 316 here.
  nlohmann::json doc;
  doc["qid"] = "a\xFF"s + "b";
  doc["bad\xFFkey"] = 1;
  doc["nul"] = "x\0y"s;
  QVERIFY_THROWS_EXCEPTION(nlohmann::json::type_error, (void)doc.dump());
  std::ostringstream out;
  QVERIFY(exporting::writeJson(out, doc));
  QCOMPARE(bytes(out.str()), bytes("{\"bad" + kFFFD + "key\":1,\"nul\":\"x\\u0000y\",\"qid\":\"a" +
                                   kFFFD + "b\"}\n"));
  nlohmann::ordered_json ordered;
  ordered["qid"] = "\xFF";
  QCOMPARE(QByteArray::fromStdString(exporting::jsonText(ordered)),
           QByteArray("{\"qid\":\"\xEF\xBF\xBD\"}"));
}

void TstExport::jsonDeterministic() {
  auto build = [] {
    nlohmann::json doc;
    for (int i = 0; i < 50; ++i)
      doc[std::string("k") + std::to_string((i * 37) % 50)] = {i / 7.0, "v\xFF"};
    return doc;
  };
  const std::string a = exporting::jsonText(build(), 2);
  const std::string b = exporting::jsonText(build(), 2);
  QCOMPARE(bytes(b), bytes(a));
}

void TstExport::jsonFile() {
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const auto folder = std::filesystem::path(dir.path().toStdString());
  const auto path = folder / "out.json";
  writeFile(path, "old content that is longer than the new one");
  nlohmann::ordered_json doc;
  doc["name"] = "run\xFF";
  doc["n"] = 2;
  std::string error;
  QVERIFY2(exporting::writeJsonFile(path, doc, &error), error.c_str());
  QCOMPARE(bytes(readAll(path)),
           QByteArray("{\n  \"name\": \"run\xEF\xBF\xBD\",\n  \"n\": 2\n}\n"));
  // Compact, and the same bytes when written again.
  QVERIFY2(exporting::writeJsonFile(path, nlohmann::json{{"b", 1}, {"a", 2}}, &error, -1),
           error.c_str());
  const std::string once = readAll(path);
  QCOMPARE(bytes(once), QByteArray("{\"a\":2,\"b\":1}\n"));
  QVERIFY(exporting::writeJsonFile(path, nlohmann::json{{"b", 1}, {"a", 2}}, &error, -1, false));
  QCOMPARE(bytes(readAll(path)), bytes(once));
  // No temporary file left beside it.
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(folder)) ++entries;
  QCOMPARE(entries, std::size_t{1});
}

void TstExport::jsonFileFailure() {
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const auto path = std::filesystem::path(dir.path().toStdString()) / "missing" / "out.json";
  std::string error;
  QVERIFY(!exporting::writeJsonFile(path, nlohmann::json::object(), &error));
  QVERIFY2(error.rfind(path.string() + ": ", 0) == 0, error.c_str());
  QVERIFY(!std::filesystem::exists(path));
}

void TstExport::cliEvalCsvNeutralises() {
  // Ids and tags come from the input files: a crafted run must not put a formula in a spreadsheet.
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const auto folder = std::filesystem::path(dir.path().toStdString());
  writeFile(folder / "qrels", "=cmd 0 d1 1\n-1 0 d2 1\n");
  writeFile(folder / "run", "=cmd Q0 d1 1 2.0 @tag\n-1 Q0 d3 1 1.0 @tag\n");
  const auto r = ragscope::test::runCli({"eval", "-q", "-m", "P.1", "-m", "num_ret", "--format",
                                         "csv", QString::fromStdString((folder / "qrels").string()),
                                         QString::fromStdString((folder / "run").string())});
  QVERIFY2(r.exitCode == 0, r.err.constData());
  // Queries in trec_eval's order (by qid), per-query rows with empty n and CI cells, then `all`:
  // text neutralised, numbers not.
  // Measures in trec_eval's order (num_ret before P).
  QCOMPARE(
      r.out,
      QByteArray("run,qid,n,num_ret,num_ret_ci_low,num_ret_ci_high,P_1,P_1_ci_low,P_1_ci_high\n"
                 "'@tag,'-1,,1,,,0,,\n"
                 "'@tag,'=cmd,,1,,,1,,\n"
                 "'@tag,all,2,2,,,0.5,0,1\n"));
}

void TstExport::cliEvalJsonUnchanged() {
  // The json format still prints pretty (indent 2), keys in the order the command builds them.
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  const auto folder = std::filesystem::path(dir.path().toStdString());
  writeFile(folder / "qrels", "q1 0 d1 1\n");
  writeFile(folder / "run", "q1 Q0 d1 1 2.0 tag\n");
  const auto r = ragscope::test::runCli({"eval", "-m", "P.1", "--format", "json", "--B", "0",
                                         QString::fromStdString((folder / "qrels").string()),
                                         QString::fromStdString((folder / "run").string())});
  QVERIFY2(r.exitCode == 0, r.err.constData());
  QVERIFY2(
      r.out.startsWith(
          "{\n  \"columns\": [\n    \"run\",\n    \"qid\",\n    \"P_1\"\n  ],\n  \"rows\": [\n"),
      r.out.constData());
  QVERIFY(r.out.endsWith("]\n}\n"));
  const auto doc = nlohmann::json::parse(r.out.toStdString());
  QCOMPARE(doc["rows"][0]["P_1"]["mean"].get<double>(), 1.0);
}

QTEST_GUILESS_MAIN(TstExport)
#include "tst_export.moc"
