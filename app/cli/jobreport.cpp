#include "app/cli/jobreport.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <stop_token>
#include <thread>

#include "app/cli/assessreport.h"
#include "app/cli/retrievalprogress.h"
#include "core/claims/judgeparse.h"
#include "core/claims/numpycompat.h"
#include "core/eval/jobs/correlationanalysis.h"
#include "core/export/json.h"
#include "core/retrieval/corpusembedding.h"
#include "core/util/urlredact.h"

namespace ragscope::cli {

namespace {

using namespace ragscope::core;
using nlohmann::json;

std::atomic<bool> g_interrupted{false};

extern "C" void onInterrupt(int) {
  g_interrupted = true;
  std::signal(SIGINT, SIG_DFL);
}

std::string formatSeconds(double s) {
  if (s < 0) return "?";
  char buf[32];
  if (s < 60) {
    std::snprintf(buf, sizeof buf, "%.0fs", s);
  } else if (s < 3600) {
    std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s) / 3600,
                  (static_cast<int>(s) / 60) % 60);
  }
  return buf;
}

class StderrProgress final : public eval::ProgressListener {
 public:
  explicit StderrProgress(bool quiet) : m_quiet(quiet) {}
  void onProgress(const eval::Progress& p) override {
    if (m_quiet) return;
    const auto now = std::chrono::steady_clock::now();
    // One line a second is plenty for a terminal or a log file.
    if (now - m_last < std::chrono::seconds(1) && p.done < p.total) return;
    m_last = now;
    std::fprintf(
        stderr,
        "  %zu/%zu done, %zu errors, %zu cached, %.1f calls/s, %lld+%lld tokens, $%.4f, ETA %s\n",
        p.done, p.total, p.errors, p.fromCache, p.callsPerSecond,
        static_cast<long long>(p.promptTokens), static_cast<long long>(p.completionTokens),
        p.costUsd, formatSeconds(p.etaSeconds).c_str());
  }

 private:
  bool m_quiet;
  std::chrono::steady_clock::time_point m_last{};
};

