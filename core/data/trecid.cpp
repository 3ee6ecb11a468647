#include "core/data/trecid.h"

namespace ragscope::core {

namespace {

// '%' is escaped too: otherwise an id holding "%20" would read back as one holding a space.
bool needsEscape(unsigned char c) { return c <= 0x20 || c == 0x7f || c == '%'; }

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// The byte of an escape encodeTrecId writes at id[i] ("%XX"), or -1 when there is none there.
int escapeAt(std::string_view id, std::size_t i) {
  if (id[i] != '%' || i + 2 >= id.size()) return -1;
  const int hi = hexValue(id[i + 1]), lo = hexValue(id[i + 2]);
  if (hi < 0 || lo < 0) return -1;
  const int c = hi * 16 + lo;
  return needsEscape(static_cast<unsigned char>(c)) ? c : -1;
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
    if (const int c = escapeAt(id, i); c >= 0) {
      out += static_cast<char>(c);
      i += 2;
    } else {
      out += id[i];
    }
  }
  return out;
}

bool hasTrecEscape(std::string_view id) {
  for (auto at = id.find('%'); at != std::string_view::npos; at = id.find('%', at + 1))
    if (escapeAt(id, at) >= 0) return true;
  return false;
}

}  // namespace ragscope::core
