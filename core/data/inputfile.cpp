#include "core/data/inputfile.h"

#include <cerrno>
#include <cstring>
#include <system_error>

namespace ragscope::core {

std::FILE* openForReading(const std::filesystem::path& path, std::string& error,
                          std::uint64_t& size) {
  size = 0;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    error = "is a folder, not a file";
    return nullptr;
  }
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) {
    error = std::strerror(errno);
    return nullptr;
  }
  const auto bytes = std::filesystem::file_size(path, ec);
  size = ec ? 0 : bytes;
  return file;
}

}  // namespace ragscope::core
