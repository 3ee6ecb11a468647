#include "core/data/diagnostic.h"

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
  if (diagnostics.size() < maxStored)
    diagnostics.push_back(std::move(d));
  else
    ++unstoredDiagnostics;
}

void LoadReport::merge(const LoadReport& other, std::size_t maxStored) {
  for (const auto& d : other.diagnostics) {
    if (diagnostics.size() < maxStored)
      diagnostics.push_back(d);
    else
      ++unstoredDiagnostics;
  }
  records += other.records;
  skipped += other.skipped;
  warnings += other.warnings;
  errors += other.errors;
  unstoredDiagnostics += other.unstoredDiagnostics;
  stopped = stopped || other.stopped;
  cancelled = cancelled || other.cancelled;
}

}  // namespace ragscope::core
