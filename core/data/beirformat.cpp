// BEIR dataset folders (formats: core/data/README.md): corpus.jsonl {_id,title,text}, queries.jsonl
// {_id,text} and qrels/<split>.tsv with the header `query-id corpus-id score`. Every split file is
// loaded into the one Qrels of the dataset; each query named by a split gets the attribute
// ("beir split", "<split>") so a view can filter by split, and Qrels.source lists the files.

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "core/data/jsonlines.h"
#include "core/data/linereader.h"
#include "core/data/loaders.h"
#include "core/data/storedcorpus.h"

namespace ragscope::core {

using nlohmann::json;

namespace {

void addDiag(LoadReport& report, const LoadOptions& options, Severity s, const std::string& file,
             std::uint64_t line, std::string field, std::string problem) {
  Diagnostic d;
  d.severity = s;
  d.file = file;
  d.line = line;
  d.field = std::move(field);
  d.problem = std::move(problem);
  report.add(std::move(d), options.maxStoredDiagnostics);
}

std::uint64_t sizeOf(const std::filesystem::path& p) {
  std::error_code ec;
  auto n = std::filesystem::file_size(p, ec);
  return ec ? 0 : n;
}

// Integer relevance; "2.7" truncates as trec_eval does (flagged by the caller).
bool parseScore(std::string_view s, int& out, bool& truncated) {
  truncated = false;
  if (s.empty() || s.size() > 32) return false;
  const std::string text(s);
  char* end = nullptr;
  errno = 0;
  long v = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() + text.size() && errno == 0 && v >= INT32_MIN && v <= INT32_MAX) {
    out = static_cast<int>(v);
    return true;
  }
  errno = 0;
  double d = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno != 0 || !std::isfinite(d) || d < INT32_MIN ||
      d > INT32_MAX)
    return false;
  out = static_cast<int>(d);  // toward zero, like C's atoi on "2.7"
  truncated = d != static_cast<double>(out);
  return true;
}

struct QrelsContext {
  Dataset& into;
  const LoadOptions& options;
  std::unordered_map<std::string, std::size_t>& queryIndex;  // queries of this folder
  // qid\0docid -> (index in splitFiles, line): judging a pair twice is an error naming both places.
  std::unordered_map<std::string, std::pair<std::size_t, std::uint64_t>>& seen;
  const std::vector<std::filesystem::path>& splitFiles;
  std::size_t splitIndex;
  bool corpusLoaded;
};

