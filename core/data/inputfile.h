#pragma once
// Opening a file for a streaming reader: every reader wants the same three things (a folder or an
// unreadable path named in words, the size for progress, and a FILE* it will close itself).

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

namespace ragscope::core {

// nullptr with `error` set ("is a folder, not a file", "No such file or directory") on failure;
// `size` is 0 when unknown. The caller owns the FILE* and fcloses it.
std::FILE* openForReading(const std::filesystem::path& path, std::string& error,
                          std::uint64_t& size);

}  // namespace ragscope::core
