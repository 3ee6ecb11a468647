// ragscope-cli correlate: rank correlation of two inputs' per-query values
// (core/stats/correlation.h), over the inputs core loads for the statistics commands
// (core/eval/inputs/statsinputs.h).

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/options.h"
#include "app/cli/statsoptions.h"
#include "core/export/json.h"
#include "core/stats/correlation.h"
#include "core/stats/paired.h"

namespace ragscope::cli {

using namespace ragscope::core;
using namespace ragscope::core::stats;

int correlateCommand(const Args& args) {
  StatsOptions o;
  CommandLine cli("correlate");
  declareStatsOptions(cli, o, StatsCommand::Correlate);
  eval::StatsInputs inputs;
  if (auto exit = prepareStats(args, cli, o, 1, 2, inputs)) return *exit;
  if (o.measures.size() != 1) {
    std::cerr
        << "ragscope-cli correlate: give exactly one --measure (and optionally --measure-y)\n";
    return 2;
  }
  const std::size_t yInput = o.files.size() == 2 ? 1 : 0;
  if (o.files.size() == 1 && o.measureY.empty()) {
    std::cerr << "ragscope-cli correlate: one input needs --measure-y\n";
    return 2;
  }
  const QueryValues* vx = statsValues(inputs, 0, o.measures[0]);
  const QueryValues* vy =
      statsValues(inputs, yInput, o.measureY.empty() ? o.measures[0] : o.measureY);
  if (!vx || !vy) return 2;
  const PairedSample s = alignByQid(*vx, *vy);
  if (s.unaligned())
    std::cerr << "ragscope-cli correlate: " << s.unaligned()
              << " unaligned queries (only in X: " << joinedIds(s.onlyInA)
              << "; only in Y: " << joinedIds(s.onlyInB) << ")\n";
  const CorrelationOptions co = resamplingOptions<CorrelationOptions>(o, 1000);
  const CorrelationResult r = correlate(s.a, s.b, co);
  if (!r.ok()) {
    std::cerr << "ragscope-cli correlate: " << r.error << '\n';
    return 1;
  }
  if (o.json) {
    nlohmann::ordered_json j;
    j["n"] = r.n;
    j["kendall_tau_b"] = r.kendall.value;
    j["spearman_rho"] = r.spearman.value;
    j["p_kendall"] = r.kendall.p;
    j["p_spearman"] = r.spearman.p;
    j["unaligned"] = s.unaligned();
    j["kendall_ci_low"] = r.kendall.ci.low;
    j["kendall_ci_high"] = r.kendall.ci.high;
    j["spearman_ci_low"] = r.spearman.ci.low;
    j["spearman_ci_high"] = r.spearman.ci.high;
    j["B"] = co.resamples;
    j["seed"] = co.seed;
    j["level"] = co.level;
    exporting::writeJson(std::cout, j);
    return 0;
  }
  std::cout << "n " << r.n << "  unaligned " << s.unaligned() << "  CI "
            << formatValue(o.level * 100, 1) << "% percentile bootstrap (B " << co.resamples
            << ", seed " << co.seed << ")\n"
            << "Kendall tau-b  " << formatValue(r.kendall.value) << "  p " << formatP(r.kendall.p)
            << "  CI [" << formatValue(r.kendall.ci.low) << ", " << formatValue(r.kendall.ci.high)
            << "]\n"
            << "Spearman rho   " << formatValue(r.spearman.value) << "  p " << formatP(r.spearman.p)
            << "  CI [" << formatValue(r.spearman.ci.low) << ", " << formatValue(r.spearman.ci.high)
            << "]\n";
  return 0;
}

}  // namespace ragscope::cli
