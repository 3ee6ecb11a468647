// MS MARCO / TREC DL formats: topics (TSV and rag25-style JSONL), the passage collection TSV and
// rank_llm's retrieve_results JSON (see core/data/README.md).

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/data/jsonguard.h"
#include "core/data/linereader.h"
#include "core/data/loaders.h"
#include "core/data/storedcorpus.h"
#include "core/data/textcheck.h"
#include "core/util/jsonstrict.h"

namespace ragscope::core {

namespace {

using nlohmann::json;

// Progress is reported every few MB: often enough for a bar, rare enough to cost nothing.
constexpr std::uint64_t kLineProgressStep = std::uint64_t{4} << 20;

// Records diagnostics for one file and applies the caller's Skip/Stop choice.
class LineSink {
 public:
  LineSink(const std::filesystem::path& path, const LoadOptions& options, LoadReport& report)
      : m_file(path.string()), m_options(options), m_report(report) {}

  const std::string& file() const { return m_file; }

  void warn(std::uint64_t line, std::string field, std::string problem) {
    m_report.add({Severity::Warning, m_file, line, std::move(field), std::move(problem)},
                 m_options.maxStoredDiagnostics);
  }

  // Records an error about one record. Returns false when loading must stop (OnError::Stop);
  // with Skip the record counts as skipped and the caller goes on.
  bool error(std::uint64_t line, std::string field, std::string problem) {
    m_report.add({Severity::Error, m_file, line, std::move(field), std::move(problem)},
                 m_options.maxStoredDiagnostics);
    if (m_options.onError == OnError::Stop) {
      m_report.stopped = true;
      return false;
    }
    ++m_report.skipped;
    return !m_report.tooManyErrors(m_options, m_file, line);
  }

  // An error that ends the file whatever the policy (cannot open, truncated or broken
  // structure). It sets `stopped` even under Skip, as the JSON loaders do (jsonlines.h): the file
  // was not read to its end, so the caller must not take the load as ok().
  void fatal(std::uint64_t line, std::string field, std::string problem) {
    m_report.add({Severity::Error, m_file, line, std::move(field), std::move(problem)},
                 m_options.maxStoredDiagnostics);
    m_report.stopped = true;
  }

  // Calls the progress callback every kLineProgressStep bytes (and always when `force`); false once
  // the user cancelled.
  bool progress(std::uint64_t done, std::uint64_t total, bool force = false) {
    if (!m_options.progress) return true;
    if (!force && done < m_lastProgress + kLineProgressStep) return true;
    m_lastProgress = done;
    if (!m_options.progress(done, total)) {
      m_report.cancelled = true;
      return false;
    }
    return true;
  }

 private:
  std::string m_file;
  const LoadOptions& m_options;
  LoadReport& m_report;
  std::uint64_t m_lastProgress = 0;
};

bool hasWhitespace(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
  });
}

std::string quoteId(std::string_view s) {
  constexpr std::size_t kMax = 80;
  std::string out = "'";
  out += s.size() > kMax ? std::string(s.substr(0, kMax)) + "..." : std::string(s);
  out += "'";
  return out;
}

// Queries already in the dataset (from earlier parts), so a second file carrying the same
// queries (topics + rank_llm JSON) merges instead of duplicating them.
class QueryMerger {
 public:
  explicit QueryMerger(Dataset& into) : m_into(into) {
    for (std::size_t i = 0; i < into.queries.size(); ++i)
      m_index.try_emplace(into.queries[i].id, i);
    m_firstNew = into.queries.size();
  }

