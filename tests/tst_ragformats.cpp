// BEIR folders, llama-index LabelledRagDataset JSON, generic RAG JSONL and RAGChecker JSON
// (core/data/beirformat.cpp, core/data/ragformats.cpp).

#include <QTemporaryDir>
#include <QTest>
#include <fstream>

#include "common/testdata.h"
#include "core/data/loaders.h"

using namespace ragscope::core;
namespace fs = std::filesystem;

namespace {

fs::path writeFile(const fs::path& dir, const std::string& name, const std::string& content) {
  fs::path p = dir / name;
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out << content;
  return p;
}

fs::path root(const QTemporaryDir& dir) { return fs::path(dir.path().toStdString()); }

bool hasDiagnostic(const LoadReport& r, std::uint64_t line, const std::string& field,
                   const std::string& text) {
  for (const auto& d : r.diagnostics)
    if (d.line == line && d.field == field && d.problem.find(text) != std::string::npos)
      return true;
  return false;
}

std::string dump(const LoadReport& r) {
  std::string s;
  for (const auto& d : r.diagnostics) s += d.toString() + "\n";
  return s;
}

std::string attribute(const Query& q, const std::string& key) {
  std::string out;
  for (const auto& [k, v] : q.attributes)
    if (k == key) out += (out.empty() ? "" : ",") + v;
  return out;
}

// A SciFact-shaped BEIR folder: corpus with a BOM and an integer id, CRLF queries, two splits.
fs::path makeBeir(const QTemporaryDir& dir) {
  const fs::path folder = root(dir) / "scifact";
  writeFile(
      folder, "corpus.jsonl",
      "\xEF\xBB\xBF"
      R"({"_id": "4983", "title": "Microstructural development of human newborn cerebral white matter", "text": "Alterations of the architecture of cerebral white matter ...", "metadata": {}})"
      "\n"
      R"({"_id": "5836", "title": "Induction of myelodysplasia", "text": "Myelodysplastic syndromes (MDS) are age-dependent ..."})"
      "\n"
      R"({"_id": 7912, "title": "", "text": "BC1 RNA, the transcript from a master gene ..."})"
      "\n"
      R"({"_id": "18670", "title": "Dynamic metabolic control", "text": "The ability to maintain ..."})"
      "\n"
      R"({"_id": "19238", "title": "The DNA Methylome", "text": "DNA methylation is a fundamental ..."})");
  writeFile(
      folder, "queries.jsonl",
      R"({"_id": "1", "text": "0-dimensional biomaterials show inductive properties.", "metadata": {}})"
      "\r\n"
      R"({"_id": "3", "text": "1,000 genomes project enables mapping of genetic sequence variation."})"
      "\r\n"
      R"({"_id": 5, "text": "1/2000 in UK have abnormal PrP positivity."})"
      "\r\n"
      R"({"_id": "13", "text": "5% of perinatal mortality is due to low birth weight."})"
      "\r\n");
  writeFile(folder, "qrels/test.tsv",
            "query-id\tcorpus-id\tscore\n1\t4983\t1\n3\t5836\t1\n3\t7912\t1\n5\t18670\t1\n");
  writeFile(folder, "qrels/train.tsv",
            "query-id\tcorpus-id\tscore\r\n13\t19238\t2\r\n13\t4983\t0\r\n");
  return folder;
}

}  // namespace

class TestRagFormats : public QObject {
  Q_OBJECT

