// The command-line layer of ragscope-cli (app/cli/options.h) on its own: value types and bounds,
// --opt=value, repeated and short options, positionals, the one error style with exit code 2,
// and the generated help. The CLI is an executable, not a library, so its one source file is
// compiled into this test directly.

#include <QTest>
#include <iostream>
#include <sstream>

#include "app/cli/options.cpp"  // NOLINT(bugprone-suspicious-include)
#include "common/cli.h"

using ragscope::cli::Args;
using ragscope::cli::CommandLine;
using ragscope::cli::NumberBounds;

namespace {

// What one parse did: its result and what it printed on stdout and stderr.
struct Outcome {
  std::optional<int> exit;
  std::string out, err;
};

Outcome run(CommandLine& cli, Args args) {
  args.insert(args.begin(), "cmd");
  std::ostringstream out, err;
  auto* oldOut = std::cout.rdbuf(out.rdbuf());
  auto* oldErr = std::cerr.rdbuf(err.rdbuf());
  Outcome o;
  o.exit = cli.parse(args);
  std::cout.rdbuf(oldOut);
  std::cerr.rdbuf(oldErr);
  o.out = out.str();
  o.err = err.str();
  return o;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A command with one option of each kind.
struct Fixture {
  std::string name;
  std::optional<std::string> out;
  std::vector<std::string> measures, files;
  std::size_t depth = 10;
  int level = 1;
  std::size_t resamples = 1000;
  double alpha = 0.5;
  std::optional<double> budget;
  std::string format = "trec";
  bool quiet = false, complete = false, stem = true;
  CommandLine cli{"eval"};

  Fixture() {
    cli.intro("Evaluates runs.");
    cli.epilogue("Exit codes: 0 ok.");
    cli.positionals("QRELS RUN...", files, 3);
    cli.text("--name", "NAME", name, "a name");
    cli.path("-o, --out", "FILE", out, "the output file");
    cli.texts("-m, --measure", "M", measures, "a measure, repeatable");
    cli.integer("--depth", "N", depth, 1, 1000, "depth");
    cli.integer("-l", "LEVEL", level, -5, 5, "relevance level");
    cli.integer("--B", "N", resamples, 2, 1000000, "resamples", "no CIs");
    cli.number("--alpha", "A", alpha, NumberBounds::strictlyBetween(0, 1), "alpha");
    cli.number("--budget", "USD", budget, NumberBounds::atLeast(0), "budget");
    cli.choice("--format", {"trec", "csv", "json"}, format, "output format");
    cli.flag("-q, --quiet", quiet, "quiet");
    cli.flag("-c", complete, "complete");
    cli.flag("--no-stemming", stem, "words as written", false);
    cli.section("More options");
    cli.text("--extra", "X", extraValue, "in another section");
  }
  std::string extraValue;
};

}  // namespace

class TestCliOptions : public QObject {
  Q_OBJECT

 private slots:
  void bothValueForms() {
    Fixture f;
    const auto r = run(f.cli, {"--name", "a b", "--depth=7", "--alpha", "0.25", "--budget=3.5",
                               "--format=csv", "--out=x.trec", "--extra=e"});
    QVERIFY2(!r.exit, r.err.c_str());
    QCOMPARE(f.name, std::string("a b"));
    QCOMPARE(f.depth, std::size_t{7});
    QCOMPARE(f.alpha, 0.25);
    QCOMPARE(*f.budget, 3.5);
    QCOMPARE(f.format, std::string("csv"));
    QCOMPARE(*f.out, std::string("x.trec"));
    QCOMPARE(f.extraValue, std::string("e"));
    QVERIFY(f.cli.given("--depth") && f.cli.given("-o") && f.cli.given("--out"));
    QVERIFY(!f.cli.given("--measure"));
    // "=" inside a value after the first is the value's.
    Fixture g;
    QVERIFY(!run(g.cli, {"--name=a=b"}).exit);
    QCOMPARE(g.name, std::string("a=b"));
  }

  void repeatedAndShortOptions() {
    Fixture f;
    const auto r = run(
        f.cli, {"-m", "map", "--measure=P.5,10", "-mndcg_cut.10", "-qc", "-l-2", "q", "-", "r"});
    QVERIFY2(!r.exit, r.err.c_str());
    QCOMPARE(f.measures, (std::vector<std::string>{"map", "P.5,10", "ndcg_cut.10"}));
    QCOMPARE(f.cli.count("-m"), std::size_t{3});
    QVERIFY(f.quiet && f.complete);
    QCOMPARE(f.level, -2);
    QCOMPARE(f.files, (std::vector<std::string>{"q", "-", "r"}));
    // A value may begin with '-' (a negative level), and "--" ends the options.
    Fixture g;
    QVERIFY(!run(g.cli, {"-l", "-3", "--no-stemming", "--", "--name"}).exit);
    QCOMPARE(g.level, -3);
    QVERIFY(!g.stem);
    QCOMPARE(g.files, (std::vector<std::string>{"--name"}));
    // -qm VALUE: flags, then an option taking the next argument.
    Fixture h;
    QVERIFY(!run(h.cli, {"-qm", "map"}).exit);
    QVERIFY(h.quiet);
    QCOMPARE(h.measures, (std::vector<std::string>{"map"}));
  }

