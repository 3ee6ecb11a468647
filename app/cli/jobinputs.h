#pragma once
// Input handling shared by the LLM job commands of ragscope-cli (generate, erag, e2e,
// erag-correlate): usage errors, numeric and --format option values, the prompt template, and
// loading datasets and runs with their diagnostics printed. Each helper prints its own
// "ragscope-cli: ..." line so every command reports the same failure the same way.

#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/diagnostic.h"
#include "core/data/model.h"

namespace ragscope::cli {

// Prints "ragscope-cli: <message>" and the command's help on stderr; returns exit code 2.
int usageError(const std::string& message, const char* help);

// Local time as YYYYMMDD-HHMMSS, for default run store names.
std::string timestamp();

// The settings entry of one input file: absolute path, format name (if any) and content hash.
nlohmann::json inputEntry(const std::filesystem::path& path, const std::string& format);

// Prints the first 20 diagnostics of `report` on stderr.
void printLoadDiagnostics(const core::LoadReport& report);

// Parses a whole decimal integer in [min, max]; false on anything else.
bool parseCount(const std::string& text, long min, long max, std::size_t& out);

// Resolves a --format value: empty gives no format (auto-detect); false for an unknown name.
bool parseFormatOption(const std::string& name, std::optional<core::Format>& out);

// The --template file's text, or the default RAG template when `path` is empty; on a read failure
// prints the error and returns nothing.
std::optional<std::string> readTemplateOrDefault(const std::string& path);

// Loads the --dataset parts; on errors or when there are no queries prints the diagnostics and
// "ragscope-cli: <job>: the dataset has ..." and returns nothing.
std::optional<core::Dataset> loadJobDataset(const std::vector<std::string>& paths,
                                            const std::optional<core::Format>& format,
                                            const core::LoadOptions& options,
                                            const std::string& job);

// Reads a TREC run; on errors prints the diagnostics and "ragscope-cli: <job>: the run has errors".
std::optional<core::Run> loadJobRun(const std::string& path, const core::LoadOptions& options,
                                    const std::string& job);

}  // namespace ragscope::cli
