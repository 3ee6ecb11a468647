// KILT task files and knowledge source (core/data/kiltformat.cpp). Expected counts come from
// the data set's manifest and were re-counted independently with python3's json module.

#include <QTemporaryDir>
#include <QTest>
#include <fstream>
#include <random>
#include <set>

#include "common/testdata.h"
#include "core/data/loaders.h"
#include "core/data/provenance.h"
#include "core/data/storedcorpus.h"

using namespace ragscope::core;
namespace fs = std::filesystem;

namespace {

fs::path writeFile(const QTemporaryDir& dir, const std::string& name, const std::string& content) {
  fs::path p = fs::path(dir.path().toStdString()) / name;
  std::ofstream out(p, std::ios::binary);
  out << content;
  return p;
}

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

std::size_t provenanceCount(const Dataset& ds) {
  std::size_t n = 0;
  for (const auto& q : ds.queries)
    for (const auto& g : q.gold) n += g.provenance.size();
  return n;
}

std::string ksRecord(const std::string& idJson, const std::string& title,
                     const std::vector<std::string>& paras) {
  std::string s = R"({"_id": "x", "wikipedia_id": )" + idJson + R"(, "wikipedia_title": ")" +
                  title + R"(", "text": [)";
  for (std::size_t i = 0; i < paras.size(); ++i) s += (i ? ", \"" : "\"") + paras[i] + "\"";
  s += R"(], "anchors": [], "categories": "", "history": {"revid": 1}})";
  return s;
}

}  // namespace

class TestKilt : public QObject {
  Q_OBJECT

 private slots:
  void hotpotqaDevFull() {
    RAGSCOPE_REQUIRE_DATA("kilt/dev_full/hotpotqa-dev-kilt.jsonl");
    Dataset ds;
    auto r = loadKilt(ragscope::test::dataPath("kilt/dev_full/hotpotqa-dev-kilt.jsonl"), ds, {});
    QVERIFY2(r.ok(), dump(r).c_str());
    QCOMPARE(r.errors, 0u);
    QCOMPARE(r.warnings, 0u);
    QCOMPARE(r.records, 5600u);
    QCOMPARE(ds.queries.size(), std::size_t{5600});
    // python3: every one of the 5600 records has exactly one output with an answer; 13,420
    // provenance entries, 11,200 distinct (query, wikipedia_id) pairs; ids all distinct.
    std::size_t withAnswer = 0, pairs = 0;
    std::set<std::string> ids;
    for (const auto& q : ds.queries) {
      if (q.goldAnswers().size() == 1) ++withAnswer;
      pairs += q.goldDocIds().size();
      ids.insert(q.id);
      QCOMPARE(q.task, std::string("hotpotqa"));
    }
    QCOMPARE(withAnswer, std::size_t{5600});
    QCOMPARE(provenanceCount(ds), std::size_t{13420});
    QCOMPARE(pairs, std::size_t{11200});
    QCOMPARE(ids.size(), std::size_t{5600});

    const Query& first = ds.queries.front();
    QCOMPARE(first.id, std::string("5a8b57f25542995d1e6f1371"));
    QCOMPARE(first.text, std::string("Were Scott Derrickson and Ed Wood of the same nationality?"));
    QCOMPARE(first.line, std::uint64_t{1});
    QCOMPARE(first.gold.size(), std::size_t{1});
    QVERIFY(first.gold[0].hasAnswer);
    QCOMPARE(first.gold[0].answer, std::string("yes"));
    QCOMPARE(first.gold[0].provenance.size(), std::size_t{2});
    const Provenance& p = first.gold[0].provenance[0];
    QCOMPARE(p.docId, std::string("2816539"));
    QCOMPARE(p.title, std::string("Scott Derrickson"));
    QCOMPARE(p.section, std::string("Section::::Abstract."));
    QCOMPARE(p.startParagraph, 1);
    QCOMPARE(p.endParagraph, 1);
    QCOMPARE(first.goldDocIds(), (std::vector<std::string>{"2816539", "10520"}));

    const Query& last = ds.queries.back();
    QCOMPARE(last.id, std::string("5a7c220b5542990527d5545c"));
    QCOMPARE(last.line, std::uint64_t{5600});
    QCOMPARE(last.goldAnswers(), std::vector<std::string>{"Manchester"});
  }

