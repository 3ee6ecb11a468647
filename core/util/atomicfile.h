#pragma once
// Every file ragscope writes goes through this header, so that no name a file from elsewhere (a
// project, a run store, a planted symlink) controls can make ragscope write through a link or
// into a device, FIFO or other special file.
//
// Whole files are replaced atomically: the content goes to a fresh temporary file in the target's
// folder (created with O_EXCL | O_NOFOLLOW, so never through anything placed under that name),
// which is renamed over the target only once fully written. rename() replaces a symlink at the
// target's name, it never writes through it. Readers see the old file or the complete new one.
//
// Files written a line at a time (checkpoints, logs) are opened with openForAppend(), which
// refuses symlinks and anything but a regular file.
//
//   std::string error;
//   bool ok = writeFileAtomically(path, [&](std::ostream& out) { out << text; return true; },
//   &error);

#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace ragscope::core {

// Who may read a new file. Private (0600) is for what holds prompts, replies, labels or keys'
// destinations: response caches, run stores, checkpoints, the trust registry. Shared is what the
// umask allows (0644 under umask 022): run files, answers, reports. A file that is replaced keeps
// the mode it had, whichever is asked.
enum class FileAccess { Shared, Private };

// Calls `write` with a stream onto a fresh temporary file next to `path`, then renames it over
// `path`. `write` returns false when it could not produce the content (the write then fails as a
// whole). With `fsyncFile` the data (and afterwards the folder entry) is flushed to disk before the
// rename makes it visible, so a crash cannot leave an empty file under the real name.
// A folder at `path` is refused. On failure returns false, removes the temporary file and sets
// *error (when given) to "<path>: <what failed>[: <reason>]".
bool writeFileAtomically(const std::filesystem::path& path,
                         const std::function<bool(std::ostream&)>& write, std::string* error,
                         bool fsyncFile = true, FileAccess access = FileAccess::Shared);

// The same for bytes already in memory.
bool writeBytesAtomically(const std::filesystem::path& path, std::string_view bytes,
                          std::string* error, FileAccess access = FileAccess::Shared);

// Why `path` must not be written in place (nullopt when it may): a symlink, a folder, a device,
// a FIFO or a socket at that name. A path that does not exist may be written.
std::optional<std::string> unsafeWriteTarget(const std::filesystem::path& path);

// A descriptor open for appending to the regular file at `path` (created with `access` when
// `create` and it does not exist), never through a symlink and never onto a special file;
// -1 and *error ("<path>: ...") otherwise. The caller closes it.
int openForAppend(const std::filesystem::path& path, bool create, FileAccess access,
                  std::string* error);

// write(2) until every byte is written (retrying short writes and EINTR); false on an error.
bool writeAll(int fd, std::string_view bytes);

}  // namespace ragscope::core
