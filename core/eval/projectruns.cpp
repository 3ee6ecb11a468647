#include "core/eval/projectruns.h"

#include <set>
#include <string>

#include "core/eval/e2ejob.h"
#include "core/eval/eragjob.h"
#include "core/store/runstore.h"

namespace ragscope::core::eval {

namespace {

struct StoreInfo {
  std::filesystem::path path;
  std::string kind;
  std::string system;
};

// The store's record when all its recorded dataset files are among `names`.
std::optional<StoreInfo> matchingStore(const std::filesystem::path& path, const std::set<std::string>& names) {
  store::RunStore store;
  std::string err;
  if (!store::RunStore::hasSqliteHeader(path) || !store.open(path, &err)) return std::nullopt;
  const store::RunRecord record = store.run();
  const auto datasets = record.settings.find("datasets");
  if (datasets == record.settings.end() || !datasets->is_array() || datasets->empty()) return std::nullopt;
  for (const auto& entry : *datasets) {
    if (!entry.is_object() || !entry.contains("path") || !entry["path"].is_string()) return std::nullopt;
    const auto name = std::filesystem::path(entry["path"].get<std::string>()).filename().string();
    if (!names.count(name)) return std::nullopt;
  }
  return StoreInfo{path, record.kind, record.settings.value("system", std::string())};
}

}  // namespace

StoredRunPair storedRunsForDataset(const std::vector<std::filesystem::path>& stores,
                                   const std::vector<DatasetPart>& parts) {
  std::set<std::string> names;
  for (const auto& p : parts) names.insert(p.path.filename().string());
  std::vector<StoreInfo> matched;
  for (const auto& path : stores)
    if (auto info = matchingStore(path, names)) matched.push_back(std::move(*info));
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

}  // namespace ragscope::core::eval