 private slots:
  // ---- BEIR ----
  void beirFolder() {
    QTemporaryDir dir;
    const fs::path folder = makeBeir(dir);
    std::uint64_t lastDone = 0, lastTotal = 0;
    LoadOptions opt;
    opt.progress = [&](std::uint64_t done, std::uint64_t total) {
      lastDone = done;
      lastTotal = total;
      return true;
    };
    Dataset ds;
    auto r = loadBeir(folder, ds, opt);
    QVERIFY2(r.ok(), dump(r).c_str());
    QCOMPARE(r.errors, 0u);
    QCOMPARE(r.warnings, 0u);
    QCOMPARE(r.records, 5u + 4u + 6u);
    QCOMPARE(ds.corpus.size(), std::size_t{5});
    QCOMPARE(ds.corpus.find("4983")->title,
             std::string("Microstructural development of human newborn cerebral white matter"));
    QVERIFY(ds.corpus.find("7912"));  // integer id normalised
    QVERIFY(ds.corpus.find("7912")->title.empty());
    QCOMPARE(ds.queries.size(), std::size_t{4});
    QCOMPARE(ds.queries[2].id, std::string("5"));
    QCOMPARE(ds.queries[1].text,
             std::string("1,000 genomes project enables mapping of genetic sequence variation."));
    QCOMPARE(ds.queries[0].task, std::string("scifact"));
    QCOMPARE(ds.qrels.judgmentCount(), std::size_t{6});
    QCOMPARE(ds.qrels.byQuery.size(), std::size_t{4});
    QCOMPARE(ds.qrels.byQuery.at("3").size(), std::size_t{2});
    QCOMPARE(ds.qrels.byQuery.at("3")[1].docId, std::string("7912"));
    QCOMPARE(ds.qrels.byQuery.at("3")[1].line, std::uint64_t{4});
    QCOMPARE(ds.qrels.byQuery.at("13")[0].rel, 2);
    QCOMPARE(ds.qrels.byQuery.at("13")[1].rel, 0);
    QCOMPARE((ds.qrels.gradeCounts()), (std::map<int, std::size_t>{{0, 1}, {1, 4}, {2, 1}}));
    QVERIFY(ds.qrels.source.find("test.tsv") != std::string::npos);
    QVERIFY(ds.qrels.source.find("train.tsv") != std::string::npos);
    QCOMPARE(attribute(ds.queries[0], "beir split"), std::string("test"));
    QCOMPARE(attribute(ds.queries[3], "beir split"), std::string("train"));
    QVERIFY(lastTotal > 0);
    QCOMPARE(lastDone, lastTotal);
  }

  void beirProblems() {
    QTemporaryDir dir;
    const fs::path folder = makeBeir(dir);
    writeFile(folder, "qrels/dev.tsv",
              "1\t4983\t1\n"      // no header (warning), and 1/4983 is judged again in test.tsv
              "3\t5836\n"         // 2 fields
              "3\t19238\tx\n"     // score not a number
              "5\t99999\t2.7\n"   // truncated, unknown doc
              "77\t18670\t1\n");  // unknown query
    LoadOptions opt;
    opt.onError = OnError::Skip;
    Dataset ds;
    auto r = loadBeir(folder, ds, opt);
    QVERIFY2(r.ok(), dump(r).c_str());
    QCOMPARE(r.skipped, 3u);
    // dev.tsv sorts first, so the duplicate is reported in test.tsv, naming dev.tsv:1.
    const std::string dev = (folder / "qrels" / "dev.tsv").string();
    QVERIFY2(hasDiagnostic(r, 1, "", "no `query-id corpus-id score` header"), dump(r).c_str());
    QVERIFY(hasDiagnostic(r, 2, "record", "expected 3 fields `query-id corpus-id score`, found 2"));
    QVERIFY(hasDiagnostic(r, 3, "score", "not an integer: \"x\""));
    QVERIFY(hasDiagnostic(r, 0, "score", "1 non-integer score(s) truncated toward zero"));
    QVERIFY(hasDiagnostic(r, 0, "query-id", "1 judged query id(s) are not in queries.jsonl"));
    QVERIFY(hasDiagnostic(r, 0, "corpus-id",
                          "1 judgment(s) name documents that are not in corpus.jsonl"));
    QVERIFY(hasDiagnostic(r, 2, "corpus-id",
                          "\"4983\" is judged twice for query \"1\" (first at " + dev + ":1)"));
    QCOMPARE(r.errors, 3u);
    QCOMPARE(ds.qrels.byQuery.at("5")[0].rel, 2);

    // Stop: the dev split's first error ends the load.
    Dataset ds2;
    auto r2 = loadBeir(folder, ds2, LoadOptions{});
    QVERIFY(r2.stopped);
    QCOMPARE(r2.errors, 1u);
    QCOMPARE(r2.diagnostics.back().toString(),
             dev + ":2: record: expected 3 fields `query-id corpus-id score`, found 2");

    // Not a folder; a folder without BEIR files.
    Dataset ds3;
    auto r3 = loadBeir(folder / "corpus.jsonl", ds3, opt);
    QVERIFY(!r3.ok());
    auto r4 = loadBeir(folder / "qrels", ds3, opt);
    QVERIFY(!r4.ok());
    QVERIFY(r4.diagnostics[0].problem.find("not a BEIR folder") == 0);
  }

