// ragscope-cli compare: paired comparisons of runs (core/stats/paired.h) with Holm-adjusted p,
// over the inputs core loads for the statistics commands (core/eval/inputs/statsinputs.h).

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
#include "core/stats/multiple.h"
#include "core/stats/paired.h"

namespace ragscope::cli {

using namespace ragscope::core;
using namespace ragscope::core::stats;

int compareCommand(const Args& args) {
  StatsOptions o;
  CommandLine cli("compare");
  declareStatsOptions(cli, o, StatsCommand::Compare);
  eval::StatsInputs inputs;
  if (auto exit = prepareStats(args, cli, o, 2, 1000, inputs)) return *exit;

  struct Row {
    std::string a, b, measure;
    PairedResult r;
  };
  std::vector<Row> rows;
  for (const std::string& m : o.measures) {
    for (std::size_t i = 0; i < o.files.size(); ++i) {
      for (std::size_t k = i + 1; k < o.files.size(); ++k) {
        const QueryValues* va = statsValues(inputs, i, m);
        const QueryValues* vb = statsValues(inputs, k, m);
        if (!va || !vb) return 2;
        PairedOptions po = resamplingOptions<PairedOptions>(o, 10000);
        po.permutations = o.permutations;
        po.method = o.bca ? CiMethod::Bca : CiMethod::Percentile;
        po.keepDistribution = false;
        rows.push_back({o.files[i], o.files[k], eval::statsMeasureLabel(m),
                        comparePaired(alignByQid(*va, *vb), po)});
      }
    }
  }
  std::vector<double> pr, pt;
  for (const auto& row : rows) {
    pr.push_back(row.r.randomization.p);
    pt.push_back(row.r.ttest.p);
  }
  const auto prHolm = holmAdjust(pr);
  const auto ptHolm = holmAdjust(pt);

  int rc = 0;
  for (const auto& row : rows) {
    if (!row.r.ok()) {
      std::cerr << "ragscope-cli compare: " << row.a << " vs " << row.b << ": " << row.r.error
                << '\n';
      rc = 1;
    }
    if (row.r.unaligned())
      std::cerr << "ragscope-cli compare: " << row.r.unaligned() << " unaligned queries (only in "
                << row.a << ": " << joinedIds(row.r.onlyInA) << "; only in " << row.b << ": "
                << joinedIds(row.r.onlyInB) << ")\n";
  }

  if (o.json) {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const PairedResult& r = rows[i].r;
      nlohmann::ordered_json j;
      j["n"] = r.n;
      j["unaligned"] = r.unaligned();
      j["mean_diff"] = r.meanDiff;
      j["ci_low"] = r.ci.low;
      j["ci_high"] = r.ci.high;
      j["p_randomization"] = r.randomization.p;
      j["p_ttest"] = r.ttest.p;
      j["wins"] = r.wins;
      j["ties"] = r.ties;
      j["losses"] = r.losses;
      j["a"] = rows[i].a;
      j["b"] = rows[i].b;
      j["measure"] = rows[i].measure;
      j["mean_a"] = r.meanA;
      j["mean_b"] = r.meanB;
      j["t"] = r.ttest.t;
      j["randomization_exact"] = r.randomization.exact;
      j["permutations"] = r.randomization.permutations;
      j["seed"] = o.seed;
      j["level"] = o.level;
      j["p_randomization_holm"] = prHolm[i];
      j["p_ttest_holm"] = ptHolm[i];
      j["only_in_a"] = r.onlyInA;
      j["only_in_b"] = r.onlyInB;
      all.push_back(std::move(j));
    }
    exporting::writeJson(std::cout, rows.size() == 1 ? all[0] : all);
    return rc;
  }
  const bool many = rows.size() > 1;
  std::cout << "A minus B, paired on shared qids; CI " << formatValue(o.level * 100, 1) << "% "
            << (o.bca ? "BCa" : "percentile") << " (B " << (o.resamples ? o.resamples : 10000)
            << "), randomization test (" << o.permutations << " sign flips unless exact), seed "
            << o.seed << (many ? "; Holm-adjusted p in parentheses" : "") << '\n';
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const PairedResult& r = rows[i].r;
    std::cout << '\n'
              << "A " << rows[i].a << "\nB " << rows[i].b << "\nmeasure " << rows[i].measure << '\n'
              << "  n " << r.n << "  unaligned " << r.unaligned() << "  W/T/L " << r.wins << '/'
              << r.ties << '/' << r.losses << '\n'
              << "  mean A " << formatValue(r.meanA) << "  mean B " << formatValue(r.meanB)
              << "  diff " << formatValue(r.meanDiff) << "  CI [" << formatValue(r.ci.low) << ", "
              << formatValue(r.ci.high) << "]\n"
              << "  p randomization " << formatP(r.randomization.p)
              << (r.randomization.exact ? " (exact)" : "")
              << (many ? " (" + formatP(prHolm[i]) + ")" : "") << "  p t-test "
              << formatP(r.ttest.p) << (many ? " (" + formatP(ptHolm[i]) + ")" : "") << "  t "
              << formatValue(r.ttest.t, 3) << '\n';
  }
  return rc;
}

}  // namespace ragscope::cli