std::string fmt(double v) {
  if (std::isnan(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

std::string ciText(const stats::BootstrapResult& r) {
  if (!r.ok() || r.resamples == 0) return "-";
  return "[" + fmt(r.ci.low) + ", " + fmt(r.ci.high) + "]";
}

void printStage(const eval::StageResult& s) {
  const auto& c = s.counts;
  char cost[64];
  std::snprintf(cost, sizeof cost, "%.4f", c.costUsd);
  std::cout << "run:        " << s.store.string() << "\n"
            << "status:     " << eval::outcomeStatus(s.summary.outcome)
            << (s.summary.error.empty() ? "" : ": " + s.summary.error) << "\n"
            << "items:      " << c.total << " (" << c.done << " done, " << c.errors << " errors, "
            << c.pending + c.cancelled << " not run)\n"
            << "this run:   " << s.summary.progress.callsThisSession << " calls, "
            << s.summary.progress.fromCache << " from the cache, " << s.summary.skipped
            << " already done before\n"
            << "tokens:     " << c.promptTokens << " prompt + " << c.completionTokens
            << " completion\n"
            << "cost:       $" << cost << "\n";
  if (c.heuristic > 0)
    std::cout << "note:       " << c.heuristic
              << " answers come from offline heuristics (labelled heuristic), not an LLM\n";
}

// The batch files written, the batches submitted, and what to do next
// (core/eval/engine/batchrun.h).
void printBatch(const eval::StageResult& s, std::ostream& out) {
  const std::string path = s.store.string();
  for (const auto& f : s.batchFiles)
    out << "batch file: " << f.path.string() << " (" << f.lines << " calls to " << f.url << ", "
        << shownUrl(f.baseUrl) << ", model " << f.model << ")\n";
  for (const auto& b : s.batches)
    out << "batch:      " << b.id << " " << b.status << ", " << b.lines << " calls ("
        << b.counts.completed << " done, " << b.counts.failed << " failed)"
        << (b.imported ? ", imported" : "") << "\n";
  std::string note = s.batchNote;
  while (!note.empty()) {
    const auto nl = note.find('\n');
    out << "batch note: " << note.substr(0, nl) << "\n";
    note = nl == std::string::npos ? std::string() : note.substr(nl + 1);
  }
  if (s.summary.outcome != eval::RunOutcome::PausedBatch) return;
  if (!s.batchFiles.empty()) {
    const auto& f = s.batchFiles.front();
    out << "next:       send the file to the Batch API, or run it with vLLM:\n"
        << "              python -m vllm.entrypoints.openai.run_batch -i " << f.path.string()
        << " -o results.jsonl --model " << f.model << "\n"
        << "            then: ragscope-cli batch import " << path
        << " results.jsonl [errors.jsonl]\n";
    if (s.kind == eval::JobKind::Judge)
      out << "            judging: these are the calls that can be planned now; the next phase "
             "is planned from their replies, so after the import run `ragscope-cli batch export "
          << path << " --out FILE` for it (or `ragscope-cli resume " << path
          << "` to send the rest live)\n";
    else if (s.kindName == core::kEmbeddingStoreKind)
      out << "            and: the retrieve command that built the index, run again, builds it "
             "from the imported vectors\n";
    else
      out << "            and: ragscope-cli resume " << path
          << " (scores the run; sends nothing when every call is answered)\n";
  } else {
    out << "next:       ragscope-cli batch status " << path << "; ragscope-cli resume " << path
        << " polls the batch, imports it and finishes the run\n";
  }
}

void printContinue(const eval::StageResult& s, const ReportOptions& o) {
  const std::string path = s.store.string();
  switch (s.summary.outcome) {
    case eval::RunOutcome::PausedBudget:
      std::cout << "budget:     paused before exceeding $" << o.budgetUsd.value_or(0.0)
                << "; continue with: ragscope-cli resume " << path << " --budget USD\n";
      break;
    case eval::RunOutcome::Cancelled:
      std::cout << "continue:   ragscope-cli resume " << path << "\n";
      break;
    case eval::RunOutcome::DoneWithErrors:
      std::cout << "retry:      ragscope-cli resume " << path << " --retry-errors\n";
      break;
    default:
      break;
  }
}

// Ends the first summary line of an eRAG or end-to-end report: the incomplete queries left out,
// and a note when outputs come from the offline heuristic reader.
void endSummaryLine(std::size_t incomplete, std::size_t heuristicOutputs) {
  if (incomplete > 0) std::cout << ", " << incomplete << " incomplete left out";
  std::cout << "\n";
  if (heuristicOutputs > 0)
    std::cout << "            outputs from the offline heuristic reader (heuristic, not an LLM)\n";
}

void printErag(const eval::EragReport& report, const std::filesystem::path& labelsOut) {
  const auto& a = report.aggregate;
  std::cout << "eRAG:       " << a.qids.size() << " queries scored with " << report.metricKey
            << " labels ("
            << (a.binary ? "binary: trec_eval measures over the labels"
                         : "continuous: P and success only")
            << ")";
  endSummaryLine(report.incomplete.size(), report.heuristicOutputs);
  for (std::size_t m = 0; m < a.measures.size(); ++m) {
    const std::string ci = m < report.intervals.size() ? ciText(report.intervals[m]) : "-";
    char line[200];
    std::snprintf(line, sizeof line, "  %-14s %8s   95%% CI %-18s n %zu\n", a.measures[m].c_str(),
                  fmt(a.means[m]).c_str(), ci.c_str(), a.values[m].size());
    std::cout << line;
  }
  if (!labelsOut.empty()) std::cout << "labels:     " << labelsOut.string() << "\n";
}

void printE2e(const eval::E2eReport& report) {
  std::cout << "end-to-end: " << report.qids.size() << " queries, mean " << report.metricKey << " "
            << fmt(report.mean) << ", 95% CI " << ciText(report.interval) << ", n "
            << report.values.size();
  endSummaryLine(report.incomplete.size(), report.heuristicOutputs);
}

void printJudge(const eval::JudgeReport& r, const std::filesystem::path& claimsOut) {
  std::cout << "judging:    " << r.queries.size() << " answers, mode "
            << eval::judgeModeName(r.settings.mode);
  if (r.settings.repeats > 1)
    std::cout << ", " << r.settings.repeats << " repeats (majority label)";
  std::cout << "\n";
  if (r.heuristic)
    std::cout << "            verdicts from the offline heuristic judge (heuristic, not an LLM)\n";
  if (r.pendingItems > 0)
    std::cout << "            " << r.pendingItems
              << " calls not made yet: the figures are partial\n";
  char line[320];
  std::snprintf(line, sizeof line, "  %-42s %8s   %-20s %9s  %s\n", "metric", "mean", "95% CI",
                "queries", "claims scored/total; queries unparsed, error, empty");
  std::cout << line;
  if (r.settings.mode == eval::JudgeMode::RagChecker)
    std::cout << "  (ragchecker mode: unresolved labels count as not entailed, empty cases as 0.0; "
                 "RAGChecker's own figure, round(mean x 100, 1), in brackets after the mean)\n";
  for (const auto& m : r.metrics) {
    const std::string ci = m.ci95 ? "[" + fmt(m.ci95->low) + ", " + fmt(m.ci95->high) + "]" : "-";
    std::string mean = fmt(m.mean);
    if (r.settings.mode == eval::JudgeMode::RagChecker && !std::isnan(m.mean)) {
      char pct[32];
      std::snprintf(pct, sizeof pct, " (%.1f)", claims::ragcheckerPercent(m.mean));
      mean += pct;
    }
    std::snprintf(line, sizeof line, "  %-42s %8s   %-20s %4zu/%-4zu  %llu/%llu; %zu, %zu, %zu\n",
                  m.name.c_str(), mean.c_str(), ci.c_str(), m.queries, r.queries.size(),
                  static_cast<unsigned long long>(m.itemsScored),
                  static_cast<unsigned long long>(m.itemsTotal), m.unparsed, m.errors, m.empty);
    std::cout << line;
  }
  if (r.repairs > 0)
    std::cout << "repairs:    " << r.repairs
              << " replies asked again once (recorded in the store)\n";
  // Which reply path read the judge's claim lists and verdicts, and what stayed unparsed on each
  // (core/claims/README.md, "Structured replies").
  for (const auto& [name, p] :
       {std::pair{"text      ", &r.textPath}, std::pair{"structured", &r.structuredPath}}) {
    if (!p->used()) continue;
    std::snprintf(line, sizeof line,
                  "parsing:    %s %zu claim lists (%zu unparsed), %zu verdict replies: %llu claim "
                  "verdicts (%llu unparsed)\n",
                  name, p->extractions, p->extractionsUnparsed, p->verdictReplies,
                  static_cast<unsigned long long>(p->verdicts),
                  static_cast<unsigned long long>(p->verdictsUnparsed));
    std::cout << line;
  }
  if (r.claimListsOverCap > 0)
    std::cout << "claims cap: " << r.claimListsOverCap << " claim list(s) longer than "
              << claims::kMaxClaimsPerAnswer << " claims: " << r.claimsNotJudged
              << " claims past the cap not judged (unparsed)\n";
  if (r.settings.repeats > 1) {
    std::snprintf(line, sizeof line,
                  "reliability: flip rate %.4f over %zu claim verdicts (%zu not unanimous)\n",
                  r.reliability.flipRate, r.reliability.cells, r.reliability.flippedCells);
    std::cout << line;
    for (const auto& m : r.metrics) {
      std::snprintf(line, sizeof line,
                    "  %-42s variance within answers %.6f, across answers %.6f\n", m.name.c_str(),
                    m.withinVariance, m.acrossVariance);
      std::cout << line;
    }
  }
  if (!claimsOut.empty())
    std::cout << "claims:     " << claimsOut.string() << " (RAGChecker checking-output layout)\n";
}

json runInfo(const eval::StageResult& s) {
  return {{"path", s.store.string()},
          {"kind", s.kindName},
          {"status", s.status},
          {"items", s.counts.total},
          {"done", s.counts.done},
          {"errors", s.counts.errors},
          {"not_run", s.counts.pending + s.counts.cancelled},
          {"heuristic", s.counts.heuristic}};
}

void printJson(const eval::JobResult& r) {
  json out = json::object();
  auto scores = [&](eval::JobKind kind) -> json {
    json j = kind == eval::JobKind::Erag ? eval::eragScoresJson(*r.evaluation.erag)
                                         : eval::e2eScoresJson(*r.evaluation.e2e);
    for (const auto& s : r.stages)
      if (s.kind == kind) j["run"] = runInfo(s);
    return j;
  };
  const bool erag = r.evaluation.erag.has_value(), e2e = r.evaluation.e2e.has_value();
  if (erag && e2e) {
    out["erag"] = scores(eval::JobKind::Erag);
    out["e2e"] = scores(eval::JobKind::E2e);
    if (r.evaluation.correlation)
      out["correlation"] = eval::correlationAnalysisJson(*r.evaluation.correlation);
  } else if (erag) {
    out = scores(eval::JobKind::Erag);
  } else if (e2e) {
    out = scores(eval::JobKind::E2e);
  }
  exporting::writeJson(std::cout, out, 2);
}

}  // namespace

eval::JobResult runInterruptible(
    bool quiet, const std::function<eval::JobResult(const eval::JobCallbacks&)>& work) {
  std::stop_source stopSource;
  g_interrupted = false;
  auto previous = std::signal(SIGINT, onInterrupt);
  // The signal handler may only set a flag; this thread turns it into a stop request.
  std::jthread watcher([&stopSource](std::stop_token own) {
    while (!own.stop_requested()) {
      if (g_interrupted) {
        stopSource.request_stop();
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  StderrProgress progress(quiet);
  eval::JobCallbacks callbacks;
  callbacks.listener = &progress;
  callbacks.stop = stopSource.get_token();
  callbacks.stageStarted = [quiet](eval::JobKind kind, const std::filesystem::path& store) {
    if (!quiet) std::cerr << eval::jobKindName(kind) << ": store " << store.string() << "\n";
  };
  auto result = work(callbacks);
  watcher.request_stop();
  watcher.join();
  std::signal(SIGINT, previous == SIG_ERR ? SIG_DFL : previous);
  return result;
}

eval::ResultOptions cliResultOptions() {
  eval::ResultOptions o;  // bootstrap B = 10,000, seed 42, percentile 95 %
  return o;
}

int reportJob(const eval::JobResult& result, const ReportOptions& options) {
  if (!options.json) {
    for (const auto& s : result.stages) {
      printStage(s);
      printContinue(s, options);
      printBatch(s, std::cout);
    }
    if (!result.cacheNote.empty())
      std::cerr << "ragscope-cli: warning: " << result.cacheNote << "\n";
    if (!result.trustNote.empty())
      std::cerr << "ragscope-cli: warning: " << result.trustNote << "\n";
  }
  if (options.json)
    for (const auto& s : result.stages) printBatch(s, std::cerr);
  if (!result.error.empty()) {
    std::cerr << "ragscope-cli: " << result.error << "\n";
    return 2;
  }
  if (result.assess) printAssessResult(result, options.json);
  if (result.judge) {
    if (options.json) {
      json j = eval::judgeReportJson(*result.judge);
      for (const auto& s : result.stages)
        if (s.kind == eval::JobKind::Judge) j["run"] = runInfo(s);
      if (!result.claimsOut.empty()) j["claims_out"] = result.claimsOut.string();
      exporting::writeJson(std::cout, j, 2);
    } else {
      printJudge(*result.judge, result.claimsOut);
    }
  } else if (options.json && (result.evaluation.erag || result.evaluation.e2e)) {
    printJson(result);
  } else if (!options.json) {
    if (result.evaluation.erag) printErag(*result.evaluation.erag, result.labels);
    if (result.evaluation.e2e) printE2e(*result.evaluation.e2e);
    if (result.evaluation.correlation)
      std::cout << eval::formatCorrelationAnalysis(*result.evaluation.correlation);
    if (!result.answers.empty()) std::cout << "answers:    " << result.answers.string() << "\n";
  }
  return exitCodeFor(result.outcome());
}

int runJobCommand(const eval::JobSpec& spec, const Dataset& dataset, bool estimate, bool quiet,
                  const ReportOptions& report, const eval::ExecutionOptions& execution) {
  const std::string job(eval::jobKindName(spec.kind));
  eval::JobPlan plan;
  bool planned = false;
  TerminalProgress retrieval(quiet);  // the retrieval step, as `retrieve` shows it
  auto result = runInterruptible(quiet, [&](eval::JobCallbacks callbacks) {
    reportRetrievalStep(callbacks, job, quiet, retrieval);
    plan = eval::planJob(spec, dataset, callbacks);
    retrieval.clear();
    planned = true;
    for (const auto& d : plan.report.diagnostics) std::cerr << d.toString() << "\n";
    for (const auto& w : plan.warnings) std::cerr << "warning: " << w << "\n";
    if (plan.missingDocuments > plan.warnings.size())
      std::cerr << "warning: " << plan.missingDocuments
                << " run documents in all are not in the corpus\n";
    if (!plan.ok() || estimate) return eval::JobResult{};
    if (!quiet && spec.kind == eval::JobKind::Judge) {
      std::cerr << job << ": " << plan.queries << " answers; the first phase makes "
                << (plan.stages.empty() ? 0 : plan.stages.front().items.size())
                << " calls, the claims it extracts decide the rest\n";
    } else if (!quiet && spec.kind == eval::JobKind::Assess) {
      std::cerr << job << ": " << plan.queries << " queries, " << plan.documents
                << " pairs to grade, " << spec.assess.repeats
                << " per pair: " << (plan.stages.empty() ? 0 : plan.stages.front().items.size())
                << " judge calls\n";
    } else if (!quiet && spec.kind != eval::JobKind::Generate) {
      // Both costs are shown before a run starts.
      std::size_t calls = 0;
      for (const auto& s : plan.stages) calls += s.items.size();
      std::cerr << job << ": " << plan.queries << " queries, " << plan.documents
                << " documents (k=" << spec.k << "): eRAG needs " << plan.documents
                << " generator calls, end-to-end " << plan.queries << "; this run makes " << calls
                << "\n";
    }
    return eval::runJob(plan, spec, execution, cliResultOptions(), callbacks);
  });
  if (planned && plan.cancelled) {
    std::cerr << "ragscope-cli: " << job << ": cancelled before the first call\n";
    return 1;
  }
  if (!plan.error.empty()) {
    std::cerr << "ragscope-cli: " << job << ": " << plan.error << "\n";
    return 2;
  }
  if (estimate) {
    std::string note;
    // Calls sent as a batch cost the endpoint's batch prices (core/llm/README.md, "Batch calls").
    const bool batch = execution.batch.mode != eval::BatchMode::Live;
    eval::JobSpec priced = spec;
    if (batch) {
      priced.endpoint = eval::batchPriced(spec.endpoint);
      priced.judge.judge = eval::batchPriced(spec.judge.judge);
    }
    const auto& endpoint = spec.kind == eval::JobKind::Judge ? priced.judge.judge : priced.endpoint;
    auto cache = eval::openJobCache(endpoint, spec.limits, &note);
    for (const auto& e : eval::estimatePlan(plan, priced, cache.get())) {
      if (plan.stages.size() > 1) std::cout << eval::jobKindName(e.kind) << " ";
      printEstimate(e.estimate, endpoint);
    }
    if (spec.kind == eval::JobKind::Judge)
      std::cout << "note:       the first phase only (answers, claim extraction); the verdict "
                   "calls depend on "
                   "the claims extracted\n";
    return 0;
  }
  return reportJob(result, report);
}

}  // namespace ragscope::cli
