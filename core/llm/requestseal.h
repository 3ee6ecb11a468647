#pragma once
// Proof that a request was asked on this machine (core/llm/README.md, "Response cache"). The
// response cache is shared by every run of the user, so an answer read from a batch output file
// may enter it only when it answers a request this user wrote out or submitted: every call that
// `batch export`, `--batch-file`, `batch submit` or `--batch` puts in a batch gets a seal, an
// HMAC-SHA256 of the call's response-cache key (endpoint, model, parameters and the exact body)
// under a secret that never leaves this machine. The run store keeps the seals beside its batch
// state; an import accepts an answer into the cache only when the seal recorded for its call
// matches the call the store holds now. A store made elsewhere (or edited since) carries no seal
// this machine accepts, so its output files never write into the cache.
//
// The secret is $XDG_CONFIG_HOME/ragscope/request-seal.key (else ~/.config/...), 32 random bytes
// in hex, created 0600 on first use. Removing it only means that batches exported before are
// imported into their stores without entering the cache.
//
//   auto seal = RequestSeal::load(RequestSeal::defaultPath(), true, &error);
//   std::string s = seal->seal(cacheKey);          // recorded at export
//   bool mine = seal->verify(cacheKey, recorded);  // checked at import

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace ragscope::core::llm {

class RequestSeal {
 public:
  static std::filesystem::path defaultPath();

  // The secret at `path`. When it does not exist and `create`, a new one is written (and what is
  // on disk afterwards is used, so two processes creating it at once agree). nullopt with *error
  // when it cannot be read or made, or is not a secret of this kind.
  static std::optional<RequestSeal> load(const std::filesystem::path& path, bool create,
                                         std::string* error);
  // A secret given directly (tests, fuzzing).
  explicit RequestSeal(const std::array<std::uint8_t, 32>& secret) : m_secret(secret) {}

  // 32 hex digits (HMAC-SHA256 truncated to 128 bits).
  std::string seal(std::string_view cacheKey) const;
  // Compares in constant time.
  bool verify(std::string_view cacheKey, std::string_view seal) const;

 private:
  std::array<std::uint8_t, 32> m_secret{};
};

}  // namespace ragscope::core::llm
