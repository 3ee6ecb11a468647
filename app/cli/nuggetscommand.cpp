// ragscope-cli nuggets score (core/trecrag/README.md, "Nuggets"): the AutoNuggetizer's four
// scores of a file of assigned nuggets in nuggetizer's JSONL layout, per query and their means.

#include <iostream>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/jobinputs.h"
#include "app/cli/options.h"
#include "core/export/json.h"
#include "core/trecrag/nuggetfile.h"
#include "core/trecrag/nuggetscore.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;

constexpr const char* kScoreIntro =
    R"(Scores a file of assigned nuggets in nuggetizer's JSONL layout (one object per query: qid, query,
nuggets: [{text, importance: vital|okay, assignment: support|partial_support|not_support}]) as
the AutoNuggetizer (nuggetizer's calculate_nugget_scores) does:
  strict_vital  supported vital nuggets / vital nuggets
  strict_all    supported nuggets / all nuggets
  vital, all    the same with partial_support counted 0.5
A query without a vital nugget scores 0 on strict_vital and vital, one without nuggets 0 on all
four; the means are plain means over the queries. No LLM is called.
)";

constexpr const char* kScoreEpilogue =
    R"(The text output is trec_eval's layout (measure, qid, value; the means under qid `all`). An unknown
importance or assignment, a qid given twice, or any other departure from the layout is an error
(file:line: field: problem), never a 0. Exit codes: 0 ok, 2 usage or input errors.
)";

int scoreCommand(const Args& args) {
  std::vector<std::string> files;
  bool perQuery = false, asJson = false;
  CommandLine cli("nuggets score");
  cli.synopsis("FILE [-q] [--json]");
  cli.intro(kScoreIntro);
  cli.epilogue(kScoreEpilogue);
  cli.positionals("FILE", files, 1);
  cli.positionalRoles({{PathRole::Input, "FILE"}});
  cli.flag("-q", perQuery, "also print each query's four scores (before the means)");
  cli.flag("--json", asJson,
           "{\"queries\": [{\"qid\", \"strict_vital\", \"strict_all\", \"vital\", \"all\"}] "
           "(every query, file order), \"mean\": {the same four}, \"n\"}");
  if (auto exit = cli.parse(args, 2)) return *exit;
  if (files.empty()) return cli.usageError("nuggets score needs a FILE of assigned nuggets");
  auto file = trecrag::readAssignedNuggets(files.front());
  printLoadDiagnostics(file.report);
  if (!file.report.ok() || file.report.hasErrors()) {
    std::cerr << "ragscope-cli nuggets score: " << files.front() << " cannot be scored ("
              << file.report.errors << " error(s))\n";
    return 2;
  }
  const auto table = trecrag::scoreNuggetQueries(file.value);
  if (asJson)
    exporting::writeJson(std::cout, trecrag::nuggetScoresJson(table), 2);
  else
    std::cout << trecrag::formatNuggetScores(table, perQuery);
  return 0;
}

constexpr const char* kNuggetsHelp =
    "usage: ragscope-cli nuggets score FILE [-q] [--json]\n\n"
    "Nugget evaluation (core/trecrag/README.md). Subcommands:\n"
    "  score    the AutoNuggetizer's four scores (strict_vital, strict_all, vital, all) of a\n"
    "           file of assigned nuggets in nuggetizer's JSONL layout\n"
    "Run 'ragscope-cli nuggets score --help' for its options.\n";

}  // namespace

int nuggetsCommand(const Args& args) {
  auto usageError = [](const std::string& message) {
    std::cerr << "ragscope-cli nuggets: " << message << "\n"
              << "Run 'ragscope-cli nuggets --help' for usage.\n";
    return 2;
  };
  if (args.size() < 2) return usageError("missing subcommand (expected score)");
  const std::string sub = args[1];
  if (sub == "--help" || sub == "-h") {
    std::cout << kNuggetsHelp;
    return 0;
  }
  if (sub == "score") return scoreCommand(args);
  return usageError("unknown subcommand '" + sub + "' (expected score)");
}

}  // namespace ragscope::cli
