#include "core/util/base64.h"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cstdint>

namespace ragscope::core {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// 0-63 for the alphabet, 64 for anything else.
constexpr std::array<std::uint8_t, 256> decodeTable() {
  std::array<std::uint8_t, 256> t{};
  for (auto& v : t) v = 64;
  for (std::uint8_t i = 0; i < 64; ++i) t[static_cast<unsigned char>(kAlphabet[i])] = i;
  return t;
}
constexpr auto kDecode = decodeTable();

// OpenSSL counts in int: the texts go through it in pieces of this many groups.
constexpr std::size_t kGroupsPerCall = std::size_t{1} << 20;

// OpenSSL's EVP_DecodeBlock is lenient (it skips leading and trailing whitespace, reads '=' as
// zero bits anywhere, and pads its output to whole groups), so the checks that make a text
// canonical are made here: the length a multiple of 4, only the alphabet, padding only at the end
// ("x=" or "=="), and the bits of the last group past the data zero (one text per byte string:
// "Zh==" is not a second "f").
bool canonical(std::string_view text) {
  if (text.size() % 4 != 0) return false;
  if (text.empty()) return true;
  const std::size_t n = text.size();
  const std::size_t pad = text[n - 1] != '=' ? 0 : text[n - 2] == '=' ? 2 : 1;
  const auto bodyEnd = text.begin() + static_cast<std::ptrdiff_t>(n - pad);
  if (!std::all_of(text.begin(), bodyEnd,
                   [](char c) { return kDecode[static_cast<unsigned char>(c)] != 64; }))
    return false;
  // The last character before the padding carries 4 (after "==") or 2 (after "=") unused bits.
  const std::uint8_t lastBits = kDecode[static_cast<unsigned char>(text[n - pad - 1])];
  return pad == 0 || (lastBits & (pad == 2 ? 15 : 3)) == 0;
}

// Decodes whole groups (shape already checked) into out: 3 bytes per group.
bool decodeGroups(const char* text, std::size_t groups, unsigned char* out) {
  while (groups > 0) {
    const std::size_t n = std::min(groups, kGroupsPerCall);
    const int want = static_cast<int>(n * 3);
    if (EVP_DecodeBlock(out, reinterpret_cast<const unsigned char*>(text),
                        static_cast<int>(n * 4)) != want)
      return false;
    text += n * 4;
    out += n * 3;
    groups -= n;
  }
  return true;
}

}  // namespace

void base64EncodeAppend(const void* data, std::size_t size, std::string& out) {
  const auto* p = static_cast<const unsigned char*>(data);
  const std::size_t start = out.size();
  out.resize(start + base64EncodedSize(size));
  auto* o = reinterpret_cast<unsigned char*>(out.data() + start);
  // EVP_EncodeBlock writes a NUL after its output: inside the string between pieces, and on the
  // string's own terminator after the last (allowed: it is set to '\0', its value).
  while (size > 0) {
    const std::size_t n = std::min(size, kGroupsPerCall * 3);
    o += EVP_EncodeBlock(o, p, static_cast<int>(n));
    p += n;
    size -= n;
  }
}

std::string base64Encode(const void* data, std::size_t size) {
  std::string out;
  base64EncodeAppend(data, size, out);
  return out;
}

std::size_t base64DecodedSize(std::string_view text) {
  if (text.empty() || text.size() % 4 != 0) return 0;
  std::size_t pad = 0;
  if (text.back() == '=') pad = text[text.size() - 2] == '=' ? 2 : 1;
  return text.size() / 4 * 3 - pad;
}

bool base64DecodeTo(std::string_view text, unsigned char* out) {
  if (!canonical(text)) return false;
  if (text.empty()) return true;
  // Every group but the last straight into out; the last (perhaps padded) through a group's
  // buffer, since OpenSSL writes three bytes for it whatever its padding.
  const std::size_t groups = text.size() / 4;
  if (!decodeGroups(text.data(), groups - 1, out)) return false;
  std::array<unsigned char, 3> last{};
  if (!decodeGroups(text.data() + text.size() - 4, 1, last.data())) return false;
  // OpenSSL's length counts the padding's bytes too: only the data's are kept.
  const std::size_t kept = base64DecodedSize(text) - (groups - 1) * 3;
  std::copy_n(last.begin(), kept, out + (groups - 1) * 3);
  return true;
}

bool base64Decode(std::string_view text, std::string* out) {
  if (text.size() % 4 != 0) return false;
  out->assign(base64DecodedSize(text), '\0');
  return base64DecodeTo(text, reinterpret_cast<unsigned char*>(out->data()));
}

}  // namespace ragscope::core