  // Adds the query unless its id is known. Duplicates within this file are warned about with
  // both lines; a query also present in an earlier file is merged silently when its text is the
  // same, and with a warning when it differs (the first one is kept).
  // Returns true when the query was added or merged.
  bool add(Query q, LineSink& sink, const std::string& field) {
    auto [it, inserted] = m_index.try_emplace(q.id, m_into.queries.size());
    if (inserted) {
      m_into.queries.push_back(std::move(q));
      return true;
    }
    const Query& first = m_into.queries[it->second];
    if (it->second >= m_firstNew) {
      sink.warn(q.line, field,
                "duplicate query id " + quoteId(q.id) + " (first at line " +
                    std::to_string(first.line) + "); this one is ignored");
      return false;
    }
    if (first.text != q.text)
      sink.warn(q.line, field,
                "query id " + quoteId(q.id) +
                    " was already loaded from another file with different text; keeping the first");
    return true;
  }

 private:
  Dataset& m_into;
  std::unordered_map<std::string, std::size_t> m_index;
  std::size_t m_firstNew = 0;
};

// Splits `qid<TAB>text`. Returns false (after reporting) when the line is not a usable record.
// Surrounding whitespace is trimmed from both fields: MS MARCO's dev-small topics have one query
// written "2\t Androgen receptor define", and the space is an artefact, not part of the query.
struct TsvRecord {
  std::string_view id;
  std::string_view text;
};

enum class TsvVerdict { Ok, Bad, Blank };

TsvVerdict splitTsv(std::string_view line, std::uint64_t lineNo, const char* idField,
                    LineSink& sink, TsvRecord& out, bool& keepGoing) {
  keepGoing = true;
  if (trim(line).empty()) return TsvVerdict::Blank;
  if (auto bad = checkText(line)) {
    keepGoing = sink.error(lineNo, "record", *bad);
    return TsvVerdict::Bad;
  }
  const auto tab = line.find('\t');
  if (tab == std::string_view::npos) {
    keepGoing =
        sink.error(lineNo, "record", std::string("no TAB between ") + idField + " and text");
    return TsvVerdict::Bad;
  }
  out.id = trim(line.substr(0, tab));
  std::string_view rest = line.substr(tab + 1);
  if (const auto tab2 = rest.find('\t'); tab2 != std::string_view::npos) {
    sink.warn(lineNo, "record",
              "more than 2 TAB-separated fields; the fields after the second are ignored");
    rest = rest.substr(0, tab2);
  }
  out.text = trim(rest);
  if (out.id.empty()) {
    keepGoing = sink.error(lineNo, idField, "empty");
    return TsvVerdict::Bad;
  }
  if (hasWhitespace(out.id)) {
    keepGoing = sink.error(lineNo, idField, "contains whitespace: " + quoteId(out.id));
    return TsvVerdict::Bad;
  }
  return TsvVerdict::Ok;
}

// The value of the first of `keys` that `object` has, with that key; {nullptr, ""} when none is
// there. Topic files name their id and text fields differently (rag25, BEIR, other tools).
std::pair<const json*, std::string> firstPresentKey(const json& object,
                                                    std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    if (auto it = object.find(key); it != object.end()) return {&*it, key};
  }
  return {nullptr, std::string()};
}

// Shared read loop over a line-oriented file: handles open errors, over-long lines, I/O errors
// and progress; `onLine(line, lineNumber, reader)` returns false to stop.
template <class OnLine>
void forEachLine(const std::filesystem::path& path, const LoadOptions& options, LineSink& sink,
                 OnLine&& onLine) {
  LineReader reader(path, options.maxLineBytes);
  if (!reader.isOpen()) {
    sink.fatal(0, "", reader.openError());
    return;
  }
  if (!sink.progress(0, reader.fileSize(), true)) return;
  std::string_view line;
  for (;;) {
    const auto status = reader.next(line);
    if (status == LineReader::Status::End) break;
    if (status == LineReader::Status::IoError) {
      sink.fatal(reader.lineNumber(), "", "read error");
      return;
    }
    if (status == LineReader::Status::TooLong) {
      if (!sink.error(reader.lineNumber(), "record",
                      "line longer than " + std::to_string(options.maxLineBytes) + " bytes"))
        return;
      continue;
    }
    if (!onLine(line, reader.lineNumber(), reader)) return;
    if (!sink.progress(reader.bytesRead(), reader.fileSize())) return;
  }
  sink.progress(reader.bytesRead(), reader.fileSize(), true);
}

