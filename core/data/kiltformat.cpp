// KILT task files (`*-kilt.jsonl`) and the KILT knowledge source (core/data/README.md).

#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/data/jsonguard.h"
#include "core/data/jsonlines.h"
#include "core/data/loaders.h"
#include "core/data/storedcorpus.h"

namespace ragscope::core {

using nlohmann::json;

namespace {

// "hotpotqa-dev-kilt.jsonl" -> "hotpotqa", "triviaqa-dev_id-kilt.jsonl" -> "triviaqa". Files not
// named the KILT way (the evaluation fixtures gold1.jsonl, ...) get no task label.
std::string kiltTaskFromName(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  if (name.find("-kilt") == std::string::npos) return {};
  return name.substr(0, name.find('-'));
}

// KILT's own fixtures write paragraph ids both as 5 and as "5".
void readParagraph(const json& p, const char* key, const std::string& field, int& out,
                   RecordProblems& problems) {
  auto it = p.find(key);
  if (it == p.end() || it->is_null()) return;
  auto v = jsonInteger(*it);
  if (!v || *v < std::numeric_limits<int>::min() || *v > std::numeric_limits<int>::max()) {
    problems.warning(field + "." + key, "not an integer (" + jsonTypeName(*it) + "); ignored");
    return;
  }
  out = static_cast<int>(*v);
}

void readProvenance(json& p, const std::string& field, GoldOutput& gold, RecordProblems& problems) {
  if (!p.is_object()) {
    problems.error(field, "must be an object, not " + jsonTypeName(p));
    return;
  }
  Provenance prov;
  auto id = jsonId(p, "wikipedia_id", problems, true, field + ".wikipedia_id");
  if (!id) return;
  prov.docId = std::move(*id);
  if (auto it = p.find("title"); it != p.end() && !it->is_null()) {
    if (it->is_string())
      prov.title = std::move(it->get_ref<std::string&>());
    else
      problems.warning(field + ".title", "not a string (" + jsonTypeName(*it) + "); ignored");
  }
  if (auto it = p.find("section"); it != p.end() && !it->is_null()) {
    // The fixtures use integer sections; real files "Section::::Abstract.".
    if (auto s = jsonIdToString(*it))
      prov.section = std::move(*s);
    else
      problems.warning(field + ".section", "not a string (" + jsonTypeName(*it) + "); ignored");
  }
  readParagraph(p, "start_paragraph_id", field, prov.startParagraph, problems);
  readParagraph(p, "end_paragraph_id", field, prov.endParagraph, problems);
  readParagraph(p, "start_character", field, prov.startCharacter, problems);
  readParagraph(p, "end_character", field, prov.endCharacter, problems);
  gold.provenance.push_back(std::move(prov));
}

void readOutput(json& o, const std::string& field, Query& query, RecordProblems& problems) {
  if (!o.is_object()) {
    problems.error(field, "must be an object, not " + jsonTypeName(o));
    return;
  }
  GoldOutput gold;
  bool any = false;
  if (auto it = o.find("answer"); it != o.end() && !it->is_null()) {
    any = true;
    if (it->is_string()) {
      gold.answer = std::move(it->get_ref<std::string&>());
      gold.hasAnswer = true;
    } else {
      problems.error(field + ".answer", "must be a string, not " + jsonTypeName(*it));
    }
  }
  if (auto it = o.find("provenance"); it != o.end() && !it->is_null()) {
    any = true;
    if (!it->is_array()) {
      problems.error(field + ".provenance", "must be an array, not " + jsonTypeName(*it));
    } else {
      for (std::size_t j = 0; j < it->size(); ++j)
        readProvenance((*it)[j], indexedField(field + ".provenance", j), gold, problems);
    }
  }
  if (!any) problems.warning(field, "has neither answer nor provenance");
  query.gold.push_back(std::move(gold));
}

// The page's text as a page whose text stays in its file gives it (appendParagraph). Its
// paragraphs are the elements of the array, as KILT provenance numbers them: when they are not the
// text's lines (one holds a line break of its own, or the page is one empty paragraph), the page
// keeps where each starts.
void joinParagraphs(json& text, Document& doc, RecordProblems& problems) {
  std::string out;
  std::vector<std::size_t> starts;
  starts.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    json& p = text[i];
    if (!p.is_string()) {
      problems.error(indexedField("text", i), "must be a string, not " + jsonTypeName(p));
      return;
    }
    starts.push_back(i == 0 ? 0 : out.size() + 1);
    appendParagraph(out, p.get_ref<const std::string&>(), i == 0);
  }
  // Each paragraph gives one line and one more per line break of its own (a lone empty paragraph
  // gives none): the counts agree only when the lines are the paragraphs.
  if (paragraphCountOf(out) != starts.size())
    doc.paragraphStarts = std::make_shared<const std::vector<std::size_t>>(std::move(starts));
  doc.text = std::move(out);
}

}  // namespace

