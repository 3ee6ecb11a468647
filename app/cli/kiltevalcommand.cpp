// ragscope-cli kilt-eval (core/eval/kilt/README.md, "KILT evaluation"): KILT's own evaluation of a
// predictions file against a KILT task file, as the KILT leaderboard scores it.

#include <iostream>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/jobinputs.h"
#include "app/cli/options.h"
#include "core/eval/kilt/kilteval.h"
#include "core/export/json.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;

constexpr const char* kKiltEvalIntro =
    R"(KILT's own evaluation (kilt/eval_downstream.py and kilt/eval_retrieval.py) of GUESS, a
predictions file in KILT's format (JSON lines, or pretty-printed JSON objects one after another),
against GOLD, a KILT task file (*-kilt.jsonl). Prints KILT's three groups as KILT names them:
downstream (accuracy, em, f1, rougel), retrieval (Rprec, precision@k, recall@k, success_rate@k
for each k of --ks, over the provenance keys of --rank-keys) and kilt (KILT-accuracy, KILT-em,
KILT-f1, KILT-rougel: downstream counted only where the wikipedia_id R-precision is 1, as KILT
gates them whatever the rank keys). Means are over all gold items.
)";

constexpr const char* kKiltEvalEpilogue =
    R"(KILT's rules: predictions are matched to gold by str(id).strip() (1 and "1" are one id);
gold and prediction ids must be unique and each prediction must have exactly one output (else an
error naming file and line); prediction ids not in gold are ignored (a warning names them); an
empty answer scores 0 in downstream and kilt. Accuracy is KILT's strict accuracy (stripped texts
equal, so a FEVER label "supports" or an entity title in other case scores 0 while em, which
normalises, scores 1). KILT stops on a gold id without a prediction; here it is scored as an empty
prediction (0 everywhere, counted in n) and named in a warning, unless --strict-ids.
KILT reports recall@k and success_rate@k only for k > 1; here they are given for every k.

-q prints one line per item and metric, "metric<TAB>id<TAB>value" (trec_eval -q layout), then the
means as "metric<TAB>all<TAB>value": bootstrap, compare and correlate read it, so two systems'
KILT scores get paired tests (compare a.q b.q --measure KILT-em).
Exit codes: 0 ok, 2 usage or input errors (file:line: field: problem on stderr).
)";

}  // namespace

int kiltEvalCommand(const Args& args) {
  std::vector<std::string> files;
  std::string ksText = "1,5", keysText = "wikipedia_id";
  bool asJson = false, perItem = false, strictIds = false;
  std::size_t resamples = 0;
  std::uint64_t seed = 42;
  CommandLine cli("kilt-eval");
  cli.synopsis(
      "GOLD GUESS [--ks 1,5] [--rank-keys wikipedia_id[,section|,start_paragraph_id,"
      "end_paragraph_id]] [--json] [--B N] [-q]");
  cli.intro(kKiltEvalIntro);
  cli.positionals("GOLD GUESS", files, 2);
  cli.positionalRoles({{PathRole::Input, "GOLD"}, {PathRole::Input, "GUESS"}});
  cli.text("--ks", "K,K...", ksText,
           "cut-offs of precision@k, recall@k and success_rate@k (default 1,5, as KILT's "
           "eval_downstream)");
  cli.text("--rank-keys", "KEY,KEY...", keysText,
           "provenance keys a page is identified by in the retrieval group, joined by \"+\": "
           "wikipedia_id (default, page level), wikipedia_id,section, or "
           "wikipedia_id,start_paragraph_id,end_paragraph_id");
  cli.flag("--json", asJson,
           "one JSON object: {\"downstream\": {...}, \"retrieval\": {...}, \"kilt\": {...}, "
           "\"n\", \"settings\"}; with --B also \"ci\": {group: {metric: [low, high]}} and "
           "\"resamples\"; with -q also \"per_item\": {id: {metric: value}}");
  cli.integer("--B", "N", resamples, 2, 1'000'000,
              "a percentile bootstrap 95% CI of each mean from N resamples of the per-item "
              "values",
              "no CIs");
  cli.integer("--seed", "S", seed, 0, UINT64_MAX, "bootstrap seed (default 42)");
  cli.flag("-q, --per-item", perItem,
           "per-item values: metric<TAB>id<TAB>value lines (with --json: a per_item object)");
  cli.flag("--strict-ids", strictIds,
           "a gold id without a prediction is an error, as in KILT (default: scored 0 with a "
           "warning)");
  cli.epilogue(kKiltEvalEpilogue);
  if (auto exit = cli.parse(args)) return *exit;
  if (files.size() != 2) return cli.usageError("kilt-eval needs GOLD and GUESS");

  eval::KiltEvalOptions options;
  if (auto problem = eval::parseKiltKs(ksText, options.ks); !problem.empty())
    return cli.usageError("--ks: " + problem);
  if (auto problem = eval::parseKiltRankKeys(keysText, options.rankKeys); !problem.empty())
    return cli.usageError("--rank-keys: " + problem);
  options.resamples = resamples;
  options.seed = seed;
  options.strictIds = strictIds;

  auto loaded = eval::evaluateKiltFiles(files[0], files[1], options);
  printLoadDiagnostics(loaded.report);
  if (!loaded.report.ok() || loaded.report.hasErrors()) {
    std::cerr << "ragscope-cli: kilt-eval: " << files[1] << " cannot be scored against " << files[0]
              << "\n";
    return 2;
  }
  const auto& e = loaded.value;
  if (asJson)
    exporting::writeJson(std::cout, eval::kiltEvaluationJson(e, perItem), 2);
  else if (perItem)
    std::cout << eval::kiltPerItemText(e);
  else
    std::cout << eval::kiltEvaluationText(e);
  return 0;
}

}  // namespace ragscope::cli
