#pragma once
// Opening a file for a streaming reader: every reader wants the same things (a folder, a device or
// an unreadable path named in words, the size for progress, and a FILE* it will close itself), and
// none may be handed a file that never ends or blocks: `/dev/zero`, a FIFO, `/proc/kmsg`.
//
//   std::string error;
//   std::uint64_t size = 0;
//   std::FILE* f = openForReading(path, error, size);
//   if (!f) report(file, error);  // "cannot open: No such file or directory",
//                                 // "is not a regular file (a character device) ..."

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace ragscope::core {

// What a file of st_mode `mode` is, for messages: "a symbolic link", "a folder", "a FIFO (named
// pipe)", "a character device", ...; "not a plain file" for anything else.
const char* fileKind(unsigned mode);

// "-": the name under which a reader takes its standard input.
bool isStdinPath(const std::filesystem::path& path);

// True for the kernel's pseudo file systems and device folders (/proc, /sys, /dev and everything
// under them, symlinks resolved, or a file on procfs/sysfs/devtmpfs/debugfs...). Their files
// report sizes that lie and reads that block or never end; ragscope never reads them.
bool isSystemPath(const std::filesystem::path& path);

// Why `path` must not be read as an input file, or nullopt when it may: anything but a regular
// file (folders, character and block devices, FIFOs, sockets) and system files (isSystemPath).
// The sentence names what the path is, e.g. "is not a regular file (a character device);
// ragscope reads regular files, or '-' for standard input". "-" is accepted. A path that does
// not exist gives nullopt: opening it reports that.
std::optional<std::string> specialFileProblem(const std::filesystem::path& path);

// nullptr with `error` set to a whole problem sentence on failure ("cannot open: No such file or
// directory", "is a folder, not a file", a specialFileProblem()); `size` is 0 when unknown. "-"
// opens standard input. The check is made on the opened descriptor, so a path swapped for a FIFO
// between check and open is still refused (and never blocks the open). The caller owns the FILE*
// and fcloses it.
std::FILE* openForReading(const std::filesystem::path& path, std::string& error,
                          std::uint64_t& size);

// Reads all of a small file that configures or continues work (a prompt or request template, a
// checkpoint, a registry, a report read back) through openForReading's checks, never more than
// `maxBytes`: a bigger file, or one that grows past the bound while read, is refused with "is
// larger than N bytes, the limit for WHAT". `what` names the kind of file in that sentence.
// nullopt with `error` set to a whole problem sentence (without the path) on failure. "-" is
// refused: these files are named, never piped.
std::optional<std::string> readBoundedFile(const std::filesystem::path& path,
                                           std::uint64_t maxBytes, std::string_view what,
                                           std::string& error);

// Bounds of readBoundedFile for the kinds of files ragscope reads whole.
inline constexpr std::uint64_t kMaxTemplateBytes = std::uint64_t{4} << 20;  // prompt, request
inline constexpr std::uint64_t kMaxSmallJsonBytes = std::uint64_t{16}
                                                    << 20;  // manifests, registries
inline constexpr std::uint64_t kMaxCheckpointBytes = std::uint64_t{4}
                                                     << 30;  // retrieval checkpoints

}  // namespace ragscope::core
