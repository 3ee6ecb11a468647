#include "core/data/trecid.h"

namespace ragscope::core {

namespace {
bool needsEscape(unsigned char c) { return c <= 0x20 || c == 0x7f; }
int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}
}  // namespace

std::string encodeTrecId(std::string_view id) {
  static const char* digits = "0123456789ABCDEF";
  std::string out;
  out.reserve(id.size());
  for (unsigned char c : id) {
    if (needsEscape(c)) {
      out += '%';
      out += digits[c >> 4];
      out += digits[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string decodeTrecId(std::string_view id) {
  if (id.find('%') == std::string_view::npos) return std::string(id);
  std::string out;
  out.reserve(id.size());
  for (std::size_t i = 0; i < id.size(); ++i) {
    if (id[i] == '%' && i + 2 < id.size() && hexValue(id[i + 1]) >= 0 &&
        hexValue(id[i + 2]) >= 0) {
      const auto c = static_cast<unsigned char>(hexValue(id[i + 1]) * 16 + hexValue(id[i + 2]));
      if (needsEscape(c)) {  // only what encodeTrecId writes
        out += static_cast<char>(c);
        i += 2;
        continue;
      }
    }
    out += id[i];
  }
  return out;
}

bool hasTrecEscape(std::string_view id) {
  for (std::size_t i = 0; i + 2 < id.size(); ++i)
    if (id[i] == '%' && hexValue(id[i + 1]) >= 0 && hexValue(id[i + 2]) >= 0 &&
        needsEscape(static_cast<unsigned char>(hexValue(id[i + 1]) * 16 + hexValue(id[i + 2]))))
      return true;
  return false;
}

}  // namespace ragscope::core
