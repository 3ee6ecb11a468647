#pragma once
// No command writes over one of its own inputs. `batch export RUN.db --out RUN.db` once replaced a
// run store with JSONL, `generate --batch-file DATA.jsonl --dataset DATA.jsonl` a dataset: every
// command (the CLI's option layer, app/cli/options.h, and the GUI's save actions) hands the paths
// it writes and the paths it reads to this one check before it does anything.
//
// Two paths are the same file when they lead to the same device and inode (a hard link or a
// symlink to an input counts), or, for paths that do not exist yet, to the same place once
// symlinks of their folders are resolved. An input's SQLite side files (-wal, -shm, -journal) are
// part of it: writing one of them corrupts the store.
//
//   std::vector<NamedPath> paths = {{"--out", out, PathUse::Written},
//                                   {"--labels", labels, PathUse::Read}};
//   if (auto why = outputOverInput(paths)) return usageError(*why);
//   // "--out 'L.db' would overwrite --labels 'L.db', one of the inputs (the same file);
//   //  choose another output"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ragscope::core {

// What a command does with a path. A run store that a command continues is read and written.
enum class PathUse { Read, Written, ReadAndWritten };

// A path as the user gave it, with how they named it (an option: "--out"; a positional argument:
// its name in the usage line, "RUN.db"; or empty) and what the command does with it.
struct NamedPath {
  std::string name;
  std::filesystem::path path;
  PathUse use = PathUse::Read;
};

// The first clash among `paths`, as a sentence naming both, or nullopt:
//   - a path written that is another path read, or a SQLite side file of one (or a path read
//     that is a side file of a store written: SQLite would write into it);
//   - two paths written that are the same file (the second would replace the first).
// Entries are compared with the others, never with themselves, so a store read and written is one
// entry. Empty paths and "-" (standard input or output) never clash.
std::optional<std::string> outputOverInput(const std::vector<NamedPath>& paths);

// Whether `a` and `b` name the same file (see above). Neither needs to exist.
bool sameFile(const std::filesystem::path& a, const std::filesystem::path& b);

// The folder that holds `file`, as an absolute path with "." and ".." taken out: "x.json" gives
// the current folder, never an empty path. A folder boundary (which files are inside a project's
// folder) is decided on this, never on file.parent_path(), which is empty for a bare file name.
std::filesystem::path folderOf(const std::filesystem::path& file);

}  // namespace ragscope::core