  void integerBounds_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("below")
        << QStringList{"--depth", "0"}
        << "ragscope-cli eval: --depth: expected an integer from 1 to 1000, got '0'";
    QTest::newRow("above") << QStringList{"--depth=1001"}
                           << "--depth: expected an integer from 1 to 1000, got '1001'";
    QTest::newRow("not a number") << QStringList{"--depth", "x"}
                                  << "--depth: expected an integer from 1 to 1000, got 'x'";
    QTest::newRow("fraction") << QStringList{"--depth", "2.5"} << "got '2.5'";
    QTest::newRow("plus sign") << QStringList{"--depth", "+5"} << "got '+5'";
    QTest::newRow("space") << QStringList{"--depth", " 5"} << "got ' 5'";
    QTest::newRow("2^64") << QStringList{"--depth", "18446744073709551616"}
                          << "--depth: expected an integer from 1 to 1000";
    QTest::newRow("negative") << QStringList{"--depth", "-1"} << "got '-1'";
    QTest::newRow("short") << QStringList{"-l", "6"}
                           << "option -l: expected an integer from -5 to 5, got '6'";
    QTest::newRow("glued short") << QStringList{"-l-6"} << "option -l: expected";
    QTest::newRow("zero means") << QStringList{"--B", "1"}
                                << "--B: expected 0 (no CIs) or an integer from 2 to 1000000";
    QTest::newRow("long value cut")
        << QStringList{"--depth", QString(100, '9')} << "got '" + QString(40, '9') + "...'";
  }

