#pragma once
// Judge-vs-human agreement from files, as `ragscope-cli agreement` and the Claims page's
// "Judge vs human" tab both run it: the human file's extension picks the layout. A `.csv` human
// file (qid,label) is compared pointwise with a judge that is a CSV, a judging run store (each
// metric an aspect) or a RAGChecker checking output (each ragchecker.* metric, RAGChecker's
// conventions), or with a judging report already in memory; any other human file is RAGChecker's
// pairwise meta-evaluation layout, compared with a baseline file's model1/model2 scores under
// `name`. Reads files: call off the GUI thread.
//
//   auto out = compareAgreementFiles("human.csv", "claims.db", "ragchecker", {});
//   if (!out.ok()) print(out.failedFile, out.report, out.error);

#include <filesystem>
#include <string>

#include "core/claims/agreement.h"
#include "core/claims/metaeval.h"
#include "core/data/diagnostic.h"
#include "core/eval/jobs/judgejob.h"

namespace ragscope::core::eval {

struct AgreementOutcome {
  claims::MetaEvalResult result;
  std::string error;       // non-empty: nothing compared
  std::string failedFile;  // the input that could not be used (its diagnostics in `report`)
  LoadReport report;
  bool ok() const { return error.empty(); }
};

AgreementOutcome compareAgreementFiles(const std::filesystem::path& human,
                                       const std::filesystem::path& judge, const std::string& name,
                                       const claims::AgreementOptions& options);
// A pointwise human file against a judging report's per-query metrics.
AgreementOutcome compareAgreementWithReport(const std::filesystem::path& human,
                                            const JudgeReport& judge,
                                            const claims::AgreementOptions& options);

}  // namespace ragscope::core::eval
