#include "core/util/jsonstrict.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <functional>
#include <iterator>
#include <optional>

namespace ragscope::core {

namespace {

using nlohmann::json;

std::string tooDeepMessage(int maxDepth) {
  return "JSON nested deeper than " + std::to_string(maxDepth) + " levels";
}

// The parser's message and byte for the exception a SAX reader is handed (a parse_error carries
// its byte; out_of_range 406, a number beyond a double, does not).
void parserError(std::size_t position, const nlohmann::detail::exception& ex,
                 JsonStrictError& error) {
  error.problem = ex.what();
  const auto* pe = dynamic_cast<const json::parse_error*>(&ex);
  error.byte = pe ? pe->byte : 0;
  (void)position;
}

// A pointer into the text that tells how far the parser has read: at a key event the parser has
// just read the key's closing quote, so a repeat can be placed (its line, in a file of many).
class ReadingIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  ReadingIterator() = default;
  ReadingIterator(const char* p, const char** readTo) : m_p(p), m_readTo(readTo) {}
  reference operator*() const { return *m_p; }
  ReadingIterator& operator++() {
    *m_readTo = ++m_p;
    return *this;
  }
  ReadingIterator operator++(int) {
    ReadingIterator before = *this;
    ++*this;
    return before;
  }
  bool operator==(const ReadingIterator& o) const { return m_p == o.m_p; }
  bool operator!=(const ReadingIterator& o) const { return m_p != o.m_p; }

 private:
  const char* m_p = nullptr;
  const char** m_readTo = nullptr;
};

// Builds the document as nlohmann's own DOM reader does; a member name already in the object
// being built is a repeat (exact, found when the second one is read).
class StrictDomSax {
 public:
  using number_integer_t = json::number_integer_t;
  using number_unsigned_t = json::number_unsigned_t;
  using number_float_t = json::number_float_t;
  using string_t = json::string_t;
  using binary_t = json::binary_t;

  StrictDomSax(json& root, int maxDepth, const char* begin, const char* const* readTo)
      : m_root(root), m_maxDepth(maxDepth), m_begin(begin), m_readTo(readTo) {}

  bool null() { return put(nullptr); }
  bool boolean(bool v) { return put(v); }
  bool number_integer(number_integer_t v) { return put(v); }
  bool number_unsigned(number_unsigned_t v) { return put(v); }
  bool number_float(number_float_t v, const string_t&) { return put(v); }
  bool string(string_t& v) { return put(std::move(v)); }
  bool binary(binary_t& v) { return put(json::binary(std::move(v))); }

  bool start_object(std::size_t) {
    if (!m_path.startObject(m_maxDepth)) return tooDeep();
    m_stack.push_back(place(json::object()));
    return true;
  }
  bool start_array(std::size_t) {
    if (!m_path.startArray(m_maxDepth)) return tooDeep();
    m_stack.push_back(place(json::array()));
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(string_t& name) {
    m_path.key(name);
    auto& members = m_stack.back()->get_ref<json::object_t&>();
    auto [it, inserted] = members.try_emplace(name);
    if (!inserted) {
      m_error.repeated = true;
      m_error.field = m_path.path();
      m_error.problem = jsonRepeatedMemberMessage(name);
      m_error.byte = static_cast<std::size_t>(*m_readTo - m_begin);  // just past the name
      return false;
    }
    m_member = &it->second;
    return true;
  }

  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) {
    parserError(position, ex, m_error);
    return false;
  }

  const JsonStrictError& error() const { return m_error; }

 private:
  // Where the value that starts now goes.
  json* place(json value) {
    if (m_stack.empty()) {
      m_root = std::move(value);
      return &m_root;
    }
    json& top = *m_stack.back();
    if (top.is_array()) {
      top.get_ref<json::array_t&>().push_back(std::move(value));
      return &top.get_ref<json::array_t&>().back();
    }
    *m_member = std::move(value);
    return m_member;
  }
  template <class V>
  bool put(V&& v) {
    m_path.value();
    place(json(std::forward<V>(v)));
    return true;
  }
  bool close() {
    m_path.endContainer();
    m_stack.pop_back();
    return true;
  }
  bool tooDeep() {
    m_error.tooDeep = true;
    m_error.problem = tooDeepMessage(m_maxDepth);
    m_error.field = m_path.path();
    return false;
  }

  json& m_root;
  int m_maxDepth;
  const char* m_begin;
  const char* const* m_readTo;
  JsonPath m_path;
  std::vector<json*> m_stack;
  json* m_member = nullptr;
  JsonStrictError m_error;
};

// The second reading of nameRepeatedMember(): finds, in the object numbered `target`, the second
// member named as one before it with the hash JsonMemberCheck saw twice.
class RepeatFinder {
 public:
  using number_integer_t = json::number_integer_t;
  using number_unsigned_t = json::number_unsigned_t;
  using number_float_t = json::number_float_t;
  using string_t = json::string_t;
  using binary_t = json::binary_t;

  RepeatFinder(std::size_t target, std::uint64_t hash) : m_target(target), m_hash(hash) {}

