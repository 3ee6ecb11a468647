#pragma once
// SHA-256 (FIPS 180-4), for content addressing: response-cache keys, template and input hashes.
// OpenSSL's libcrypto computes it (an EVP digest context); this header keeps OpenSSL's types out of
// its callers.
//
//   Sha256 h; h.update("abc"); std::string hex = h.hexDigest();   // "ba7816bf..."
//   std::string hex2 = sha256Hex("abc");

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

// OpenSSL's EVP_MD_CTX (openssl/types.h), declared here so that callers need no OpenSSL header.
struct evp_md_ctx_st;

namespace ragscope::core {

// Throws std::bad_alloc when OpenSSL cannot allocate its context and std::runtime_error when
// libcrypto offers no SHA-256 (a broken OpenSSL configuration); never a wrong digest.
class Sha256 {
 public:
  Sha256();
  // A copy continues from the same state (the prefix hashed once, several endings). A moved-from
  // hash may only be assigned to or destroyed.
  Sha256(const Sha256& other);
  Sha256& operator=(const Sha256& other);
  Sha256(Sha256&&) noexcept = default;
  Sha256& operator=(Sha256&&) noexcept = default;
  ~Sha256() = default;

  void update(const void* data, std::size_t size);
  void update(std::string_view text) { update(text.data(), text.size()); }
  // Finishes the hash; the object must not be updated afterwards.
  std::array<std::uint8_t, 32> digest();
  std::string hexDigest();

 private:
  struct FreeContext {
    void operator()(evp_md_ctx_st* ctx) const noexcept;
  };
  std::unique_ptr<evp_md_ctx_st, FreeContext> m_ctx;
};

std::string sha256Hex(std::string_view text);
// Streams a file (or, for a folder, every regular file under it in path order, each preceded by
// its relative path) through SHA-256. nullopt when it cannot be read.
std::optional<std::string> sha256OfPath(const std::filesystem::path& path);

}  // namespace ragscope::core
