// Generation-side JSON formats (formats: core/data/README.md): llama-index LabelledRagDataset JSON,
// generic RAG JSONL examples and RAGChecker's checking JSON. Whole-file documents are streamed
// element by element (jsonlines.h), so memory holds one record at a time and each record knows its
// line.

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/data/docugami.h"
#include "core/data/jsonlines.h"
#include "core/data/loaders.h"

namespace ragscope::core {

using nlohmann::json;

namespace {

// Retrieved contexts with ids also join the corpus, once per id. RAGChecker's own example numbers
// its contexts per query ("000" is a different passage for each query), so an id that comes back
// with a different text is reported: the corpus keeps the first text, the example keeps its own.
class ContextCorpus {
 public:
  explicit ContextCorpus(Dataset& into) : m_into(into) {}

  void add(const Document& doc, std::uint64_t line, std::vector<std::string>& conflicts) {
    if (const auto existing = m_into.corpus.find(doc.id)) {
      if (existing->fullText() != doc.text) {
        auto it = m_firstLine.find(doc.id);
        conflicts.push_back("\"" + doc.id + "\"" +
                            (it != m_firstLine.end()
                                 ? " (first at line " + std::to_string(it->second) + ")"
                                 : std::string(" (from an earlier load)")));
      }
      return;
    }
    m_firstLine.emplace(doc.id, line);
    m_into.corpus.add(doc);
  }

  static void report(const std::vector<std::string>& conflicts, std::string_view field,
                     RecordProblems& problems) {
    if (conflicts.empty()) return;
    std::string list;
    for (const auto& c : conflicts) list += (list.empty() ? "" : ", ") + c;
    problems.warning(field,
                     "id(s) " + list +
                         " already in the corpus with a different text; the corpus keeps the first "
                         "text, this example keeps its own");
  }

 private:
  Dataset& m_into;
  std::unordered_map<std::string, std::uint64_t> m_firstLine;
};

// Duplicate query ids within one file are kept (two records, two queries) but reported.
class IdRegistry {
 public:
  void check(const std::string& id, std::uint64_t line, std::string_view field,
             RecordProblems& problems) {
    auto [it, fresh] = m_first.try_emplace(id, line);
    if (!fresh)
      problems.warning(field, "\"" + id + "\" repeats the id of line " +
                                  std::to_string(it->second) + "; both records are kept");
  }

