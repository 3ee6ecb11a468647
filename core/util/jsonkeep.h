#pragma once
// Parsing a JSON reply into only the parts a reader looks at. A 58 MB reply of 2.5 million hits
// is within any byte cap, yet as a whole document it costs about 13 times its size in memory;
// read with a JsonKeep that names the first k hits and, in each, the fields used, it costs O(k).
//
//   JsonKeep keep;
//   JsonKeep& hits = keep.path("hits.hits");        // the containers on the way are kept
//   hits.firstElements = k;                         // the first k elements of that array...
//   hits.elements = std::make_shared<JsonKeep>();   // ...each with these members
//   hits.elements->step("_id");
//   nlohmann::json doc;
//   if (!parseJsonKeeping(body, keep, &doc, &why)) ...   // why: the parser's own message
//
// The document read is what nlohmann::json::parse would give with everything not named taken
// out, so code written for the whole document reads it unchanged: a value named keeps its type
// (a scalar whole, an array or object with only what its JsonKeep names inside), an array keeps
// null placeholders before an index a step names (indexes stay valid), and anything else is
// skipped without being built. Whether the text is JSON at all is decided on the whole text,
// exactly as json::parse decides it, and more strictly in two ways (core/util/jsonstrict.h): a
// member name given twice in one object, kept or skipped, is an error (json::parse would keep the
// last), and so is nesting deeper than kMaxStrictJsonDepth (256) levels. The check keeps 8 bytes
// per member name of the objects open at a time; only the named containers are ever built.

#include <cstddef>
#include <list>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "core/util/jsonstrict.h"

namespace ragscope::core {

struct JsonKeep {
  // Members of an object, or elements of an array by the index the step spells (as jsonAtPath
  // in core/retrieval/requesttemplate.h reads a step), each with what to keep inside it.
  std::list<std::pair<std::string, JsonKeep>> steps;
  // Arrays: the first `firstElements` elements are kept with `elements` (an empty JsonKeep when
  // null). They take precedence over a step naming the same index.
  std::size_t firstElements = 0;
  std::shared_ptr<const JsonKeep> elements;
  // Keeps this value whole, everything inside it (steps and elements are then not consulted).
  bool everything = false;

  // Keeps the member or element `name` (no dot splitting) and returns what to keep inside it.
  JsonKeep& step(std::string_view name);
  // Keeps the value at a dot path, split as jsonAtPath splits it ("" is this value itself).
  JsonKeep& path(std::string_view dotPath);
  // The spec of step `name`, or null.
  const JsonKeep* find(std::string_view name) const;
};

// Parses all of `text` (strictly, as nlohmann::json::parse(text) does, and refusing repeated
// member names and deep nesting) and stores in *out only what `keep` names. false with *error set
// when `text` is not such JSON: the parse error's what(), or the repeat / depth problem with its
// place (describeJsonStrictError()).
bool parseJsonKeeping(std::string_view text, const JsonKeep& keep, nlohmann::json* out,
                      std::string* error);
bool parseJsonKeeping(std::string_view text, const JsonKeep& keep, nlohmann::json* out,
                      JsonStrictError* error);
inline bool parseJsonKeeping(std::string_view text, const JsonKeep& keep, nlohmann::json* out,
                             std::nullptr_t) {
  return parseJsonKeeping(text, keep, out, static_cast<JsonStrictError*>(nullptr));
}

}  // namespace ragscope::core
