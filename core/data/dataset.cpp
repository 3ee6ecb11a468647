// The format registry: names, detection from name and first bytes, and dispatch to loaders.

#include "core/data/dataset.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>
#include <unordered_map>

#include "core/data/jsonguard.h"
#include "core/data/linereader.h"
#include "core/data/loaders.h"
#include "core/util/inputfile.h"

namespace ragscope::core {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSystemFolder =
    "is a system folder; ragscope never reads under /proc, /sys or /dev";

struct FormatInfo {
  Format format;
  std::string_view name;
};

constexpr std::array<FormatInfo, 14> kFormats{{
    {Format::TrecRun, "trec-run"},
    {Format::TrecQrels, "trec-qrels"},
    {Format::TopicsTsv, "topics-tsv"},
    {Format::TopicsJsonl, "topics-jsonl"},
    {Format::MsmarcoCollection, "msmarco-collection"},
    {Format::RankLlmJson, "rank-llm-json"},
    {Format::Kilt, "kilt"},
    {Format::KiltKnowledgeSource, "kilt-knowledge-source"},
    {Format::Docugami, "docugami"},
    {Format::LlamaRagDataset, "llama-rag-dataset"},
    {Format::Beir, "beir"},
    {Format::RagJsonl, "rag-jsonl"},
    {Format::RagChecker, "ragchecker"},
    {Format::KiltPredictions, "kilt-predictions"},
}};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool endsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

bool isDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}
bool isFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}
bool isHidden(const fs::path& p) {
  const std::string name = p.filename().string();
  return !name.empty() && name[0] == '.';
}

// --- content sniffing -------------------------------------------------------------------------

constexpr std::size_t kSniffBytes = std::size_t{64} << 10;

std::string readHead(const fs::path& path, bool& whole) {
  std::string buf;
  whole = false;
  // Never a device, a FIFO or a /proc file: reading one may block or never end.
  std::string error;
  std::uint64_t size = 0;
  std::FILE* f = openForReading(path, error, size);
  if (!f) return buf;
  buf.resize(kSniffBytes);
  const std::size_t n = std::fread(buf.data(), 1, buf.size(), f);
  buf.resize(n);
  whole = n < kSniffBytes || std::fgetc(f) == EOF;
  std::fclose(f);
  if (buf.size() >= 3 && static_cast<unsigned char>(buf[0]) == 0xEF &&
      static_cast<unsigned char>(buf[1]) == 0xBB && static_cast<unsigned char>(buf[2]) == 0xBF)
    buf.erase(0, 3);
  return buf;
}

// `"key"` followed by optional spaces and ':' somewhere in the text (a key, not a value).
bool hasKey(std::string_view text, std::string_view key) {
  std::string needle;
  needle.reserve(key.size() + 2);
  needle.push_back('"');
  needle.append(key);
  needle.push_back('"');
  for (std::size_t pos = text.find(needle); pos != std::string_view::npos;
       pos = text.find(needle, pos + 1)) {
    std::size_t i = pos + needle.size();
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
      ++i;
    if (i < text.size() && text[i] == ':') return true;
  }
  return false;
}

// The first key of a JSON object text starting with '{' (empty when there is none).
std::string firstKey(std::string_view text) {
  std::size_t i = 1;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i >= text.size() || text[i] != '"') return {};
  const std::size_t end = text.find('"', i + 1);
  if (end == std::string_view::npos) return {};
  return std::string(text.substr(i + 1, end - i - 1));
}

