#pragma once
// A fast 64-bit checksum of bytes (about 8 GB/s on one core) for ragscope's own side files: it
// tells a damaged or foreign side index from a sound one. Not cryptographic: a side index is
// also checked field by field before anything in it is used (core/data/README.md, "Big corpora").

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ragscope::core {

std::uint64_t fastHash64(const void* data, std::size_t size, std::uint64_t seed = 0);
inline std::uint64_t fastHash64(std::string_view bytes, std::uint64_t seed = 0) {
  return fastHash64(bytes.data(), bytes.size(), seed);
}

}  // namespace ragscope::core
