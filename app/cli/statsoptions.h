#pragma once
// What bootstrap, compare and correlate share: their options (declared per command, so that each
// --help lists its own), the inputs loaded through core (core/eval/inputs/statsinputs.h) and the
// number formats of their text output.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/options.h"
#include "core/eval/inputs/statsinputs.h"
#include "core/stats/bootstrap.h"

namespace ragscope::cli {

struct StatsOptions {
  std::vector<std::string> files;
  std::vector<std::string> measures;
  std::string measureY;
  std::optional<std::string> qrels;
  std::size_t resamples = 0;  // 0 = command default
  std::size_t size = 0;
  std::uint64_t seed = core::stats::kDefaultSeed;
  double level = 0.95;
  bool bca = false;
  std::size_t permutations = 10000;
  unsigned threads = 0;
  std::size_t histogramBins = 0;
  bool json = false;
};

enum class StatsCommand { Bootstrap, Compare, Correlate };

// Declares the command's options on `cli` (with the inputs' prose after them).
void declareStatsOptions(CommandLine& cli, StatsOptions& o, StatsCommand command);

// Parses the arguments, checks the number of inputs, loads them (printing what the readers
// report) and settles the measure (the only one the input holds when none was named). Returns
// the exit code when the command ends here, nothing to go on.
std::optional<int> prepareStats(const Args& args, CommandLine& cli, StatsOptions& o,
                                std::size_t minFiles, std::size_t maxFiles,
                                core::eval::StatsInputs& inputs);

// Input `input`'s values of `measure`; nullptr after printing why there are none.
const core::stats::QueryValues* statsValues(const core::eval::StatsInputs& inputs,
                                            std::size_t input, const std::string& measure);

// The resampling settings the three commands take alike: --B (or the command's default B),
// --seed, --level and --threads.
template <class Options>
Options resamplingOptions(const StatsOptions& o, std::size_t defaultResamples) {
  Options options;
  options.resamples = o.resamples ? o.resamples : defaultResamples;
  options.seed = o.seed;
  options.level = o.level;
  options.threads = o.threads;
  return options;
}

std::string formatValue(double v, int precision = 4);  // fixed; "nan"
std::string formatP(double p);                         // fixed, scientific below 1e-4; "nan"
// At most `max` ids, space-separated, then "... (N more)"; "-" for none.
std::string joinedIds(const std::vector<std::string>& ids, std::size_t max = 20);

}  // namespace ragscope::cli
