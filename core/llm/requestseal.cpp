// Seals of the requests asked on this machine (core/llm/requestseal.h).

#include "core/llm/requestseal.h"

#include <sys/random.h>

#include <cstdlib>
#include <random>

#include "core/util/atomicfile.h"
#include "core/util/inputfile.h"
#include "core/util/sha256.h"

namespace ragscope::core::llm {

namespace {

constexpr std::size_t kSealHexDigits = 32;

int sealHexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::optional<std::array<std::uint8_t, 32>> secretFromText(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  if (text.size() != 64) return std::nullopt;
  std::array<std::uint8_t, 32> out{};
  for (std::size_t i = 0; i < 32; ++i) {
    const int hi = sealHexValue(text[2 * i]), lo = sealHexValue(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<std::uint8_t>(hi * 16 + lo);
  }
  return out;
}

std::string hexOf(const std::uint8_t* bytes, std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 15];
  }
  return out;
}

std::array<std::uint8_t, 32> freshSecret() {
  std::array<std::uint8_t, 32> out{};
  std::size_t got = 0;
  while (got < out.size()) {
    const ssize_t n = ::getrandom(out.data() + got, out.size() - got, 0);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (got < out.size()) {
    std::random_device rd;  // the kernel's generator as well, through the library
    for (auto& b : out) b = static_cast<std::uint8_t>(rd());
  }
  return out;
}

}  // namespace

std::filesystem::path RequestSeal::defaultPath() {
  std::filesystem::path base;
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) {
    base = xdg;
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    base = std::filesystem::path(home) / ".config";
  } else {
    base = std::filesystem::temp_directory_path();
  }
  return base / "ragscope" / "request-seal.key";
}

std::optional<RequestSeal> RequestSeal::load(const std::filesystem::path& path, bool create,
                                             std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<RequestSeal> {
    if (error) *error = path.string() + ": " + why;
    return std::nullopt;
  };
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    if (!create) return fail("no request seal secret on this machine");
    std::filesystem::create_directories(path.parent_path(), ec);
    const auto secret = freshSecret();
    std::string err;
    if (!writeBytesAtomically(path, hexOf(secret.data(), secret.size()) + "\n", &err,
                              FileAccess::Private)) {
      if (error) *error = err;
      return std::nullopt;
    }
  }
  std::string why;
  const auto text = readBoundedFile(path, 4096, "a request seal secret", why);
  if (!text) return fail(why);
  const auto secret = secretFromText(*text);
  if (!secret)
    return fail("not a ragscope request seal secret (64 hex digits; remove it to make one)");
  return RequestSeal(*secret);
}

std::string RequestSeal::seal(std::string_view cacheKey) const {
  // HMAC (RFC 2104) with SHA-256: the secret (32 bytes) padded to the 64-byte block.
  std::array<std::uint8_t, 64> inner{}, outer{};
  for (std::size_t i = 0; i < 64; ++i) {
    const std::uint8_t k = i < m_secret.size() ? m_secret[i] : 0;
    inner[i] = k ^ 0x36;
    outer[i] = k ^ 0x5c;
  }
  Sha256 in;
  in.update(inner.data(), inner.size());
  in.update(cacheKey);
  const auto innerDigest = in.digest();
  Sha256 out;
  out.update(outer.data(), outer.size());
  out.update(innerDigest.data(), innerDigest.size());
  const auto mac = out.digest();
  return hexOf(mac.data(), kSealHexDigits / 2);
}

bool RequestSeal::verify(std::string_view cacheKey, std::string_view recorded) const {
  const std::string expected = seal(cacheKey);
  if (recorded.size() != expected.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < expected.size(); ++i)
    diff |= static_cast<unsigned char>(expected[i] ^ recorded[i]);
  return diff == 0;
}

}  // namespace ragscope::core::llm