// The frame of the line-based topic loaders: queries merged into `into` (QueryMerger), and a
// warning when a readable file held none. `onLine(line, lineNo, sink, merger, report)` parses
// one line and returns false to stop.
template <class OnLine>
LoadReport readTopics(const std::filesystem::path& path, Dataset& into, const LoadOptions& options,
                      OnLine&& onLine) {
  LoadReport report;
  LineSink sink(path, options, report);
  QueryMerger merger(into);
  forEachLine(path, options, sink,
              [&](std::string_view line, std::uint64_t lineNo, const LineReader&) {
                return onLine(line, lineNo, sink, merger, report);
              });
  if (report.records == 0 && report.ok() && report.errors == 0)
    sink.warn(0, "", "no queries found");
  return report;
}

}  // namespace

LoadReport loadTopicsTsv(const std::filesystem::path& path, Dataset& into,
                         const LoadOptions& options) {
  return readTopics(path, into, options,
                    [&](std::string_view line, std::uint64_t lineNo, LineSink& sink,
                        QueryMerger& merger, LoadReport& report) {
                      TsvRecord rec;
                      bool keepGoing = true;
                      const auto verdict = splitTsv(line, lineNo, "qid", sink, rec, keepGoing);
                      if (verdict != TsvVerdict::Ok) return keepGoing;
                      if (rec.text.empty()) return sink.error(lineNo, "text", "empty query text");
                      Query q;
                      q.id = std::string(rec.id);
                      q.text = std::string(rec.text);
                      q.line = lineNo;
                      if (merger.add(std::move(q), sink, "qid")) ++report.records;
                      return true;
                    });
}

LoadReport loadTopicsJsonl(const std::filesystem::path& path, Dataset& into,
                           const LoadOptions& options) {
  return readTopics(
      path, into, options,
      [&](std::string_view line, std::uint64_t lineNo, LineSink& sink, QueryMerger& merger,
          LoadReport& report) {
        if (trim(line).empty()) return true;
        if (auto deep = checkJsonDepth(line, options.maxJsonDepth))
          return sink.error(lineNo, "record", *deep);
        json j;
        // Strict (core/util/jsonstrict.h): a repeated "id" or "title" is the line's error.
        if (JsonStrictError why; !parseJsonStrict(line, j, &why, options.maxJsonDepth)) {
          if (why.repeated) return sink.error(lineNo, why.field, why.problem);
          // why.byte is 0 for out_of_range: a number beyond a double (1e400)
          const auto place = describeJsonParseError(line, lineNo, why.byte, why.problem);
          return sink.error(place.line, "record", place.problem);
        }
        if (!j.is_object()) return sink.error(lineNo, "record", "expected a JSON object");
        // rag25 writes {"id","title"}; BEIR queries use "_id"/"text"; other tools "qid"/"query".
        auto [idValue, idKey] = firstPresentKey(j, {"id", "_id", "qid", "query_id"});
        if (!idValue) return sink.error(lineNo, "id", "missing (expected \"id\")");
        auto id = jsonIdToString(*idValue);
        if (!id) return sink.error(lineNo, idKey, "must be a string or an integer");
        if (id->empty()) return sink.error(lineNo, idKey, "empty");
        auto [textValue, textKey] = firstPresentKey(j, {"title", "text", "query"});
        if (!textValue)
          return sink.error(lineNo, "title", "missing (expected \"title\", \"text\" or \"query\")");
        if (!textValue->is_string()) return sink.error(lineNo, textKey, "must be a string");
        Query q;
        q.id = std::move(*id);
        q.text = std::string(trim(textValue->get_ref<const std::string&>()));
        q.line = lineNo;
        if (q.text.empty()) return sink.error(lineNo, textKey, "empty query text");
        if (merger.add(std::move(q), sink, idKey)) ++report.records;
        return true;
      });
}