  void wowDevFull() {
    RAGSCOPE_REQUIRE_DATA("kilt/dev_full/wow-dev-kilt.jsonl");
    Dataset ds;
    auto r = loadKilt(ragscope::test::dataPath("kilt/dev_full/wow-dev-kilt.jsonl"), ds, {});
    QVERIFY2(r.ok(), dump(r).c_str());
    QCOMPARE(r.errors + r.warnings, 0u);
    QCOMPARE(ds.queries.size(), std::size_t{3054});
    // python3: 2,647 of the inputs are multi-turn (contain '\n'); the first has 7 turns.
    std::size_t multiTurn = 0;
    for (const auto& q : ds.queries) {
      if (q.text.find('\n') != std::string::npos) ++multiTurn;
      QCOMPARE(q.gold.size(), std::size_t{1});
      QVERIFY(q.gold[0].hasAnswer);
      QCOMPARE(q.gold[0].provenance.size(), std::size_t{1});
    }
    QCOMPARE(multiTurn, std::size_t{2647});
    const Query& first = ds.queries.front();
    QCOMPARE(first.id, std::string("54b85f36-99cd-11ea-aa09-57c1ffc5a65b_3"));
    QCOMPARE(std::count(first.text.begin(), first.text.end(), '\n'), 6);
    QVERIFY(first.text.rfind(
                "I love the 1980s music one of my favorite artists is michael jackson\nYou mean",
                0) == 0);
    QCOMPARE(first.gold[0].provenance[0].docId, std::string("265182"));
    QCOMPARE(first.task, std::string("wow"));
  }

