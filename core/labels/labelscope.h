#pragma once
// Which run store a label's scope names (core/labels/README.md, "Scopes"). A label names its run
// store by a path: as the project lists it ("runs/claims.db", relative to the project's folder,
// which is the folder of the labels store beside the project file), or absolute for a store
// outside that folder. A scope names a store when both paths lead to the same file (device and
// inode, symbolic links followed; the normal absolute paths when a file is missing), never by
// the file name alone: runs/e2e-good.db and other/e2e-good.db are two runs, and labels of one
// are never read as labels of the other.
//
//   const auto folder = labelsFolder(store.path());        // the project's folder
//   ScopeMatcher names(folder, "/home/ana/proj/runs/claims.db");
//   names("runs/claims.db")    // true
//   names("claims.db")         // false: that is /home/ana/proj/claims.db
//   scopeOfStore(folder, "/home/ana/proj/runs/claims.db") == "runs/claims.db"

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

namespace ragscope::core::labels {

// The folder relative scopes are read against: the labels store's folder (the project's).
std::filesystem::path labelsFolder(const std::filesystem::path& labelsStore);

// The file a scope names: absolute as it is, relative under `folder`; lexically normal.
std::filesystem::path scopePath(std::string_view scope, const std::filesystem::path& folder);

// True when `a` and `b` are the same file: equivalent() when both exist (hard and symbolic
// links), else the same weakly canonical absolute path.
bool sameStoreFile(const std::filesystem::path& a, const std::filesystem::path& b);

// The scope a label of `store` gets when no project lists it: its path relative to `folder`
// when it lies inside it (no ".." step), else (or with no folder) its absolute path.
std::string scopeOfStore(const std::filesystem::path& folder, const std::filesystem::path& store);

// Whether scopes name one store, each scope's answer kept (a pass over many labels stats each
// distinct scope once).
class ScopeMatcher {
 public:
  ScopeMatcher(std::filesystem::path folder, std::filesystem::path store);
  bool operator()(std::string_view scope) const;
  const std::filesystem::path& store() const { return m_store; }
  const std::filesystem::path& folder() const { return m_folder; }

 private:
  std::filesystem::path m_folder;
  std::filesystem::path m_store;
  mutable std::map<std::string, bool, std::less<>> m_known;
};

}  // namespace ragscope::core::labels
