#pragma once
// Atomic file replacement: the content goes to a temporary file in the target's folder (so the final
// rename never crosses file systems), which is renamed over the target only once fully written.
// Readers therefore see either the old file or the complete new one, never a half-written one.
//
//   std::string error;
//   bool ok = writeFileAtomically(path, [&](std::ostream& out) { out << text; return true; }, &error);

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>

namespace ragscope::core {

// Calls `write` with a stream onto a fresh temporary file next to `path`, then renames it over
// `path`. `write` returns false when it could not produce the content (the write then fails as a
// whole). With `fsyncFile` the data (and afterwards the folder entry) is flushed to disk before the
// rename makes it visible, so a crash cannot leave an empty file under the real name.
// On failure returns false, removes the temporary file and sets *error (when given) to
// "<path>: <what failed>[: <reason>]".
bool writeFileAtomically(const std::filesystem::path& path,
                         const std::function<bool(std::ostream&)>& write, std::string* error,
                         bool fsyncFile = true);

}  // namespace ragscope::core
