#pragma once
// The project's labels store (core/labels/README.md): one SQLite file in WAL mode, append-only.
// Every label is one committed row the moment add() returns, so a crash or kill loses nothing
// that was acknowledged; nothing is ever updated or deleted. Several annotators label the same
// target independently; for each (target, annotator) the latest row wins (current()), the earlier
// rows stay (history()). Readable by several processes at once (the GUI labelling while the CLI
// reads).
//
//   LabelStore store; std::string err;
//   if (!store.open(labelsStorePath(project), &err)) ...;
//   store.add({label}, &err);                 // checked (labelProblem), all or nothing
//   for (const Label& l : store.current()) ...

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/labels/label.h"

namespace ragscope::core {
struct Project;
class SqliteDb;
}  // namespace ragscope::core

namespace ragscope::core::labels {

// Where a project's labels live: "<project file's stem>.labels.db" beside the project file
// ("demo.ragscope.json" -> "demo.ragscope.labels.db").
std::filesystem::path labelsStorePath(const Project& project);
std::filesystem::path labelsStorePath(const std::filesystem::path& projectFile);

// Which targets exist. add() and imports refuse a label whose target the catalog does not know
// ("claim response:9 of q7 in claims.db: the answer has 4 response claims"). A null catalog
// accepts any well-formed target (the store alone cannot know).
using LabelCatalog = std::function<std::optional<std::string>(const Target&)>;

class LabelStore {
 public:
  LabelStore();
  ~LabelStore();
  LabelStore(const LabelStore&) = delete;
  LabelStore& operator=(const LabelStore&) = delete;

  // Creates the file when missing; refuses a file that is not a labels store (schemaProblem).
  bool open(const std::filesystem::path& path, std::string* error);
  // Writes nothing. A store no process has open is read as an immutable file (SqliteDb); should
  // a writer open it later, the next read reopens the store (as a reader beside the writer), so
  // a long-lived reader still sees every label added since.
  bool openReadOnly(const std::filesystem::path& path, std::string* error);
  // A path that may be a project file (*.json: its labels store) or a labels store itself.
  bool openProjectOrStore(const std::filesystem::path& path, bool readOnly, std::string* error);
  const std::filesystem::path& path() const { return m_path; }
  bool isOpen() const { return m_db != nullptr; }
  bool isReadOnly() const { return m_readOnly; }

  // Adds labels in one transaction: each checked with labelProblem() and the catalog first; on
  // any problem nothing is stored and `error` names the label (its position and target) and
  // the problem. Sets each stored label's id.
  bool add(std::vector<Label>& labels, std::string* error, const LabelCatalog& catalog = {});
  // One transaction over several add() calls, for an import in pieces (labelio.h,
  // importLabelsFile): what add() stores after beginImport() is committed by commitImport()
  // only; a failed add() or rollbackImport() drops every label added since beginImport().
  bool beginImport(std::string* error);
  bool commitImport(std::string* error);
  void rollbackImport();

  // The latest label of each (target, annotator), ordered by target key then annotator.
  std::vector<Label> current();
  // Every row ever added, oldest first (optionally of one target).
  std::vector<Label> history(const std::optional<Target>& only = std::nullopt);
  // The number of rows; a cheap change check for views that refresh (rows only grow).
  std::int64_t rowCount();
  std::vector<std::string> annotators();

 private:
  std::unique_ptr<SqliteDb> m_db;
  std::filesystem::path m_path;
  bool m_readOnly = false;
  bool m_importing = false;  // between beginImport() and commitImport() / rollbackImport()
  int m_version = 0;  // the schema read: 2, or 1 for a store opened read-only before migration
  // Read-only and opened while no writer had the file: what the file looked like then (see
  // openReadOnly); a change reopens.
  bool m_snapshot = false;
  std::uintmax_t m_snapshotSize = 0;
  std::filesystem::file_time_type m_snapshotTime{};
  void reopenIfWritten();
};

}  // namespace ragscope::core::labels
