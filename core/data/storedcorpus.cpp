#include "core/data/storedcorpus.h"

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

// The options that decide what a read finds: a side index built under other ones is not reused.
json readingOptions(const LoadOptions& o) {
  return {{"on_error", o.onError == OnError::Stop ? "stop" : "skip"},
          {"max_errors", o.maxErrors},
          {"max_line_bytes", o.maxLineBytes},
          {"max_json_depth", o.maxJsonDepth},
          {"max_stored_diagnostics", o.maxStoredDiagnostics}};
}

// The first open's report, kept in the side index so that every reopen shows the same problems.
std::string reportToJson(const LoadReport& r, const LoadOptions& options) {
  json diagnostics = json::array();
  for (const Diagnostic& d : r.diagnostics)
    diagnostics.push_back(
        {d.severity == Severity::Error ? "error" : "warning", d.line, d.field, d.problem});
  return json{{"options", readingOptions(options)},
              {"records", r.records},
              {"skipped", r.skipped},
              {"warnings", r.warnings},
              {"errors", r.errors},
              {"unstored", r.unstoredDiagnostics},
              {"stopped", r.stopped},
              {"diagnostics", std::move(diagnostics)}}
      .dump();
}

// nullopt when the kept report does not parse or was made under other reading options.
std::optional<LoadReport> reportFromJson(std::string_view text, const LoadOptions& options,
                                         const std::string& file) {
  // Checked like any input: a planted side index may hold anything its checksum allows.
  if (checkJsonDepth(text, 8)) return std::nullopt;
  try {
    const json j = json::parse(text);
    if (j.at("options") != readingOptions(options)) return std::nullopt;
    LoadReport r;
    r.records = j.at("records").get<std::uint64_t>();
    r.skipped = j.at("skipped").get<std::uint64_t>();
    r.warnings = j.at("warnings").get<std::uint64_t>();
    r.errors = j.at("errors").get<std::uint64_t>();
    r.unstoredDiagnostics = j.at("unstored").get<std::uint64_t>();
    r.stopped = j.at("stopped").get<bool>();
    for (const json& d : j.at("diagnostics"))
      r.diagnostics.push_back(
          {d.at(0).get<std::string>() == "error" ? Severity::Error : Severity::Warning, file,
           d.at(1).get<std::uint64_t>(), d.at(2).get<std::string>(), d.at(3).get<std::string>()});
    return r;
  } catch (const json::exception&) {
    return std::nullopt;
  }
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
    std::optional<LoadReport> kept;
    if (index) {
      kept = reportFromJson(index->diagnostics(), options, file);
      if (!kept) why = "made with other reading options";
    }
    if (!kept) {
      if (why != "none yet" && out.rebuildReason.empty())
        out.rebuildReason = candidate.string() + ": " + why;
      continue;
    }
    out.reused = true;
    out.indexPath = candidate;
    if (options.progress && !options.progress(stamp->size, stamp->size)) {
      kept->cancelled = true;
      return *kept;
    }
    textFile->attachIndex(std::move(index));
    corpus.addStored(std::move(textFile));
    return *kept;
  }

  CorpusScan scan = scanCorpusFile(path, layout, options);
  if (scan.report.cancelled || scan.failed) return std::move(scan.report);
  if (!(scan.content.source == *stamp)) {
    report.add({Severity::Error, file, 0, {}, "changed while it was being read: load it again"},
               options.maxStoredDiagnostics);
    report.stopped = true;
    return report;
  }
  scan.content.diagnostics = reportToJson(scan.report, options);

  // Beside the file when its folder may be written; the cache folder otherwise.
  const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
  std::vector<fs::path> targets;
  if (writableFolder(parent)) targets.push_back(sideIndexBeside(path));
  targets.push_back(sideIndexInCache(path));
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
    textFile->attachIndex(std::move(index));
    corpus.addStored(std::move(textFile));
    return std::move(scan.report);
  }
  // No side index anywhere: the documents cannot be served without one.
  note(scan.report, options, file, "no side index could be written (" + out.writeProblem + ")");
  scan.report.add({Severity::Error,
                   file,
                   0,
                   {},
                   "its documents are not loaded: free some disk space or make "
                   "the cache folder writable, then load it again"},
                  options.maxStoredDiagnostics);
  scan.report.stopped = true;
  return std::move(scan.report);
}

}  // namespace ragscope::core
