// Elasticsearch/OpenSearch `_search` replies (core/retrieval/esretriever.h:
// EsRetriever::parseHits), also at the sizes a runaway server sends. The input is read as a whole
// reply, and then repeated as the elements of hits.hits (up to 4 MB of reply; k, the id and text
// fields and the number of copies follow from a hash of the input). Each reading is checked
// against the whole-document parse that search() did before it kept only k hits (issue 24 item
// 8): the same hits or the same problem, and no control character in a problem (item 11).
// max_len: 65536
// dict: json
// seed: tests/fuzz/seeds/es_reply

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/retrieval/esretriever.h"
#include "core/retrieval/httppost.h"
#include "core/util/textescape.h"
#include "fuzzsupport.h"

using namespace ragscope;
using core::ScoredDoc;

namespace {

constexpr std::size_t kMaxExpandedBytes = std::size_t{4} << 20;

// FNV-1a: the input decides its own k and size, so libFuzzer can keep what makes a difference.
bool idOf(const nlohmann::json& v, std::string* out) {
  if (v.is_string()) {
    *out = v.get<std::string>();
    return true;
  }
  if (v.is_number_integer()) {
    *out = v.dump();
    return true;
  }
  return false;
}

// The hits as search() read them before it kept only k: the whole document, then the first k.
bool wholeDocumentHits(const std::string& body, std::size_t k, const std::string& idField,
                       const std::string& textField, std::vector<ScoredDoc>* out,
                       std::string* problem) {
  out->clear();
  auto fail = [&](const std::string& why) {
    *problem = why;
    out->clear();
    return false;
  };
  nlohmann::json j;
  if (std::string why; !fuzz::wholeDocumentJson(body, &j, &why))
    return fail("reply is not JSON (" + core::escapeControlChars(why) +
                "): " + core::snippet(body));
  if (!j.is_object() || !j.contains("hits") || !j["hits"].is_object() ||
      !j["hits"].contains("hits") || !j["hits"]["hits"].is_array())
    return fail("reply has no hits.hits array: " + core::snippet(body));
  const auto& hits = j["hits"]["hits"];
  for (std::size_t i = 0; i < hits.size() && out->size() < k; ++i) {
    const auto& h = hits[i];
    const std::string at = "hits.hits[" + std::to_string(i) + "]";
    if (!h.is_object()) return fail(at + " is not an object");
    ScoredDoc d;
    const nlohmann::json* src =
        h.contains("_source") && h["_source"].is_object() ? &h["_source"] : nullptr;
    if (!idField.empty()) {
      if (!src || !src->contains(idField) || !idOf((*src)[idField], &d.id))
        return fail(at + "._source." + idField + " is missing or not a string/integer");
    } else if (!h.contains("_id") || !idOf(h["_id"], &d.id)) {
      return fail(at + "._id is missing or not a string");
    }
    if (!h.contains("_score") || !h["_score"].is_number())
      return fail(at + "._score is missing or not a number (sorted queries have none)");
    d.score = h["_score"].get<double>();
    if (src && src->contains(textField) && (*src)[textField].is_string())
      d.text = (*src)[textField].get<std::string>();
    out->push_back(std::move(d));
  }
  return true;
}

void checkSame(const std::string& body, std::size_t k, const std::string& idField,
               const std::string& textField) {
  std::vector<ScoredDoc> docs;
  std::string problem;
  const bool ok = core::EsRetriever::parseHits(body, k, idField, textField, &docs, &problem);
  fuzz::check(ok || !problem.empty(), "a rejected reply says nothing about why");
  fuzz::check(core::isPrintableText(problem), "a problem carries a control character");
  if (ok) fuzz::check(docs.size() <= k, "more hits than asked for");
  fuzz::Reading reference;
  reference.ok =
      wholeDocumentHits(body, k, idField, textField, &reference.docs, &reference.problem);
  fuzz::checkSameReading({ok, problem, docs}, reference);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string element(fuzz::bytes(data, size));
  const std::uint64_t h = fuzz::inputHash(element);
  const std::size_t k = h & 0x0F;
  const std::string idField = (h & 0x10) ? "pid" : "";
  const std::string textField = (h & 0x20) ? "a.b" : "text";
  checkSame(element, 5, "", "text");
  checkSame(element, k, idField, textField);
  // Many hits: the input repeated, up to 4 MB.
  const std::size_t wanted = 1 + ((h >> 8) & 0xFFF);
  const std::size_t repeats = std::min(wanted, kMaxExpandedBytes / (element.size() + 1));
  std::string body = "{\"took\":1,\"hits\":{\"total\":{\"value\":1},\"hits\":[";
  body.reserve(body.size() + repeats * (element.size() + 1) + 4);
  for (std::size_t i = 0; i < repeats; ++i) {
    if (i) body += ',';
    body += element;
  }
  body += "]}}";
  checkSame(body, k, idField, textField);
  return 0;
}