LoadReport loadMsmarcoCollection(const std::filesystem::path& path, Dataset& into,
                                 const LoadOptions& options) {
  LoadReport report;
  LineSink sink(path, options, report);
  // Positions of documents held in memory are stable; this file's start at firstNew.
  const std::size_t firstNew = into.corpus.inMemorySize();
  // Line of each passage this file added (index - firstNew), to name both lines of a duplicate.
  std::vector<std::uint64_t> lines;
  // After a sample of lines, room is reserved for the whole file: growing an 8.8M-entry index
  // and vector step by step costs more than parsing (rehashing alone was ~13% of the time).
  constexpr std::uint64_t kSampleLines = 2000;
  // A big collection's texts stay in the file (textfile.h); the file is opened once more for that.
  std::shared_ptr<const TextFile> textFile;
  if (leavesTextInFile(path, options)) {
    std::string ignored;  // a file that does not open is reported by the reading below
    textFile = TextFile::open(path, ignored);
  }
  forEachLine(
      path, options, sink,
      [&](std::string_view line, std::uint64_t lineNo, const LineReader& reader) {
        if (lineNo == kSampleLines && reader.fileSize() > reader.bytesRead() &&
            reader.bytesRead() > 0) {
          const double perLine = double(reader.bytesRead()) / double(lineNo);
          const auto expected =
              static_cast<std::size_t>(double(reader.fileSize()) / perLine * 1.02);
          into.corpus.reserve(firstNew + expected);
          lines.reserve(expected);
        }
        TsvRecord rec;
        bool keepGoing = true;
        const auto verdict = splitTsv(line, lineNo, "pid", sink, rec, keepGoing);
        if (verdict != TsvVerdict::Ok) return keepGoing;
        Document doc;
        doc.id.assign(rec.id);
        if (textFile)
          doc.stored = {
              textFile,
              reader.lineOffset() + static_cast<std::uint64_t>(rec.text.data() - line.data()),
              static_cast<std::uint32_t>(rec.text.size())};
        else
          doc.text.assign(rec.text);
        if (const auto index = into.corpus.tryAdd(std::move(doc))) {
          if (*index >= firstNew && *index < into.corpus.inMemorySize())
            sink.warn(lineNo, "pid",
                      "duplicate passage id " + quoteId(rec.id) + " (first at line " +
                          std::to_string(lines[*index - firstNew]) + "); this one is ignored");
          else if (into.corpus.at(*index).fullText() != rec.text)
            sink.warn(
                lineNo, "pid",
                "passage id " + quoteId(rec.id) +
                    " was already loaded from another file with different text; keeping the first");
          return true;
        }
        if (rec.text.empty()) sink.warn(lineNo, "text", "empty passage");
        lines.push_back(lineNo);
        ++report.records;
        return true;
      });
  if (report.records == 0 && report.ok() && report.errors == 0)
    sink.warn(0, "", "no passages found");
  return report;
}

namespace {

// rank_llm keeps runs as retrieve_results/<SYSTEM>/retrieve_results_<set>.json: the folder names
// the retrieval system, which is what a run tag is for.
std::string rankLlmTag(const std::filesystem::path& path) {
  const std::string stem = path.stem().string();
  const std::string parent = path.parent_path().filename().string();
  if (stem.rfind("retrieve_results", 0) == 0 && !parent.empty() && parent != "." && parent != "..")
    return parent;
  return stem;
}

}  // namespace