// Decides from one complete JSON object (a JSONL line, or a one-line JSON file).
std::optional<Format> classifyObject(const nlohmann::json& j) {
  auto has = [&](const char* k) { return j.contains(k); };
  if (has("results") && j["results"].is_array()) return Format::RagChecker;
  if (has("examples") && j["examples"].is_array()) return Format::LlamaRagDataset;
  if (has("wikipedia_id") && has("text") && j["text"].is_array())
    return Format::KiltKnowledgeSource;
  // KILT gold files have input+output; KILT prediction files (guess*.jsonl) only id+output.
  if (has("output") && j["output"].is_array() && (has("input") || has("id"))) return Format::Kilt;
  if (has("input") && has("id")) return Format::Kilt;
  const bool question = has("question") || has("user_input");
  const bool rag = has("contexts") || has("retrieved_contexts") || has("response");
  if ((question || has("query")) && rag) return Format::RagJsonl;
  const bool id = has("id") || has("_id") || has("qid") || has("query_id");
  const int textKeys = int(has("title")) + int(has("text")) + int(has("query"));
  // {"_id","title","text"} is a BEIR corpus line, not a topic: only one text key makes a topic.
  if (id && textKeys == 1) return Format::TopicsJsonl;
  return std::nullopt;
}

bool isInteger(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool isNumber(std::string_view s) {
  if (s.empty()) return false;
  const std::string tmp(s);
  char* end = nullptr;
  std::strtod(tmp.c_str(), &end);
  return end == tmp.c_str() + tmp.size();
}

// Text formats: look at up to 50 data lines (complete ones only).
std::optional<Format> classifyLines(std::string_view head, bool whole) {
  if (!whole) {
    const auto lastNl = head.rfind('\n');
    if (lastNl == std::string_view::npos) return std::nullopt;  // one huge line: not a text table
    head = head.substr(0, lastNl);
  }
  int lines = 0, qrels = 0, run = 0, tsv2 = 0;
  std::size_t textBytes = 0;
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (start <= head.size() && lines < 50) {
    auto nl = head.find('\n', start);
    if (nl == std::string_view::npos) nl = head.size();
    std::string_view line = head.substr(start, nl - start);
    start = nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (trim(line).empty() || line[0] == '#') continue;
    ++lines;
    splitWhitespace(line, fields);
    if (fields.size() == 4 && isInteger(fields[3])) ++qrels;
    if (fields.size() >= 6 && isNumber(fields[3]) && isNumber(fields[4])) ++run;
    if (std::count(line.begin(), line.end(), '\t') == 1) {
      const auto tab = line.find('\t');
      const auto id = trim(line.substr(0, tab));
      if (!id.empty() && id.find(' ') == std::string_view::npos) {
        ++tsv2;
        textBytes += trim(line.substr(tab + 1)).size();
      }
    }
  }
  if (lines == 0) return std::nullopt;
  const bool allQrels = qrels == lines, allRun = run == lines, allTsv = tsv2 == lines;
  if (allQrels + allRun + allTsv != 1) return std::nullopt;
  if (allQrels) return Format::TrecQrels;
  if (allRun) return Format::TrecRun;
  // Queries are a few words (MS MARCO ~35 bytes, rag24 ~70); passages are paragraphs (~330).
  const double meanText = double(textBytes) / lines;
  if (meanText <= 150) return Format::TopicsTsv;
  if (meanText >= 200) return Format::MsmarcoCollection;
  return std::nullopt;
}

std::optional<Format> sniff(const fs::path& path) {
  bool whole = false;
  const std::string head = readHead(path, whole);
  std::string_view text = head;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  if (text.empty()) return std::nullopt;

  if (text.front() == '[') {
    // rank_llm: [{"query": ..., "hits": [{"content", "qid", "docid", "rank", "score"}]}]
    if (hasKey(text, "hits") && hasKey(text, "query") && hasKey(text, "docid"))
      return Format::RankLlmJson;
    return std::nullopt;
  }
  if (text.front() == '{') {
    const auto nl = text.find('\n');
    const std::string_view firstLine = nl == std::string_view::npos ? text : text.substr(0, nl);
    const bool lineComplete = nl != std::string_view::npos || whole;
    if (lineComplete && !checkJsonDepth(firstLine, 256)) {
      auto j = nlohmann::json::parse(firstLine, nullptr, /*allow_exceptions=*/false);
      if (j.is_object()) return classifyObject(j);
    }
    // A pretty-printed single document: judge by its first key and what follows.
    const std::string key = firstKey(text);
    if (key == "results" && hasKey(text, "query_id")) return Format::RagChecker;
    if (key == "examples" && (hasKey(text, "reference_answer") || hasKey(text, "query")))
      return Format::LlamaRagDataset;
    return std::nullopt;
  }
  // Docugami's CSV has a fixed header; without the Answer column (raw_questions/questions.csv)
  // there is nothing to evaluate against, so it is not taken for the dataset.
  if (startsWith(text, "Question,Source Docs")) {
    const auto firstLine = text.substr(0, text.find('\n'));
    if (firstLine.find(",Answer") != std::string_view::npos) return Format::Docugami;
    return std::nullopt;
  }
  return classifyLines(text, whole);
}

std::optional<Format> detectFile(const fs::path& path) {
  const std::string name = lower(path.filename().string());
  if (endsWith(name, "-kilt.jsonl")) return Format::Kilt;
  if (startsWith(name, "kilt_knowledgesource")) return Format::KiltKnowledgeSource;
  if (startsWith(name, "qna_data") && endsWith(name, ".csv")) return Format::Docugami;
  if (startsWith(name, "qrels")) return Format::TrecQrels;
  if (startsWith(name, "topics")) {
    if (endsWith(name, ".jsonl") || endsWith(name, ".json")) return Format::TopicsJsonl;
    return Format::TopicsTsv;
  }
  if (startsWith(name, "collection") && endsWith(name, ".tsv")) return Format::MsmarcoCollection;
  if (name == "rag_dataset.json") return Format::LlamaRagDataset;
  return sniff(path);
}

std::optional<Format> detectFolder(const fs::path& path) {
  std::error_code ec;
  bool qna = false;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    const std::string name = lower(entry.path().filename().string());
    if (startsWith(name, "qna_data") && endsWith(name, ".csv")) qna = true;
  }
  if (qna && isDir(path / "docs")) return Format::Docugami;
  if (isFile(path / "corpus.jsonl") && isFile(path / "queries.jsonl")) return Format::Beir;
  return std::nullopt;
}

