#pragma once
// JSON from elsewhere, read strictly: a member name given twice in one object is an error.
// nlohmann::json keeps the last of repeated names ({"verdicts": [..0..], "verdicts": [..1..]}
// reads as the second list) while other readers (a person, a tool that keeps the first) see the
// first, so one text would mean two things; RFC 8259 leaves the meaning of such text open. Every
// reader of untrusted JSON whose values decide a score, a path or a write reads through here and
// refuses it, naming the member (core/util/README.md, "Text and network safety").
//
//   nlohmann::json doc;
//   JsonStrictError why;
//   if (!parseJsonStrict(text, doc, &why)) ...
//     why.repeated: why.field is the member ("output[0].answer"), why.problem says so;
//     otherwise why.problem is the parser's own what() and why.byte its byte, exactly as
//     nlohmann::json::parse(text) would throw them (describeParseError() places them as before).
//
// JsonMemberCheck is the same rule inside a SAX reader that does not build every object
// (core/util/jsonkeep.h): it keeps an 8-byte hash of each member name of the objects open at a
// time and compares an object's names when the object closes, so a flat object of millions of
// members costs less memory than its text; nameRepeatedMember() then finds the name in the text
// again for the message. Both also bound the nesting depth (the path of the open containers is
// kept for messages).

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace ragscope::core {

// Nesting allowed by default: LoadOptions::maxJsonDepth's default (core/data/diagnostic.h).
inline constexpr int kMaxStrictJsonDepth = 256;

struct JsonStrictError {
  std::string problem;  // what is wrong (a parser message keeps nlohmann's own text)
  std::string field;    // the repeated member's path, "verdicts" or "output[0].answer"
  // A parse_error's byte as nlohmann counts it (1-based, just past the offending character);
  // for a repeat found by parseJsonStrict, the byte just past the repeated name. 0: unknown.
  std::size_t byte = 0;
  bool repeated = false;  // a member name repeats (else: syntax, a number overflow, too deep)
  bool tooDeep = false;   // nested deeper than the limit
};

// Parses all of `text` as nlohmann::json::parse(text) does, refusing repeated member names and
// nesting deeper than maxDepth. On false, *out is null and *error (when given) says why.
bool parseJsonStrict(std::string_view text, nlohmann::json& out, JsonStrictError* error = nullptr,
                     int maxDepth = kMaxStrictJsonDepth);

// json::parse(text, nullptr, false) made strict, for readers that only ask is_discarded() or
// is_object(): the document, or a discarded value when `text` is not JSON, repeats a member name
// or nests deeper than maxDepth.
nlohmann::json parseJsonStrictOrDiscarded(std::string_view text,
                                          int maxDepth = kMaxStrictJsonDepth);

// One line for a message: the parser's what() as it is, or "member \"a\" appears twice in one
// object (at output[0].a)" / "JSON nested deeper than 256 levels (at a.b)".
std::string describeJsonStrictError(const JsonStrictError& error);

// "verdicts" / "output[0].answer" / "" (the top level): how the paths above are spelt.
class JsonPath {
 public:
  // Each value event of a SAX parse, in order. start* return false beyond maxDepth levels.
  void value();  // a scalar starts (containers call it themselves)
  bool startObject(int maxDepth);
  bool startArray(int maxDepth);
  void endContainer();
  void key(std::string_view name);

  std::size_t depth() const { return m_frames.size(); }
  // Where the parse is: the member or element being read.
  std::string path() const;
  // The innermost open container's own path.
  std::string containerPath() const;

 private:
  struct Frame {
    bool object = false;
    std::size_t next = 0;  // arrays: elements started so far
    std::string key;       // objects: the member being read
  };
  std::string pathOf(std::size_t frames) const;
  std::vector<Frame> m_frames;
};

class JsonMemberCheck {
 public:
  explicit JsonMemberCheck(int maxDepth = kMaxStrictJsonDepth) : m_maxDepth(maxDepth) {}

  // Called from a SAX reader's events. false: stop, error() says why.
  void value() { m_path.value(); }
  bool startObject();
  bool startArray();
  // Compares the closing object's member names; false (error() says where) when one repeats.
  // The object is closed either way, so a reader may note the problem and read on.
  bool endObject();
  void endArray() { m_path.endContainer(); }
  void key(std::string_view name);

  const JsonStrictError& error() const { return m_error; }
  std::string path() const { return m_path.path(); }

  // For nameRepeatedMember(): the object (n-th started, from 0) whose names repeat, and the hash.
  std::size_t repeatedObject() const { return m_badObject; }
  std::uint64_t repeatedHash() const { return m_badHash; }

 private:
  struct Open {
    std::size_t firstHash;  // index in m_hashes
    std::size_t ordinal;
  };
  int m_maxDepth;
  JsonPath m_path;
  std::vector<std::uint64_t> m_hashes;  // names of the open objects, innermost last
  std::vector<Open> m_open;             // open objects only
  std::size_t m_objects = 0;
  std::size_t m_badObject = 0;
  std::uint64_t m_badHash = 0;
  JsonStrictError m_error;
};

// "member \"NAME\" appears twice in one object": the one wording of a repeat.
std::string jsonRepeatedMemberMessage(std::string_view name);

// The hash JsonMemberCheck keeps of a name.
std::uint64_t jsonMemberHash(std::string_view name);

// After `check` stopped on a repeated name in `text`, reads `text` again to name the member:
// sets error->field to its path and error->problem to "member \"NAME\" appears twice".
void nameRepeatedMember(std::string_view text, const JsonMemberCheck& check,
                        JsonStrictError* error);

}  // namespace ragscope::core
