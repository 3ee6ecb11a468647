// ragscope-cli labels (core/labels/README.md): the project's human labels exported (TREC qrels,
// the qid,label CSV of `agreement`, JSONL), imported (all or nothing, targets checked against the
// project's runs and datasets), listed and counted.

#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/jobinputs.h"
#include "app/cli/options.h"
#include "app/cli/pathroles.h"
#include "core/data/loaders.h"
#include "core/eval/inputs/labelsources.h"
#include "core/export/json.h"
#include "core/labels/labelcatalog.h"
#include "core/labels/labelio.h"
#include "core/labels/labelscope.h"
#include "core/labels/labelstore.h"
#include "core/util/atomicfile.h"
#include "core/util/inputfile.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;
using namespace ragscope::core::labels;

constexpr const char* kLabelsSubs = "'export', 'import', 'list' or 'summary'";

const char* kLabelsOptionHelp =
    "a project file (*.json: its labels store, PROJECT.labels.db beside it) or a labels store";

int labelsFail(const std::string& sub, const std::string& message) {
  std::cerr << "ragscope-cli: labels " << sub << ": " << message << "\n";
  return 2;
}

std::optional<TargetKind> kindOption(const std::string& name) {
  if (name.empty()) return std::nullopt;
  return targetKindFromName(name);
}

const std::vector<std::string> kKindChoices = {"claim", "answer", "relevance", "erag"};

int exportCommand(const Args& args) {
  std::string labelsPath, format, kind, annotator, scope, mergeQrels, outPath;
  CommandLine cli("labels export");
  cli.synopsis(
      "--labels PROJECT_OR_LABELS_STORE --format qrels|csv|jsonl [--kind K] [--annotator A] "
      "[--scope S] [--merge-qrels DATASET_QRELS] --out FILE");
  cli.intro(
      "Writes the current labels (the latest of each annotator per target) as TREC qrels "
      "(relevance grades), as the qid,label CSV `ragscope-cli agreement --human` reads (answer "
      "labels; qid,item,label for the other kinds) or as JSONL with every field.\n");
  cli.path("--labels", "PATH", labelsPath, kLabelsOptionHelp)
      .input(labelsSourcePaths("--labels", PathUse::Read));
  cli.choice("--format", {"qrels", "csv", "jsonl"}, format, "the file's layout");
  cli.choice("--kind", kKindChoices, kind,
             "only labels of this kind (csv: default answer; qrels: relevance)");
  cli.text("--annotator", "A", annotator, "only this annotator's labels");
  cli.text("--scope", "S", scope,
           "only labels of this run store or dataset (needed for csv and qrels when the labels "
           "have several)");
  cli.path("--merge-qrels", "QRELS", mergeQrels,
           "qrels: start from the dataset's qrels file; a pair graded differently by a person is "
           "a conflict, listed on stderr, and the person's grade is written")
      .input();
  cli.path("--out", "FILE", outPath, "where to write (replaced atomically)").output();
  cli.epilogue("Exit codes: 0 ok, 2 bad arguments or input.");
  if (auto exit = cli.parse(args, 2)) return *exit;
  if (labelsPath.empty() || format.empty() || outPath.empty())
    return cli.usageError("export needs --labels, --format and --out");
  if (!mergeQrels.empty() && format != "qrels")
    return cli.usageError("--merge-qrels goes with --format qrels");
  LabelStore store;
  std::string error;
  if (!store.openProjectOrStore(labelsPath, true, &error)) return labelsFail("export", error);
  LabelFilter filter{kindOption(kind), scope, annotator};
  std::optional<Qrels> qrels;
  if (!mergeQrels.empty()) {
    auto loaded = readTrecQrels(mergeQrels, LoadOptions{});
    if (!loaded.report.ok() || loaded.report.hasErrors()) {
      printLoadDiagnostics(loaded.report);
      return labelsFail("export", mergeQrels + " cannot be used");
    }
    qrels = std::move(loaded.value);
  }
  const LabelExport out = exportLabels(store.current(), *labelFileFormatFromName(format), filter,
                                       qrels ? &*qrels : nullptr);
  if (!out.ok()) return labelsFail("export", out.error);
  if (!writeBytesAtomically(outPath, out.text, &error, FileAccess::Private))
    return labelsFail("export", error);
  for (const auto& c : out.conflicts)
    std::cerr << "conflict: query " << c.qid << ", document " << c.doc << ": qrels grade "
              << c.qrelsGrade << ", " << c.annotator << " graded " << c.humanGrade
              << " (written)\n";
  for (const auto& note : out.notes) std::cerr << "note: " << note << "\n";
  std::cout << out.rows << " rows written to " << outPath;
  if (qrels) std::cout << " (" << out.conflicts.size() << " conflicts with the qrels)";
  std::cout << "\n";
  return 0;
}

