#pragma once
// Base64 (RFC 4648, section 4: the standard alphabet, '=' padding), for binary data kept in text
// columns and JSON (the dense index's stored vectors, core/retrieval/storedvectors.h). OpenSSL's
// libcrypto encodes and decodes; the strictness below is checked here (core/util/README.md).
//
//   std::string text = base64Encode(bytes.data(), bytes.size());
//   std::string back;  if (!base64Decode(text, &back)) ...
//
// The decoder is strict, for text from elsewhere: only the alphabet, the length a multiple of 4,
// at most two '=' and only at the end, and the unused bits of the last group zero (so a text has
// exactly one decoding and one encoding), no whitespace.

#include <cstddef>
#include <string>
#include <string_view>

namespace ragscope::core {

std::string base64Encode(const void* data, std::size_t size);
// Appends the encoding to `out` (no reallocation when `out` has the capacity).
void base64EncodeAppend(const void* data, std::size_t size, std::string& out);
// 4 * ceil(size / 3).
constexpr std::size_t base64EncodedSize(std::size_t size) { return (size + 2) / 3 * 4; }

// The bytes `text` encodes into *out (replaced); false when `text` is not canonical base64 as
// above (*out then unspecified).
bool base64Decode(std::string_view text, std::string* out);
// The same into a buffer of base64DecodedSize(text) bytes; false as above.
bool base64DecodeTo(std::string_view text, unsigned char* out);
// The bytes a base64 text of this length and padding decodes to (0 for a length not a multiple of
// 4).
std::size_t base64DecodedSize(std::string_view text);

}  // namespace ragscope::core
