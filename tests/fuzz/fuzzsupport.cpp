#include "fuzzsupport.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <system_error>

#include "core/util/inputfile.h"
#include "core/util/jsonkeep.h"
#include "core/util/jsonstrict.h"

namespace ragscope::fuzz {

namespace fs = std::filesystem;

std::vector<std::string_view> splitParts(std::string_view input, std::size_t maxParts) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < maxParts) {
    const auto at = input.find(kPartSeparator);
    if (at == std::string_view::npos) break;
    parts.push_back(input.substr(0, at));
    input.remove_prefix(at + kPartSeparator.size());
  }
  parts.push_back(input);
  return parts;
}

namespace {

fs::path makeScratchDir() {
  std::error_code ec;
  // Not /dev/shm: the loaders refuse everything under /dev (core/util/inputfile.h), so a target
  // would only ever exercise that refusal. The temporary folder's page cache is fast enough.
  const char* tmp = std::getenv("TMPDIR");
  const fs::path base = tmp && *tmp ? fs::path(tmp) : fs::temp_directory_path(ec);
  fs::path dir = base / ("ragscope-fuzz-" + std::to_string(getpid()));
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  check(!ec, "cannot create the scratch folder");
  check(!core::isSystemPath(dir),
        "the scratch folder is under a system path the loaders refuse to read");
  return dir;
}

void removeScratchDir() {
  std::error_code ec;
  fs::remove_all(scratchDir(), ec);
}

}  // namespace

const fs::path& scratchDir() {
  static const fs::path dir = [] {
    fs::path d = makeScratchDir();
    std::atexit(removeScratchDir);
    return d;
  }();
  return dir;
}

fs::path writeScratch(const fs::path& relative, std::string_view content) {
  const fs::path path = scratchDir() / relative;
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  std::FILE* f = std::fopen(path.c_str(), "wb");
  check(f != nullptr, "cannot write a scratch file");
  const bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  check(std::fclose(f) == 0 && ok, "cannot write a scratch file");
  return path;
}

void removeScratch(const fs::path& relative) {
  std::error_code ec;
  fs::remove_all(scratchDir() / relative, ec);
}

core::LoadOptions loadOptions() {
  core::LoadOptions options;
  options.onError = core::OnError::Skip;
  options.maxLineBytes = 16 << 10;
  options.maxStoredDiagnostics = 64;
  return options;
}

bool hasOverflowingNumber(std::string_view text) {
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0;
  while (i < text.size()) {
    if (!digit(text[i])) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < text.size() && digit(text[i])) ++i;
    if (i < text.size() && text[i] == '.') {
      ++i;
      while (i < text.size() && digit(text[i])) ++i;
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
      std::size_t j = i + 1;
      if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
      if (j < text.size() && digit(text[j])) {
        i = j;
        while (i < text.size() && digit(text[i])) ++i;
      }
    }
    const std::string number(text.substr(start, i - start));
    if (std::isinf(std::strtod(number.c_str(), nullptr))) return true;
  }
  return false;
}

void touch(std::string_view s) {
  static volatile unsigned char sink;
  for (char c : s) sink = static_cast<unsigned char>(c);
  (void)sink;
}

void check(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz check failed: %s\n", what);
  std::abort();
}

void checkReport(const core::LoadReport& report) {
  std::uint64_t errors = 0;
  for (const auto& d : report.diagnostics) {
    check(!d.file.empty(), "a diagnostic names no file");
    check(!d.problem.empty(), "a diagnostic has no problem text");
    if (d.severity == core::Severity::Error) ++errors;
  }
  check(report.diagnostics.size() + report.unstoredDiagnostics == report.errors + report.warnings,
        "diagnostic counts disagree with the stored diagnostics");
  check(errors <= report.errors, "more stored errors than counted");
  check(!report.stopped || report.errors > 0, "a load stopped without an error");
}

std::uint64_t inputHash(std::string_view s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

bool wholeDocumentJson(std::string_view text, nlohmann::json* out, std::string* why) {
  core::JsonStrictError strictWhy;
  const bool ok = core::parseJsonStrict(text, *out, &strictWhy);
  core::JsonKeep all;
  all.everything = true;
  nlohmann::json kept;
  std::string keptWhy;
  const bool keptOk = core::parseJsonKeeping(text, all, &kept, &keptWhy);
  check(ok == keptOk, "the strict readers decide differently on a whole reply");
  if (!ok) *why = keptWhy;
  return ok;
}

void checkSameReading(const Reading& bounded, const Reading& reference) {
  check(bounded.ok == reference.ok, "accepted differently from the whole-document reading");
  if (!bounded.ok) {
    check(bounded.problem == reference.problem,
          "a problem differs from the whole-document reading");
    return;
  }
  check(bounded.docs.size() == reference.docs.size(), "a different number of hits");
  for (std::size_t i = 0; i < bounded.docs.size(); ++i)
    check(bounded.docs[i].id == reference.docs[i].id &&
              bounded.docs[i].score == reference.docs[i].score &&
              bounded.docs[i].text == reference.docs[i].text,
          "a hit differs from the whole-document reading");
}

}  // namespace ragscope::fuzz
