// ragscope-cli bootstrap: the bootstrap of a measure's mean (core/stats/bootstrap.h), over the
// inputs core loads for the statistics commands (core/eval/inputs/statsinputs.h).

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
#include "core/stats/bootstrap.h"

namespace ragscope::cli {

using namespace ragscope::core;
using namespace ragscope::core::stats;

int bootstrapCommand(const Args& args) {
  StatsOptions o;
  CommandLine cli("bootstrap");
  declareStatsOptions(cli, o, StatsCommand::Bootstrap);
  eval::StatsInputs inputs;
  if (auto exit = prepareStats(args, cli, o, 1, 1, inputs)) return *exit;
  if (o.measures.size() != 1) {
    std::cerr << "ragscope-cli bootstrap: give exactly one --measure\n";
    return 2;
  }
  const QueryValues* qv = statsValues(inputs, 0, o.measures[0]);
  if (!qv) return 2;
  std::vector<double> values;
  for (const auto& [qid, v] : *qv) values.push_back(v);

  BootstrapOptions bo = resamplingOptions<BootstrapOptions>(o, 10000);
  bo.sampleSize = o.size;
  bo.method = o.bca ? CiMethod::Bca : CiMethod::Percentile;
  bo.keepDistribution = o.histogramBins > 0;
  const BootstrapResult r = bootstrap(values, bo);
  if (!r.ok()) {
    std::cerr << "ragscope-cli bootstrap: " << r.error << '\n';
    return 1;
  }
  Histogram h;
  if (o.histogramBins > 0) h = makeHistogram(r.distribution, o.histogramBins);

  if (o.json) {
    nlohmann::ordered_json j;
    j["n"] = r.n;
    j["B"] = r.resamples;
    j["size"] = r.sampleSize;
    j["seed"] = r.seed;
    j["level"] = r.level;
    j["mean"] = r.mean;
    j["variance"] = r.variance;
    j["ci_low"] = r.ci.low;
    j["ci_high"] = r.ci.high;
    j["measure"] = eval::statsMeasureLabel(o.measures[0]);
    j["observed_mean"] = r.observedMean;
    j["std_error"] = r.standardError;
    j["ci_method"] = o.bca ? "bca" : "percentile";
    if (o.bca) {
      j["bca_z0"] = r.biasCorrection;
      j["bca_acceleration"] = r.acceleration;
    }
    if (o.histogramBins > 0) {
      j["histogram"] = {{"low", h.low}, {"high", h.high}, {"counts", h.counts}};
    }
    exporting::writeJson(std::cout, j);
    return 0;
  }
  std::cout << "measure        " << eval::statsMeasureLabel(o.measures[0]) << '\n'
            << "n              " << r.n << '\n'
            << "B              " << r.resamples << '\n'
            << "size           " << r.sampleSize << '\n'
            << "seed           " << r.seed << '\n'
            << "observed mean  " << formatValue(r.observedMean) << '\n'
            << "bootstrap mean " << formatValue(r.mean) << '\n'
            << "variance       " << std::scientific << std::setprecision(6) << r.variance
            << std::defaultfloat << '\n'
            << "std error      " << formatValue(r.standardError, 6) << '\n'
            << "CI " << formatValue(r.level * 100, 1) << "% "
            << (o.bca ? "BCa       " : "percentile") << " [" << formatValue(r.ci.low) << ", "
            << formatValue(r.ci.high) << "]\n";
  if (o.histogramBins > 0) {
    std::size_t peak = 1;
    for (auto c : h.counts) peak = std::max(peak, c);
    for (std::size_t i = 0; i < h.counts.size(); ++i)
      std::cout << formatValue(h.binLow(i)) << ' ' << std::setw(7) << h.counts[i] << ' '
                << std::string(h.counts[i] * 50 / peak, '#') << '\n';
  }
  return 0;
}

}  // namespace ragscope::cli
