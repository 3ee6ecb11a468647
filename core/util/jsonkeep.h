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
// exactly as json::parse decides it. Only the named containers are ever nested, so a deeply
// nested reply costs nothing either.

#include <cstddef>
#include <list>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

namespace ragscope::core {

struct JsonKeep {
  // Members of an object, or elements of an array by the index the step spells (as jsonAtPath
  // in core/retrieval/requesttemplate.h reads a step), each with what to keep inside it.
  std::list<std::pair<std::string, JsonKeep>> steps;
  // Arrays: the first `firstElements` elements are kept with `elements` (an empty JsonKeep when
  // null). They take precedence over a step naming the same index.
  std::size_t firstElements = 0;
  std::shared_ptr<const JsonKeep> elements;

  // Keeps the member or element `name` (no dot splitting) and returns what to keep inside it.
  JsonKeep& step(std::string_view name);
  // Keeps the value at a dot path, split as jsonAtPath splits it ("" is this value itself).
  JsonKeep& path(std::string_view dotPath);
  // The spec of step `name`, or null.
  const JsonKeep* find(std::string_view name) const;
};

// Parses all of `text` (strictly, as nlohmann::json::parse(text) does) and stores in *out only
// what `keep` names. false with *error set to the parse error's what() when `text` is not JSON.
bool parseJsonKeeping(std::string_view text, const JsonKeep& keep, nlohmann::json* out,
                      std::string* error);

}  // namespace ragscope::core
