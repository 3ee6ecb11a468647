#include "core/util/sha256.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <vector>

#include "core/util/inputfile.h"

namespace ragscope::core {

namespace {

// Fetched once (OpenSSL 3's explicit fetch): an implicit fetch through EVP_sha256() would look the
// implementation up again on every EVP_DigestInit_ex, and cache keys hash many short texts.
const EVP_MD* sha256Md() {
  static EVP_MD* const md = EVP_MD_fetch(nullptr, "SHA2-256", nullptr);
  if (!md) throw std::runtime_error("OpenSSL's libcrypto offers no SHA-256");
  return md;
}

[[noreturn]] void fail(const char* what) {
  throw std::runtime_error(std::string("OpenSSL's libcrypto failed to ") + what + " a SHA-256");
}

EVP_MD_CTX* newContext() {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (!ctx) throw std::bad_alloc();
  return ctx;
}

}  // namespace

void Sha256::FreeContext::operator()(EVP_MD_CTX* ctx) const noexcept { EVP_MD_CTX_free(ctx); }

Sha256::Sha256() : m_ctx(newContext()) {
  if (EVP_DigestInit_ex(m_ctx.get(), sha256Md(), nullptr) != 1) fail("start");
}

Sha256::Sha256(const Sha256& other) : m_ctx(newContext()) {
  if (EVP_MD_CTX_copy_ex(m_ctx.get(), other.m_ctx.get()) != 1) fail("copy");
}

Sha256& Sha256::operator=(const Sha256& other) {
  if (this == &other) return *this;
  if (!m_ctx) m_ctx.reset(newContext());
  if (EVP_MD_CTX_copy_ex(m_ctx.get(), other.m_ctx.get()) != 1) fail("copy");
  return *this;
}

void Sha256::update(const void* data, std::size_t size) {
  if (size > 0 && EVP_DigestUpdate(m_ctx.get(), data, size) != 1) fail("update");
}

std::array<std::uint8_t, 32> Sha256::digest() {
  std::array<std::uint8_t, 32> out;
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(m_ctx.get(), out.data(), &length) != 1 || length != out.size())
    fail("finish");
  return out;
}

std::string Sha256::hexDigest() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(64);
  for (const std::uint8_t byte : digest()) {
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
  }
  return out;
}

std::string sha256Hex(std::string_view text) {
  Sha256 h;
  h.update(text);
  return h.hexDigest();
}

namespace {

bool hashFile(const std::filesystem::path& path, Sha256& h) {
  // Through the input check: a FIFO or device named as a dataset file is never read.
  std::string error;
  std::uint64_t size = 0;
  std::FILE* in = isStdinPath(path) ? nullptr : openForReading(path, error, size);
  if (!in) return false;
  std::vector<char> buf(std::size_t{1} << 20);
  std::size_t got = 0;
  while ((got = std::fread(buf.data(), 1, buf.size(), in)) > 0) h.update(buf.data(), got);
  const bool ok = std::ferror(in) == 0;
  std::fclose(in);
  return ok;
}

}  // namespace

std::optional<std::string> sha256OfPath(const std::filesystem::path& path) {
  std::error_code ec;
  Sha256 h;
  if (std::filesystem::is_directory(path, ec)) {
    std::vector<std::filesystem::path> files;
    for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec)) files.push_back(it->path());
    }
    if (ec) return std::nullopt;
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      const std::string rel = std::filesystem::relative(f, path, ec).generic_string();
      h.update(rel);
      h.update("\n", 1);
      if (!hashFile(f, h)) return std::nullopt;
    }
    return h.hexDigest();
  }
  if (!hashFile(path, h)) return std::nullopt;
  return h.hexDigest();
}

}  // namespace ragscope::core