// --- planning and dispatch ---------------------------------------------------------------------

struct Job {
  fs::path path;
  Format format;
};

// Within a bundle, queries come first so that runs and qrels find them, then judgments,
// corpora, runs, and the generation-side formats.
int loadRank(Format f) {
  switch (f) {
    case Format::TopicsTsv:
    case Format::TopicsJsonl:
      return 0;
    case Format::TrecQrels:
      return 1;
    case Format::MsmarcoCollection:
    case Format::KiltKnowledgeSource:
      return 2;
    case Format::TrecRun:
    case Format::RankLlmJson:
      return 3;
    default:
      return 4;
  }
}

std::string formatList() {
  std::string out;
  for (const auto& f : kFormats) {
    if (!out.empty()) out += ", ";
    out += f.name;
  }
  return out;
}

class Planner {
 public:
  Planner(const LoadOptions& options, LoadReport& report) : m_options(options), m_report(report) {}

  // Adds the jobs for one part; false when the load must stop (OnError::Stop).
  bool plan(const DatasetPart& part, std::vector<Job>& jobs) {
    const fs::path& path = part.path;
    if (isStdinPath(path)) {
      // Standard input can be read once: no sniffing, the format must be named.
      if (!part.format)
        return error(path, "standard input needs a format; name one of: " + formatList());
      jobs.push_back({path, *part.format});
      return true;
    }
    std::error_code ec;
    if (!fs::exists(path, ec)) return error(path, "does not exist");
    if (isDir(path)) {
      if (isSystemPath(path)) return error(path, std::string(kSystemFolder));
      const auto own = detectFolder(path);
      if (part.format && (*part.format == Format::Beir || *part.format == Format::Docugami)) {
        jobs.push_back({path, *part.format});
        return true;
      }
      if (!part.format && own) {
        jobs.push_back({path, *own});
        return true;
      }
      return planBundle(path, part.format, jobs);
    }
    if (auto why = specialFileProblem(path)) return error(path, *why);
    if (part.format) {
      jobs.push_back({path, *part.format});
      return true;
    }
    if (const auto detected = detectFormat(path)) {
      jobs.push_back({path, *detected});
      return true;
    }
    if (auto crOnly = checkLineEnds(path)) return error(path, *crOnly);
    return error(path, "cannot tell the format; name one of: " + formatList());
  }

