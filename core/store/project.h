#pragma once
// A ragscope project: a versioned JSON file naming the datasets (bundles of files) an analyst works
// with. Paths are stored relative to the project file so a project folder can be moved or shared.
// Written atomically (temp file + rename). Never holds secrets.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/diagnostic.h"

namespace ragscope::core {

struct ProjectDataset {
  std::string name;
  // Each part: a path (relative to the project file, or absolute) and an optional format name;
  // no format means "detect".
  struct Part {
    std::string path;
    std::optional<std::string> format;
  };
  std::vector<Part> parts;
};

struct Project {
  static constexpr int kVersion = 1;
  int version = kVersion;
  std::string name;
  std::string description;
  std::vector<ProjectDataset> datasets;
  // Run stores (eRAG, end-to-end, generation: SQLite files of core/store/runstore.h) that belong
  // to the project, relative to the project file like dataset parts. Optional ("runs" in JSON).
  std::vector<std::string> runStores;
  std::filesystem::path file;  // where it was read from / written to (not serialised)

  // Resolves a part's (or run store's) path against the project file's folder.
  std::filesystem::path resolve(const ProjectDataset::Part& part) const;
  std::filesystem::path resolve(const std::string& path) const;
  // DatasetParts for loadDataset(); an unknown format name is reported in `report`.
  std::vector<DatasetPart> datasetParts(const ProjectDataset& ds, LoadReport& report) const;
  // Adds a dataset, replacing one of the same name (saving the same bundle twice keeps one entry).
  void putDataset(ProjectDataset dataset);
};

// A project entry for files as they were opened: each path made relative to the folder of
// `projectFile` (which need not exist yet), so the project and its data can move together; a
// part's format is kept when known (nullopt = detect, as for bundle folders).
ProjectDataset makeProjectDataset(std::string name, const std::vector<DatasetPart>& parts,
                                  const std::filesystem::path& projectFile);

Loaded<Project> readProject(const std::filesystem::path& file);
// Atomic write; returns an error message on failure.
std::optional<std::string> writeProject(const Project& project, const std::filesystem::path& file);

// The bundled demo project (resources/demo/demo.ragscope.json) found next to the executable's
// share folder or in the source tree; nullopt when absent.
std::optional<std::filesystem::path> findDemoProject();

}  // namespace ragscope::core
