// The root reply of a search server (core/retrieval/esretriever.h: esFlavourFromRootReply), which
// picks the kNN request shape (Elasticsearch's knn option or OpenSearch's k-NN query). Each
// reading is checked against the same rules applied to the whole document: the same flavour or
// the same refusal, a refusal always saying why without control characters, and Elasticsearch
// only for the tagline "You Know, for Search" with a version from 8.4.
// max_len: 4096
// dict: json
// seed: tests/fuzz/seeds/es_root

#include <charconv>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/retrieval/esretriever.h"
#include "core/util/textescape.h"
#include "fuzzsupport.h"

using namespace ragscope;
using core::EsFlavour;

namespace {

// The rules of esFlavourFromRootReply on the whole document; nullopt: refused.
std::optional<EsFlavour> reference(const std::string& body, bool* isJson) {
  nlohmann::json j;
  std::string why;
  *isJson = fuzz::wholeDocumentJson(body, &j, &why);
  if (!*isJson || !j.is_object()) return std::nullopt;
  const auto version = j.find("version");
  if (version == j.end() || !version->is_object()) return std::nullopt;
  const auto number = version->find("number");
  if (number == version->end() || !number->is_string()) return std::nullopt;
  if (const auto d = version->find("distribution"); d != version->end()) {
    if (d->is_string() && d->get<std::string>() == "opensearch") return EsFlavour::OpenSearch;
    return std::nullopt;
  }
  const auto tagline = j.find("tagline");
  if (tagline == j.end() || !tagline->is_string() ||
      tagline->get<std::string>() != "You Know, for Search")
    return std::nullopt;
  const std::string v = number->get<std::string>();
  int major = 0, minor = 0;
  const char* end = v.data() + v.size();
  auto r = std::from_chars(v.data(), end, major);
  if (r.ec != std::errc() || r.ptr == end || *r.ptr != '.') return std::nullopt;
  r = std::from_chars(r.ptr + 1, end, minor);
  if (r.ec != std::errc()) return std::nullopt;
  if (major < 8 || (major == 8 && minor < 4)) return std::nullopt;
  return EsFlavour::Elasticsearch;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string body(fuzz::bytes(data, size));
  std::string problem;
  const auto got = core::esFlavourFromRootReply(body, &problem);
  fuzz::check(got.has_value() == problem.empty(), "a refusal without a reason, or both");
  fuzz::check(core::isPrintableText(problem), "a problem carries a control character");
  bool isJson = false;
  const auto expected = reference(body, &isJson);
  fuzz::check(got == expected, "another flavour than the whole-document reading");
  if (!isJson) fuzz::check(problem.rfind("reply is not JSON", 0) == 0, "not JSON, not said so");
  return 0;
}