  bool null() { return scalar(); }
  bool boolean(bool) { return scalar(); }
  bool number_integer(number_integer_t) { return scalar(); }
  bool number_unsigned(number_unsigned_t) { return scalar(); }
  bool number_float(number_float_t, const string_t&) { return scalar(); }
  bool string(string_t&) { return scalar(); }
  bool binary(binary_t&) { return scalar(); }
  bool start_object(std::size_t) {
    m_path.startObject(INT_MAX);
    m_open.push_back(m_objects++);
    return true;
  }
  bool start_array(std::size_t) {
    m_path.startArray(INT_MAX);
    m_open.push_back(SIZE_MAX);
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(string_t& name) {
    m_path.key(name);
    if (m_open.back() != m_target || jsonMemberHash(name) != m_hash) return true;
    if (!m_first) {
      m_first = name;
      return true;
    }
    if (name != *m_first) return true;  // a hash collision, not this repeat
    m_field = m_path.path();
    m_name = name;
    return false;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    return false;
  }

  const std::optional<std::string>& name() const { return m_name; }
  const std::string& field() const { return m_field; }

 private:
  bool scalar() {
    m_path.value();
    return true;
  }
  bool close() {
    m_path.endContainer();
    m_open.pop_back();
    return true;
  }

  std::size_t m_target;
  std::uint64_t m_hash;
  JsonPath m_path;
  std::vector<std::size_t> m_open;  // object ordinals (SIZE_MAX for arrays)
  std::size_t m_objects = 0;
  std::optional<std::string> m_first, m_name;
  std::string m_field;
};

}  // namespace

bool parseJsonStrict(std::string_view text, json& out, JsonStrictError* error, int maxDepth) {
  out = nullptr;
  const char* readTo = text.data();
  StrictDomSax sax(out, maxDepth, text.data(), &readTo);
  if (json::sax_parse(ReadingIterator(text.data(), &readTo),
                      ReadingIterator(text.data() + text.size(), &readTo), &sax))
    return true;
  out = nullptr;
  if (error) *error = sax.error();
  return false;
}

json parseJsonStrictOrDiscarded(std::string_view text, int maxDepth) {
  json out;
  if (parseJsonStrict(text, out, nullptr, maxDepth)) return out;
  return json(json::value_t::discarded);
}

std::string describeJsonStrictError(const JsonStrictError& error) {
  if ((!error.repeated && !error.tooDeep) || error.field.empty()) return error.problem;
  return error.problem + " (at " + error.field + ")";
}

void JsonPath::value() {
  if (!m_frames.empty() && !m_frames.back().object) ++m_frames.back().next;
}

bool JsonPath::startObject(int maxDepth) {
  value();
  if (m_frames.size() >= static_cast<std::size_t>(std::max(maxDepth, 0))) return false;
  m_frames.push_back({true, 0, {}});
  return true;
}

bool JsonPath::startArray(int maxDepth) {
  value();
  if (m_frames.size() >= static_cast<std::size_t>(std::max(maxDepth, 0))) return false;
  m_frames.push_back({false, 0, {}});
  return true;
}

void JsonPath::endContainer() {
  if (!m_frames.empty()) m_frames.pop_back();
}

void JsonPath::key(std::string_view name) {
  if (!m_frames.empty()) m_frames.back().key.assign(name);
}

std::string JsonPath::pathOf(std::size_t frames) const {
  std::string out;
  for (std::size_t i = 0; i < frames && i < m_frames.size(); ++i) {
    const Frame& f = m_frames[i];
    if (f.object) {
      if (!out.empty()) out += '.';
      out += f.key;
    } else {
      out += '[' + std::to_string(f.next ? f.next - 1 : 0) + ']';
    }
  }
  return out;
}

std::string JsonPath::path() const { return pathOf(m_frames.size()); }

std::string JsonPath::containerPath() const {
  return m_frames.empty() ? std::string() : pathOf(m_frames.size() - 1);
}

std::string jsonRepeatedMemberMessage(std::string_view name) {
  return "member \"" + std::string(name) + "\" appears twice in one object";
}

std::uint64_t jsonMemberHash(std::string_view name) {
  return static_cast<std::uint64_t>(std::hash<std::string_view>{}(name));
}

bool JsonMemberCheck::startObject() {
  if (!m_path.startObject(m_maxDepth)) {
    m_error = {};
    m_error.tooDeep = true;
    m_error.problem = tooDeepMessage(m_maxDepth);
    m_error.field = m_path.path();
    return false;
  }
  m_open.push_back({m_hashes.size(), m_objects++});
  return true;
}

bool JsonMemberCheck::startArray() {
  if (!m_path.startArray(m_maxDepth)) {
    m_error = {};
    m_error.tooDeep = true;
    m_error.problem = tooDeepMessage(m_maxDepth);
    m_error.field = m_path.path();
    return false;
  }
  return true;
}

void JsonMemberCheck::key(std::string_view name) {
  m_path.key(name);
  m_hashes.push_back(jsonMemberHash(name));
}

bool JsonMemberCheck::endObject() {
  const Open open = m_open.back();
  const auto first = m_hashes.begin() + static_cast<std::ptrdiff_t>(open.firstHash);
  std::sort(first, m_hashes.end());
  const auto twice = std::adjacent_find(first, m_hashes.end());
  const bool unique = twice == m_hashes.end();
  if (!unique && !m_error.repeated) {  // the first repeat found is the one reported
    m_badObject = open.ordinal;
    m_badHash = *twice;
    m_error = {};
    m_error.repeated = true;
    m_error.field = m_path.containerPath();
    m_error.problem = "a member name appears twice in one object";
  }
  m_hashes.resize(open.firstHash);
  m_open.pop_back();
  m_path.endContainer();
  return unique;
}

void nameRepeatedMember(std::string_view text, const JsonMemberCheck& check,
                        JsonStrictError* error) {
  if (!error) return;
  RepeatFinder finder(check.repeatedObject(), check.repeatedHash());
  json::sax_parse(text.begin(), text.end(), &finder);
  if (finder.name()) {
    error->field = finder.field();
    error->problem = jsonRepeatedMemberMessage(*finder.name());
  }
  // Otherwise two different names share a hash (never seen in practice): still refused, as a
  // repeat in the object error->field names.
}

}  // namespace ragscope::core