LoadReport readQrelsSplit(const std::filesystem::path& path, const std::string& split,
                          QrelsContext& ctx) {
  LoadReport report;
  const LoadOptions& options = ctx.options;
  const std::string file = path.string();
  LineReader reader(path, options.maxLineBytes);
  if (!reader.isOpen()) {
    addDiag(report, options, Severity::Error, file, 0, {}, reader.openError());
    report.stopped = true;
    return report;
  }
  auto fail = [&](std::uint64_t line, std::string field, std::string problem) {
    addDiag(report, options, Severity::Error, file, line, std::move(field), std::move(problem));
    if (options.onError == OnError::Skip) {
      ++report.skipped;
      return !report.tooManyErrors(options, file, line);
    }
    report.stopped = true;
    return false;
  };

  std::vector<std::string_view> fields;
  std::string_view line;
  std::uint64_t lastProgress = 0;
  std::uint64_t unknownQueries = 0, unknownDocs = 0, truncatedScores = 0;
  std::unordered_set<std::string> splitQueries;
  bool sawContent = false;
  for (;;) {
    const auto status = reader.next(line);
    if (status == LineReader::Status::End) break;
    if (status == LineReader::Status::IoError) {
      addDiag(report, options, Severity::Error, file, reader.lineNumber(), {}, "read error");
      report.stopped = true;
      return report;
    }
    if (reader.bytesRead() - lastProgress >= (std::uint64_t{4} << 20)) {
      lastProgress = reader.bytesRead();
      if (options.progress && !options.progress(reader.bytesRead(), reader.fileSize())) {
        report.cancelled = true;
        return report;
      }
    }
    const std::uint64_t lineNo = reader.lineNumber();
    if (status == LineReader::Status::TooLong) {
      if (!fail(lineNo, "record",
                "line longer than maxLineBytes (" + std::to_string(options.maxLineBytes) +
                    " bytes), not read"))
        return report;
      continue;
    }
    splitWhitespace(line, fields);
    if (fields.empty()) continue;
    if (!sawContent) {
      sawContent = true;
      if (fields[0] == "query-id") continue;  // BEIR's header
      addDiag(report, options, Severity::Warning, file, lineNo, {},
              "no `query-id corpus-id score` header; the first line is read as a judgment");
    }
    if (fields.size() < 3) {
      if (!fail(lineNo, "record",
                "expected 3 fields `query-id corpus-id score`, found " +
                    std::to_string(fields.size())))
        return report;
      continue;
    }
    if (fields.size() > 3)
      addDiag(report, options, Severity::Warning, file, lineNo, "record",
              std::to_string(fields.size()) + " fields; the ones after the third are ignored");
    int rel = 0;
    bool truncated = false;
    if (!parseScore(fields[2], rel, truncated)) {
      if (!fail(lineNo, "score",
                "not an integer: \"" + std::string(fields[2].substr(0, 40)) + "\""))
        return report;
      continue;
    }
    if (truncated) ++truncatedScores;
    const std::string qid(fields[0]);
    const std::string docId(fields[1]);
    std::string key = qid;
    key.push_back('\0');
    key += docId;
    auto [it, fresh] = ctx.seen.try_emplace(std::move(key), ctx.splitIndex, lineNo);
    if (!fresh) {
      if (!fail(lineNo, "corpus-id",
                "\"" + docId + "\" is judged twice for query \"" + qid + "\" (first at " +
                    ctx.splitFiles[it->second.first].string() + ":" +
                    std::to_string(it->second.second) + ")"))
        return report;
      continue;
    }
    ctx.into.qrels.byQuery[qid].push_back(Judgment{docId, rel, lineNo});
    ++report.records;
    if (splitQueries.insert(qid).second) {
      auto q = ctx.queryIndex.find(qid);
      if (q == ctx.queryIndex.end())
        ++unknownQueries;
      else
        ctx.into.queries[q->second].attributes.emplace_back("beir split", split);
    }
    if (ctx.corpusLoaded && !ctx.into.corpus.contains(docId)) ++unknownDocs;
  }
  if (truncatedScores > 0)
    addDiag(report, options, Severity::Warning, file, 0, "score",
            std::to_string(truncatedScores) +
                " non-integer score(s) truncated toward zero, as trec_eval does");
  if (unknownQueries > 0 && !ctx.queryIndex.empty())
    addDiag(report, options, Severity::Warning, file, 0, "query-id",
            std::to_string(unknownQueries) + " judged query id(s) are not in queries.jsonl");
  if (unknownDocs > 0)
    addDiag(
        report, options, Severity::Warning, file, 0, "corpus-id",
        std::to_string(unknownDocs) + " judgment(s) name documents that are not in corpus.jsonl");
  return report;
}

}  // namespace