int importCommand(const Args& args) {
  std::string labelsPath, format, kind, annotator, scope;
  std::vector<std::string> files, stores;
  bool noCheck = false;
  CommandLine cli("labels import");
  cli.synopsis(
      "--labels PROJECT_OR_LABELS_STORE --format qrels|csv|jsonl FILE [--annotator A] "
      "[--scope S] [--kind K] [--store RUN.db]... [--no-check]");
  cli.intro(
      "Adds the labels of FILE to the labels store in one transaction: all of them, or none "
      "when any is refused (file:line: field: problem). A target labelled twice by one "
      "annotator in the file is refused. With a project, every target is checked against the "
      "project's run stores and datasets (a query, claim or document that does not exist is "
      "refused); with a labels store, against the --store run stores given, or not at all.\n");
  cli.path("--labels", "PATH", labelsPath, kLabelsOptionHelp)
      .input(labelsSourcePaths("--labels", PathUse::ReadAndWritten));
  cli.choice("--format", {"qrels", "csv", "jsonl"}, format,
             "qrels: qid iter docno grade (needs --annotator and --scope = the dataset's "
             "name); csv: qid,label or qid,item,label (needs --annotator, --scope and --kind, "
             "default answer); jsonl: one label per line with its fields");
  cli.text("--annotator", "A", annotator, "who labelled (JSONL: where a line has none)");
  cli.text("--scope", "S", scope,
           "the run store (its path as the project lists it, relative to the project's folder) or "
           "dataset the labels are about");
  cli.choice("--kind", kKindChoices, kind, "the labels' kind (csv; JSONL: where a line has none)");
  cli.paths("--store", "RUN.db", stores, "check targets against this run store (repeatable)")
      .input();
  cli.flag("--no-check", noCheck, "do not check targets against the project's runs and datasets");
  cli.positionals("FILE", files, 1);
  cli.positionalRoles({{PathRole::Input, "FILE"}});
  cli.epilogue("Exit codes: 0 ok, 2 bad arguments or input (nothing is stored).");
  if (auto exit = cli.parse(args, 2)) return *exit;
  if (labelsPath.empty() || format.empty() || files.empty())
    return cli.usageError("import needs --labels, --format and FILE");
  LabelImportOptions options;
  options.annotator = annotator;
  options.scope = scope;
  options.kind = kindOption(kind);
  const LabelFileFormat fileFormat = *labelFileFormatFromName(format);
  // The file is read twice, in bounded memory: checked whole first (before the project's runs
  // and datasets are read or the store is opened, so a bad line changes and creates nothing),
  // then stored piece by piece in one transaction (importLabelsFile).
  if (isStdinPath(files[0]))
    return labelsFail("import",
                      "FILE must be a named file (it is read twice: checked, then "
                      "stored); nothing was stored");
  bool anyRelevance = false;
  const LabelStreamResult checked =
      streamLabelsFile(files[0], fileFormat, options, [&](LabelPiece& piece) {
        for (const auto& l : piece.labels) anyRelevance |= l.target.kind == TargetKind::Relevance;
        return std::optional<LabelPieceProblem>();
      });
  if (!checked.ok()) return labelsFail("import", checked.error + "; nothing was stored");
  std::string error;
  LabelCatalog catalog;
  std::function<void(std::vector<Label>&)> prepare;
  if (!noCheck) {
    auto sources = std::make_shared<LabelSources>();
    // A scope names a store by its path, relative ones read from the labels store's folder
    // (the project's); never by file name alone (core/labels/labelscope.h).
    const std::filesystem::path labelsFile =
        std::filesystem::path(labelsPath).extension() == ".json"
            ? labelsStorePath(labelsPath)
            : std::filesystem::path(labelsPath);
    sources->folder = labelsFolder(labelsFile);
    bool any = false;
    if (std::filesystem::path(labelsPath).extension() == ".json") {
      const bool needDatasets = anyRelevance;
      if (!eval::readProjectFileLabelSources(labelsPath, needDatasets, *sources, &error))
        return labelsFail("import", error + "; nothing was stored");
      any = true;
    }
    for (const auto& s : stores) {
      RunSource run;
      if (!eval::readLabelRunSource(s, scopeOfStore(sources->folder, s), run, &error))
        return labelsFail("import", error);
      sources->runs.push_back(std::move(run));
      any = true;
    }
    if (any) {
      prepare = [sources](std::vector<Label>& labels) { adoptSourceScopes(labels, *sources); };
      catalog = makeLabelCatalog(sources);
    }
  }
  LabelStore store;
  if (!store.openProjectOrStore(labelsPath, false, &error)) return labelsFail("import", error);
  const LabelFileImport done =
      importLabelsFile(store, files[0], fileFormat, options, catalog, prepare);
  if (!done.ok()) return labelsFail("import", done.error + "; nothing was stored");
  std::cout << done.added << " labels added to " << store.path().string()
            << (catalog ? "" : " (targets not checked)") << "\n";
  return 0;
}

