#include "core/eval/reports/resultsreport.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>

#include "core/claims/labels.h"
#include "core/data/dataset.h"
#include "core/eval/jobs/claimverdicts.h"
#include "core/eval/jobs/e2ejob.h"
#include "core/eval/jobs/eragjob.h"
#include "core/eval/jobs/judgejob.h"
#include "core/eval/kilt/kiltreport.h"
#include "core/eval/reports/humanlabelsreport.h"
#include "core/labels/labelstore.h"
#include "core/stats/paired.h"
#include "core/store/project.h"
#include "core/store/runstore.h"
#include "core/util/urlredact.h"

namespace ragscope::core::eval {

namespace fs = std::filesystem;
using exporting::ReportMetric;
using exporting::ReportRun;
using exporting::ReportValue;

namespace {

std::optional<double> finite(double v) {
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

std::string text(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return {};
  return it->is_string() ? it->get<std::string>() : it->dump();
}

std::string numberText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

// A metric's summary from its per-query values (complete queries only) and its interval.
ReportMetric summarize(const std::string& name, const std::vector<double>& values,
                       std::size_t total, const stats::BootstrapOptions& bootstrap) {
  ReportMetric m;
  m.name = name;
  m.n = values.size();
  m.scored = values.size();
  m.total = total;
  m.incomplete = total - std::min(total, values.size());
  if (values.empty()) return m;
  double sum = 0;
  for (const double v : values) sum += v;
  m.mean = sum / static_cast<double>(values.size());
  if (bootstrap.resamples > 0 && values.size() > 1) {
    stats::BootstrapOptions b = bootstrap;
    b.keepDistribution = false;
    const auto r = stats::bootstrap(values, b);
    m.ciLow = finite(r.ci.low);
    m.ciHigh = finite(r.ci.high);
  }
  return m;
}

// What every LLM-made run records: the model that answered and the template it was asked with.
void llmMethod(ReportRun& run, const store::RunRecord& record,
               const stats::BootstrapOptions& bootstrap) {
  // A store made before URLs were recorded without their credentials may still hold them.
  const std::string base = redactUrl(text(record.endpoint, "base_url"));
  const std::string model = text(record.endpoint, "model");
  run.method.emplace_back("model", model.empty()  ? base
                                   : base.empty() ? model
                                                  : model + " at " + base);
  const bool named = std::any_of(run.notes.begin(), run.notes.end(), [](const std::string& n) {
    return n.find("heuristic") != std::string::npos;
  });
  if (base == "offline" && !named)
    run.notes.push_back("answered by the offline heuristic provider, not by an LLM");
  run.method.emplace_back("template hash", record.templateHash);
  if (const std::string seed = text(record.endpoint, "seed"); !seed.empty())
    run.method.emplace_back("seed", seed);
  run.method.emplace_back("bootstrap", std::to_string(bootstrap.resamples) + " resamples, seed " +
                                           std::to_string(bootstrap.seed) + ", percentile 95% CI");
  run.method.emplace_back("status", record.status);
}

ReportRun eragRun(store::RunStore& store, const stats::BootstrapOptions& bootstrap,
                  std::string* error) {
  ReportRun run;
  const EragReport r = computeEragReport(store, {}, bootstrap);
  if (!r.error.empty()) {
    *error = r.error;
    return run;
  }
  const auto& agg = r.aggregate;
  const std::size_t total = r.queries.size();
  for (std::size_t m = 0; m < agg.measures.size(); ++m) {
    ReportMetric metric = summarize(agg.measures[m], agg.values[m], total, {});
    if (m < r.intervals.size() && r.intervals[m].resamples > 0) {
      metric.ciLow = finite(r.intervals[m].ci.low);
      metric.ciHigh = finite(r.intervals[m].ci.high);
    }
    run.metrics.push_back(std::move(metric));
  }
  // Per query in plan order: the complete ones have values; the others say why not.
  std::map<std::string, std::size_t> complete;
  for (std::size_t i = 0; i < agg.qids.size(); ++i) complete.emplace(agg.qids[i], i);
  for (std::size_t q = 0; q < r.queries.size(); ++q) {
    const auto& pq = r.queries[q];
    const auto it = complete.find(pq.qid);
    for (std::size_t m = 0; m < agg.measures.size(); ++m) {
      if (it != complete.end())
        run.values.push_back(
            {pq.qid, agg.measures[m], finite(agg.values[m][it->second]), "scored"});
      else
        run.values.push_back({pq.qid, agg.measures[m], std::nullopt, "incomplete"});
    }
    for (std::size_t k = 0; k < pq.docIds.size(); ++k) {
      exporting::ReportDocument d;
      d.qid = pq.qid;
      d.rank = k + 1;
      d.docId = pq.docIds[k];
      if (q < r.labels.size() && k < r.labels[q].size()) d.label = r.labels[q][k];
      if (q < r.outputs.size() && k < r.outputs[q].size()) d.output = r.outputs[q][k];
      run.documents.push_back(std::move(d));
    }
  }
  run.conventions.push_back(
      "Each retrieved document is given alone to the RAG's LLM; its output is scored against the "
      "gold answers with " +
      r.metricKey + (agg.binary ? " (binary labels)" : " (continuous labels)") +
      ", and the labels are aggregated by ranking measures (eRAG).");
  if (!r.incomplete.empty())
    run.notes.push_back(std::to_string(r.incomplete.size()) + " of " + std::to_string(total) +
                        " queries have a document without an output and are left out of the means");
  if (r.heuristicOutputs > 0)
    run.notes.push_back(std::to_string(r.heuristicOutputs) +
                        " outputs come from the offline heuristic reader");
  run.method.emplace_back("downstream metric", r.metricKey);
  return run;
}

ReportRun e2eRun(store::RunStore& store, const stats::BootstrapOptions& bootstrap,
                 std::string* error) {
  ReportRun run;
  const E2eReport r = computeE2eReport(store, bootstrap);
  if (!r.error.empty()) {
    *error = r.error;
    return run;
  }
  ReportMetric m = summarize(r.metricKey, r.values, r.queries.size(), {});
  if (r.interval.resamples > 0 && !r.values.empty()) {
    m.ciLow = finite(r.interval.ci.low);
    m.ciHigh = finite(r.interval.ci.high);
  }
  run.metrics.push_back(std::move(m));
  for (std::size_t q = 0; q < r.queries.size(); ++q) {
    const bool has = q < r.scores.size() && r.scores[q];
    run.values.push_back({r.queries[q].qid, r.metricKey, has ? r.scores[q] : std::nullopt,
                          has ? "scored" : "incomplete"});
  }
  run.conventions.push_back(
      "The RAG's answer from its top documents is scored against the gold answers with " +
      r.metricKey + " (end-to-end).");
  if (!r.incomplete.empty())
    run.notes.push_back(std::to_string(r.incomplete.size()) +
                        " queries have no answer yet and are left out of the mean");
  if (r.heuristicOutputs > 0)
    run.notes.push_back(std::to_string(r.heuristicOutputs) +
                        " answers come from the offline heuristic reader");
  run.method.emplace_back("downstream metric", r.metricKey);
  return run;
}

std::string verdictName(claims::Label l) {
  std::string s(claims::labelName(l));
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s == "entailment" ? "supported" : s;
}

void claimRow(ReportRun& run, const JudgedQuery& q, const char* side, std::size_t i,
              const std::string& claim, const char* premise, const char* premiseKey,
              std::optional<claims::Label> label) {
  if (!label) return;
  exporting::ReportClaim c;
  c.qid = q.qid;
  c.side = side;
  c.index = i + 1;
  c.claim = claim;
  c.premise = premise;
  c.verdict = verdictName(*label);
  if (premiseKey) {
    const ClaimVotes votes = claimVotes(q, premiseKey, i);
    for (const auto v : votes.votes) {
      if (!c.repeats.empty()) c.repeats += ' ';
      c.repeats += claims::isResolved(v) ? (claims::isSupported(v) ? "1" : "0") : "?";
    }
    c.flipped = votes.flipped;
  }
  run.claims.push_back(std::move(c));
}

ReportRun judgeRun(const fs::path& path, const stats::BootstrapOptions& bootstrap,
                   std::string* error) {
  ReportRun run;
  const JudgeReport r = readJudgeReport(path, bootstrap);
  if (!r.error.empty()) {
    *error = r.error;
    return run;
  }
  run.mode = std::string(judgeModeName(r.settings.mode));
  for (const auto& s : r.metrics) {
    ReportMetric m;
    m.name = s.name;
    m.mean = finite(s.mean);
    if (s.ci95) {
      m.ciLow = finite(s.ci95->low);
      m.ciHigh = finite(s.ci95->high);
    }
    m.n = s.queries;
    m.total = r.queries.size();
    m.scored = s.scored;
    m.unparsed = s.unparsed;
    m.errors = s.errors;
    m.empty = s.empty;
    run.metrics.push_back(std::move(m));
  }
  for (const auto& q : r.queries) {
    if (!q.question.empty()) run.questions.emplace(q.qid, q.question);
    for (std::size_t m = 0; m < r.metrics.size() && m < q.values.size(); ++m) {
      const auto& v = q.values[m];
      run.values.push_back({q.qid, r.metrics[m].name, v.value ? finite(*v.value) : std::nullopt,
                            std::string(claims::stateName(v.state))});
    }
    const bool matrix = hasClaimChunkMatrix(q);
    for (std::size_t i = 0; i < q.responseClaims.claims.size(); ++i) {
      const auto& claim = q.responseClaims.claims[i];
      claimRow(run, q, "response", i, claim, "chunks", "faith", responseClaimVsChunks(q, i));
      claimRow(run, q, "response", i, claim, "gold", "correct", responseClaimVsGold(q, i));
      if (matrix)
        for (std::size_t k = 0; k < q.chunks.size(); ++k)
          claimRow(run, q, "response", i, claim, ("chunk " + std::to_string(k + 1)).c_str(),
                   nullptr, claimVsChunk(q, i, k));
    }
    for (std::size_t i = 0; i < q.goldClaims.claims.size(); ++i) {
      const auto& claim = q.goldClaims.claims[i];
      claimRow(run, q, "gold", i, claim, "response", "cover", goldClaimVsResponse(q, i));
      claimRow(run, q, "gold", i, claim, "chunks", "recall", goldClaimVsChunks(q, i));
    }
  }
  // The evidence of each unsupported response claim: the chunk sharing most of its words.
  for (const auto& u : unsupportedClaims(r)) {
    if (!u.closestChunk) continue;
    const auto& q = r.queries[u.query];
    const std::string& chunk = q.chunks[*u.closestChunk].text;
    std::string excerpt = chunk.size() > 400 ? chunk.substr(0, 400) + "..." : chunk;
    for (auto& c : run.claims)
      if (c.qid == q.qid && c.side == "response" && c.index == u.claim + 1 && c.premise == "chunks")
        c.evidence = "chunk " + std::to_string(*u.closestChunk + 1) + ": " + excerpt;
  }
  run.conventions.push_back(
      "Claims are extracted from each answer and judged " +
      std::string(r.settings.mode == JudgeMode::RagChecker ? "Entailment/Neutral/Contradiction"
                                                           : "SUPPORTED=1/0") +
      " against a premise; a metric is the share of a query's claims supported, over the queries "
      "that have a value in the " +
      run.mode +
      " mode. Unparsed and failed verdicts are counted, "
      "never taken as 0 or 1.");
  if (r.pendingItems > 0)
    run.notes.push_back(std::to_string(r.pendingItems) +
                        " judge calls are not made yet: the figures are partial");
  if (r.heuristic) run.notes.push_back("judged by the offline heuristic judge, not by an LLM");
  run.method.emplace_back("mode", run.mode);
  run.method.emplace_back("repeats", std::to_string(r.settings.repeats));
  if (r.settings.repeats > 1)
    run.method.emplace_back("flip rate", numberText(r.reliability.flipRate) + " over " +
                                             std::to_string(r.reliability.cells) +
                                             " claim verdicts");
  run.method.emplace_back("repairs", std::to_string(r.repairs));
  return run;
}

// Each metric's bootstrap resample means over its per-query values, with the options its
// interval was made with (the same resamples, so the chart shows the interval's distribution).
void keepDistributions(ReportRun& run, const stats::BootstrapOptions& bootstrap) {
  if (bootstrap.resamples == 0) return;
  std::map<std::string, std::vector<double>> values;
  for (const auto& v : run.values)
    if (v.value) values[v.metric].push_back(*v.value);
  for (auto& m : run.metrics) {
    const auto it = values.find(m.name);
    if (!m.ciLow || it == values.end() || it->second.size() < 2) continue;
    stats::BootstrapOptions b = bootstrap;
    b.keepDistribution = true;
    m.distribution = stats::bootstrap(it->second, b).distribution;
  }
}

// The first run of each kind against each later one (a = the first), on the first's main metric.
std::vector<exporting::ReportComparison> compareRuns(const std::vector<ReportRun>& runs,
                                                     const ReportOptions& options) {
  std::vector<exporting::ReportComparison> out;
  std::map<std::string, const ReportRun*> firstOfKind;
  for (const auto& run : runs) {
    auto [it, fresh] = firstOfKind.emplace(run.kind, &run);
    if (fresh) continue;
    const ReportRun& base = *it->second;
    const std::string metric = exporting::mainMetric(base);
    auto valuesOf = [&](const ReportRun& r) {
      stats::QueryValues v;
      for (const auto& x : r.values)
        if (x.metric == metric && x.value) v[x.qid] = *x.value;
      return v;
    };
    const stats::QueryValues a = valuesOf(base), b = valuesOf(run);
    if (metric.empty() || a.empty() || b.empty()) continue;
    const stats::PairedSample sample = stats::alignByQid(a, b);
    if (sample.qids.size() < 2) continue;
    stats::PairedOptions po;
    po.resamples = std::max<std::size_t>(options.bootstrap.resamples, 1);
    po.seed = options.bootstrap.seed;
    po.keepDistribution = options.keepDistributions;
    po.cancel = options.cancel;
    const stats::PairedResult r = stats::comparePaired(sample, po);
    if (!r.ok()) continue;
    exporting::ReportComparison c;
    c.runA = base.name;
    c.runB = run.name;
    c.metric = metric;
    c.n = r.n;
    c.unaligned = r.unaligned();
    c.meanA = r.meanA;
    c.meanB = r.meanB;
    c.meanDiff = r.meanDiff;
    if (options.bootstrap.resamples > 0) {
      c.ciLow = finite(r.ci.low);
      c.ciHigh = finite(r.ci.high);
    }
    c.pRandomization = r.randomization.p;
    c.pT = r.ttest.p;
    c.wins = r.wins;
    c.ties = r.ties;
    c.losses = r.losses;
    c.distribution = r.distribution;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

std::optional<ReportRun> reportOfStore(const fs::path& path,
                                       const stats::BootstrapOptions& bootstrap, std::string* error,
                                       bool distributions) {
  store::RunStore store;
  std::string err;
  if (!store.openReadOnly(path, &err)) {
    if (error) *error = err;
    return std::nullopt;
  }
  const store::RunRecord record = store.run();
  ReportRun run;
  err.clear();
  if (record.kind == "erag") {
    run = eragRun(store, bootstrap, &err);
  } else if (record.kind == kE2eJobKind) {
    run = e2eRun(store, bootstrap, &err);
  } else if (record.kind == kJudgeJobKind) {
    run = judgeRun(path, bootstrap, &err);
  } else {
    err = path.string() + " is a " + (record.kind.empty() ? std::string("unknown") : record.kind) +
          " run: reports cover eRAG, end-to-end and claim-judging runs";
  }
  if (!err.empty()) {
    if (error) *error = err;
    return std::nullopt;
  }
  run.name = path.stem().string();
  run.kind = record.kind;
  run.source = path.string();
  run.settings = record.settings;
  llmMethod(run, record, bootstrap);
  if (distributions) keepDistributions(run, bootstrap);
  return run;
}

ReportRun reportOfRetrieval(const EvalResult& result, const stats::BootstrapOptions& bootstrap,
                            bool distributions) {
  ReportRun run;
  run.name = result.runId.empty() ? fs::path(result.runSource).stem().string() : result.runId;
  run.kind = "retrieval";
  run.source = result.runSource;
  run.conventions = conventionsText(result.settings);
  const std::size_t total = result.queries.size();
  std::vector<std::string> notMeans;
  for (std::size_t c = 0; c < result.columns.size(); ++c) {
    const auto& column = result.columns[c];
    if (!column.numeric() || column.name == "num_q") continue;
    std::vector<double> values;
    for (const auto& q : result.queries)
      if (c < q.values.size()) values.push_back(q.values[c]);
    ReportMetric m = summarize(column.name, values, total, bootstrap);
    // The summary is the figure trec_eval prints. Where that is not the mean of the per-query
    // values (num_ret and the other counts are sums, gm_map a geometric mean) an interval of the
    // mean would not be about it: none is given, and the notes say why.
    if (c < result.all.size() && m.mean) {
      const double printed = result.all[c];
      if (std::abs(printed - *m.mean) > 1e-9 * std::max(1.0, std::abs(printed))) {
        m.ciLow.reset();
        m.ciHigh.reset();
        notMeans.push_back(column.name);
      }
      m.mean = finite(printed);
    }
    run.metrics.push_back(std::move(m));
  }
  if (!notMeans.empty()) {
    std::string list;
    for (const auto& n : notMeans) list += (list.empty() ? "" : ", ") + n;
    run.notes.push_back(list +
                        ": trec_eval's summary is not the mean of the per-query values (a sum or a "
                        "geometric mean), so no bootstrap interval is given");
  }
  for (const auto& q : result.queries)
    for (std::size_t c = 0; c < result.columns.size() && c < q.values.size(); ++c) {
      const auto& name = result.columns[c].name;
      if (!result.columns[c].numeric() || name == "num_q") continue;
      run.values.push_back({q.qid, name, finite(q.values[c]), "scored"});
    }
  if (!result.skippedQueries.empty())
    run.notes.push_back(std::to_string(result.skippedQueries.size()) +
                        " qrels queries are not in the run and not evaluated");
  if (!result.ignoredRunQueries.empty())
    run.notes.push_back(std::to_string(result.ignoredRunQueries.size()) +
                        " run queries have no qrels and are ignored");
  for (const auto& d : result.diagnostics) run.notes.push_back(d.toString());
  run.method.emplace_back("bootstrap", std::to_string(bootstrap.resamples) + " resamples, seed " +
                                           std::to_string(bootstrap.seed) + ", percentile 95% CI");
  if (distributions) keepDistributions(run, bootstrap);
  return run;
}

// A dataset's KILT predictions parts, each scored against its KILT task file.
static void addKiltRunsOfDataset(const Dataset& dataset, const ReportOptions& options,
                                 exporting::Report& report) {
  const DatasetPart* gold = nullptr;
  for (const auto& part : dataset.parts)
    if (part.format == Format::Kilt && !gold) gold = &part;
  for (const auto& part : dataset.parts) {
    if (part.format != Format::KiltPredictions) continue;
    std::string err;
    if (!gold)
      report.problems.push_back(part.path.string() +
                                ": KILT predictions without a KILT task file "
                                "in the dataset, not scored");
    else if (auto run = reportOfKiltFiles(gold->path, part.path, options.bootstrap, &err,
                                          options.keepDistributions))
      report.runs.push_back(std::move(*run));
    else
      report.problems.push_back(err);
  }
}

exporting::Report collectReport(const ReportSources& sources, const ReportOptions& optionsIn) {
  ReportOptions options = optionsIn;
  if (options.cancel) options.bootstrap.cancel = options.cancel;
  const auto cancelled = [&] { return options.cancel && options.cancel->load(); };
  exporting::Report report;
  report.title = "ragscope report";
  report.version = RAGSCOPE_VERSION_STRING;
  std::vector<fs::path> stores;
  std::map<std::string, std::string> questions;  // qid -> text, from the project's datasets
  if (sources.project) {
    auto loaded = readProject(*sources.project);
    for (const auto& d : loaded.report.diagnostics)
      if (d.severity == Severity::Error) report.problems.push_back(d.toString());
    const Project& project = loaded.value;
    if (!project.name.empty()) report.title = project.name;
    for (const ProjectDataset& listed : project.datasets) {
      if (cancelled()) return report;
      report.datasets.push_back(listed.name);
      // Parts outside the project's folder are read only when the user said so (the project may
      // come from someone else); they are named among the problems instead.
      ProjectDataset ds = listed;
      if (!options.readOutsideParts)
        std::erase_if(ds.parts, [&](const ProjectDataset::Part& part) {
          const PartCheck check = project.checkPart(part.path);
          if (check.place != PartPlace::Outside) return false;
          report.problems.push_back(part.path + ": outside the project folder (" +
                                    check.resolved.string() + "), not read");
          return true;
        });
      LoadReport partsReport;
      const auto parts = project.datasetParts(ds, partsReport);
      for (const auto& d : partsReport.diagnostics)
        if (d.severity == Severity::Error) report.problems.push_back(d.toString());
      LoadOptions lo;
      lo.onError = OnError::Skip;
      auto dataset = loadDataset(parts, lo);
      for (const auto& d : dataset.report.diagnostics)
        if (d.severity == Severity::Error) report.problems.push_back(d.toString());
      for (const auto& query : dataset.value.queries) questions.emplace(query.id, query.text);
      addKiltRunsOfDataset(dataset.value, options, report);
      if (dataset.value.qrels.byQuery.empty()) continue;  // nothing to evaluate runs against
      for (const auto& run : dataset.value.runs)
        report.runs.push_back(
            reportOfRetrieval(evaluate(dataset.value.qrels, run, options.retrieval),
                              options.bootstrap, options.keepDistributions));
    }
    if (sources.projectStores)
      for (const auto& s : project.runStores) stores.push_back(project.resolve(s));
  }
  for (const auto& s : sources.stores) stores.push_back(s);
  for (const auto& [gold, guess] : sources.kilt) {
    if (cancelled()) return report;
    std::string err;
    if (auto run =
            reportOfKiltFiles(gold, guess, options.bootstrap, &err, options.keepDistributions))
      report.runs.push_back(std::move(*run));
    else
      report.problems.push_back(err);
  }
  // The human labels of the stores' runs (core/eval/reports/humanlabelsreport.h).
  std::optional<std::vector<labels::Label>> currentLabels;
  std::string labelsStore;
  if (auto from = sources.labels ? sources.labels : sources.project) {
    labels::LabelStore store;
    std::string err;
    const bool projectWithoutLabels =
        !sources.labels && !fs::exists(labels::labelsStorePath(*from));
    if (!projectWithoutLabels) {
      if (store.openProjectOrStore(*from, true, &err)) {
        currentLabels = store.current();
        labelsStore = store.path().string();
      } else {
        report.problems.push_back("human labels: " + err);
      }
    }
  }
  for (const auto& path : stores) {
    if (cancelled()) return report;
    std::string err;
    if (auto run = reportOfStore(path, options.bootstrap, &err, options.keepDistributions)) {
      if (currentLabels) addHumanLabels(*run, path, *currentLabels, labelsStore);
      report.runs.push_back(std::move(*run));
    } else {
      report.problems.push_back(err);
    }
  }
  for (auto& run : report.runs) addQuestions(run, questions);
  report.comparisons = compareRuns(report.runs, options);
  return report;
}

}  // namespace ragscope::core::eval
