// A dense index's stored vectors (core/retrieval/storedvectors.h: unpackVectors) and the base64
// reader under them (core/util/base64.h). The embeddings store is a file anyone may edit: a text
// read back is exactly what packing its vectors writes again, and nothing is allocated for the
// sizes a header claims before the body's length matches them.
// max_len: 4096
// dict: json
// seed: tests/fuzz/seeds/stored_vectors

#include <cstring>

#include "core/retrieval/storedvectors.h"
#include "core/util/base64.h"
#include "fuzzsupport.h"

using namespace ragscope;
using namespace ragscope::core;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = fuzz::bytes(data, size);
  // base64: whatever decodes encodes back to the same text (one encoding per byte string).
  std::string decoded;
  if (base64Decode(text, &decoded))
    fuzz::check(base64Encode(decoded.data(), decoded.size()) == text,
                "a base64 text that does not encode back to itself");
  std::vector<std::vector<float>> vectors;
  std::string model;
  const std::string why = unpackVectors(text, &vectors, &model);
  if (!why.empty()) return 0;
  fuzz::check(!vectors.empty() && vectors.size() <= kStoredVectorsMaxCount, "a count out of range");
  const std::size_t dims = vectors[0].size();
  fuzz::check(dims > 0 && dims <= kStoredVectorsMaxDimensions, "dimensions out of range");
  for (const auto& v : vectors) fuzz::check(v.size() == dims, "vectors of different sizes");
  fuzz::check(vectors.size() * dims * 4 <= size, "more floats than the text holds");
  // Packed again, the same vectors bit for bit (the header may be spelled differently).
  const auto again = packVectors(vectors, model);
  fuzz::check(again.has_value(), "read vectors that cannot be packed");
  std::vector<std::vector<float>> back;
  std::string backModel;
  fuzz::check(unpackVectors(*again, &back, &backModel).empty(), "a packed text refused");
  fuzz::check(backModel == model && back.size() == vectors.size(), "a round trip changed them");
  for (std::size_t i = 0; i < back.size(); ++i)
    fuzz::check(std::memcmp(back[i].data(), vectors[i].data(), dims * sizeof(float)) == 0,
                "a round trip changed a float's bits");
  return 0;
}
