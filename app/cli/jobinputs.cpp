#include "app/cli/jobinputs.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "core/data/loaders.h"

namespace ragscope::cli {

using namespace ragscope::core;

int usageError(const std::string& message, const char* help) {
  std::cerr << "ragscope-cli: " << message << "\n\n" << help;
  return 2;
}

bool nextValue(const Args& args, std::size_t& i, std::string& into) {
  if (i + 1 >= args.size()) return false;
  into = args[++i];
  return true;
}

namespace {

ArgStep takeJobInputArg(const Args& args, std::size_t& i, JobOptions& options,
                        JobInputArgs& inputs, std::size_t maxK, const char* help, int& exitCode) {
  if (const ArgStep step = takeJobOption(args, i, options, help, exitCode); step != ArgStep::NotMine)
    return step;
  const std::string& a = args[i];
  auto fail = [&](const std::string& message) {
    exitCode = usageError(message, help);
    return ArgStep::Exit;
  };
  std::string v;
  if (a == "--help" || a == "-h") {
    std::cout << help << jobOptionsHelp();
    exitCode = 0;
    return ArgStep::Exit;
  } else if (a == "--dataset") {
    if (!nextValue(args, i, v)) return fail("--dataset needs a path");
    inputs.datasets.push_back(v);
  } else if (a == "--format") {
    if (!nextValue(args, i, inputs.format)) return fail("--format needs a name");
  } else if (a == "--run") {
    if (!nextValue(args, i, inputs.runPath)) return fail("--run needs a path");
  } else if (a == "--template") {
    if (!nextValue(args, i, inputs.templatePath)) return fail("--template needs a path");
  } else if (a == "--k") {
    if (!nextValue(args, i, v)) return fail("--k needs a number");
    if (!parseCount(v, 1, static_cast<long>(maxK), inputs.k))
      return fail("--k: '" + v + "' is not 1.." + std::to_string(maxK));
  } else if (a == "--quiet" || a == "-q") {
    inputs.quiet = true;
  } else {
    return ArgStep::NotMine;
  }
  return ArgStep::Taken;
}

}  // namespace

std::optional<int> parseJobArgs(const Args& args, JobOptions& options, JobInputArgs& inputs,
                                std::size_t maxK, const char* help,
                                const std::function<std::optional<int>(std::size_t& i)>& own) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    int exitCode = 0;
    switch (takeJobInputArg(args, i, options, inputs, maxK, help, exitCode)) {
      case ArgStep::Taken:
        continue;
      case ArgStep::Exit:
        return exitCode;
      case ArgStep::NotMine:
        break;
    }
    if (auto ended = own(i)) return ended;
  }
  return std::nullopt;
}

void printLoadDiagnostics(const LoadReport& report) {
  std::size_t shown = 0;
  for (const auto& d : report.diagnostics) {
    if (shown++ >= 20) break;
    std::cerr << d.toString() << "\n";
  }
}

bool parseUnsigned(const std::string& text, std::uint64_t& out) {
  if (text.empty() || text[0] == '-') return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (errno || *end != '\0') return false;
  out = v;
  return true;
}

bool parseFiniteDouble(const std::string& text, double& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (errno || *end != '\0' || !std::isfinite(v)) return false;
  out = v;
  return true;
}

bool parseCount(const std::string& text, long min, long max, std::size_t& out) {
  char* end = nullptr;
  errno = 0;
  const long n = std::strtol(text.c_str(), &end, 10);
  if (errno || *end != '\0' || n < min || n > max) return false;
  out = static_cast<std::size_t>(n);
  return true;
}

std::string countRangeError(const std::string& option, std::uint64_t min, std::uint64_t max,
                            const std::string& text) {
  // A pasted megabyte of digits is not echoed back whole.
  const std::string shown = text.size() > 40 ? text.substr(0, 40) + "..." : text;
  return option + ": expected an integer from " + std::to_string(min) + " to " +
         std::to_string(max) + ", got '" + shown + "'";
}

bool parseFormatOption(const std::string& name, std::optional<Format>& out) {
  out.reset();
  if (name.empty()) return true;
  out = formatFromName(name);
  return out.has_value();
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

std::optional<Dataset> loadJobInputs(const JobInputArgs& args, const std::string& job, const char* help) {
  std::optional<Format> format;
  if (!parseFormatOption(args.format, format)) {
    usageError("unknown --format '" + args.format + "'", help);
    return std::nullopt;
  }
  return loadJobDataset(args.datasets, format, LoadOptions{}, job);
}

}  // namespace ragscope::cli