 private:
  // Every recognised file under the folder (BEIR and Docugami subfolders as units). With a
  // format given, only the files detected as that format are loaded.
  bool planBundle(const fs::path& folder, std::optional<Format> only, std::vector<Job>& jobs) {
    std::vector<Job> found;
    std::vector<std::pair<fs::path, std::string>> ignored;
    std::vector<std::pair<fs::path, std::string>> skipped;  // special files, never read
    std::error_code ec;
    fs::recursive_directory_iterator it(folder, ec), end;
    if (ec) return error(folder, "cannot read folder: " + ec.message());
    for (; it != end; it.increment(ec)) {
      if (ec) break;
      const fs::path p = it->path();
      if (isHidden(p)) {
        if (isDir(p)) it.disable_recursion_pending();
        continue;
      }
      if (isDir(p)) {
        if (isSystemPath(p)) {  // a link into /proc or /sys: never scanned
          it.disable_recursion_pending();
          skipped.push_back({p, "is a system folder; skipped"});
          continue;
        }
        if (const auto own = detectFolder(p)) {
          it.disable_recursion_pending();
          if (!only || *only == *own) found.push_back({p, *own});
        }
        continue;
      }
      // Devices, FIFOs, sockets and system files (links to /dev/zero, /proc/kmsg) would block
      // the scan or never end: named and passed over unread.
      if (auto why = specialFileProblem(p)) {
        skipped.push_back({p, why->substr(0, why->find("; ")) + "; skipped"});  // what it is
        continue;
      }
      if (!isFile(p)) continue;
      const auto f = detectFile(p);
      if (f && (!only || *only == *f))
        found.push_back({p, *f});
      else if (!f)
        ignored.push_back({p, "not a recognised format; ignored"});
      else
        ignored.push_back({p, "detected as " + std::string(formatName(*f)) + ", not " +
                                  std::string(formatName(*only)) + "; ignored"});
    }
    if (ec) return error(folder, "cannot read folder: " + ec.message());
    std::sort(found.begin(), found.end(), [](const Job& a, const Job& b) {
      const int ra = loadRank(a.format), rb = loadRank(b.format);
      return ra != rb ? ra < rb : a.path < b.path;
    });
    std::sort(ignored.begin(), ignored.end());
    std::sort(skipped.begin(), skipped.end());
    ignored.insert(ignored.begin(), skipped.begin(), skipped.end());
    // Files we pass over are named, so nothing in a bundle is dropped without a word.
    for (const auto& [p, why] : ignored)
      m_report.add({Severity::Warning, p.string(), 0, "", why}, m_options.maxStoredDiagnostics);
    if (found.empty()) {
      return error(folder, only ? "holds no file of format " + std::string(formatName(*only))
                                : "holds no file of a recognised format (" + formatList() + ")");
    }
    jobs.insert(jobs.end(), found.begin(), found.end());
    return true;
  }

  bool error(const fs::path& path, std::string problem) {
    m_report.add({Severity::Error, path.string(), 0, "", std::move(problem)},
                 m_options.maxStoredDiagnostics);
    if (m_options.onError == OnError::Stop) {
      m_report.stopped = true;
      return false;
    }
    ++m_report.skipped;
    return true;
  }

