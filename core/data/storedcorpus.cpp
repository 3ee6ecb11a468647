#include "core/data/storedcorpus.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/data/corpusscan.h"
#include "core/data/jsonguard.h"
#include "core/util/sha256.h"
#include "core/util/userfolders.h"

namespace ragscope::core {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kSuffix = ".ragscope-docs";

// The options that decide what the scan finds: a side index built under other ones is not reused.
// How the caller treats bad records (OnError) is not among them: the scan skips them all and keeps
// where the first one was (corpusscan.h), and each caller's policy is applied when it opens the
// index, so that the workbench (skip) and the CLI (stop) share one side index.
json readingOptions(const LoadOptions& o) {
  return {{"max_line_bytes", o.maxLineBytes},
          {"max_json_depth", o.maxJsonDepth},
          {"max_stored_diagnostics", o.maxStoredDiagnostics}};
}

// What the first open found, kept in the side index so that every reopen shows the same problems
// under either policy.
std::string scanToJson(const CorpusScan& scan, const LoadOptions& options) {
  const LoadReport& r = scan.report;
  json diagnostics = json::array();
  for (const Diagnostic& d : r.diagnostics)
    diagnostics.push_back(
        {d.severity == Severity::Error ? "error" : "warning", d.line, d.field, d.problem});
  json firstError = nullptr;
  if (const auto& f = scan.firstError)
    firstError = {{"diagnostics", f->diagnostics}, {"records", f->records},
                  {"warnings", f->warnings},       {"errors", f->errors},
                  {"unstored", f->unstored},       {"documents", f->documents}};
  return json{{"options", readingOptions(options)},
              {"max_errors", options.maxErrors},
              {"records", r.records},
              {"skipped", r.skipped},
              {"warnings", r.warnings},
              {"errors", r.errors},
              {"unstored", r.unstoredDiagnostics},
              {"stopped", r.stopped},
              {"diagnostics", std::move(diagnostics)},
              {"first_error", std::move(firstError)}}
      .dump();
}

// A caller's view of a kept scan: its report and how many documents it sees.
struct PolicyView {
  LoadReport report;
  std::size_t documents = SIZE_MAX;
};

// The view of the kept scan `text` under options.onError; nullopt when it does not parse or was
// made under other reading options. A reader that stops at the first error sees the report as it
// stood there and the documents before it; one that skips sees the whole scan (made under the same
// error cap: a file without errors serves any cap).
std::optional<PolicyView> policyView(std::string_view text, const LoadOptions& options,
                                     const std::string& file) {
  // Checked like any input: a planted side index may hold anything its checksum allows.
  if (checkJsonDepth(text, 8)) return std::nullopt;
  try {
    const json j = json::parse(text);
    if (j.at("options") != readingOptions(options)) return std::nullopt;
    const json& first = j.at("first_error");
    const bool stop = options.onError == OnError::Stop && !first.is_null();
    if (options.onError == OnError::Skip && !first.is_null() &&
        j.at("max_errors").get<std::uint64_t>() != options.maxErrors)
      return std::nullopt;
    PolicyView v;
    LoadReport& r = v.report;
    const json& counts = stop ? first : j;
    r.records = counts.at("records").get<std::uint64_t>();
    r.warnings = counts.at("warnings").get<std::uint64_t>();
    r.errors = counts.at("errors").get<std::uint64_t>();
    r.unstoredDiagnostics = counts.at("unstored").get<std::uint64_t>();
    r.skipped = stop ? 0 : j.at("skipped").get<std::uint64_t>();
    r.stopped = stop || j.at("stopped").get<bool>();
    const json& all = j.at("diagnostics");
    const std::size_t shown = stop ? static_cast<std::size_t>(std::min<std::uint64_t>(
                                         first.at("diagnostics").get<std::uint64_t>(), all.size()))
                                   : all.size();
    for (std::size_t i = 0; i < shown; ++i) {
      const json& d = all.at(i);
      r.diagnostics.push_back(
          {d.at(0).get<std::string>() == "error" ? Severity::Error : Severity::Warning, file,
           d.at(1).get<std::uint64_t>(), d.at(2).get<std::string>(), d.at(3).get<std::string>()});
    }
    if (stop)
      v.documents = static_cast<std::size_t>(
          std::min<std::uint64_t>(first.at("documents").get<std::uint64_t>(), SIZE_MAX));
    return v;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

// True when a file at `path` belongs to another user: a side index there is neither replaced
// nor removed (each user then keeps one in the cache folder).
bool someoneElses(const fs::path& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && st.st_uid != ::geteuid();
}

void note(LoadReport& report, const LoadOptions& options, const std::string& file,
          std::string problem) {
  report.add({Severity::Warning, file, 0, {}, std::move(problem)}, options.maxStoredDiagnostics);
}

}  // namespace

bool leavesTextInFile(const fs::path& path, const LoadOptions& options) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  const auto bytes = fs::file_size(path, ec);
  return !ec && bytes > 0 && bytes >= options.textInFileFrom;
}

fs::path sideIndexBeside(const fs::path& corpusFile) {
  fs::path p = corpusFile;
  p += kSuffix;
  return p;
}

fs::path sideIndexInCache(const fs::path& corpusFile) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(corpusFile, ec);
  // One file per corpus path: its name says which corpus, its hash tells same-named ones apart.
  return userCacheFolder() / "docindex" /
         (corpusFile.filename().string() + "-" +
          sha256Hex((ec ? corpusFile : absolute).string()).substr(0, 16) + kSuffix);
}

