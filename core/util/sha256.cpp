#include "core/util/sha256.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/util/inputfile.h"

namespace ragscope::core {

namespace {

constexpr std::array<std::uint32_t, 64> kRound = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

}  // namespace

Sha256::Sha256()
    : m_state{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
              0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19} {}

void Sha256::block(const std::uint8_t* p) {
  std::array<std::uint32_t, 64> w;
  for (int i = 0; i < 16; ++i) {
    w[i] = (std::uint32_t{p[4 * i]} << 24) | (std::uint32_t{p[4 * i + 1]} << 16) |
           (std::uint32_t{p[4 * i + 2]} << 8) | std::uint32_t{p[4 * i + 3]};
  }
  for (int i = 16; i < 64; ++i) {
    const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  auto [a, b, c, d, e, f, g, h] = m_state;
  for (int i = 0; i < 64; ++i) {
    const std::uint32_t s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    const std::uint32_t ch = (e & f) ^ (~e & g);
    const std::uint32_t t1 = h + s1 + ch + kRound[i] + w[i];
    const std::uint32_t s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    const std::uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    const std::uint32_t t2 = s0 + maj;
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  m_state[0] += a;
  m_state[1] += b;
  m_state[2] += c;
  m_state[3] += d;
  m_state[4] += e;
  m_state[5] += f;
  m_state[6] += g;
  m_state[7] += h;
}

void Sha256::update(const void* data, std::size_t size) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  m_length += size;
  if (m_buffered > 0) {
    const std::size_t take = std::min(size, 64 - m_buffered);
    std::memcpy(m_buffer.data() + m_buffered, p, take);
    m_buffered += take;
    p += take;
    size -= take;
    if (m_buffered < 64) return;
    block(m_buffer.data());
    m_buffered = 0;
  }
  while (size >= 64) {
    block(p);
    p += 64;
    size -= 64;
  }
  if (size > 0) {
    std::memcpy(m_buffer.data(), p, size);
    m_buffered = size;
  }
}

std::array<std::uint8_t, 32> Sha256::digest() {
  const std::uint64_t bits = m_length * 8;
  const std::uint8_t one = 0x80;
  update(&one, 1);
  const std::uint8_t zero = 0;
  while (m_buffered != 56) update(&zero, 1);
  std::uint8_t len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<std::uint8_t>(bits >> (56 - 8 * i));
  update(len, 8);
  std::array<std::uint8_t, 32> out;
  for (int i = 0; i < 8; ++i) {
    out[4 * i] = static_cast<std::uint8_t>(m_state[i] >> 24);
    out[4 * i + 1] = static_cast<std::uint8_t>(m_state[i] >> 16);
    out[4 * i + 2] = static_cast<std::uint8_t>(m_state[i] >> 8);
    out[4 * i + 3] = static_cast<std::uint8_t>(m_state[i]);
  }
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