  void integerBounds() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    Fixture f;
    Args a;
    for (const auto& s : args) a.push_back(s.toStdString());
    const auto r = run(f.cli, a);
    QCOMPARE(r.exit.value_or(-1), 2);
    QVERIFY2(contains(r.err, message.toStdString()), r.err.c_str());
    QVERIFY2(contains(r.err, "Run 'ragscope-cli eval --help' for usage."), r.err.c_str());
    QVERIFY(r.out.empty());
    QCOMPARE(f.depth, std::size_t{10});  // unchanged
  }

  void zeroAllowedBesideTheRange() {
    Fixture f;
    QVERIFY(!run(f.cli, {"--B", "0"}).exit);
    QCOMPARE(f.resamples, std::size_t{0});
    QVERIFY(!run(f.cli, {"--B", "1000000"}).exit);
    QCOMPARE(f.resamples, std::size_t{1000000});
  }

  void finiteNumbersOnly_data() {
    QTest::addColumn<QString>("value");
    for (const char* v :
         {"inf", "-inf", "Infinity", "nan", "NaN", "1e400", "0x1p-2", " 0.5", "0.5x", "", "0", "1"})
      QTest::newRow(v) << QString(v);
  }

  void finiteNumbersOnly() {
    QFETCH(QString, value);
    Fixture f;
    const auto r = run(f.cli, {"--alpha", value.toStdString()});
    QCOMPARE(r.exit.value_or(-1), 2);
    QVERIFY2(contains(r.err, "--alpha: expected a number strictly between 0 and 1, got '" +
                                 value.toStdString() + "'"),
             r.err.c_str());
    // The optional-valued form refuses the same.
    Fixture g;
    QCOMPARE(run(g.cli, {"--budget=inf"}).exit.value_or(-1), 2);
    QVERIFY(!g.budget);
    QCOMPARE(run(g.cli, {"--budget", "-0.5"}).exit.value_or(-1), 2);
  }

  void parseHelpers() {
    double d = 0;
    QVERIFY(ragscope::cli::parseFiniteDouble("1e-3", d) && d == 1e-3);
    QVERIFY(!ragscope::cli::parseFiniteDouble("nan", d));
    QVERIFY(!ragscope::cli::parseFiniteDouble("inf", d));
    std::uint64_t u = 0;
    QVERIFY(ragscope::cli::parseUnsigned("18446744073709551615", u) && u == UINT64_MAX);
    QVERIFY(!ragscope::cli::parseUnsigned("18446744073709551616", u));
    QVERIFY(!ragscope::cli::parseUnsigned("-1", u));
    bool negative = false;
    QVERIFY(ragscope::cli::parseInteger("-9223372036854775808", INT64_MIN, 0, negative, u));
    QVERIFY(negative);
    QCOMPARE(u, std::uint64_t{9223372036854775808ull});
  }

  void usageErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown long") << QStringList{"--bogus"} << "unknown option '--bogus'";
    QTest::newRow("unknown with value") << QStringList{"--bogus=1"} << "unknown option '--bogus'";
    QTest::newRow("unknown short") << QStringList{"-qx"} << "unknown option '-x'";
    QTest::newRow("missing value") << QStringList{"--name"} << "--name needs a value (NAME)";
    QTest::newRow("missing short value") << QStringList{"-l"} << "option -l needs a value (LEVEL)";
    QTest::newRow("option as value")
        << QStringList{"--name", "--depth", "3"} << "--name needs a value (NAME)";
    QTest::newRow("flag with value") << QStringList{"--quiet=yes"} << "--quiet takes no value";
    QTest::newRow("choice") << QStringList{"--format", "xml"}
                            << "--format: expected one of trec, csv, json, got 'xml'";
    QTest::newRow("empty path") << QStringList{"--out="}
                                << "--out: expected a path, got an empty value";
    QTest::newRow("too many positionals")
        << QStringList{"a", "b", "c", "d"} << "unexpected argument 'd'";
  }

  void usageErrors() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    Fixture f;
    Args a;
    for (const auto& s : args) a.push_back(s.toStdString());
    const auto r = run(f.cli, a);
    QCOMPARE(r.exit.value_or(-1), 2);
    QVERIFY2(contains(r.err, "ragscope-cli eval: " + message.toStdString() + "\n"), r.err.c_str());
  }

  void unknownOptionNote() {
    std::vector<std::string> files;
    CommandLine cli("eval");
    cli.positionals("FILE", files);
    cli.unknownOptionNote("a trec_eval option ragscope does not implement");
    const auto r = run(cli, {"-J"});
    QVERIFY2(
        contains(r.err, "unknown option '-J' (a trec_eval option ragscope does not implement)"),
        r.err.c_str());
    // No positionals declared: any is unexpected.
    CommandLine none("runs");
    QVERIFY(contains(run(none, {"x"}).err, "ragscope-cli runs: unexpected argument 'x'"));
  }

  void generatedHelp() {
    Fixture f;
    for (const char* flag : {"--help", "-h"}) {
      Fixture g;
      const auto r = run(g.cli, {"--depth", "3", flag, "--bogus"});
      QCOMPARE(r.exit.value_or(-1), 0);  // help ends the command before the unknown option
      QVERIFY(r.err.empty());
      QCOMPARE(r.out, f.cli.help());
    }
    const std::string help = f.cli.help();
    QVERIFY2(
        help.rfind("usage: ragscope-cli eval [options] QRELS RUN...\n\nEvaluates runs.\n", 0) == 0,
        help.c_str());
    for (const char* part :
         {"\nOptions:\n", "  --name NAME ", "  -o, --out FILE ", "  -m, --measure M ",
          "  --format trec|csv|json ", "  -q, --quiet ", "  -h, --help ",
          "\nMore options:\n  --extra X ", "\nExit codes: 0 ok.\n"})
      QVERIFY2(contains(help, part), part);
    // Descriptions start in one column; no line is wider than 100.
    const auto nameAt = help.find("  --name NAME");
    const auto depthAt = help.find("  --depth N");
    const auto col = [&](std::size_t at, const std::string& text) {
      return help.find(text, at) - at;
    };
    QCOMPARE(col(nameAt, "a name"), col(depthAt, "depth\n"));
    std::istringstream lines(help);
    for (std::string line; std::getline(lines, line);) QVERIFY2(line.size() <= 100, line.c_str());
    // A hidden option parses but is not listed.
    bool old = false;
    f.cli.flag("--old-name", old, "kept for old scripts").hide();
    QVERIFY(!contains(f.cli.help(), "--old-name"));
  }

  void synopsisAndWrapping() {
    std::vector<std::string> files;
    CommandLine cli("report");
    cli.synopsis(
        "(--project P | --store RUN.db...) --out FILE.pdf|FILE.json|FILE.csv [--grain G] "
        "[--B N] [--seed S] [-l LEVEL] [-c] [--sections LIST] [--read-outside]");
    const std::string help = cli.help();
    QVERIFY2(help.rfind("usage: ragscope-cli report (--project P", 0) == 0, help.c_str());
    const std::string indent(std::string("usage: ragscope-cli report ").size(), ' ');
    QVERIFY2(contains(help, "\n" + indent + "["), help.c_str());  // continued under the synopsis
    QCOMPARE(ragscope::cli::wrapText("aa bb cc", 5, 2), std::string("aa bb\n  cc"));
    QCOMPARE(ragscope::cli::wrapText("x\n  - y z", 6, 1), std::string("x\n   - y\n   z"));
  }

  // Every command of ragscope-cli: --help generated (usage line, options, -h/--help), an unknown
  // option is a usage error in the one style with exit 2.
  void everyCommandThroughTheLayer_data() {
    QTest::addColumn<QStringList>("command");
    for (const char* c : {"eval",       "bootstrap", "compare",         "correlate",
                          "retrieve",   "generate",  "resume",          "runs",
                          "erag",       "e2e",       "erag-correlate",  "judge",
                          "ragchecker", "agreement", "report",          "fuse",
                          "ppi",        "kilt-eval", "qrels-agreement", "assess"})
      QTest::newRow(c) << QStringList{c};
    QTest::newRow("nuggets score") << QStringList{"nuggets", "score"};
    QTest::newRow("dataset info") << QStringList{"dataset", "info"};
    QTest::newRow("dataset doc") << QStringList{"dataset", "doc"};
    for (const char* sub : {"export", "import", "list", "summary"})
      QTest::newRow(qPrintable(QString("labels ") + sub)) << QStringList{"labels", sub};
  }

  void everyCommandThroughTheLayer() {
    QFETCH(QStringList, command);
    const QString name = command.join(' ');
    const auto help = ragscope::test::runCliText(command + QStringList{"--help"});
    QCOMPARE(help.exitCode, 0);
    QVERIFY2(help.out.startsWith("usage: ragscope-cli " + name + " "), qPrintable(help.out));
    QVERIFY2(help.out.contains("\nOptions:\n") && help.out.contains("  -h, --help "),
             qPrintable(help.out));
    const auto unknown = ragscope::test::runCliText(command + QStringList{"--no-such-option=1"});
    QCOMPARE(unknown.exitCode, 2);
    QCOMPARE(unknown.err, "ragscope-cli " + name +
                              ": unknown option '--no-such-option'\nRun "
                              "'ragscope-cli " +
                              name + " --help' for usage.\n");
    QVERIFY(unknown.out.isEmpty());
  }

  // --opt=value where commands used to take only "--opt value", and finite numbers everywhere.
  void gluedValuesAndFiniteNumbers_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("retrieve --bm25-k1=inf")
        << QStringList{"retrieve", "--dataset=x", "--retriever=bm25", "--out=y", "--bm25-k1=inf"}
        << "ragscope-cli retrieve: --bm25-k1: expected a number >= 0, got 'inf'";
    QTest::newRow("retrieve --bm25-b nan") << QStringList{"retrieve", "--bm25-b", "nan"}
                                           << "--bm25-b: expected a number from 0 to 1, got 'nan'";
    QTest::newRow("bootstrap --level=inf") << QStringList{"bootstrap", "f", "--level=inf"}
                                           << "--level: expected a number strictly between 0 and 1";
    QTest::newRow("generate --rpm=nan") << QStringList{"generate", "--dataset=d", "--rpm=nan"}
                                        << "--rpm: expected a number >= 0, got 'nan'";
    QTest::newRow("judge --budget=-1")
        << QStringList{"judge", "--budget=-1"} << "--budget: expected a number >= 0, got '-1'";
    QTest::newRow("report --B=x") << QStringList{"report", "--B=x"}
                                  << "--B: expected an integer from 0 to 1000000, got 'x'";
    QTest::newRow("agreement --resamples=-1")
        << QStringList{"agreement", "--resamples=-1"}
        << "--resamples: expected an integer from 0 to 1000000, got '-1'";
    QTest::newRow("erag-correlate --resamples=x")
        << QStringList{"erag-correlate", "--resamples=x"} << "--resamples: expected an integer";
    QTest::newRow("judge --repeats=0") << QStringList{"judge", "--repeats=0"}
                                       << "--repeats: expected an integer from 1 to 100, got '0'";
    QTest::newRow("eval --format=xml") << QStringList{"eval", "--format=xml", "q", "r"}
                                       << "--format: expected one of trec, csv, json, got 'xml'";
    QTest::newRow("ragchecker --mode=x") << QStringList{"ragchecker", "f", "--mode=x"}
                                         << "--mode: expected one of ragchecker, ragscope";
    QTest::newRow("dataset doc --json=1")
        << QStringList{"dataset", "doc", "--json=1"} << "--json takes no value";
    QTest::newRow("resume --generator=x") << QStringList{"resume", "r.db", "--generator=x"}
                                          << "--generator is part of the stored run";
    QTest::newRow("runs two folders") << QStringList{"runs", "a", "b"} << "unexpected argument 'b'";
  }

  void gluedValuesAndFiniteNumbers() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const auto r = ragscope::test::runCliText(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
  }
};

QTEST_GUILESS_MAIN(TestCliOptions)
#include "tst_clioptions.moc"
