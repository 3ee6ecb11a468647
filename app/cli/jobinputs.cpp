#include "app/cli/jobinputs.h"

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <iterator>

#include "core/data/loaders.h"
#include "core/llm/prompts.h"
#include "core/util/sha256.h"

namespace ragscope::cli {

using namespace ragscope::core;

int usageError(const std::string& message, const char* help) {
  std::cerr << "ragscope-cli: " << message << "\n\n" << help;
  return 2;
}

std::string timestamp() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return buf;
}

nlohmann::json inputEntry(const std::filesystem::path& path, const std::string& format) {
  nlohmann::json j;
  j["path"] = std::filesystem::absolute(path).string();
  if (!format.empty()) j["format"] = format;
  const auto hash = sha256OfPath(path);
  j["sha256"] = hash ? nlohmann::json(*hash) : nlohmann::json();
  return j;
}

void printLoadDiagnostics(const LoadReport& report) {
  std::size_t shown = 0;
  for (const auto& d : report.diagnostics) {
    if (shown++ >= 20) break;
    std::cerr << d.toString() << "\n";
  }
}

bool parseCount(const std::string& text, long min, long max, std::size_t& out) {
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(text.c_str(), &end, 10);
  if (errno || *end != '\0' || n < min || n > max) return false;
  out = static_cast<std::size_t>(n);
  return true;
}

bool parseFormatOption(const std::string& name, std::optional<Format>& out) {
  out.reset();
  if (name.empty()) return true;
  out = formatFromName(name);
  return out.has_value();
}

std::optional<std::string> readTemplateOrDefault(const std::string& path) {
  if (path.empty()) return llm::defaultRagTemplate();
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "ragscope-cli: " << path << ": cannot read\n";
    return std::nullopt;
  }
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::optional<Dataset> loadJobDataset(const std::vector<std::string>& paths,
                                      const std::optional<Format>& format,
                                      const LoadOptions& options, const std::string& job) {
  std::vector<DatasetPart> parts;
  for (const auto& p : paths) parts.push_back({p, format});
  auto loaded = loadDataset(parts, options);
  if (!loaded.report.ok() || loaded.report.hasErrors()) {
    printLoadDiagnostics(loaded.report);
    std::cerr << "ragscope-cli: " << job << ": the dataset has errors\n";
    return std::nullopt;
  }
  if (loaded.value.queries.empty()) {
    std::cerr << "ragscope-cli: " << job << ": the dataset has no queries\n";
    return std::nullopt;
  }
  return std::move(loaded.value);
}

std::optional<Run> loadJobRun(const std::string& path, const LoadOptions& options,
                              const std::string& job) {
  auto r = readTrecRun(path, options);
  if (!r.report.ok() || r.report.hasErrors()) {
    printLoadDiagnostics(r.report);
    std::cerr << "ragscope-cli: " << job << ": the run has errors\n";
    return std::nullopt;
  }
  return std::move(r.value);
}

}  // namespace ragscope::cli
