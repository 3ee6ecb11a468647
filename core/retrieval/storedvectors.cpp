#include "core/retrieval/storedvectors.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/util/base64.h"
#include "core/util/jsonstrict.h"

namespace ragscope::core {

namespace {

using nlohmann::json;

// float32 <-> its 4 little-endian bytes, whatever the machine's order.
void toLittleEndian(const float* in, std::size_t n, unsigned char* out) {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(out, in, n * sizeof(float));
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      const auto v = std::bit_cast<std::uint32_t>(in[i]);
      for (int b = 0; b < 4; ++b) out[i * 4 + b] = static_cast<unsigned char>(v >> (8 * b));
    }
  }
}

void fromLittleEndian(const unsigned char* in, std::size_t n, float* out) {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(out, in, n * sizeof(float));
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t v = 0;
      for (int b = 0; b < 4; ++b) v |= std::uint32_t{in[i * 4 + b]} << (8 * b);
      out[i] = std::bit_cast<float>(v);
    }
  }
}

// A header member that is a count in [1, max], or nullopt.
std::optional<std::size_t> countMember(const json& header, const char* name, std::size_t max) {
  const auto it = header.find(name);
  if (it == header.end() || !it->is_number_unsigned()) return std::nullopt;
  const auto v = it->get<std::uint64_t>();
  if (v == 0 || v > max) return std::nullopt;
  return static_cast<std::size_t>(v);
}

}  // namespace

std::optional<std::string> packVectors(const std::vector<std::vector<float>>& vectors,
                                       const std::string& model) {
  if (vectors.empty() || vectors.size() > kStoredVectorsMaxCount) return std::nullopt;
  const std::size_t dims = vectors[0].size();
  if (dims == 0 || dims > kStoredVectorsMaxDimensions) return std::nullopt;
  for (const auto& v : vectors)
    if (v.size() != dims) return std::nullopt;
  const json header = {{"vectors", kStoredVectorsEncoding},
                       {"count", vectors.size()},
                       {"dimensions", dims},
                       {"model", model}};
  std::string out = header.dump(-1, ' ', false, json::error_handler_t::replace);
  out += '\n';
  std::vector<unsigned char> raw(vectors.size() * dims * sizeof(float));
  for (std::size_t i = 0; i < vectors.size(); ++i)
    toLittleEndian(vectors[i].data(), dims, raw.data() + i * dims * sizeof(float));
  base64EncodeAppend(raw.data(), raw.size(), out);
  return out;
}

std::string unpackVectors(std::string_view text, std::vector<std::vector<float>>* vectors,
                          std::string* model) {
  const auto newline = text.find('\n');
  // A header is a small object: one longer than this is not ours (model names are short).
  if (newline == std::string_view::npos || newline > 4096)
    return "not the stored vector form (no header line)";
  json header;
  if (!parseJsonStrict(text.substr(0, newline), header) || !header.is_object())
    return "not the stored vector form (the header line is not a JSON object)";
  const auto encoding = header.find("vectors");
  if (encoding == header.end() || !encoding->is_string() ||
      encoding->get<std::string>() != kStoredVectorsEncoding)
    return std::string("not the stored vector form (header member \"vectors\" is not \"") +
           kStoredVectorsEncoding + "\")";
  if (header.size() != 4)
    return "the header has other members than vectors, count, dimensions, model";
  const auto count = countMember(header, "count", kStoredVectorsMaxCount);
  if (!count)
    return "header member \"count\" is not a count from 1 to " +
           std::to_string(kStoredVectorsMaxCount);
  const auto dims = countMember(header, "dimensions", kStoredVectorsMaxDimensions);
  if (!dims)
    return "header member \"dimensions\" is not a count from 1 to " +
           std::to_string(kStoredVectorsMaxDimensions);
  const auto m = header.find("model");
  if (m == header.end() || !m->is_string()) return "header member \"model\" is not a string";
  const std::string_view body = text.substr(newline + 1);
  // Both within their bounds, so the product cannot overflow.
  const std::size_t bytes = *count * *dims * sizeof(float);
  if (body.size() != base64EncodedSize(bytes))
    return "the body holds " + std::to_string(body.size()) + " base64 characters, " +
           std::to_string(*count) + " x " + std::to_string(*dims) + " float32 need " +
           std::to_string(base64EncodedSize(bytes));
  if (base64DecodedSize(body) != bytes) return "the body's padding does not fit its size";
  std::vector<unsigned char> raw(bytes);
  if (!base64DecodeTo(body, raw.data())) return "the body is not canonical base64";
  vectors->assign(*count, std::vector<float>(*dims));
  for (std::size_t i = 0; i < *count; ++i)
    fromLittleEndian(raw.data() + i * *dims * sizeof(float), *dims, (*vectors)[i].data());
  *model = m->get<std::string>();
  return {};
}

}  // namespace ragscope::core