  const LoadOptions& m_options;
  LoadReport& m_report;
};

LoadReport dispatch(const Job& job, Dataset& into, const LoadOptions& options) {
  switch (job.format) {
    case Format::TrecRun:
      return loadTrecRun(job.path, into, options);
    case Format::TrecQrels:
      return loadTrecQrels(job.path, into, options);
    case Format::TopicsTsv:
      return loadTopicsTsv(job.path, into, options);
    case Format::TopicsJsonl:
      return loadTopicsJsonl(job.path, into, options);
    case Format::MsmarcoCollection:
      return loadMsmarcoCollection(job.path, into, options);
    case Format::RankLlmJson:
      return loadRankLlmJson(job.path, into, options);
    case Format::Kilt:
      return loadKilt(job.path, into, options);
    case Format::KiltKnowledgeSource:
      return loadKiltKnowledgeSource(job.path, into, options);
    case Format::Docugami:
      return loadDocugami(job.path, into, options);
    case Format::LlamaRagDataset:
      return loadLlamaRagDataset(job.path, into, options);
    case Format::Beir:
      return loadBeir(job.path, into, options);
    case Format::RagJsonl:
      return loadRagJsonl(job.path, into, options);
    case Format::RagChecker:
      return loadRagChecker(job.path, into, options);
    case Format::KiltPredictions:
      return loadKiltPredictions(job.path, into, options);
  }
  return {};
}

std::uint64_t sizeOf(const fs::path& path) {
  std::error_code ec;
  if (!isDir(path)) {
    const auto n = fs::file_size(path, ec);
    return ec ? 0 : n;
  }
  std::uint64_t total = 0;
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
    if (isFile(it->path())) {
      const auto n = fs::file_size(it->path(), ec);
      if (!ec) total += n;
      ec.clear();
    }
  return total;
}

// Runs the jobs in order. Progress is reported over all of them: bytes of finished jobs plus
// the current job's own progress, against the jobs' total size.
// A bundle often describes the same queries in several files (topics + KILT answers + RAG
// examples). Queries a file appended whose id an earlier file already loaded are folded into the
// first: gold outputs, attributes and flags are added, empty text filled in; differing text is
// reported and the first kept. Duplicates within one file are the loaders' business.
void mergeRepeatedQueries(Dataset& into, std::size_t firstNew, const fs::path& file,
                          const LoadOptions& options, LoadReport& report) {
  if (firstNew == 0 || firstNew >= into.queries.size()) return;
  std::unordered_map<std::string, std::size_t> earlier;
  for (std::size_t i = 0; i < firstNew; ++i) earlier.try_emplace(into.queries[i].id, i);
  std::vector<Query> kept;
  bool merged = false;
  for (std::size_t i = firstNew; i < into.queries.size(); ++i) {
    Query& q = into.queries[i];
    auto it = earlier.find(q.id);
    if (it == earlier.end()) {
      kept.push_back(std::move(q));
      continue;
    }
    merged = true;
    Query& first = into.queries[it->second];
    if (first.text.empty()) {
      first.text = q.text;
    } else if (!q.text.empty() && q.text != first.text) {
      report.add({Severity::Warning, file.string(), q.line, "query",
                  "query id '" + q.id +
                      "' was loaded from an earlier file with different text; "
                      "keeping the first text"},
                 options.maxStoredDiagnostics);
    }
    for (auto& g : q.gold) first.gold.push_back(std::move(g));
    for (auto& a : q.attributes) first.attributes.push_back(std::move(a));
    for (auto& f : q.flags) first.flags.push_back(std::move(f));
    if (first.task.empty()) first.task = q.task;
  }
  if (!merged) return;
  into.queries.resize(firstNew);
  for (auto& q : kept) into.queries.push_back(std::move(q));
}