  void beirBadCorpusLine() {
    QTemporaryDir dir;
    const fs::path folder = makeBeir(dir);
    writeFile(folder, "corpus.jsonl",
              R"({"_id": "a", "title": "t", "text": "x"})"
              "\n"
              R"({"_id": "b", "title": "t"})"
              "\n"
              R"({"_id": ["c"], "text": "x"})"
              "\n"
              R"({"_id": "a", "text": "again"})"
              "\n");
    LoadOptions opt;
    opt.onError = OnError::Skip;
    Dataset ds;
    auto r = loadBeir(folder, ds, opt);
    QCOMPARE(ds.corpus.size(), std::size_t{1});
    QCOMPARE(r.skipped, 2u);
    const std::string corpus = (folder / "corpus.jsonl").string();
    auto has = [&](const std::string& s) {
      for (const auto& d : r.diagnostics)
        if (d.toString() == s) return true;
      return false;
    };
    QVERIFY2(has(corpus + ":2: text: missing"), dump(r).c_str());
    QVERIFY(has(corpus + ":3: _id: must be a string or an integer, not array"));
    QVERIFY(has(corpus + ":4: _id: \"a\" is already in the corpus; this document is not added"));
  }

  // ---- llama-index LabelledRagDataset ----
  void llamaRagDataset() {
    QTemporaryDir dir;
    // The shape of llama-datasets' docugami_kg_rag/sec_10_q/rag_dataset.json (a conversion of
    // qna_data.csv: reference_contexts null), plus one example with contexts.
    const std::string json = R"json({
  "examples": [
    {
      "query": "How has Apple's total net sales changed over time?",
      "query_by": {"model_name": "", "type": "human"},
      "reference_contexts": null,
      "reference_answer": "Based on the provided documents, Apple's total net sales have changed.\n\nSOURCE(S): 2022 Q3 AAPL.pdf, 2023 Q1 AAPL.pdf, 2023 Q2 AAPL.pdf",
      "reference_answer_by": {"model_name": "gpt-4-turbo (with human review)", "type": "ai"}
    },
    {
      "query": "What are the major factors contributing to the change in Apple's gross margin?",
      "query_by": {"model_name": "", "type": "human"},
      "reference_contexts": null,
      "reference_answer": "The major factors contributing to the change in Apple's gross margin in the most recent 10-Q",
      "reference_answer_by": {"model_name": "gpt-4-turbo (with human review)", "type": "ai"}
    },
    {
      "query": "Who is the CFO?",
      "query_by": {"model_name": "gpt-4", "type": "ai"},
      "reference_contexts": ["Luca Maestri is the CFO.", "Another passage."],
      "reference_answer": "Luca Maestri.\nSOURCE(S): 2023 Q3 AAPL.pdf",
      "reference_answer_by": null
    }
  ]
}
)json";
    const auto path = writeFile(root(dir), "rag_dataset.json", json);
    Dataset ds;
    auto r = loadLlamaRagDataset(path, ds, {});
    QVERIFY2(r.ok(), dump(r).c_str());
    QCOMPARE(r.records, 3u);
    QCOMPARE(r.errors, 0u);
    QCOMPARE(ds.queries.size(), std::size_t{3});
    QCOMPARE(ds.queries[0].id, std::string("r1"));
    QCOMPARE(ds.queries[2].id, std::string("r3"));
    QCOMPARE(ds.queries[0].line, std::uint64_t{3});
    QCOMPARE(ds.queries[1].line, std::uint64_t{10});
    QCOMPARE(ds.queries[2].line, std::uint64_t{17});
    QCOMPARE(ds.queries[0].text, std::string("How has Apple's total net sales changed over time?"));
    QCOMPARE(
        ds.queries[0].goldDocIds(),
        (std::vector<std::string>{"2022 Q3 AAPL.pdf", "2023 Q1 AAPL.pdf", "2023 Q2 AAPL.pdf"}));
    QVERIFY(ds.queries[0].gold[0].answer.find("SOURCE(S): 2022 Q3 AAPL.pdf") != std::string::npos);
    QCOMPARE(attribute(ds.queries[0], "reference_answer_by"),
             std::string("ai (gpt-4-turbo (with human review))"));
    QCOMPARE(attribute(ds.queries[0], "query_by"), std::string("human"));
    // The answer without a SOURCE(S) line (cut off, like Docugami's row 98) is flagged.
    QVERIFY(ds.queries[1].goldDocIds().empty());
    QCOMPARE(ds.queries[1].flags, std::vector<std::string>{"no SOURCE(S) line"});
    QCOMPARE(r.warnings, 1u);
    QVERIFY2(hasDiagnostic(r, 10, "examples[1].reference_answer", "no SOURCE(S) line"),
             dump(r).c_str());
    // Only the example with reference_contexts becomes an Example.
    QCOMPARE(ds.examples.size(), std::size_t{1});
    QCOMPARE(ds.examples[0].id, std::string("r3"));
    QCOMPARE(ds.examples[0].contexts.size(), std::size_t{2});
    QCOMPARE(ds.examples[0].contexts[0].text, std::string("Luca Maestri is the CFO."));
    QCOMPARE(ds.queries[2].goldDocIds(), std::vector<std::string>{"2023 Q3 AAPL.pdf"});
  }

  void llamaProblems() {
    QTemporaryDir dir;
    const std::string json =
        "{\"examples\": [\n"
        "  {\"query\": \"q1\", \"reference_answer\": \"a1\", \"reference_contexts\": null},\n"
        "  {\"query\": 7, \"reference_answer\": \"a2\"},\n"
        "  {\"query\": \"q3\", \"reference_answer\": \"a3\", \"reference_contexts\": [1]},\n"
        "  {\"query\": \"q4\"}\n"
        "]}\n";
    const auto path = writeFile(root(dir), "bad.json", json);
    LoadOptions opt;
    opt.onError = OnError::Skip;
    Dataset ds;
    auto r = loadLlamaRagDataset(path, ds, opt);
    QVERIFY2(r.ok(), dump(r).c_str());
    QCOMPARE(ds.queries.size(), std::size_t{1});
    QCOMPARE(r.skipped, 3u);
    const std::string f = path.string();
    QCOMPARE(r.diagnostics.size(), std::size_t{3});
    QCOMPARE(r.diagnostics[0].toString(),
             f + ":3: examples[1].query: must be a string, not integer");
    QCOMPARE(r.diagnostics[1].toString(),
             f + ":4: examples[2].reference_contexts[0]: must be a string, not integer");
    QCOMPARE(r.diagnostics[2].toString(), f + ":5: examples[3].reference_answer: missing");

    Dataset ds2;
    auto r2 = loadLlamaRagDataset(path, ds2, LoadOptions{});
    QVERIFY(r2.stopped);
    QCOMPARE(ds2.queries.size(), std::size_t{1});
    QCOMPARE(r2.errors, 1u);

    // No "examples" key at all.
    const auto other = writeFile(root(dir), "other.json", R"({"results": []})");
    Dataset ds3;
    auto r3 = loadLlamaRagDataset(other, ds3, opt);
    QVERIFY(!r3.ok());
    QCOMPARE(r3.diagnostics[0].toString(),
             other.string() + ": examples: no \"examples\" array in the document");
  }

  // ---- generic RAG JSONL ----
  void ragJsonl() {
    QTemporaryDir dir;
    const std::string content =
        "\xEF\xBB\xBF"
        R"({"id": "e1", "question": "Who wrote Hamlet?", "contexts": ["Hamlet is a tragedy by William Shakespeare.", "Other."], "response": "Shakespeare.", "reference": "William Shakespeare"})"
        "\r\n"
        R"({"id": 2, "question": "Capital of France?", "contexts": [{"id": "d7", "title": "France", "text": "Paris is the capital."}, {"id": 8, "text": "Lyon."}], "response": "Paris", "reference": ["Paris", "paris, France"]})"
        "\r\n\r\n"
        R"({"query": "No id here?", "contexts": [], "response": ""})"
        "\r\n"
        R"({"id": "e4", "question": "Again?", "contexts": [{"id": "d7", "text": "Different text for d7."}]})";
    const auto path = writeFile(root(dir), "examples.jsonl", content);
    Dataset ds;
    auto r = loadRagJsonl(path, ds, {});
    QVERIFY2(r.ok(), dump(r).c_str());
    QCOMPARE(r.records, 4u);
    QCOMPARE(r.errors, 0u);
    QCOMPARE(ds.examples.size(), std::size_t{4});
    QCOMPARE(ds.queries.size(), std::size_t{4});
    const Example& e1 = ds.examples[0];
    QCOMPARE(e1.id, std::string("e1"));
    QCOMPARE(e1.query, std::string("Who wrote Hamlet?"));
    QCOMPARE(e1.contexts.size(), std::size_t{2});
    QCOMPARE(e1.contexts[0].id, std::string("e1#0"));
    QCOMPARE(e1.response, std::string("Shakespeare."));
    QCOMPARE(e1.reference, std::string("William Shakespeare"));
    QCOMPARE(ds.queries[0].goldAnswers(), std::vector<std::string>{"William Shakespeare"});
    const Example& e2 = ds.examples[1];
    QCOMPARE(e2.id, std::string("2"));
    QCOMPARE(e2.contexts[0].id, std::string("d7"));
    QCOMPARE(e2.contexts[0].title, std::string("France"));
    QCOMPARE(e2.contexts[1].id, std::string("8"));
    QCOMPARE(ds.queries[1].goldAnswers(), (std::vector<std::string>{"Paris", "paris, France"}));
    QCOMPARE(e2.reference, std::string("Paris"));
    QCOMPARE(ds.examples[2].id, std::string("L4"));  // no id: named by its line
    QCOMPARE(ds.examples[2].query, std::string("No id here?"));
    QVERIFY(ds.queries[2].gold.empty());
    // Contexts with ids join the corpus once; d7 with another text is reported.
    QCOMPARE(ds.corpus.size(), std::size_t{2});
    QCOMPARE(ds.corpus.find("d7")->text, std::string("Paris is the capital."));
    QCOMPARE(ds.examples[3].contexts[0].text, std::string("Different text for d7."));
    QCOMPARE(r.warnings, 2u);
    QVERIFY2(
        hasDiagnostic(r, 5, "contexts",
                      "id(s) \"d7\" (first at line 2) already in the corpus with a different text"),
        dump(r).c_str());
    QVERIFY(hasDiagnostic(r, 0, "id", "1 record(s) have no id; they are named L<line>"));
  }

  void ragJsonlProblems_data() {
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<QString>("diagnostic");
    QTest::newRow("no question") << QByteArray(R"({"id": "x", "response": "r"})")
                                 << ":2: question: missing";
    QTest::newRow("contexts not array")
        << QByteArray(R"({"id": "x", "question": "q", "contexts": "c"})")
        << ":2: contexts: must be an array, not string";
    QTest::newRow("context number")
        << QByteArray(R"({"id": "x", "question": "q", "contexts": [3]})")
        << ":2: contexts[0]: must be a string or an object {id, text, title}, not integer";
    QTest::newRow("context no text")
        << QByteArray(R"({"id": "x", "question": "q", "contexts": [{"id": "a"}]})")
        << ":2: contexts[0].text: missing";
    QTest::newRow("reference object")
        << QByteArray(R"({"id": "x", "question": "q", "reference": {}})")
        << ":2: reference: must be a string or an array of strings, not object";
    QTest::newRow("response array") << QByteArray(R"({"id": "x", "question": "q", "response": []})")
                                    << ":2: response: must be a string, not array";
    QTest::newRow("id bool") << QByteArray(R"({"id": true, "question": "q"})")
                             << ":2: id: must be a string or an integer, not boolean";
    QTest::newRow("garbage") << QByteArray("\x01\x02\xff{")
                             << ":2: record: invalid JSON: syntax error while parsing value - "
                                "invalid literal; last read: '<U+0001>' (column 1)";
  }

  void ragJsonlProblems() {
    QFETCH(QByteArray, line);
    QFETCH(QString, diagnostic);
    QTemporaryDir dir;
    const std::string good = R"({"id": "ok", "question": "q"})";
    const std::string good2 = R"({"id": "ok2", "question": "q"})";
    const auto path =
        writeFile(root(dir), "x.jsonl", good + "\n" + line.toStdString() + "\n" + good2 + "\n");
    LoadOptions opt;
    opt.onError = OnError::Skip;
    Dataset ds;
    auto r = loadRagJsonl(path, ds, opt);
    QCOMPARE(r.skipped, 1u);
    QCOMPARE(r.errors, 1u);
    QVERIFY2(!r.diagnostics.empty() &&
                 r.diagnostics[0].toString() == path.string() + diagnostic.toStdString(),
             dump(r).c_str());
    QCOMPARE(ds.examples.size(), std::size_t{2});
  }

  // ---- RAGChecker ----
  void ragCheckerInputs() {
    RAGSCOPE_REQUIRE_DATA("ragchecker/examples/checking_inputs.json");
    Dataset ds;
    auto r = loadRagChecker(ragscope::test::dataPath("ragchecker/examples/checking_inputs.json"),
                            ds, {});
    QVERIFY2(r.ok(), dump(r).c_str());
    QCOMPARE(r.errors, 0u);
    QCOMPARE(r.records, 2u);
    // python3: query_ids "0" and "1" with 4 and 3 retrieved_context entries (doc_ids 000-003 and
    // 000-002); the second query's 000-002 are different passages from the first's.
    QCOMPARE(ds.examples.size(), std::size_t{2});
    QCOMPARE(ds.queries.size(), std::size_t{2});
    QCOMPARE(ds.examples[0].id, std::string("0"));
    QCOMPARE(ds.examples[1].id, std::string("1"));
    QCOMPARE(ds.examples[0].line, std::uint64_t{3});
    QCOMPARE(ds.examples[1].line, std::uint64_t{27});
    QCOMPARE(ds.examples[0].contexts.size(), std::size_t{4});
    QCOMPARE(ds.examples[1].contexts.size(), std::size_t{3});
    QCOMPARE(ds.examples[0].query, std::string("What's the longest river in the world?"));
    QCOMPARE(ds.examples[1].query,
             std::string("What does the democratic republic of Congo flag represent?"));
    QCOMPARE(ds.examples[0].contexts[3].id, std::string("003"));
    QVERIFY(ds.examples[0].contexts[0].text.rfind(
                "Scientists debate whether the Amazon or the Nile", 0) == 0);
    QVERIFY(ds.examples[1].contexts[0].text.rfind("The flag of the second Republic of Mobutu", 0) ==
            0);
    QVERIFY(ds.examples[0].reference.rfind("The Nile is a major north-flowing river", 0) == 0);
    QVERIFY(ds.examples[0].response.rfind("The longest river in the world is the Nile", 0) == 0);
    QCOMPARE(ds.queries[0].goldAnswers().size(), std::size_t{1});
    QCOMPARE(ds.queries[0].goldAnswers()[0], ds.examples[0].reference);
    QCOMPARE(ds.corpus.size(), std::size_t{4});
    QCOMPARE(r.warnings, 1u);
    QVERIFY2(
        hasDiagnostic(
            r, 27, "results[1].retrieved_context",
            "id(s) \"000\" (first at line 3), \"001\" (first at line 3), \"002\" (first at line 3) "
            "already in the corpus with a different text"),
        dump(r).c_str());
  }

  void ragCheckerOutputs() {
    RAGSCOPE_REQUIRE_DATA("ragchecker/examples/checking_outputs.json");
    Dataset in, out;
    loadRagChecker(ragscope::test::dataPath("ragchecker/examples/checking_inputs.json"), in, {});
    auto r = loadRagChecker(ragscope::test::dataPath("ragchecker/examples/checking_outputs.json"),
                            out, {});
    QVERIFY2(r.ok(), dump(r).c_str());
    QCOMPARE(r.errors, 0u);
    QCOMPARE(out.examples.size(), std::size_t{2});
    QCOMPARE(out.examples[1].line, std::uint64_t{448});
    for (std::size_t i = 0; i < 2; ++i) {
      QCOMPARE(out.examples[i].id, in.examples[i].id);
      QCOMPARE(out.examples[i].query, in.examples[i].query);
      QCOMPARE(out.examples[i].response, in.examples[i].response);
      QCOMPARE(out.examples[i].reference, in.examples[i].reference);
      QCOMPARE(out.examples[i].contexts.size(), in.examples[i].contexts.size());
    }
  }

  void ragCheckerProblems_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<bool>("skip");
    QTest::addColumn<int>("loaded");
    QTest::addColumn<bool>("complete");  // report.ok()
    QTest::addColumn<QString>("diagnostic");
    const QByteArray r0 =
        R"({"query_id": "a", "query": "q", "gt_answer": "g", "response": "r", "retrieved_context": [{"doc_id": "d", "text": "t"}]})";
    const QByteArray bad = R"({"query_id": "b", "query": 5, "retrieved_context": [{"text": "t"}]})";
    const QByteArray r2 = R"({"query_id": 3, "query": "q3"})";
    const QByteArray doc =
        "{\n  \"results\": [\n    " + r0 + ",\n    " + bad + ",\n    " + r2 + "\n  ]\n}\n";
    QTest::newRow("bad record skip")
        << doc << true << 2 << true << ":4: results[1].query: must be a string, not integer";
    QTest::newRow("bad record second problem")
        << doc << true << 2 << true << ":4: results[1].retrieved_context[0].doc_id: missing";
    QTest::newRow("bad record stop")
        << doc << false << 1 << false << ":4: results[1].query: must be a string, not integer";
    QTest::newRow("truncated")
        << doc.left(doc.indexOf("\"query_id\": 3") + 6) << true << 1 << false
        << ":5: results[2]: invalid JSON: syntax error while parsing object key - invalid "
           "string: missing closing quote; last read: '\"query'; expected string literal (line "
           "5, column 12); the rest of the file is not read";
    QTest::newRow("results not array") << QByteArray(R"({"results": {"a": 1}})") << true << 0
                                       << false << ":1: results: expected an array of records";
    QTest::newRow("no results") << QByteArray(R"({"metrics": {}})") << true << 0 << false
                                << ": results: no \"results\" array in the document";
    QTest::newRow("top level string")
        << QByteArray(R"("results")") << true << 0 << false
        << ":1: document: top level is a string, expected an object with \"results\"";
    QTest::newRow("record not object")
        << QByteArray("{\"results\": [\n 1,\n" + r0 + "]}") << true << 1 << true
        << ":2: results[0]: must be a JSON object, not integer";
    QTest::newRow("deep nesting")
        << ("{\"results\": [" + r0 + ", {\"x\": " + QByteArray(100000, '[')) << true << 1 << false
        << ":1: results[1]: JSON nested deeper than 256 levels (maxJsonDepth); the rest of "
           "the file is not read";
    QTest::newRow("garbage")
        << QByteArray("\x7f\x45\x4c\x46\x02\x01\x01\x00", 8) << true << 0 << false
        << ":1: document: invalid JSON: syntax error while parsing value - invalid literal; last "
           "read: '?' (line 1, column 1); the rest of the file is not read";
    QTest::newRow("empty file")
        << QByteArray() << true << 0 << false
        << ":1: document: invalid JSON: syntax error while parsing value - unexpected end of "
           "input; expected '[', '{', or a literal (line 1, column 1); the rest of the file "
           "is not read";
    QTest::newRow("top-level list") << ("[" + r0 + ",\n" + r2 + "]") << true << 2 << true << "";
    QTest::newRow("bom crlf") << ("\xEF\xBB\xBF{\r\n  \"results\": [\r\n    " + r0 + ",\r\n    " +
                                  r2 + "\r\n  ]\r\n}\r\n")
                              << true << 2 << true << "";
  }

  void ragCheckerProblems() {
    QFETCH(QByteArray, json);
    QFETCH(bool, skip);
    QFETCH(int, loaded);
    QFETCH(bool, complete);
    QFETCH(QString, diagnostic);
    QTemporaryDir dir;
    const auto path = writeFile(root(dir), "checking.json", json.toStdString());
    LoadOptions opt;
    opt.onError = skip ? OnError::Skip : OnError::Stop;
    Dataset ds;
    auto r = loadRagChecker(path, ds, opt);
    QCOMPARE(int(ds.examples.size()), loaded);
    QCOMPARE(r.ok(), complete);
    if (diagnostic.isEmpty()) {
      QCOMPARE(r.errors, 0u);
      return;
    }
    bool found = false;
    for (const auto& d : r.diagnostics)
      found = found || d.toString() == path.string() + diagnostic.toStdString();
    QVERIFY2(found, dump(r).c_str());
  }

  void wholeFileSizeLimits() {
    QTemporaryDir dir;
    LoadOptions opt;
    opt.onError = OnError::Skip;
    opt.maxLineBytes = 1024;
    const std::string small = R"({"query_id": "a", "query": "q"})";
    // A record of many small values beyond maxLineBytes is skipped; the next one loads.
    std::string big = R"({"query_id": "big", "query": "q", "retrieved_context": [)";
    for (int i = 0; i < 200; ++i)
      big += std::string(i ? "," : "") + R"({"doc_id": "d", "text": "t"})";
    big += "]}";
    const auto p1 = writeFile(root(dir), "a.json",
                              "{\"results\": [\n" + small + ",\n" + big + ",\n" + small + "]}");
    Dataset ds;
    auto r = loadRagChecker(p1, ds, opt);
    QVERIFY2(r.ok(), dump(r).c_str());
    QCOMPARE(ds.examples.size(), std::size_t{2});
    QCOMPARE(r.skipped, 1u);
    QVERIFY(hasDiagnostic(r, 3, "results[1]", "record longer than maxLineBytes (1024 bytes)"));

    // One 10 KiB string: the record is over the limit and skipped; reading goes on.
    const auto p2 =
        writeFile(root(dir), "b.json",
                  "{\"results\": [\n" + small + ",\n{\"query_id\": \"x\", \"query\": \"" +
                      std::string(10 * 1024, 'x') + "\"},\n" + small + "]}");
    Dataset ds2;
    auto r2 = loadRagChecker(p2, ds2, opt);
    QVERIFY(r2.ok());
    QCOMPARE(ds2.examples.size(), std::size_t{2});
    QVERIFY2(hasDiagnostic(r2, 3, "results[1]", "record longer than maxLineBytes (1024 bytes)"),
             dump(r2).c_str());

    // One 2 MiB string: the lexer, which buffers a whole token, is cut off soon after
    // maxLineBytes (the check runs per 256 KiB read); the file cannot be resumed after that.
    const auto p3 =
        writeFile(root(dir), "c.json",
                  "{\"results\": [\n" + small + ",\n{\"query_id\": \"x\", \"query\": \"" +
                      std::string(2 << 20, 'x') + "\"},\n" + small + "]}");
    Dataset ds3;
    auto r3 = loadRagChecker(p3, ds3, opt);
    QVERIFY(!r3.ok());
    QCOMPARE(ds3.examples.size(), std::size_t{1});
    QVERIFY2(hasDiagnostic(r3, 3, "results[1]",
                           "a single JSON value is longer than maxLineBytes (1024 bytes)"),
             dump(r3).c_str());
  }

  void wholeFileCancel() {
    // ~10 MiB document: progress comes every 4 MiB; cancelling stops the load part-way.
    QTemporaryDir dir;
    std::string doc = "{\"results\": [\n";
    const std::string text(2000, 'z');
    for (int i = 0; i < 5000; ++i)
      doc += std::string(i ? ",\n" : "") + "{\"query_id\": \"" + std::to_string(i) +
             "\", \"query\": \"q\", \"retrieved_context\": [{\"doc_id\": \"d" + std::to_string(i) +
             "\", \"text\": \"" + text + "\"}]}";
    doc += "]}\n";
    const auto path = writeFile(root(dir), "big.json", doc);
    LoadOptions opt;
    opt.progress = [](std::uint64_t done, std::uint64_t total) {
      return !(done > 0 && done < total);
    };
    Dataset ds;
    auto r = loadRagChecker(path, ds, opt);
    QVERIFY(r.cancelled);
    QCOMPARE(r.errors, 0u);
    QVERIFY(ds.examples.size() > 1000 && ds.examples.size() < 3000);
    Dataset all;
    auto r2 = loadRagChecker(path, all, {});
    QVERIFY(r2.ok());
    QCOMPARE(all.examples.size(), std::size_t{5000});
    QCOMPARE(all.corpus.size(), std::size_t{5000});
  }
};

QTEST_GUILESS_MAIN(TestRagFormats)
#include "tst_ragformats.moc"