 private:
  std::unordered_map<std::string, std::uint64_t> m_first;
};

// llama-index "query_by" / "reference_answer_by": {"model_name": ..., "type": "human"|"ai"}.
std::string describeBy(const json& by) {
  if (!by.is_object()) return {};
  std::string out;
  if (auto t = by.find("type"); t != by.end() && t->is_string()) out = t->get<std::string>();
  if (auto m = by.find("model_name");
      m != by.end() && m->is_string() && !m->get_ref<const std::string&>().empty())
    out += (out.empty() ? "" : " ") + ("(" + m->get<std::string>() + ")");
  return out;
}

void addSummaryWarning(LoadReport& report, const LoadOptions& options,
                       const std::filesystem::path& path, std::string field, std::string problem) {
  Diagnostic d;
  d.severity = Severity::Warning;
  d.file = path.string();
  d.field = std::move(field);
  d.problem = std::move(problem);
  report.add(std::move(d), options.maxStoredDiagnostics);
}

}  // namespace

// ---- llama-index LabelledRagDataset
// --------------------------------------------------------------

LoadReport loadLlamaRagDataset(const std::filesystem::path& path, Dataset& into,
                               const LoadOptions& options) {
  IdRegistry ids;
  // Answers converted from Docugami end in a SOURCE(S) line (the gold documents). When some do and
  // others do not, the others are flagged at the end, as the Docugami loader flags its rows.
  std::size_t withSources = 0;
  struct Unsourced {
    std::size_t query;   // index in into.queries
    std::size_t record;  // index in "examples"
    std::uint64_t line;
  };
  std::vector<Unsourced> withoutSources;

  auto onRecord = [&](json& rec, const JsonRecordPlace& place, RecordProblems& problems) {
    if (!rec.is_object()) {
      problems.error({}, "must be a JSON object, not " + jsonTypeName(rec));
      return;
    }
    Query q;
    // The format has no ids: "r<n>" (1-based position) matches the Docugami loader's row ids
    // for the same questions, as the Docugami rag_dataset.json is a straight conversion of them.
    q.id = "r" + std::to_string(place.index + 1);
    q.line = place.line;
    if (auto text = jsonString(rec, "query", problems, true)) q.text = std::move(*text);
    auto answer = jsonString(rec, "reference_answer", problems, true);
    std::vector<std::string> contexts;
    bool hasContexts = false;
    if (auto it = rec.find("reference_contexts"); it != rec.end() && !it->is_null()) {
      if (!it->is_array()) {
        problems.error("reference_contexts",
                       "must be an array of strings or null, not " + jsonTypeName(*it));
      } else {
        hasContexts = true;
        for (std::size_t i = 0; i < it->size(); ++i) {
          json& c = (*it)[i];
          if (!c.is_string())
            problems.error(indexedField("reference_contexts", i),
                           "must be a string, not " + jsonTypeName(c));
          else
            contexts.push_back(std::move(c.get_ref<std::string&>()));
        }
      }
    }
    if (problems.hasErrors()) return;

    if (auto it = rec.find("query_by"); it != rec.end()) {
      if (auto by = describeBy(*it); !by.empty()) q.attributes.emplace_back("query_by", by);
    }
    if (auto it = rec.find("reference_answer_by"); it != rec.end()) {
      if (auto by = describeBy(*it); !by.empty())
        q.attributes.emplace_back("reference_answer_by", by);
    }
    GoldOutput gold;
    gold.answer = *answer;
    gold.hasAnswer = true;
    const SourcesLine sources = parseSources(gold.answer);
    for (const auto& doc : sources.documents) {
      Provenance p;
      p.docId = doc;
      gold.provenance.push_back(std::move(p));
    }
    if (sources.found)
      ++withSources;
    else
      withoutSources.push_back({into.queries.size(), place.index, place.line});
    q.gold.push_back(std::move(gold));
    ids.check(q.id, place.line, "query", problems);

    if (hasContexts) {
      Example ex;
      ex.id = q.id;
      ex.query = q.text;
      ex.reference = *answer;
      ex.line = place.line;
      for (std::size_t i = 0; i < contexts.size(); ++i) {
        Document d;
        d.id = q.id + "#" + std::to_string(i);
        d.text = std::move(contexts[i]);
        ex.contexts.push_back(std::move(d));
      }
      into.examples.push_back(std::move(ex));
    }
    into.queries.push_back(std::move(q));
  };

  LoadReport report = readJsonArrayElements(path, options, "examples", onRecord);
  if (withSources > 0) {
    for (const auto& u : withoutSources) {
      if (u.query >= into.queries.size()) continue;
      Query& q = into.queries[u.query];
      q.flags.push_back("no SOURCE(S) line");
      Diagnostic d;
      d.severity = Severity::Warning;
      d.file = path.string();
      d.line = u.line;
      d.field = "examples[" + std::to_string(u.record) + "].reference_answer";
      d.problem =
          "no SOURCE(S) line (answer may be cut off): question " + q.id + " has no gold documents";
      report.add(std::move(d), options.maxStoredDiagnostics);
    }
  }
  return report;
}

// ---- generic RAG JSONL
// ---------------------------------------------------------------------------

LoadReport loadRagJsonl(const std::filesystem::path& path, Dataset& into,
                        const LoadOptions& options) {
  IdRegistry ids;
  ContextCorpus corpus(into);
  std::uint64_t generatedIds = 0;

  auto onRecord = [&](json& rec, const JsonRecordPlace& place, RecordProblems& problems) {
    if (!rec.is_object()) {
      problems.error("record", "must be a JSON object, not " + jsonTypeName(rec));
      return;
    }
    Example ex;
    ex.line = place.line;
    auto id = jsonId(rec, "id", problems, false);
    // "question" as the format defines it; "query" accepted as the common alternative spelling.
    const char* questionKey =
        rec.contains("question") || !rec.contains("query") ? "question" : "query";
    if (auto q = jsonString(rec, questionKey, problems, true)) ex.query = std::move(*q);
    if (auto r = jsonString(rec, "response", problems, false)) ex.response = std::move(*r);

    std::vector<std::string> references;
    if (auto it = rec.find("reference"); it != rec.end() && !it->is_null()) {
      if (it->is_string()) {
        references.push_back(std::move(it->get_ref<std::string&>()));
      } else if (it->is_array()) {
        for (std::size_t i = 0; i < it->size(); ++i) {
          json& r = (*it)[i];
          if (!r.is_string())
            problems.error(indexedField("reference", i),
                           "must be a string, not " + jsonTypeName(r));
          else
            references.push_back(std::move(r.get_ref<std::string&>()));
        }
      } else {
        problems.error("reference",
                       "must be a string or an array of strings, not " + jsonTypeName(*it));
      }
    }

    std::vector<bool> explicitId;
    if (auto it = rec.find("contexts"); it != rec.end() && !it->is_null()) {
      if (!it->is_array()) {
        problems.error("contexts", "must be an array, not " + jsonTypeName(*it));
      } else {
        for (std::size_t i = 0; i < it->size(); ++i) {
          json& c = (*it)[i];
          const std::string field = indexedField("contexts", i);
          Document d;
          if (c.is_string()) {
            d.text = std::move(c.get_ref<std::string&>());
            explicitId.push_back(false);
          } else if (c.is_object()) {
            const char* idKey = c.contains("id") || !c.contains("doc_id") ? "id" : "doc_id";
            if (auto cid = jsonId(c, idKey, problems, false, field + "." + idKey))
              d.id = std::move(*cid);
            explicitId.push_back(!d.id.empty());
            if (auto t = jsonString(c, "text", problems, true, field + ".text"))
              d.text = std::move(*t);
            if (auto t = jsonString(c, "title", problems, false, field + ".title"))
              d.title = std::move(*t);
          } else {
            problems.error(
                field, "must be a string or an object {id, text, title}, not " + jsonTypeName(c));
            continue;
          }
          ex.contexts.push_back(std::move(d));
        }
      }
    }
    if (problems.hasErrors()) return;

    if (id) {
      ex.id = std::move(*id);
    } else {
      ex.id = "L" + std::to_string(place.line);
      ++generatedIds;
    }
    ids.check(ex.id, place.line, "id", problems);
    std::vector<std::string> conflicts;
    for (std::size_t i = 0; i < ex.contexts.size(); ++i) {
      Document& d = ex.contexts[i];
      if (explicitId[i])
        corpus.add(d, place.line, conflicts);
      else
        d.id = ex.id + "#" + std::to_string(i);  // local to the example; not a corpus document
    }
    ContextCorpus::report(conflicts, "contexts", problems);

    Query q;
    q.id = ex.id;
    q.text = ex.query;
    q.line = place.line;
    for (auto& r : references) {
      GoldOutput g;
      g.answer = std::move(r);
      g.hasAnswer = true;
      q.gold.push_back(std::move(g));
    }
    if (!q.gold.empty()) ex.reference = q.gold.front().answer;
    into.queries.push_back(std::move(q));
    into.examples.push_back(std::move(ex));
  };

  LoadReport report = readJsonRecords(path, options, onRecord, JsonLayout::Lines);
  if (generatedIds > 0)
    addSummaryWarning(
        report, options, path, "id",
        std::to_string(generatedIds) + " record(s) have no id; they are named L<line>");
  return report;
}

// ---- RAGChecker
// ----------------------------------------------------------------------------------

LoadReport loadRagChecker(const std::filesystem::path& path, Dataset& into,
                          const LoadOptions& options) {
  IdRegistry ids;
  ContextCorpus corpus(into);

  // Only the input fields are read; the checker's outputs (claims, verdicts, metrics) are ignored
  // here so checking_outputs.json loads as the same examples.
  auto onRecord = [&](json& rec, const JsonRecordPlace& place, RecordProblems& problems) {
    if (!rec.is_object()) {
      problems.error({}, "must be a JSON object, not " + jsonTypeName(rec));
      return;
    }
    Example ex;
    ex.line = place.line;
    auto id = jsonId(rec, "query_id", problems, true);
    if (auto q = jsonString(rec, "query", problems, true)) ex.query = std::move(*q);
    auto gt = jsonString(rec, "gt_answer", problems, false);
    if (auto r = jsonString(rec, "response", problems, false)) ex.response = std::move(*r);
    if (auto it = rec.find("retrieved_context"); it != rec.end() && !it->is_null()) {
      if (!it->is_array()) {
        problems.error("retrieved_context", "must be an array, not " + jsonTypeName(*it));
      } else {
        for (std::size_t i = 0; i < it->size(); ++i) {
          json& c = (*it)[i];
          const std::string field = indexedField("retrieved_context", i);
          if (!c.is_object()) {
            problems.error(field, "must be an object {doc_id, text}, not " + jsonTypeName(c));
            continue;
          }
          Document d;
          if (auto did = jsonId(c, "doc_id", problems, true, field + ".doc_id"))
            d.id = std::move(*did);
          if (auto t = jsonString(c, "text", problems, true, field + ".text"))
            d.text = std::move(*t);
          ex.contexts.push_back(std::move(d));
        }
      }
    }
    if (problems.hasErrors() || !id) return;
    ex.id = std::move(*id);
    ids.check(ex.id, place.line, "query_id", problems);
    std::vector<std::string> conflicts;
    for (const auto& d : ex.contexts) corpus.add(d, place.line, conflicts);
    ContextCorpus::report(conflicts, "retrieved_context", problems);

    Query q;
    q.id = ex.id;
    q.text = ex.query;
    q.line = place.line;
    if (gt) {
      ex.reference = *gt;
      GoldOutput g;
      g.answer = std::move(*gt);
      g.hasAnswer = true;
      q.gold.push_back(std::move(g));
    }
    into.queries.push_back(std::move(q));
    into.examples.push_back(std::move(ex));
  };
  return readJsonArrayElements(path, options, "results", onRecord);
}

}  // namespace ragscope::core