void runJobs(const std::vector<Job>& jobs, Dataset& into, const LoadOptions& options,
             LoadReport& report) {
  std::vector<std::uint64_t> sizes;
  std::uint64_t total = 0;
  if (options.progress) {
    for (const auto& job : jobs) {
      sizes.push_back(sizeOf(job.path));
      total += sizes.back();
    }
  }
  std::uint64_t base = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    LoadOptions jobOptions = options;
    if (options.progress) {
      const std::uint64_t size = sizes[i];
      jobOptions.progress = [&options, base, size, total](std::uint64_t done, std::uint64_t) {
        return options.progress(base + std::min(done, size), total);
      };
    }
    const std::size_t queriesBefore = into.queries.size();
    const LoadReport part = dispatch(jobs[i], into, jobOptions);
    report.merge(part, options.maxStoredDiagnostics);
    mergeRepeatedQueries(into, queriesBefore, jobs[i].path, options, report);
    into.parts.push_back({jobs[i].path, jobs[i].format});
    if (options.progress) base += sizes[i];
    if (part.stopped || part.cancelled) break;
  }
}

std::string partName(const fs::path& path) {
  fs::path p = path;
  if (p.filename().empty()) p = p.parent_path();  // "dir/" names the folder
  const std::string name = p.filename().string();
  return name.empty() ? p.string() : name;
}

}  // namespace

std::string_view formatName(Format f) {
  for (const auto& info : kFormats)
    if (info.format == f) return info.name;
  return "unknown";
}

std::optional<Format> formatFromName(std::string_view name) {
  for (const auto& info : kFormats)
    if (info.name == name) return info.format;
  return std::nullopt;
}

std::vector<Format> allFormats() {
  std::vector<Format> out;
  for (const auto& info : kFormats) out.push_back(info.format);
  return out;
}

const Query* Dataset::findQuery(std::string_view id) const {
  for (const auto& q : queries)
    if (q.id == id) return &q;
  return nullptr;
}

std::optional<Format> detectFormat(const std::filesystem::path& path) {
  if (isDir(path)) return isSystemPath(path) ? std::nullopt : detectFolder(path);
  if (!isFile(path) || specialFileProblem(path)) return std::nullopt;
  return detectFile(path);
}

bool isBundleFolder(const std::filesystem::path& path) {
  if (!isDir(path) || isSystemPath(path) || detectFolder(path)) return false;
  std::error_code ec;
  std::size_t seen = 0;
  // Bounded: a huge unrelated folder is not worth sniffing file by file.
  constexpr std::size_t kMaxEntries = 2000;
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end && seen < kMaxEntries;
       it.increment(ec), ++seen) {
    const fs::path p = it->path();
    if (isHidden(p)) {
      if (isDir(p)) it.disable_recursion_pending();
      continue;
    }
    if (isDir(p) && isSystemPath(p)) {
      it.disable_recursion_pending();
      continue;
    }
    if (isDir(p) ? detectFolder(p).has_value()
                 : (isFile(p) && !specialFileProblem(p) && detectFile(p).has_value()))
      return true;
  }
  return false;
}

LoadReport loadInto(Dataset& into, const DatasetPart& part, const LoadOptions& options) {
  LoadReport report;
  std::vector<Job> jobs;
  Planner planner(options, report);
  if (!planner.plan(part, jobs)) return report;
  runJobs(jobs, into, options, report);
  return report;
}

Loaded<Dataset> loadDataset(const std::vector<DatasetPart>& parts, const LoadOptions& options) {
  Loaded<Dataset> out;
  std::vector<Job> jobs;
  Planner planner(options, out.report);
  bool go = true;
  for (const auto& part : parts)
    if (!(go = planner.plan(part, jobs))) break;
  if (go) runJobs(jobs, out.value, options, out.report);
  if (parts.size() == 1)
    out.value.name = partName(parts[0].path);
  else if (!parts.empty())
    out.value.name = partName(parts[0].path) + " + " + std::to_string(parts.size() - 1) + " more";
  return out;
}

}  // namespace ragscope::core
