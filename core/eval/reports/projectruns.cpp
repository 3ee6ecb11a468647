#include "core/eval/reports/projectruns.h"

#include <set>
#include <string>

#include "core/eval/api/jobspec.h"
#include "core/eval/jobs/e2ejob.h"
#include "core/eval/jobs/eragjob.h"
#include "core/store/runstore.h"

namespace ragscope::core::eval {

namespace {

struct StoreInfo {
  std::filesystem::path path;
  std::string kind;
  std::string system;
};

// The store's record when all its recorded dataset files are among `names` (or, for a record of
// the GUI's first layout, which named only the dataset, when that name is `datasetName`).
std::optional<StoreInfo> matchingStore(const std::filesystem::path& path,
                                       const std::set<std::string>& names,
                                       const std::string& datasetName) {
  store::RunStore store;
  std::string err;
  // Only viewed: read-only (a project on read-only media, no -wal/-shm beside its stores).
  if (!store::RunStore::hasSqliteHeader(path) || !store.openReadOnly(path, &err))
    return std::nullopt;
  const store::RunRecord record = store.run();
  if (!runRecordProblem(record).empty()) return std::nullopt;
  const RecordedDatasets recorded = recordedDatasets(record.settings);
  if (recorded.files.empty()) {
    if (recorded.legacyName.empty() || recorded.legacyName != datasetName) return std::nullopt;
  }
  for (const auto& file : recorded.files)
    if (!names.count(file.filename().string())) return std::nullopt;
  const auto system = record.settings.find("system");
  return StoreInfo{
      path, record.kind,
      system != record.settings.end() && system->is_string() ? system->get<std::string>() : ""};
}

}  // namespace

StoredRunPair storedRunsForDataset(const std::vector<std::filesystem::path>& stores,
                                   const std::vector<DatasetPart>& parts,
                                   const std::string& datasetName) {
  std::set<std::string> names;
  for (const auto& p : parts) names.insert(p.path.filename().string());
  std::vector<StoreInfo> matched;
  for (const auto& path : stores)
    if (auto info = matchingStore(path, names, datasetName)) matched.push_back(std::move(*info));
  StoredRunPair pair;
  for (const auto& s : matched)
    if (s.kind == kEragJobKind) {
      pair.erag = s.path;
      for (const auto& t : matched)
        if (t.kind == kE2eJobKind && t.system == s.system) {
          pair.e2e = t.path;
          break;
        }
      break;
    }
  return pair;
}

std::vector<std::filesystem::path> storedJudgeRuns(
    const std::vector<std::filesystem::path>& stores) {
  std::vector<std::filesystem::path> out;
  for (const auto& path : stores) {
    store::RunStore store;
    std::string err;
    if (!store::RunStore::hasSqliteHeader(path) || !store.openReadOnly(path, &err)) continue;
    const store::RunRecord record = store.run();
    if (record.kind == kJudgeJobKind && judgeRecordProblem(record.settings).empty())
      out.push_back(path);
  }
  return out;
}

}  // namespace ragscope::core::eval