LoadReport loadStoredCorpus(const fs::path& path, CorpusLayout layout, Corpus& corpus,
                            const LoadOptions& options, StoredCorpusInfo* info) {
  StoredCorpusInfo local;
  StoredCorpusInfo& out = info ? *info : local;
  const std::string file = path.string();
  LoadReport report;
  std::string error;
  auto textFile = TextFile::open(path, error);
  if (!textFile) {
    report.add({Severity::Error, file, 0, {}, error}, options.maxStoredDiagnostics);
    report.stopped = true;
    return report;
  }
  const auto stamp = textFile->stamp();
  if (!stamp) {
    report.add({Severity::Error, file, 0, {}, "cannot read the file's size and time"},
               options.maxStoredDiagnostics);
    report.stopped = true;
    return report;
  }

  // A side index beside the file, else one in the cache folder; each checked before use.
  for (const fs::path& candidate : {sideIndexBeside(path), sideIndexInCache(path)}) {
    std::string why;
    auto index = DocIndex::open(candidate, layout, *stamp, why);
    std::optional<PolicyView> view;
    if (index) {
      view = policyView(index->diagnostics(), options, file);
      if (!view) why = "made with other reading options";
    }
    if (!view) {
      if (why != "none yet" && out.rebuildReason.empty())
        out.rebuildReason = candidate.string() + ": " + why;
      continue;
    }
    out.reused = true;
    out.indexPath = candidate;
    if (options.progress && !options.progress(stamp->size, stamp->size)) {
      view->report.cancelled = true;
      return std::move(view->report);
    }
    index->limitTo(view->documents);
    index->setMaxJsonDepth(options.maxJsonDepth);
    textFile->attachIndex(std::move(index));
    corpus.addStored(std::move(textFile));
    return std::move(view->report);
  }

  CorpusScan scan = scanCorpusFile(path, layout, options);
  if (scan.report.cancelled || scan.failed) return std::move(scan.report);
  if (!(scan.content.source == *stamp)) {
    report.add({Severity::Error, file, 0, {}, "changed while it was being read: load it again"},
               options.maxStoredDiagnostics);
    report.stopped = true;
    return report;
  }
  scan.content.diagnostics = scanToJson(scan, options);
  // What this caller sees of the scan, as a reopen shows it.
  auto view = policyView(scan.content.diagnostics, options, file);
  if (!view) {  // cannot happen: the JSON was just made under these options
    report.add(
        {Severity::Error, file, 0, {}, "internal error: the scan's report does not read back"},
        options.maxStoredDiagnostics);
    report.stopped = true;
    return report;
  }

  // Beside the file when its folder may be written (and no other user's side index is there);
  // the cache folder otherwise.
  const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::vector<fs::path> targets;
  if (writableFolder(parent) && !someoneElses(sideIndexBeside(path)))
    targets.push_back(sideIndexBeside(path));
  if (!someoneElses(sideIndexInCache(path))) targets.push_back(sideIndexInCache(path));
  std::string why;
  for (const fs::path& target : targets) {
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    std::string writeError;
    if (!DocIndex::write(target, scan.content, &writeError)) {
      out.writeProblem = writeError;
      continue;
    }
    scan.content = DocIndexContent{};  // written: its memory goes before the map comes
    auto index = DocIndex::open(target, layout, *stamp, why);
    if (!index) {
      out.writeProblem = target.string() + ": written but not readable: " + why;
      break;  // its content is gone: reading it again is the way (next load)
    }
    out.indexPath = target;
    out.writeProblem.clear();
    index->limitTo(view->documents);
    index->setMaxJsonDepth(options.maxJsonDepth);
    textFile->attachIndex(std::move(index));
    corpus.addStored(std::move(textFile));
    return std::move(view->report);
  }
  // No side index anywhere: the documents cannot be served without one.
  LoadReport& failed = view->report;
  if (targets.empty()) out.writeProblem = "both places hold another user's side index";
  note(failed, options, file, "no side index could be written (" + out.writeProblem + ")");
  failed.add({Severity::Error,
              file,
              0,
              {},
              "its documents are not loaded: free some disk space or make "
              "the cache folder writable, then load it again"},
             options.maxStoredDiagnostics);
  failed.stopped = true;
  return std::move(failed);
}

}  // namespace ragscope::core