LoadReport loadRankLlmJson(const std::filesystem::path& path, Dataset& into,
                           const LoadOptions& options) {
  LoadReport report;
  LineSink sink(path, options, report);
  JsonArrayReader reader(path, options.maxLineBytes, options.maxJsonDepth);
  if (!reader.isOpen()) {
    sink.fatal(0, "", reader.openError());
    return report;
  }
  QueryMerger merger(into);
  Run run;
  run.tag = rankLlmTag(path);
  run.source = path.string();
  std::unordered_map<std::string, std::uint64_t> rankedAt;  // qid -> line of its record

  auto loadRecord = [&](std::string_view element, std::uint64_t line, std::size_t index) -> bool {
    const std::string at = "[" + std::to_string(index) + "]";
    json j;
    // Strict (core/util/jsonstrict.h): a repeated "candidates" or "docid" is the record's error.
    if (JsonStrictError why; !parseJsonStrict(element, j, &why, options.maxJsonDepth)) {
      if (why.repeated) {
        const auto place =
            describeJsonParseError(element, line, why.byte, why.problem, reader.elementColumn());
        return sink.error(place.line, at + "." + why.field, why.problem);
      }
      // why.byte is 0 for out_of_range: a number beyond a double (1e400)
      const auto place =
          describeJsonParseError(element, line, why.byte, why.problem, reader.elementColumn());
      return sink.error(place.line, at, place.problem);
    }
    if (!j.is_object())
      return sink.error(line, at, "expected an object with \"query\" and \"hits\"");

    // rank_llm has written the query two ways: a plain string with the qid on every hit
    // (retrieve_results_*.json at 97f5fc16), and {"text","qid"} (its later Request format).
    std::string text;
    std::optional<std::string> qid;
    const auto qIt = j.find("query");
    if (qIt == j.end()) return sink.error(line, at + ".query", "missing");
    if (qIt->is_string()) {
      text = qIt->get<std::string>();
    } else if (qIt->is_object()) {
      const auto tIt = qIt->find("text");
      if (tIt == qIt->end() || !tIt->is_string())
        return sink.error(line, at + ".query.text", "missing or not a string");
      text = tIt->get<std::string>();
      if (const auto idIt = qIt->find("qid"); idIt != qIt->end()) {
        qid = jsonIdToString(*idIt);
        if (!qid) return sink.error(line, at + ".query.qid", "must be a string or an integer");
      }
    } else {
      return sink.error(line, at + ".query", "must be a string or an object");
    }
    if (!qid) {
      if (const auto idIt = j.find("qid"); idIt != j.end()) {
        qid = jsonIdToString(*idIt);
        if (!qid) return sink.error(line, at + ".qid", "must be a string or an integer");
      }
    }
    const auto hIt = j.find("hits");
    if (hIt == j.end()) return sink.error(line, at + ".hits", "missing");
    if (!hIt->is_array()) return sink.error(line, at + ".hits", "must be an array");
    const json& hits = *hIt;
    if (!qid && !hits.empty() && hits[0].is_object()) {
      if (const auto idIt = hits[0].find("qid"); idIt != hits[0].end()) {
        qid = jsonIdToString(*idIt);
        if (!qid) return sink.error(line, at + ".hits[0].qid", "must be a string or an integer");
      }
    }
    if (!qid)
      return sink.error(line, at + ".query",
                        "no qid (neither the query nor its first hit carries one)");
    if (qid->empty()) return sink.error(line, at + ".qid", "empty");
    text = std::string(trim(text));
    if (text.empty()) return sink.error(line, at + ".query", "empty query text");

    if (const auto it = rankedAt.find(*qid); it != rankedAt.end()) {
      sink.warn(line, at + ".query",
                "duplicate query id " + quoteId(*qid) + " (first at line " +
                    std::to_string(it->second) + "); this record is ignored");
      return true;
    }

    // Nothing is committed to the dataset until the whole record has been read: under Stop a
    // bad hit leaves no half-loaded query behind.
    Ranking ranking;
    ranking.queryId = *qid;
    ranking.entries.reserve(hits.size());
    std::vector<Document> newDocs;
    std::unordered_map<std::string, std::size_t> seenDocs;
    const auto entryLine = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(line, std::numeric_limits<std::uint32_t>::max()));
    for (std::size_t k = 0; k < hits.size(); ++k) {
      const std::string hat = at + ".hits[" + std::to_string(k) + "]";
      const json& h = hits[k];
      if (!h.is_object()) {
        if (!sink.error(line, hat, "expected an object")) return false;
        continue;
      }
      const auto dIt = h.find("docid");
      if (dIt == h.end()) {
        if (!sink.error(line, hat + ".docid", "missing")) return false;
        continue;
      }
      auto docid = jsonIdToString(*dIt);
      if (!docid || docid->empty()) {
        if (!sink.error(line, hat + ".docid", "must be a non-empty string or an integer"))
          return false;
        continue;
      }
      const auto sIt = h.find("score");
      if (sIt == h.end()) {
        if (!sink.error(line, hat + ".score", "missing")) return false;
        continue;
      }
      if (!sIt->is_number()) {
        if (!sink.error(line, hat + ".score", "must be a number")) return false;
        continue;
      }
      if (const auto hq = h.find("qid"); hq != h.end()) {
        const auto hitQid = jsonIdToString(*hq);
        if (!hitQid || *hitQid != *qid)
          sink.warn(
              line, hat + ".qid",
              "differs from the record's qid " + quoteId(*qid) + "; the hit is kept under it");
      }
      if (auto [it, inserted] = seenDocs.try_emplace(*docid, k); !inserted) {
        sink.warn(line, hat + ".docid",
                  "document " + quoteId(*docid) + " already ranked at hits[" +
                      std::to_string(it->second) + "] for this query; this hit is ignored");
        continue;
      }
      if (const auto cIt = h.find("content"); cIt != h.end()) {
        if (!cIt->is_string()) {
          sink.warn(line, hat + ".content", "not a string; the passage text is not kept");
        } else if (const auto existing = into.corpus.find(*docid)) {
          if (existing->fullText() != cIt->get_ref<const std::string&>())
            sink.warn(line, hat + ".content",
                      "document " + quoteId(*docid) +
                          " was already loaded with different text; keeping the first");
        } else {
          Document doc;
          doc.id = *docid;
          doc.text = cIt->get<std::string>();
          if (const auto tIt = h.find("title"); tIt != h.end() && tIt->is_string())
            doc.title = tIt->get<std::string>();
          newDocs.push_back(std::move(doc));
        }
      }
      RunEntry entry;
      const auto stored = run.arena->store(*docid);
      entry.doc = stored.data();
      entry.docLen = static_cast<std::uint32_t>(stored.size());
      entry.line = entryLine;
      entry.score = sIt->get<double>();
      ranking.entries.push_back(entry);
    }
    if (hits.empty())
      sink.warn(line, at + ".hits", "empty: the run retrieved nothing for this query");

    rankedAt.emplace(*qid, line);
    Query q;
    q.id = *qid;
    q.text = std::move(text);
    q.line = line;
    merger.add(std::move(q), sink, at + ".query");
    for (auto& doc : newDocs) into.corpus.add(std::move(doc));
    run.rankings.push_back(std::move(ranking));
    ++report.records;
    return true;
  };

  sink.progress(0, reader.fileSize(), true);
  std::string_view element;
  for (;;) {
    const auto status = reader.next(element);
    if (status == JsonArrayReader::Status::End) break;
    if (status == JsonArrayReader::Status::Error) {
      const std::string field =
          reader.canContinue() ? "[" + std::to_string(reader.elementIndex()) + "]" : "";
      if (!reader.canContinue()) {
        sink.fatal(reader.errorLine(), field, reader.error());
        break;
      }
      if (!sink.error(reader.errorLine(), field, reader.error())) break;
      continue;
    }
    if (!loadRecord(element, reader.elementLine(), reader.elementIndex())) break;
    if (!sink.progress(reader.bytesRead(), reader.fileSize())) break;
  }
  if (report.ok()) sink.progress(reader.bytesRead(), reader.fileSize(), true);
  if (!run.rankings.empty()) into.runs.push_back(std::move(run));
  if (report.records == 0 && report.ok() && report.errors == 0)
    sink.warn(0, "", "no queries found");
  return report;
}

}  // namespace ragscope::core