LoadReport loadKiltPredictions(const std::filesystem::path& path, Dataset& into,
                               const LoadOptions& options) {
  (void)into;  // the file is scored from its path (core/eval/kilt/kilteval.h); nothing to hold here
  std::unordered_map<std::string, std::uint64_t> firstLineOfId;
  return readJsonRecords(
      path, options, [&](json& rec, const JsonRecordPlace& place, RecordProblems& problems) {
        if (!rec.is_object()) {
          problems.error("record", "must be a JSON object, not " + jsonTypeName(rec));
          return;
        }
        auto id = jsonId(rec, "id", problems, true);
        if (!id) return;
        auto out = rec.find("output");
        if (out == rec.end() || !out->is_array() || out->size() != 1)
          problems.error("output",
                         "KILT needs exactly one output per "
                         "prediction");
        else if (!firstLineOfId.emplace(*id, place.line).second)
          problems.error("id", "'" + *id +
                                   "' is predicted again (first on "
                                   "line " +
                                   std::to_string(firstLineOfId[*id]) + ")");
      });
}

LoadReport loadKilt(const std::filesystem::path& path, Dataset& into, const LoadOptions& options) {
  const std::string task = kiltTaskFromName(path);
  std::unordered_map<std::string, std::uint64_t> firstLineOfId;
  std::uint64_t withoutInput = 0;

  auto onRecord = [&](json& rec, const JsonRecordPlace& place, RecordProblems& problems) {
    if (!rec.is_object()) {
      problems.error("record", "must be a JSON object, not " + jsonTypeName(rec));
      return;
    }
    Query query;
    query.line = place.line;
    query.task = task;
    auto id = jsonId(rec, "id", problems, true);
    bool noInput = false;
    if (auto it = rec.find("input"); it == rec.end() || it->is_null()) {
      // TriviaQA is distributed with ids only (KILT's get_triviaqa_input.py adds the questions).
      noInput = true;
      query.flags.push_back("no input text");
    } else if (!it->is_string()) {
      problems.error("input", "must be a string, not " + jsonTypeName(*it));
    } else {
      query.text = std::move(it->get_ref<std::string&>());
    }
    if (auto it = rec.find("output"); it != rec.end() && !it->is_null()) {
      if (!it->is_array()) {
        problems.error("output", "must be an array, not " + jsonTypeName(*it));
      } else {
        for (std::size_t i = 0; i < it->size(); ++i)
          readOutput((*it)[i], indexedField("output", i), query, problems);
      }
    }
    if (problems.hasErrors() || !id) return;
    query.id = std::move(*id);
    auto [pos, fresh] = firstLineOfId.try_emplace(query.id, place.line);
    if (!fresh)
      problems.warning("id", "\"" + query.id + "\" repeats the id of line " +
                                 std::to_string(pos->second) + "; both records are kept");
    if (noInput) ++withoutInput;
    into.queries.push_back(std::move(query));
  };

  LoadReport report = readJsonRecords(path, options, onRecord);
  if (withoutInput > 0) {
    Diagnostic d;
    d.severity = Severity::Warning;
    d.file = path.string();
    d.field = "input";
    d.problem =
        std::to_string(withoutInput) +
        " record(s) have no input text (KILT distributes TriviaQA as ids only); loaded with "
        "empty text and flagged \"no input text\"";
    report.add(std::move(d), options.maxStoredDiagnostics);
  }
  return report;
}

LoadReport loadKiltKnowledgeSource(const std::filesystem::path& path, Dataset& into,
                                   const LoadOptions& options) {
  // The dump is 35.7 GB: above the threshold, pages stay in the file behind a side index.
  if (leavesTextInFile(path, options))
    return loadStoredCorpus(path, CorpusLayout::KiltPages, into.corpus, options);
  auto onRecord = [&](json& rec, const JsonRecordPlace&, RecordProblems& problems) {
    if (!rec.is_object()) {
      problems.error("record", "must be a JSON object, not " + jsonTypeName(rec));
      return;
    }
    Document doc;
    auto id = jsonId(rec, "wikipedia_id", problems, true);
    if (auto title = jsonString(rec, "wikipedia_title", problems, false))
      doc.title = std::move(*title);
    if (auto it = rec.find("text"); it == rec.end() || it->is_null()) {
      problems.error("text", "missing");
    } else if (!it->is_array()) {
      problems.error("text", "must be an array of paragraphs, not " + jsonTypeName(*it));
    } else {
      joinParagraphs(*it, doc, problems);
    }
    if (problems.hasErrors() || !id) return;
    doc.id = std::move(*id);
    if (into.corpus.contains(doc.id)) {
      problems.warning("wikipedia_id",
                       "\"" + doc.id + "\" is already in the corpus; this page is not added");
      return;
    }
    into.corpus.add(std::move(doc));
  };
  // The dump is JSON lines by definition (34.8 GiB): no layout sniffing needed.
  return readJsonRecords(path, options, onRecord, JsonLayout::Lines);
}

}  // namespace ragscope::core
