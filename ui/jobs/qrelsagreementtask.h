#pragma once
// The work behind the Retrieval page's "Qrels agreement" tab, done off the GUI thread: read the
// two qrels files (or take the loaded dataset's), check them on the 0..3 scale, compare their
// grades, read the runs and evaluate each under both, exactly as `ragscope-cli qrels-agreement`
// does (core/trecrag/README.md, "Qrels agreement"). Every problem of the files comes back as core
// reports it (file:line: field: problem); nothing is computed from a file with an error.
//
//   QrelsAgreementRequest r;  r.qrelsA = "nist.txt";  r.qrelsB = "llm.txt";  ...
//   QrelsAgreementOutcome o = computeQrelsAgreement(r, &cancel);   // any thread

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/diagnostic.h"
#include "core/metrics/measurename.h"
#include "core/trecrag/qrelsagreement.h"
#include "core/trecrag/qrelsagreementreport.h"

namespace ragscope::ui {

struct QrelsAgreementRequest {
  std::shared_ptr<const core::Dataset> dataset;  // for the dataset's qrels and runs (may be null)
  std::string qrelsA;                            // a TREC qrels file; empty = the dataset's qrels
  std::string qrelsB;
  std::vector<std::size_t> datasetRuns;  // indices into dataset->runs
  std::vector<std::string> runFiles;     // TREC run files
  core::MeasureName measure;             // one column (parseMeasureName, checked by the caller)
  int level = core::trecrag::kDefaultBinaryLevel;
  bool complete = false;
};

struct QrelsAgreementOutcome {
  // Problems of the inputs (readers' diagnostics, grades off the scale, repeats), errors and
  // warnings, as core words them; `unlisted` more were counted but not kept.
  std::vector<core::Diagnostic> problems;
  std::size_t unlisted = 0;
  std::string error;      // why nothing (or no system figure) was computed; empty when all was
  bool computed = false;  // the grade figures below are valid
  bool cancelled = false;
  core::trecrag::GradeAgreement grades;
  std::optional<core::trecrag::SystemAgreement> systems;  // with runs only
  std::vector<core::trecrag::SystemScore> swaps;          // largestRankSwaps(*systems)
  core::trecrag::QrelsNames names;

  bool ok() const { return computed && error.empty() && !cancelled; }
  // The CLI's --json document of this outcome (core::trecrag::qrelsAgreementJson).
  nlohmann::ordered_json json() const;
};

QrelsAgreementOutcome computeQrelsAgreement(const QrelsAgreementRequest& request,
                                            const std::atomic<bool>* cancel = nullptr);

}  // namespace ragscope::ui
