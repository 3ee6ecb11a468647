#pragma once
// SHA-256 (FIPS 180-4), for content addressing: response-cache keys, template and input hashes.
// Small and dependency-free because none of our linked libraries exposes one.
//
//   Sha256 h; h.update("abc"); std::string hex = h.hexDigest();   // "ba7816bf..."
//   std::string hex2 = sha256Hex("abc");

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace ragscope::core {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, std::size_t size);
  void update(std::string_view text) { update(text.data(), text.size()); }
  // Finishes the hash; the object must not be updated afterwards.
  std::array<std::uint8_t, 32> digest();
  std::string hexDigest();

 private:
  void block(const std::uint8_t* p);

  std::array<std::uint32_t, 8> m_state;
  std::array<std::uint8_t, 64> m_buffer{};
  std::size_t m_buffered = 0;
  std::uint64_t m_length = 0;  // bytes hashed so far
};

std::string sha256Hex(std::string_view text);
// Streams a file (or, for a folder, every regular file under it in path order, each preceded by
// its relative path) through SHA-256. nullopt when it cannot be read.
std::optional<std::string> sha256OfPath(const std::filesystem::path& path);

}  // namespace ragscope::core