int listCommand(const Args& args, bool summary) {
  std::string labelsPath, kind, annotator;
  bool history = false, asJson = false;
  CommandLine cli(summary ? "labels summary" : "labels list");
  cli.synopsis(summary ? "--labels PROJECT_OR_LABELS_STORE [--json]"
                       : "--labels PROJECT_OR_LABELS_STORE [--kind K] [--annotator A] "
                         "[--history] [--json]");
  cli.intro(summary ? "Counts of the current labels per kind, scope and annotator, and of every "
                      "row the store holds.\n"
                    : "The current labels (the latest of each annotator per target), or with "
                      "--history every row ever added, oldest first.\n");
  cli.path("--labels", "PATH", labelsPath, kLabelsOptionHelp)
      .input(labelsSourcePaths("--labels", PathUse::Read));
  if (!summary) {
    cli.choice("--kind", kKindChoices, kind, "only labels of this kind");
    cli.text("--annotator", "A", annotator, "only this annotator's labels");
    cli.flag("--history", history, "every row, earlier labels included");
  }
  cli.flag("--json", asJson,
           summary ? "{\"rows\", \"current\", \"annotators\", \"counts\": "
                     "[{\"kind\", \"scope\", \"annotator\", \"labels\"}]}"
                   : "one JSON array of labels");
  if (auto exit = cli.parse(args, 2)) return *exit;
  if (labelsPath.empty()) return cli.usageError("needs --labels");
  LabelStore store;
  std::string error;
  if (!store.openProjectOrStore(labelsPath, true, &error))
    return labelsFail(summary ? "summary" : "list", error);
  const std::vector<Label> current = store.current();
  if (summary) {
    std::map<std::tuple<std::string, std::string, std::string>, std::size_t> counts;
    for (const auto& l : current)
      ++counts[{std::string(targetKindName(l.target.kind)), l.target.scope, l.annotator}];
    if (asJson) {
      nlohmann::ordered_json doc;
      doc["rows"] = store.rowCount();
      doc["current"] = current.size();
      doc["annotators"] = store.annotators();
      auto list = nlohmann::ordered_json::array();
      for (const auto& [key, n] : counts)
        list.push_back({{"kind", std::get<0>(key)},
                        {"scope", std::get<1>(key)},
                        {"annotator", std::get<2>(key)},
                        {"labels", n}});
      doc["counts"] = std::move(list);
      exporting::writeJson(std::cout, doc, 2);
      return 0;
    }
    std::cout << store.path().string() << ": " << current.size() << " current labels, "
              << store.rowCount() << " rows, " << store.annotators().size() << " annotators\n";
    for (const auto& [key, n] : counts)
      std::cout << "  " << std::get<0>(key) << "  " << std::get<1>(key) << "  " << std::get<2>(key)
                << "  " << n << "\n";
    return 0;
  }
  LabelFilter filter{kindOption(kind), {}, annotator};
  std::vector<Label> rows = history ? store.history() : current;
  std::erase_if(rows, [&](const Label& l) { return !filter.accepts(l); });
  if (asJson) {
    auto list = nlohmann::ordered_json::array();
    for (const auto& l : rows)
      list.push_back({{"id", l.id},
                      {"kind", std::string(targetKindName(l.target.kind))},
                      {"scope", l.target.scope},
                      {"qid", l.target.qid},
                      {"item", l.target.item},
                      {"premise", l.target.claimPremise()
                                      ? nlohmann::ordered_json(
                                            std::string(claimPremiseName(*l.target.claimPremise())))
                                      : nlohmann::ordered_json(nullptr)},
                      {"value", l.value},
                      {"annotator", l.annotator},
                      {"time", l.time},
                      {"comment", l.comment},
                      {"context", l.context}});
    exporting::writeJson(std::cout, list, 2);
    return 0;
  }
  for (const auto& l : rows)
    std::cout << l.id << "\t" << targetKindName(l.target.kind) << "\t" << l.target.scope << "\t"
              << l.target.qid << "\t" << l.target.item << "\t"
              << (l.target.claimPremise() ? claimPremiseName(*l.target.claimPremise()) : "") << "\t"
              << l.value << "\t" << l.annotator << "\t" << l.time << "\n";
  return 0;
}

}  // namespace

int labelsCommand(const Args& args) {
  auto usageError = [](const std::string& message) {
    std::cerr << "ragscope-cli labels: " << message << "\n"
              << "Run 'ragscope-cli labels --help' for usage.\n";
    return 2;
  };
  if (args.size() < 2)
    return usageError(std::string("missing subcommand (expected ") + kLabelsSubs + ")");
  const std::string sub = args[1];
  if (sub == "--help" || sub == "-h") {
    std::cout << "usage: ragscope-cli labels export|import|list|summary [options]\n\n"
                 "The project's human labels (core/labels/README.md). Run 'ragscope-cli labels "
                 "SUBCOMMAND --help' for each one's options.\n";
    return 0;
  }
  if (sub == "export") return exportCommand(args);
  if (sub == "import") return importCommand(args);
  if (sub == "list") return listCommand(args, false);
  if (sub == "summary") return listCommand(args, true);
  return usageError("unknown subcommand '" + sub + "' (expected " + kLabelsSubs + ")");
}

}  // namespace ragscope::cli