  void hfDummy_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("task");
    QTest::addColumn<int>("outputs");
    QTest::addColumn<int>("answers");
    QTest::addColumn<int>("provenance");
    QTest::addColumn<QString>("firstId");
    // Each file holds 5 records on 5 lines (4 newlines, no final one). Per-file totals of outputs,
    // outputs with an answer and provenance entries counted with python3.
    QTest::newRow("aidayago2") << "aidayago2/aidayago2-dev-kilt.jsonl"
                               << "aidayago2" << 5 << 5 << 5
                               << "96360025-2510-4590-bcce-30364ff1a53e_947testa CRICKET:0";
    QTest::newRow("cweb") << "cweb/cweb-dev-kilt.jsonl"
                          << "cweb" << 5 << 5 << 5
                          << "5103c97a-e240-4e9f-be03-f51ab72ea537_clueweb12-0501wb-06-2866:0";
    QTest::newRow("eli5") << "eli5/eli5-dev-kilt.jsonl"
                          << "eli5" << 35 << 28 << 7 << "1kiwfx";
    QTest::newRow("fever") << "fever/fever-dev-kilt.jsonl"
                           << "fever" << 8 << 8 << 10 << "137334";
    QTest::newRow("hotpotqa") << "hotpotqa/hotpotqa-dev-kilt.jsonl"
                              << "hotpotqa" << 5 << 5 << 14 << "5a8b57f25542995d1e6f1371";
    QTest::newRow("nq") << "nq/nq-dev-kilt.jsonl"
                        << "nq" << 35 << 18 << 27 << "6915606477668963399";
    QTest::newRow("structured_zeroshot")
        << "structured_zeroshot/structured_zeroshot-dev-kilt.jsonl"
        << "structured_zeroshot" << 5 << 5 << 5 << "a64179cb-01fd-42e9-9f40-bf3f0a1ad1e4";
    QTest::newRow("trex") << "trex/trex-dev-kilt.jsonl"
                          << "trex" << 50 << 50 << 6 << "935392b3-c206-4036-94b0-09bc35319c45";
    QTest::newRow("triviaqa") << "triviaqa_support_only/triviaqa-dev_id-kilt.jsonl"
                              << "triviaqa" << 164 << 164 << 16 << "sfq_17752";
    QTest::newRow("wned") << "wned/wned-dev-kilt.jsonl"
                          << "wned" << 5 << 5 << 5
                          << "01b54ffb-6fd3-41fa-a7d1-ce9191218162_Bob_Coverdal:0";
    QTest::newRow("wow") << "wow/wow-dev-kilt.jsonl"
                         << "wow" << 5 << 5 << 5 << "54b85f36-99cd-11ea-aa09-57c1ffc5a65b_3";
  }

  void hfDummy() {
    QFETCH(QString, file);
    QFETCH(QString, task);
    QFETCH(int, outputs);
    QFETCH(int, answers);
    QFETCH(int, provenance);
    QFETCH(QString, firstId);
    const std::string rel = "kilt/hf_dummy_data/" + file.toStdString();
    RAGSCOPE_REQUIRE_DATA(rel);
    Dataset ds;
    auto r = loadKilt(ragscope::test::dataPath(rel), ds, {});
    QVERIFY2(r.ok(), dump(r).c_str());
    QCOMPARE(r.errors, 0u);
    QCOMPARE(r.records, 5u);
    QCOMPARE(ds.queries.size(), std::size_t{5});
    int nOut = 0, nAns = 0;
    for (std::size_t i = 0; i < ds.queries.size(); ++i) {
      const Query& q = ds.queries[i];
      QCOMPARE(q.line, std::uint64_t(i + 1));
      QCOMPARE(q.task, task.toStdString());
      nOut += int(q.gold.size());
      for (const auto& g : q.gold) nAns += g.hasAnswer ? 1 : 0;
    }
    QCOMPARE(nOut, outputs);
    QCOMPARE(nAns, answers);
    QCOMPARE(int(provenanceCount(ds)), provenance);
    QCOMPARE(ds.queries.front().id, firstId.toStdString());
    if (task == "triviaqa") {
      // Distributed without `input`: loaded, flagged, and one summary warning says so.
      for (const auto& q : ds.queries) {
        QVERIFY(q.text.empty());
        QCOMPARE(q.flags, std::vector<std::string>{"no input text"});
      }
      QCOMPARE(r.warnings, 1u);
      QVERIFY(hasDiagnostic(r, 0, "input", "5 record(s) have no input text"));
    } else {
      QCOMPARE(r.warnings, 0u);
      for (const auto& q : ds.queries) QVERIFY(!q.text.empty() && q.flags.empty());
    }
  }

  void feverLabelsAndNqShapes() {
    RAGSCOPE_REQUIRE_DATA("kilt/hf_dummy_data/fever/fever-dev-kilt.jsonl");
    Dataset fever;
    loadKilt(ragscope::test::dataPath("kilt/hf_dummy_data/fever/fever-dev-kilt.jsonl"), fever, {});
    std::vector<std::string> labels;
    for (const auto& q : fever.queries)
      for (const auto& a : q.goldAnswers()) labels.push_back(a);
    QCOMPARE(labels, (std::vector<std::string>{"SUPPORTS", "REFUTES", "REFUTES", "REFUTES",
                                               "SUPPORTS", "SUPPORTS", "SUPPORTS", "SUPPORTS"}));

    // NQ mixes outputs with only an answer (8), only provenance (17) and both (10); provenance
    // carries a `meta` object, which is ignored.
    Dataset nq;
    auto r = loadKilt(ragscope::test::dataPath("kilt/hf_dummy_data/nq/nq-dev-kilt.jsonl"), nq, {});
    QVERIFY(r.ok());
    int answerOnly = 0, provenanceOnly = 0, both = 0;
    for (const auto& q : nq.queries)
      for (const auto& g : q.gold) {
        if (g.hasAnswer && g.provenance.empty()) ++answerOnly;
        if (!g.hasAnswer && !g.provenance.empty()) ++provenanceOnly;
        if (g.hasAnswer && !g.provenance.empty()) ++both;
      }
    QCOMPARE(answerOnly, 8);
    QCOMPARE(provenanceOnly, 17);
    QCOMPARE(both, 10);
    QCOMPARE(nq.queries[1].id, std::string("-8366545547296627039"));
    QCOMPARE(nq.queries[0].gold[0].answer, std::string("the therefore sign"));
    QCOMPARE(nq.queries[0].gold[0].provenance[0].docId, std::string("10593264"));
  }

  void evaluationFixtures() {
    RAGSCOPE_REQUIRE_DATA("kilt/tests/test_data");
    auto load = [](const char* name, Dataset& ds) {
      return loadKilt(ragscope::test::dataPath(std::string("kilt/tests/test_data/") + name), ds,
                      {});
    };
    // gold1 / guess1_1: integer ids normalised to strings.
    Dataset gold1, guess1;
    QVERIFY(load("gold1.jsonl", gold1).ok());
    QVERIFY(load("guess1_1.jsonl", guess1).ok());
    QCOMPARE(gold1.queries.size(), std::size_t{3});
    QCOMPARE(guess1.queries.size(), std::size_t{3});
    for (int i = 0; i < 3; ++i) {
      QCOMPARE(gold1.queries[i].id, std::to_string(i + 1));
      QCOMPARE(guess1.queries[i].id, std::to_string(i + 1));
      QCOMPARE(gold1.queries[i].text, std::string("In one word, how did Chen Yi-hsiung die?"));
      QVERIFY(gold1.queries[i].task.empty());  // not a *-kilt file name
    }
    QCOMPARE(gold1.queries[2].goldAnswers(), std::vector<std::string>{"it was suicide"});
    QCOMPARE(guess1.queries[1].goldAnswers(), std::vector<std::string>{"a suicide"});
    QCOMPARE(guess1.queries[1].goldDocIds(), std::vector<std::string>{"999"});
    QCOMPARE(gold1.queries[0].gold[0].provenance[0].startParagraph, 5);

    // gold2: integer and string wikipedia_id, section and paragraph ids, all normalised.
    Dataset gold2;
    auto r2 = load("gold2.jsonl", gold2);
    QVERIFY2(r2.ok() && r2.errors == 0, dump(r2).c_str());
    QCOMPARE(r2.warnings, 1u);  // no `input`: flagged, one summary warning
    QVERIFY(hasDiagnostic(r2, 0, "input", "1 record(s) have no input text"));
    QCOMPARE(gold2.queries.size(), std::size_t{1});
    QCOMPARE(gold2.queries[0].gold.size(), std::size_t{3});
    const Provenance& p0 = gold2.queries[0].gold[0].provenance[0];
    QCOMPARE(p0.docId, std::string("1"));
    QCOMPARE(p0.section, std::string("1"));
    QCOMPARE(p0.startParagraph, 1);  // "1" in the file
    QCOMPARE(p0.endParagraph, 1);
    QCOMPARE(gold2.queries[0].gold[0].provenance[1].docId, std::string("2"));
    QCOMPARE(gold2.queries[0].goldDocIds(),
             (std::vector<std::string>{"1", "2", "5", "7", "9", "11"}));

    // gold3 ends in a blank line; its outputs have provenance with only wikipedia_id.
    Dataset gold3;
    auto r3 = load("gold3.jsonl", gold3);
    QVERIFY(r3.ok());
    QCOMPARE(r3.errors, 0u);
    QCOMPARE(r3.warnings, 1u);  // no `input` in the fixtures
    QCOMPARE(gold3.queries.size(), std::size_t{2});
    QCOMPARE(gold3.queries[1].id, std::string("2"));
    QCOMPARE(gold3.queries[1].gold[0].provenance[0].startParagraph, -1);
    QVERIFY(gold3.queries[0].flags == std::vector<std::string>{"no input text"});

    // guess3_1.json is pretty-printed (one object over 13 lines); guess3_1.jsonl is the same data.
    Dataset guess3json, guess3jsonl;
    auto rj = load("guess3_1.json", guess3json);
    QVERIFY2(rj.ok() && rj.errors == 0, dump(rj).c_str());
    QVERIFY(load("guess3_1.jsonl", guess3jsonl).ok());
    QCOMPARE(guess3json.queries.size(), std::size_t{2});
    QCOMPARE(guess3json.queries[0].line, std::uint64_t{1});
    QCOMPARE(guess3json.queries[1].line, std::uint64_t{14});
    for (int i = 0; i < 2; ++i) {
      const Query& a = guess3json.queries[i];
      const Query& b = guess3jsonl.queries[i];
      QCOMPARE(a.id, std::to_string(i + 1));
      QCOMPARE(a.id, b.id);
      QCOMPARE(a.goldAnswers(), b.goldAnswers());
      QCOMPARE(a.goldDocIds(), b.goldDocIds());
      QCOMPARE(a.goldDocIds(), std::vector<std::string>{std::to_string(i + 1)});  // 1 and "2"
    }

    // guess2_1 / guess2_2: provenance-only outputs.
    Dataset guess2;
    QVERIFY(load("guess2_1.jsonl", guess2).ok());
    QCOMPARE(guess2.queries[0].goldDocIds(),
             (std::vector<std::string>{"2", "5", "7", "33", "1", "9", "44", "88"}));
    QVERIFY(!guess2.queries[0].gold[0].hasAnswer);
  }

  void knowledgeSource() {
    QTemporaryDir dir;
    // BOM, CRLF, integer and string ids, paragraphs ending in "\n" as in the real dump, a
    // duplicate page, a page without text and a non-JSON line.
    std::string content = "\xEF\xBB\xBF";
    content += ksRecord("1101759", "Email marketing",
                        {"Email marketing\\n",
                         "Email marketing is the act of sending a commercial message.\\n",
                         "Section::::History.\\n"}) +
               "\r\n";
    content += ksRecord("\"27097632\"", "Michael Jordan",
                        {"Michael Jordan\\n", "An American basketball player."}) +
               "\r\n";
    content += "\r\n";
    content += ksRecord("1101759", "Email marketing again", {"x"}) + "\r\n";
    content += R"({"_id": "9", "wikipedia_id": 9, "wikipedia_title": "No text"})"
               "\r\n";
    content += "not json\r\n";
    content += ksRecord("42", "Last page", {"Only paragraph"});  // no final newline
    const auto path = writeFile(dir, "kilt_knowledgesource.json", content);

    std::vector<std::pair<std::uint64_t, std::uint64_t>> progress;
    LoadOptions opt;
    opt.onError = OnError::Skip;
    opt.progress = [&](std::uint64_t done, std::uint64_t total) {
      progress.emplace_back(done, total);
      return true;
    };
    Dataset ds;
    auto r = loadKiltKnowledgeSource(path, ds, opt);
    QVERIFY2(r.ok(), dump(r).c_str());
    QCOMPARE(ds.corpus.size(), std::size_t{3});
    QCOMPARE(r.records, 4u);  // the duplicate is read (and reported) but not added
    QCOMPARE(r.skipped, 2u);
    QCOMPARE(r.errors, 2u);
    QCOMPARE(r.warnings, 1u);
    QVERIFY(hasDiagnostic(r, 4, "wikipedia_id", "already in the corpus"));
    QVERIFY(hasDiagnostic(r, 5, "text", "missing"));
    QVERIFY(hasDiagnostic(r, 6, "record", "invalid JSON"));
    const auto email = ds.corpus.find("1101759");
    QVERIFY(email);
    QCOMPARE(email->title, std::string("Email marketing"));
    QCOMPARE(email->text,
             std::string("Email marketing\nEmail marketing is the act of sending a commercial "
                         "message.\nSection::::History."));
    QVERIFY(ds.corpus.find("27097632"));
    QCOMPARE(ds.corpus.find("42")->text, std::string("Only paragraph"));
    QVERIFY(!progress.empty());
    QCOMPARE(progress.back().first, progress.back().second);  // final call: done == total

    // Stop: the first bad line ends the load.
    Dataset stopped;
    auto rs = loadKiltKnowledgeSource(path, stopped, LoadOptions{});
    QVERIFY(rs.stopped);
    QCOMPARE(stopped.corpus.size(), std::size_t{2});
    QCOMPARE(rs.errors, 1u);
    QCOMPARE(rs.diagnostics.back().toString(), path.string() + ":5: text: missing");
  }

  // A paragraph is an element of the page's "text" array (KILT's provenance numbers them so), even
  // when it holds line breaks of its own: the page held in memory, left in its file, and reopened
  // through its side index all give the same paragraphs (the fuzz target
  // fuzz_kilt_source_stored found the page held in memory counting lines instead).
  void knowledgeSourceParagraphsAreArrayElements() {
    QTemporaryDir dir;
    std::string content;
    content +=
        ksRecord("290", "Latin alphabet",
                 {"Latin alphabet\\n", "The Latin alphabet is the collection of letters.\\n,",
                  "Section::::Letters.\\n"}) +
        "\n";
    content +=
        ksRecord("7", "Seven", {"Seven\\n", "a\\nb\\n\\n"}) + "\n";  // one final "\n" dropped
    content += ksRecord("8", "Empty", {""}) + "\n";                  // one empty paragraph
    content += ksRecord("9", "None", {}) + "\n";                     // no paragraph at all
    content += ksRecord("10", "Ten", {"Ten\\n", "Plain.\\n"}) + "\n";
    const auto path = writeFile(dir, "kilt_knowledgesource.json", content);
    // Hand-derived: each element without its final "\n".
    const std::vector<std::pair<std::string, std::vector<std::string>>> expected = {
        {"290",
         {"Latin alphabet", "The Latin alphabet is the collection of letters.\n,",
          "Section::::Letters."}},
        {"7", {"Seven", "a\nb\n"}},
        {"8", {""}},
        {"9", {}},
        {"10", {"Ten", "Plain."}},
    };

    auto check = [&](const Corpus& corpus, const char* how) {
      QCOMPARE(corpus.size(), expected.size());
      for (const auto& [id, paragraphs] : expected) {
        const auto doc = corpus.find(id);
        QVERIFY2(doc, how);
        const std::size_t n = paragraphs.size();
        QVERIFY2(doc->paragraphCount() == n, (std::string(how) + " page " + id).c_str());
        std::string joined, error;
        for (std::size_t p = 0; p < n; ++p) {
          joined += (p ? "\n" : "") + paragraphs[p];
          const auto one = doc->paragraphRange(p, p, error);
          QVERIFY2(one, error.c_str());
          QCOMPARE(*one, paragraphs[p]);
        }
        QCOMPARE(doc->fullText(), joined);
        if (n > 0) QVERIFY(doc->paragraphRange(0, n - 1, error) == joined);
        QVERIFY(!doc->paragraphRange(n, n, error));
        QVERIFY(error.find("not in the document (it has " + std::to_string(n)) !=
                std::string::npos);
      }
      // Provenance pointing past the paragraph with its own line break finds the right one.
      const auto page = corpus.find("290");
      std::string error;
      QVERIFY(page->paragraphRange(1, 2, error) ==
              "The Latin alphabet is the collection of letters.\n,\nSection::::Letters.");
      Provenance p;
      p.docId = "290";
      p.startParagraph = p.endParagraph = 2;
      p.endCharacter = 7;
      QCOMPARE(provenanceExcerpt(*page, p).text, std::string("Section"));
    };

    LoadOptions memoryOptions;
    memoryOptions.textInFileFrom = UINT64_MAX;
    Dataset memory;
    QVERIFY2(loadKiltKnowledgeSource(path, memory, memoryOptions).ok(), "in memory");
    QCOMPARE(memory.corpus.inMemorySize(), expected.size());
    check(memory.corpus, "in memory");
    if (QTest::currentTestFailed()) return;
    QVERIFY(!memory.corpus.find("10")->paragraphStarts);  // its lines are its paragraphs

    LoadOptions storedOptions;
    storedOptions.textInFileFrom = 1;
    Dataset stored;
    QVERIFY2(loadKiltKnowledgeSource(path, stored, storedOptions).ok(), "stored");
    QCOMPARE(stored.corpus.inMemorySize(), std::size_t{0});
    check(stored.corpus, "stored");
    if (QTest::currentTestFailed()) return;

    Dataset reopened;
    StoredCorpusInfo info;
    QVERIFY(loadStoredCorpus(path, CorpusLayout::KiltPages, reopened.corpus, storedOptions, &info)
                .ok());
    QVERIFY(info.reused);
    check(reopened.corpus, "reopened");
  }

  void knowledgeSourceCancel() {
    // ~12 MiB of pages: progress is reported every 4 MiB; cancelling at the first report stops.
    QTemporaryDir dir;
    const std::string para(1000, 'a');
    std::string content;
    for (int i = 0; i < 12000; ++i) content += ksRecord(std::to_string(i), "T", {para}) + "\n";
    const auto path = writeFile(dir, "ks.jsonl", content);
    LoadOptions opt;
    int calls = 0;
    opt.progress = [&](std::uint64_t done, std::uint64_t total) {
      ++calls;
      return !(done > 0 && done < total);
    };
    Dataset ds;
    auto r = loadKiltKnowledgeSource(path, ds, opt);
    QVERIFY(r.cancelled);
    QVERIFY(!r.ok());
    QCOMPARE(calls, 1);
    QVERIFY(ds.corpus.size() > 3000 && ds.corpus.size() < 6000);

    Dataset all;
    auto r2 = loadKiltKnowledgeSource(path, all, {});
    QVERIFY(r2.ok());
    QCOMPARE(all.corpus.size(), std::size_t{12000});
  }

  void malformed_data() {
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<bool>("skip");
    QTest::addColumn<int>("loaded");
    QTest::addColumn<int>("skipped");
    QTest::addColumn<QString>("diagnostic");  // exact Diagnostic::toString() minus the file name

    const QByteArray good = R"({"id": "q1", "input": "a?", "output": [{"answer": "b"}]})";
    QTest::newRow("invalid json skip")
        << (good + "\n{\"id\": \"q2\", \"input\": \n" + good) << true << 2 << 1
        << ":2: record: invalid JSON: syntax error while parsing value - unexpected "
           "end of input; expected '[', '{', or a literal (column 22)";
    QTest::newRow("invalid json stop")
        << (good + "\n{\"id\": \"q2\", \"input\": \n" + good) << false << 1 << 0
        << ":2: record: invalid JSON: syntax error while parsing value - unexpected "
           "end of input; expected '[', '{', or a literal (column 22)";
    QTest::newRow("missing id") << QByteArray(R"({"input": "x", "output": []})") << true << 0 << 1
                                << ":1: id: missing";
    QTest::newRow("float id") << QByteArray(R"({"id": 1.5, "input": "x"})") << true << 0 << 1
                              << ":1: id: must be a string or an integer, not number";
    QTest::newRow("input not string") << QByteArray(R"({"id": 1, "input": ["x"]})") << true << 0
                                      << 1 << ":1: input: must be a string, not array";
    QTest::newRow("output not array")
        << QByteArray(R"({"id": 1, "input": "x", "output": {"answer": "y"}})") << true << 0 << 1
        << ":1: output: must be an array, not object";
    QTest::newRow("answer not string")
        << QByteArray(R"({"id": 1, "input": "x", "output": [{"answer": 5}]})") << true << 0 << 1
        << ":1: output[0].answer: must be a string, not integer";
    QTest::newRow("provenance without id")
        << QByteArray(
               R"({"id": 1, "input": "x", "output": [{"answer": "y", "provenance": [{"title": "T"}]}]})")
        << true << 0 << 1 << ":1: output[0].provenance[0].wikipedia_id: missing";
    QTest::newRow("bad paragraph id is a warning")
        << QByteArray(
               R"({"id": 1, "input": "x", "output": [{"provenance": [{"wikipedia_id": 3, "start_paragraph_id": "p2"}]}]})")
        << true << 1 << 0
        << ":1: output[0].provenance[0].start_paragraph_id: not an integer (string); ignored";
    QTest::newRow("empty output object")
        << QByteArray(R"({"id": 1, "input": "x", "output": [{}]})") << true << 1 << 0
        << ":1: output[0]: has neither answer nor provenance";
    QTest::newRow("not an object") << QByteArray("\"just text\"\n") << true << 0 << 1
                                   << ":1: record: must be a JSON object, not string";
    QTest::newRow("top-level array") << QByteArray("[\n" + good + ",\n 7\n]") << true << 1 << 1
                                     << ":3: [1]: must be a JSON object, not integer";
    QTest::newRow("duplicate id")
        << (good + "\r\n" + good + "\r\n") << true << 2 << 0
        << ":2: id: \"q1\" repeats the id of line 1; both records are kept";
    QTest::newRow("truncated last line")
        << (good + "\n" + good.left(30)) << true << 1 << 1
        << ":2: record: invalid JSON: syntax error while parsing object key - invalid "
           "string: missing closing quote; last read: '\"o'; expected string literal "
           "(column 31)";
    QTest::newRow("invalid utf8")
        << (good + "\n{\"id\": \"q\xff\", \"input\": \"x\"}\n") << true << 1 << 1
        << ":2: record: invalid JSON: syntax error while parsing value - invalid string: "
           "ill-formed UTF-8 byte; last read: '\"q?' (column 10)";
  }

  void malformed() {
    QFETCH(QByteArray, content);
    QFETCH(bool, skip);
    QFETCH(int, loaded);
    QFETCH(int, skipped);
    QFETCH(QString, diagnostic);
    QTemporaryDir dir;
    const auto path = writeFile(dir, "bad-dev-kilt.jsonl", content.toStdString());
    LoadOptions opt;
    opt.onError = skip ? OnError::Skip : OnError::Stop;
    Dataset ds;
    auto r = loadKilt(path, ds, opt);
    QCOMPARE(int(ds.queries.size()), loaded);
    QCOMPARE(int(r.skipped), skipped);
    QCOMPARE(r.stopped, !skip && r.errors > 0);
    QVERIFY(!r.diagnostics.empty());
    bool found = false;
    for (const auto& d : r.diagnostics)
      found = found || d.toString() == path.string() + diagnostic.toStdString();
    QVERIFY2(found, dump(r).c_str());
  }

  void hostileInput() {
    QTemporaryDir dir;
    const std::string good = R"({"id": "q1", "input": "a?", "output": [{"answer": "b"}]})";
    LoadOptions opt;
    opt.onError = OnError::Skip;
    opt.maxLineBytes = 1024;

    // A 10 KiB line with maxLineBytes 1 KiB: reported, not buffered, the next line still loads.
    {
      const std::string longLine =
          "{\"id\": \"big\", \"input\": \"" + std::string(10 * 1024, 'x') + "\"}";
      const auto path =
          writeFile(dir, "long-dev-kilt.jsonl", good + "\n" + longLine + "\n" + good + "\n");
      Dataset ds;
      auto r = loadKilt(path, ds, opt);
      QCOMPARE(ds.queries.size(), std::size_t{2});
      QCOMPARE(r.skipped, 1u);
      QVERIFY2(hasDiagnostic(r, 2, "record", "line longer than maxLineBytes (1024 bytes)"),
               dump(r).c_str());
    }
    // 100000 '[' on one line and as a pretty-printed object: rejected before parsing.
    {
      LoadOptions big = opt;
      big.maxLineBytes = 1 << 20;
      const auto path = writeFile(dir, "deep-dev-kilt.jsonl",
                                  good + "\n" + std::string(100000, '[') + "\n" + good);
      Dataset ds;
      auto r = loadKilt(path, ds, big);
      QCOMPARE(ds.queries.size(), std::size_t{2});
      QVERIFY2(hasDiagnostic(r, 2, "record", "JSON nested deeper than 256 levels"),
               dump(r).c_str());

      const auto pretty =
          writeFile(dir, "deep.json",
                    "{\n  \"id\": 1,\n  \"input\": \"x\"\n}\n{\n \"id\": 2, \"x\": " +
                        std::string(100000, '[') + std::string(100000, ']') +
                        "\n}\n{\"id\": 3,\n\"input\": \"y\"}\n");
      Dataset ds2;
      auto r2 = loadKilt(pretty, ds2, big);
      QCOMPARE(ds2.queries.size(), std::size_t{2});
      QCOMPARE(ds2.queries[1].id, std::string("3"));
      QCOMPARE(ds2.queries[1].line, std::uint64_t{8});
      QVERIFY2(hasDiagnostic(r2, 5, "record", "JSON nested deeper than 256 levels"),
               dump(r2).c_str());
    }
    // Binary garbage (deterministic bytes, NULs and newlines included): errors, no crash.
    {
      std::mt19937 rng(7);
      std::string junk;
      for (int i = 0; i < 200000; ++i) junk.push_back(static_cast<char>(rng() & 0xff));
      const auto path = writeFile(dir, "junk-dev-kilt.jsonl", junk);
      Dataset ds;
      auto r = loadKilt(path, ds, opt);
      QVERIFY(r.errors > 0);
      QCOMPARE(r.skipped, r.errors);
      QVERIFY(ds.queries.empty());
      Dataset ds2;
      auto r2 = loadKilt(path, ds2, LoadOptions{});
      QVERIFY(r2.stopped);
      QCOMPARE(r2.errors, 1u);
    }
    // A pretty-printed stream cut off inside an object.
    {
      const auto path = writeFile(dir, "cut.json",
                                  "{\n \"id\": 1,\n \"input\": \"x\"\n}\n{\n \"id\": 2,\n \"inp");
      Dataset ds;
      auto r = loadKilt(path, ds, opt);
      QCOMPARE(ds.queries.size(), std::size_t{1});
      QVERIFY2(hasDiagnostic(r, 5, "record", "end of file inside a JSON object"), dump(r).c_str());
      QVERIFY(r.stopped);  // nothing can follow
    }
    // A missing file and a folder.
    {
      Dataset ds;
      auto r = loadKilt(fs::path(dir.path().toStdString()) / "nope-kilt.jsonl", ds, opt);
      QVERIFY(!r.ok());
      QCOMPARE(r.errors, 1u);
      QVERIFY(r.diagnostics[0].problem.rfind("cannot open", 0) == 0);
      auto r2 = loadKilt(fs::path(dir.path().toStdString()), ds, opt);
      QVERIFY(!r2.ok());
    }
  }
};

QTEST_GUILESS_MAIN(TestKilt)
#include "tst_kilt.moc"
