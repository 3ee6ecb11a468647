#pragma once
// The form a dense index's embeddings store keeps a batch's vectors in (core/retrieval/README.md,
// "Dense retrieval"): the stored answer text of a "docs:<first>-<last>" item is one header line
// and the vectors, exact and about a third of their decimal JSON's size:
//
//   {"count":64,"dimensions":384,"model":"e5","vectors":"f32le-base64"}\n
//   <base64 of count x dimensions little-endian IEEE 754 float32, vector after vector>
//
//   std::string text = packVectors(reply.embeddings, reply.model);
//   std::string why = unpackVectors(text, &vectors, &model);   // "" or why it is not that form
//
// The text comes back from a file anyone may edit: unpackVectors reads nothing it has not checked
// (the header's members and types, count and dimensions within bounds, the body exactly
// count x dimensions x 4 bytes of canonical base64). Whether the values are finite and agree with
// the corpus is the caller's check, the one every live reply passes (corpusembedding.cpp).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ragscope::core {

inline constexpr const char* kStoredVectorsEncoding = "f32le-base64";
// Bounds of a stored batch, far above any endpoint's (OpenAI: 2,048 inputs a request, 3,072
// dimensions; the CLI: --embed-batch up to 4,096).
inline constexpr std::size_t kStoredVectorsMaxCount = std::size_t{1} << 20;
inline constexpr std::size_t kStoredVectorsMaxDimensions = std::size_t{1} << 16;

// The stored text of `vectors` (at least one, all of one size within the bounds; nullopt
// otherwise) as named by `model` (may be empty).
std::optional<std::string> packVectors(const std::vector<std::vector<float>>& vectors,
                                       const std::string& model);

// Reads a stored text back bit for bit into *vectors and *model: "" when it is that form, else why
// not ("not the stored vector form (the header line is missing)", "the body holds 1000 bytes,
// 64 x 384 float32 need 131072", ...).
std::string unpackVectors(std::string_view text, std::vector<std::vector<float>>* vectors,
                          std::string* model);

}  // namespace ragscope::core