LoadReport loadBeir(const std::filesystem::path& folder, Dataset& into,
                    const LoadOptions& options) {
  LoadReport report;
  const std::string folderName = folder.string();
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) {
    addDiag(report, options, Severity::Error, folderName, 0, {},
            "a BEIR dataset is a folder with corpus.jsonl, queries.jsonl and qrels/");
    report.stopped = true;
    return report;
  }
  const auto corpusPath = folder / "corpus.jsonl";
  const auto queriesPath = folder / "queries.jsonl";
  const auto qrelsDir = folder / "qrels";
  const bool hasCorpus = std::filesystem::is_regular_file(corpusPath, ec);
  const bool hasQueries = std::filesystem::is_regular_file(queriesPath, ec);
  std::vector<std::filesystem::path> splits;
  if (std::filesystem::is_directory(qrelsDir, ec)) {
    for (const auto& entry : std::filesystem::directory_iterator(qrelsDir, ec))
      if (entry.is_regular_file(ec) && entry.path().extension() == ".tsv")
        splits.push_back(entry.path());
    std::sort(splits.begin(), splits.end());
  }
  if (!hasCorpus && !hasQueries && splits.empty()) {
    addDiag(report, options, Severity::Error, folderName, 0, {},
            "not a BEIR folder: no corpus.jsonl, queries.jsonl or qrels/*.tsv");
    report.stopped = true;
    return report;
  }
  if (!hasCorpus)
    addDiag(report, options, Severity::Warning, corpusPath.string(), 0, {},
            "missing; no corpus loaded");
  if (!hasQueries)
    addDiag(report, options, Severity::Warning, queriesPath.string(), 0, {},
            "missing; no queries loaded");
  if (splits.empty())
    addDiag(report, options, Severity::Warning, (qrelsDir / "*.tsv").string(), 0, {},
            "missing; no qrels loaded");

  // One progress scale over all the files of the folder.
  std::uint64_t total =
      (hasCorpus ? sizeOf(corpusPath) : 0) + (hasQueries ? sizeOf(queriesPath) : 0);
  for (const auto& s : splits) total += sizeOf(s);
  std::uint64_t done = 0;
  auto finished = [&](const LoadReport& part, const std::filesystem::path& p) {
    report.merge(part, options.maxStoredDiagnostics);
    done += sizeOf(p);
    return report.ok();
  };

  if (hasCorpus) {
    auto onDoc = [&](json& rec, const JsonRecordPlace&, RecordProblems& problems) {
      if (!rec.is_object()) {
        problems.error("record", "must be a JSON object, not " + jsonTypeName(rec));
        return;
      }
      Document doc;
      auto id = jsonId(rec, "_id", problems, true);
      if (auto title = jsonString(rec, "title", problems, false)) doc.title = std::move(*title);
      if (auto text = jsonString(rec, "text", problems, true)) doc.text = std::move(*text);
      if (problems.hasErrors() || !id) return;
      doc.id = std::move(*id);
      if (into.corpus.contains(doc.id)) {
        problems.warning("_id",
                         "\"" + doc.id + "\" is already in the corpus; this document is not added");
        return;
      }
      into.corpus.add(std::move(doc));
    };
    const LoadOptions corpusOptions = withProgressOffset(options, done, total);
    auto part =
        leavesTextInFile(corpusPath, options)
            ? loadStoredCorpus(corpusPath, CorpusLayout::JsonlDocs, into.corpus, corpusOptions)
            : readJsonRecords(corpusPath, corpusOptions, onDoc, JsonLayout::Lines);
    if (!finished(part, corpusPath)) return report;
  }

  std::unordered_map<std::string, std::size_t> queryIndex;
  if (hasQueries) {
    const std::string task = folder.filename().empty() ? folder.parent_path().filename().string()
                                                       : folder.filename().string();
    auto onQuery = [&](json& rec, const JsonRecordPlace& place, RecordProblems& problems) {
      if (!rec.is_object()) {
        problems.error("record", "must be a JSON object, not " + jsonTypeName(rec));
        return;
      }
      Query q;
      q.line = place.line;
      q.task = task;
      auto id = jsonId(rec, "_id", problems, true);
      if (auto text = jsonString(rec, "text", problems, true)) q.text = std::move(*text);
      if (problems.hasErrors() || !id) return;
      q.id = std::move(*id);
      auto [it, fresh] = queryIndex.try_emplace(q.id, into.queries.size());
      if (!fresh)
        problems.warning("_id", "\"" + q.id + "\" repeats the id of line " +
                                    std::to_string(into.queries[it->second].line) +
                                    "; both are kept");
      into.queries.push_back(std::move(q));
    };
    auto part = readJsonRecords(queriesPath, withProgressOffset(options, done, total), onQuery,
                                JsonLayout::Lines);
    if (!finished(part, queriesPath)) return report;
  }

  std::unordered_map<std::string, std::pair<std::size_t, std::uint64_t>> seen;
  for (std::size_t i = 0; i < splits.size(); ++i) {
    const auto& split = splits[i];
    const LoadOptions splitOptions = withProgressOffset(options, done, total);
    QrelsContext splitCtx{into, splitOptions, queryIndex, seen, splits, i, hasCorpus};
    auto part = readQrelsSplit(split, split.stem().string(), splitCtx);
    if (!into.qrels.source.empty()) into.qrels.source += "; ";
    into.qrels.source += split.string();
    if (!finished(part, split)) return report;
  }
  if (options.progress && report.ok()) options.progress(total, total);
  return report;
}

}  // namespace ragscope::core
