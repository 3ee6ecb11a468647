#pragma once
// What a report holds (core/export/README.md), as plain data: every result of ragscope (retrieval,
// eRAG, end-to-end, claims) flattened to the four grains the exports write (a run's summary, its
// per-query values, its per-document eRAG labels, its per-claim verdicts), with the settings,
// conventions and notes that say how the figures were made. core/eval/reports/resultsreport.h fills
// it from run stores and evaluations; reportcsv.h, reportjson.h and ui/report (PDF) write it. Rows
// are in a fixed order (runs as given, then qid, rank or claim order), so the same inputs give the
// same bytes.

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ragscope::core::exporting {

inline constexpr int kReportSchemaVersion = 1;

// One metric of one run: its mean over the queries that have a value, with the bootstrap CI.
struct ReportMetric {
  std::string name;                     // "map", "P_5", "rouge-l", "faithfulness", ...
  std::optional<double> mean;           // nullopt: no query has a value
  std::optional<double> ciLow, ciHigh;  // nullopt: no interval (too few queries, B = 0)
  std::size_t n = 0;                    // queries with a value
  std::size_t total = 0;                // queries in the run
  // Queries by state: scored, and why the others have no value. Retrieval and eRAG values are
  // always scored or "incomplete" (a missing output), claim metrics also unparsed or empty.
  std::size_t scored = 0, unparsed = 0, errors = 0, empty = 0, incomplete = 0;
  // The bootstrap resample means, for the PDF's distribution charts; filled only on request
  // (ReportOptions::keepDistributions) and not written to CSV or JSON.
  std::vector<double> distribution;
};

// One query's value of one metric; `state` says why there is none ("scored" when there is).
struct ReportValue {
  std::string qid;
  std::string metric;
  std::optional<double> value;
  std::string state;  // "scored", "unparsed", "error", "empty", "incomplete"
};

// One retrieved document of an eRAG run: its rank, the RAG's output from it alone, its label.
struct ReportDocument {
  std::string qid;
  std::size_t rank = 0;  // 1-based
  std::string docId;
  std::optional<double> label;  // nullopt: no output yet
  std::string output;
};

// One claim against one premise ("chunks", "gold", "response", "chunk 2").
struct ReportClaim {
  std::string qid;
  std::string side;       // "response" (a claim of the answer) or "gold" (of the gold answer)
  std::size_t index = 0;  // 1-based, in the side's claim order
  std::string claim;
  std::string premise;
  std::string
      verdict;  // "supported", "unsupported", "neutral", "contradiction", "unparsed", "error"
  std::string repeats;   // the repeats' verdicts, "1 1 0" (empty when asked once)
  bool flipped = false;  // the repeats disagree
  // A response claim not supported by the chunks: the chunk sharing most of its words, as the
  // evidence a reader checks it against ("chunk 2: <text>"); empty otherwise.
  std::string evidence;
};

// One judged metric of a run against the project's human labels: the judge-only and human-only
// means and the prediction-powered estimate (core/eval/inputs/README.md, "Human labels and PPI"),
// each with its normal 95% interval; nullopt where undefined (no label, every item labelled).
struct ReportPpi {
  std::string metric;        // "faithfulness", "correctness", "coverage", "erag", "answer:<m>"
  std::string description;   // what one item is
  std::size_t items = 0;     // N
  std::size_t labelled = 0;  // n
  std::optional<double> judgeMean, judgeLow, judgeHigh;
  std::optional<double> humanMean, humanLow, humanHigh;
  std::optional<double> estimate, ciLow, ciHigh, lambda;  // PPI++ (lambda tuned)
  std::string problem;                                    // why there is no estimate
  // Items left out (the judge's verdict unresolved) and labels not used (stale, no such item).
  std::size_t judgeUnresolved = 0, staleLabels = 0, labelsNotUsed = 0;
};

// The human labels of a run: how many, by whom, how they agree with the judge and each other,
// and what they make of the judged metrics.
struct ReportHumanLabels {
  std::string store;  // the labels store read
  struct Count {
    std::string kind;  // "claim", "answer", "relevance", "erag"
    std::string annotator;
    std::size_t labels = 0;  // current labels (the latest per target)
  };
  std::vector<Count> counts;
  std::vector<std::string> agreement;  // one sentence each: judge vs human, between annotators
  std::vector<ReportPpi> ppi;
  std::vector<std::string> notes;
};

struct ReportRun;
// The metric a run is read by first: map for retrieval, else its first mean with an interval,
// else its first metric; empty when it has none. Comparisons and the PDF's charts use it.
std::string mainMetric(const ReportRun& run);

struct ReportRun {
  std::string name;    // the store's or run's name
  std::string kind;    // "retrieval", "erag", "e2e", "judge"
  std::string source;  // the file it was read from
  std::string mode;    // claim judging: "ragscope", "ragchecker", "ragas"; else empty
  nlohmann::json settings = nlohmann::json::object();  // as recorded (never a secret)
  std::vector<std::string> conventions;                // one sentence each
  std::vector<ReportMetric> metrics;
  std::vector<ReportValue> values;        // per query: qid order of the run, then metric order
  std::vector<ReportDocument> documents;  // eRAG
  std::vector<ReportClaim> claims;        // claim judging
  std::vector<std::string> notes;         // partial figures, heuristic providers, failures
  // Method appendix: models, templates with hashes, seeds, B, repeats, call counts.
  std::vector<std::pair<std::string, std::string>> method;
  // qid -> the question's text, where the run or the project's datasets know it (the PDF's
  // lowest-scoring queries show it).
  std::map<std::string, std::string> questions;
  // The project's human labels of this run (run stores, when the project has a labels store).
  std::optional<ReportHumanLabels> humanLabels;
};

// Two runs of the same kind compared on their main metric over the queries both have: the mean
// difference (a - b) with its paired-bootstrap CI, the sign-flip randomization test and the
// paired t-test (core/stats/paired.h, as `ragscope-cli compare`).
struct ReportComparison {
  std::string runA, runB, metric;
  std::size_t n = 0;          // queries in both
  std::size_t unaligned = 0;  // in one run only: left out
  double meanA = 0, meanB = 0, meanDiff = 0;
  std::optional<double> ciLow, ciHigh;
  double pRandomization = 1, pT = 1;
  std::size_t wins = 0, ties = 0, losses = 0;
  std::vector<double> distribution;  // bootstrap mean differences (PDF only, as for metrics)
};

struct Report {
  std::string title;                  // the project's name, else "ragscope report"
  std::vector<std::string> datasets;  // names or files
  std::string version;                // ragscope's
  std::vector<ReportRun> runs;
  std::vector<ReportComparison> comparisons;  // the first run of each kind against each later one
  std::vector<std::string> problems;          // sources that could not be read (each named)
};

}  // namespace ragscope::core::exporting
