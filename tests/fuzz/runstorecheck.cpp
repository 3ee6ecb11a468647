#include "runstorecheck.h"

#include <fstream>
#include <map>
#include <sstream>

#include "core/eval/api/job.h"
#include "core/eval/api/jobspec.h"
#include "core/eval/inputs/storedscores.h"
#include "core/eval/reports/projectruns.h"
#include "core/llm/llmjson.h"
#include "core/store/runstore.h"
#include "fuzzsupport.h"

namespace ragscope::fuzz {

void exerciseRunStore(const std::filesystem::path& path) {
  using namespace ragscope::core;
  store::RunStore::looksLikeRunStore(path);

  std::string error;
  if (auto job = eval::openStoredJob(path, {}, &error)) {
    fuzz::touch(job->settings.endpoint.baseUrl);
    fuzz::touch(job->settings.out.native());
    eval::recordedDatasets(job->record.settings);
    job->store->counts();
    for (const auto& item : job->store->itemsToRun(true)) {
      const auto request = nlohmann::json::parse(item.requestJson, nullptr, false);
      if (!request.is_discarded()) llm::requestFromJson(request);
    }
    job->store->results();
  } else {
    check(!error.empty(), "openStoredJob failed without saying why");
  }

  const auto scores = eval::readStoredScores(path);
  check(scores.ok() || !scores.error.empty(), "readStoredScores: no scores and no error");

  eval::ResultOptions options;
  options.bootstrap.resamples = 0;
  options.bootstrap.threads = 1;
  options.threads = 1;
  options.correlationResamples = 0;
  options.prompts = true;
  eval::readEvaluation(path, {}, options);
  eval::readEvaluation({}, path, options);

  eval::storedRunsForDataset({path}, {{path.parent_path() / "collection.tsv", std::nullopt}},
                             "Harbor City demo");
}

const std::string& emptyStoreBytes(const std::string& kind) {
  static std::map<std::string, std::string> made;
  auto& bytes = made[kind];
  if (!bytes.empty()) return bytes;
  const auto path = scratchDir() / ("template-" + kind) / "run.db";
  std::filesystem::create_directories(path.parent_path());
  {
    core::store::RunStore store;
    core::store::RunRecord record;
    record.kind = kind;
    record.settings = nlohmann::json::object();
    record.endpoint = nlohmann::json::object();
    std::string error;
    check(store.create(path, record, &error), "cannot create the template store");
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  bytes = s.str();
  return bytes;
}

}  // namespace ragscope::fuzz
