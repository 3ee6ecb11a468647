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
#include "core/retrieval/retrieverspec.h"

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

// Where a part's path leads, symlinks resolved: inside the project's folder, outside it (read only
// when the user agrees: a project from someone else must not make ragscope read /etc/passwd or
// ~/.ssh), or to a special file that is never read (a device, FIFO or socket, or anything under
// /proc, /sys or /dev).
enum class PartPlace { Inside, Outside, Special };

struct PartCheck {
  std::filesystem::path resolved;  // absolute, symlinks resolved as far as the path exists
  PartPlace place = PartPlace::Inside;
  std::string problem;  // Special: why it is not read ("is not a regular file (a FIFO ...)")
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
  // Retrievers configured for the project (core/retrieval/retrieverspec.h): what they are and
  // where they are, never a key (only the name of the variable that holds it). Optional
  // ("retrievers" in JSON).
  std::vector<RetrieverSpec> retrievers;
  std::filesystem::path file;  // where it was read from / written to (not serialised)

  // Resolves a part's (or run store's) path against the project file's folder.
  std::filesystem::path resolve(const ProjectDataset::Part& part) const;
  std::filesystem::path resolve(const std::string& path) const;
  // Where `path` (a part's or run store's path as written in the file) leads.
  PartCheck checkPart(const std::string& path) const;
  // The resolved paths of `ds`'s parts outside the project's folder, in part order (special files
  // are not listed: they are never read).
  std::vector<std::filesystem::path> outsideParts(const ProjectDataset& ds) const;
  // DatasetParts for loadDataset(). Reported in `report`: an unknown format name or a missing
  // file (errors; the part is left out), a special file (an error "not read: ..."; left out) and
  // a part outside the project's folder (a warning "outside the project folder: <resolved>"; the
  // part is kept, the caller decides whether to read it: see outsideParts()).
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
