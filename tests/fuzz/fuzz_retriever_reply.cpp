// Replies of a generic HTTP retrieval service (core/retrieval/httpretriever.h:
// HttpRetriever::parseReply): `[{"id", "score", "text"}]` or `{"results": [...]}`, also at the
// sizes a runaway service sends. The input is read as a whole reply, and then repeated as the
// elements of a results array (up to 4 MB of reply; k, the reply paths and the number of copies
// follow from a hash of the input, so every input is also a plain reply). Each reading is checked
// against the whole-document parse that parseReply did before it kept only k results, read
// strictly as the retrievers read JSON (fuzz::wholeDocumentJson; issue 24
// item 8): the same results or the same problem, and no control character in a problem (item 11).
// max_len: 65536
// dict: json
// seed: tests/fuzz/seeds/retriever_reply

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/retrieval/httppost.h"
#include "core/retrieval/httpretriever.h"
#include "core/retrieval/requesttemplate.h"
#include "core/util/textescape.h"
#include "fuzzsupport.h"

using namespace ragscope;
using core::HttpReplyPaths;
using core::ScoredDoc;

namespace {

constexpr std::size_t kMaxExpandedBytes = std::size_t{4} << 20;

// FNV-1a: the input decides its own k and size, so libFuzzer can keep what makes a difference.
// parseReply as it was before it kept only k results: the whole document, then the first k.
bool wholeDocumentReply(const std::string& body, std::size_t k, std::vector<ScoredDoc>* out,
                        std::string* problem, const HttpReplyPaths& paths) {
  out->clear();
  nlohmann::json j;
  if (std::string why; !fuzz::wholeDocumentJson(body, &j, &why)) {
    *problem = "reply is not JSON (" + core::escapeControlChars(why) + "): " + core::snippet(body);
    return false;
  }
  const nlohmann::json* list = &j;
  if (!paths.results.empty()) {
    list = core::jsonAtPath(j, paths.results);
    if (!list || !list->is_array()) {
      *problem = "reply has no array at '" + paths.results + "': " + core::snippet(body);
      return false;
    }
  } else if (j.is_object() && j.contains("results")) {
    list = &j["results"];
  }
  if (!list->is_array()) {
    *problem = "reply is not a JSON array of {id, score, text?} (nor {\"results\": [...]}): " +
               core::snippet(body);
    return false;
  }
  std::size_t withScore = 0;
  for (std::size_t i = 0; i < list->size() && out->size() < k; ++i) {
    const auto& e = (*list)[i];
    const std::string at = "reply[" + std::to_string(i) + "]";
    ScoredDoc d;
    const nlohmann::json* id = core::jsonAtPath(e, paths.id);
    if (!id) {
      *problem = e.is_object() || e.is_array() ? at + "." + paths.id + " is missing"
                                               : at + " is not an object";
      return false;
    }
    if (id->is_string()) {
      d.id = id->get<std::string>();
    } else if (id->is_number_integer()) {
      d.id = id->dump();
    } else {
      *problem = at + "." + paths.id + " is not a string or integer";
      return false;
    }
    const nlohmann::json* score = core::jsonAtPath(e, paths.score);
    if (score && !paths.score.empty() && !score->is_null()) {
      if (!score->is_number()) {
        *problem = at + "." + paths.score + " is not a number";
        return false;
      }
      d.score = score->get<double>();
      ++withScore;
    }
    const nlohmann::json* text = core::jsonAtPath(e, paths.text);
    if (text && !paths.text.empty() && text->is_string()) d.text = text->get<std::string>();
    out->push_back(std::move(d));
  }
  if (withScore != 0 && withScore != out->size()) {
    *problem = "reply gives a score for " + std::to_string(withScore) + " of " +
               std::to_string(out->size()) + " results; give all or none";
    return false;
  }
  if (withScore == 0)
    for (std::size_t i = 0; i < out->size(); ++i)
      (*out)[i].score = static_cast<double>(out->size() - i);
  return true;
}

HttpReplyPaths pathsFor(unsigned choice) {
  HttpReplyPaths p;
  switch (choice % 4) {
    case 1:
      p.results = "results";
      break;
    case 2:
      p.results = "data.hits";
      p.id = "doc.pid";
      p.score = "s";
      p.text = "";
      break;
    case 3:
      p.results = "lists.1";
      p.id = "";
      p.score = "";
      p.text = "0";
      break;
    default:
      break;
  }
  return p;
}

void checkSame(const std::string& body, std::size_t k, const HttpReplyPaths& paths) {
  std::vector<ScoredDoc> docs;
  std::string problem;
  const bool ok = core::HttpRetriever::parseReply(body, k, &docs, &problem, paths);
  fuzz::check(ok || !problem.empty(), "a rejected reply says nothing about why");
  fuzz::check(core::isPrintableText(problem), "a problem carries a control character");
  if (ok) fuzz::check(docs.size() <= k, "more documents than asked for");
  fuzz::Reading reference;
  reference.ok = wholeDocumentReply(body, k, &reference.docs, &reference.problem, paths);
  fuzz::checkSameReading({ok, problem, docs}, reference);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string element(fuzz::bytes(data, size));
  const std::uint64_t h = fuzz::inputHash(element);
  const std::size_t k = h & 0x0F;
  const HttpReplyPaths paths = pathsFor(static_cast<unsigned>(h >> 4));
  checkSame(element, 5, {});
  checkSame(element, k, paths);
  // Many results: the input repeated, up to 4 MB.
  const std::size_t wanted = 1 + ((h >> 8) & 0xFFF);
  const std::size_t repeats = std::min(wanted, kMaxExpandedBytes / (element.size() + 1));
  std::string list = "[";
  list.reserve(repeats * (element.size() + 1) + 2);
  for (std::size_t i = 0; i < repeats; ++i) {
    if (i) list += ',';
    list += element;
  }
  list += ']';
  checkSame(list, k, {});
  checkSame("{\"results\":" + list + "}", k, {});
  checkSame("{\"data\":{\"hits\":" + list + "}}", k, pathsFor(2));
  return 0;
}
