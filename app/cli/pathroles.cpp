#include "app/cli/pathroles.h"

#include <filesystem>

#include "core/labels/labelstore.h"
#include "core/retrieval/retrievejob.h"
#include "core/store/project.h"

namespace ragscope::cli {

namespace fs = std::filesystem;
using core::NamedPath;
using core::PathUse;

DerivedPaths labelsSourcePaths(std::string option, PathUse storeUse) {
  return [option, storeUse](const std::string& value) {
    const fs::path path(value);
    if (path.extension() != ".json") return std::vector<NamedPath>{{option, path, storeUse}};
    return std::vector<NamedPath>{
        {option, path, PathUse::Read},
        {"the labels store of " + option, core::labels::labelsStorePath(path), storeUse}};
  };
}

DerivedPaths projectPaths(std::string option) {
  return [option](const std::string& value) {
    std::vector<NamedPath> out = {{option, value, PathUse::Read}};
    // A project that cannot be read names nothing here; the command reports why.
    const auto loaded = core::readProject(value);
    const core::Project& project = loaded.value;
    for (const auto& ds : project.datasets)
      for (const auto& part : ds.parts)
        out.push_back({"a dataset part of " + option, project.resolve(part), PathUse::Read});
    for (const auto& store : project.runStores)
      out.push_back({"a run store of " + option, project.resolve(store), PathUse::Read});
    out.push_back(
        {"the labels store of " + option, core::labels::labelsStorePath(value), PathUse::Read});
    return out;
  };
}

DerivedPaths atFilePath(std::string option) {
  return [option](const std::string& value) {
    if (value.size() < 2 || value[0] != '@') return std::vector<NamedPath>{};
    return std::vector<NamedPath>{{option, value.substr(1), PathUse::Read}};
  };
}

DerivedPaths commaSeparatedPaths(std::string option) {
  return [option](const std::string& value) {
    std::vector<NamedPath> out;
    std::size_t start = 0;
    while (start <= value.size()) {
      std::size_t comma = value.find(',', start);
      if (comma == std::string::npos) comma = value.size();
      if (comma > start) out.push_back({option, value.substr(start, comma - start), PathUse::Read});
      start = comma + 1;
    }
    return out;
  };
}

DerivedPaths runAndCheckpointPaths(std::string option) {
  return [option](const std::string& value) {
    return std::vector<NamedPath>{
        {option, value, PathUse::Written},
        {"the checkpoint of " + option, core::retrieveCheckpointPath(value), PathUse::Written}};
  };
}

}  // namespace ragscope::cli
