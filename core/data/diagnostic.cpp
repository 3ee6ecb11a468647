#include "core/data/diagnostic.h"

#include <cstdlib>

namespace ragscope::core {

std::string Diagnostic::toString() const {
  std::string out = file;
  if (line > 0) out += ':' + std::to_string(line);
  out += ": ";
  if (!field.empty()) out += field + ": ";
  out += problem;
  return out;
}

void LoadReport::add(Diagnostic d, std::size_t maxStored) {
  if (d.severity == Severity::Error)
    ++errors;
  else
    ++warnings;
  std::size_t& ofKind = storedPerKind[{static_cast<int>(d.severity), d.field}];
  if (diagnostics.size() < maxStored && ofKind < kStoredPerKind) {
    ++ofKind;
    diagnostics.push_back(std::move(d));
  } else {
    ++unstoredDiagnostics;
  }
}

bool LoadReport::tooManyErrors(const LoadOptions& options, const std::string& file,
                               std::uint64_t line) {
  if (options.maxErrors == 0 || errors < options.maxErrors) return false;
  // Stored even past maxStoredDiagnostics: it is the one line that says why the file ended.
  diagnostics.push_back(
      {Severity::Error, file, line, "",
       "too many errors (" + std::to_string(options.maxErrors) + "); stopped reading this file"});
  ++errors;
  stopped = true;
  return true;
}

void LoadReport::merge(const LoadReport& other, std::size_t maxStored) {
  for (const auto& d : other.diagnostics) {
    std::size_t& ofKind = storedPerKind[{static_cast<int>(d.severity), d.field}];
    if (diagnostics.size() < maxStored && ofKind < kStoredPerKind) {
      ++ofKind;
      diagnostics.push_back(d);
    } else {
      ++unstoredDiagnostics;
    }
  }
  records += other.records;
  skipped += other.skipped;
  warnings += other.warnings;
  errors += other.errors;
  unstoredDiagnostics += other.unstoredDiagnostics;
  stopped = stopped || other.stopped;
  cancelled = cancelled || other.cancelled;
}

std::uint64_t defaultTextInFileFrom() {
  static const std::uint64_t bytes = [] {
    std::uint64_t value = std::uint64_t{64} << 20;
    if (const char* env = std::getenv("RAGSCOPE_TEXT_IN_FILE_FROM"); env && *env) {
      char* end = nullptr;
      const unsigned long long parsed = std::strtoull(env, &end, 10);
      if (end && *end == '\0' && parsed > 0) value = parsed;
    }
    return value;
  }();
  return bytes;
}

}  // namespace ragscope::core
