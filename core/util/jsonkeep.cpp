#include "core/util/jsonkeep.h"

#include <charconv>
#include <optional>
#include <vector>

#include "core/util/jsonstrict.h"

namespace ragscope::core {

namespace {

const JsonKeep& keepNothing() {
  static const JsonKeep empty;
  return empty;
}

// The array index a step spells, as jsonAtPath reads it (the whole step, decimal digits).
std::optional<std::size_t> stepIndex(std::string_view step) {
  std::size_t index = 0;
  const auto [end, ec] = std::from_chars(step.data(), step.data() + step.size(), index);
  if (ec != std::errc() || end != step.data() + step.size()) return std::nullopt;
  return index;
}

// Builds the kept part of the document from the parser's events. Containers that are kept get a
// frame; a skipped container only raises `m_skipDepth` until it closes.
class KeepingSax : public nlohmann::json_sax<nlohmann::json> {
 public:
  using json = nlohmann::json;

  KeepingSax(const JsonKeep& keep, json* root) : m_keep(keep), m_root(root) {}

  // Every event passes the member check first (core/util/jsonstrict.h): a repeated member name
  // is refused wherever it is, in what is kept or in what is skipped.
  bool null() override { return scalar(json(nullptr)); }
  bool boolean(bool v) override { return scalar(json(v)); }
  bool number_integer(number_integer_t v) override { return scalar(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return scalar(json(v)); }
  bool string(string_t& v) override { return scalar(json(std::move(v))); }
  bool binary(binary_t&) override { return scalar(json(nullptr)); }  // JSON text has none
  bool start_object(std::size_t) override {
    return checked(m_check.startObject()) && open(json::object());
  }
  bool start_array(std::size_t) override {
    return checked(m_check.startArray()) && open(json::array());
  }
  bool end_object() override { return checked(m_check.endObject()) && close(); }
  bool end_array() override {
    m_check.endArray();
    return close();
  }

  bool key(string_t& k) override {
    m_check.key(k);
    if (m_skipDepth > 0) return true;
    Frame& top = m_frames.back();
    top.childSpec = top.spec->everything ? top.spec : top.spec->find(k);
    top.key = std::move(k);
    return true;
  }

  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    m_error = ex.what();
    return false;
  }

  const std::string& error() const { return m_error; }
  // Set when the member check stopped the parse (else the parser did, or nothing).
  bool checkFailed() const { return m_checkFailed; }
  const JsonMemberCheck& check() const { return m_check; }

 private:
  bool checked(bool ok) {
    if (!ok) m_checkFailed = true;
    return ok;
  }

  struct Frame {
    json* node = nullptr;
    const JsonKeep* spec = nullptr;
    std::size_t nextIndex = 0;         // arrays: the index of the next element
    std::size_t placeholdersUpTo = 0;  // arrays: elements below this index a step names are kept
    std::string key;                   // objects: the member being read
    const JsonKeep* childSpec = nullptr;
  };

  enum class Fate { Keep, Placeholder, Skip };  // built, a null in its place, or not at all

  // What becomes of the value that starts now, and with which spec.
  Fate fateOfNext(const JsonKeep** spec) {
    if (m_frames.empty()) {
      *spec = &m_keep;
      return Fate::Keep;
    }
    Frame& top = m_frames.back();
    if (top.node->is_object()) {
      *spec = top.childSpec;
      return *spec ? Fate::Keep : Fate::Skip;
    }
    const std::size_t i = top.nextIndex++;
    if (top.spec->everything) {
      *spec = top.spec;
      return Fate::Keep;
    }
    if (i < top.spec->firstElements) {
      *spec = top.spec->elements ? top.spec->elements.get() : &keepNothing();
      return Fate::Keep;
    }
    if (i >= top.placeholdersUpTo) return Fate::Skip;
    for (const auto& [name, child] : top.spec->steps) {
      if (stepIndex(name) == i) {
        *spec = &child;
        return Fate::Keep;
      }
    }
    return Fate::Placeholder;
  }

  json* insert(json value) {
    if (m_frames.empty()) {
      *m_root = std::move(value);
      return m_root;
    }
    Frame& top = m_frames.back();
    if (top.node->is_object()) return &((*top.node)[top.key] = std::move(value));
    top.node->push_back(std::move(value));
    return &top.node->back();
  }

  bool scalar(json value) {
    m_check.value();
    if (m_skipDepth > 0) return true;
    const JsonKeep* spec = nullptr;
    const Fate fate = fateOfNext(&spec);
    if (fate == Fate::Keep)
      insert(std::move(value));
    else if (fate == Fate::Placeholder)
      insert(json(nullptr));
    return true;
  }

  bool open(json empty) {
    if (m_skipDepth > 0) {
      ++m_skipDepth;
      return true;
    }
    const JsonKeep* spec = nullptr;
    const Fate fate = fateOfNext(&spec);
    if (fate != Fate::Keep) {
      if (fate == Fate::Placeholder) insert(json(nullptr));
      m_skipDepth = 1;
      return true;
    }
    Frame frame;
    frame.node = insert(std::move(empty));
    frame.spec = spec;
    if (frame.node->is_array()) {
      for (const auto& [name, child] : spec->steps)
        if (const auto index = stepIndex(name))
          frame.placeholdersUpTo = std::max(frame.placeholdersUpTo, *index + 1);
    }
    m_frames.push_back(std::move(frame));
    return true;
  }

  bool close() {
    if (m_skipDepth > 0) {
      --m_skipDepth;
      return true;
    }
    m_frames.pop_back();
    return true;
  }

  const JsonKeep& m_keep;
  json* m_root;
  std::vector<Frame> m_frames;
  std::size_t m_skipDepth = 0;
  std::string m_error;
  JsonMemberCheck m_check;
  bool m_checkFailed = false;
};

}  // namespace

JsonKeep& JsonKeep::step(std::string_view name) {
  for (auto& [n, child] : steps)
    if (n == name) return child;
  return steps.emplace_back(std::string(name), JsonKeep{}).second;
}

JsonKeep& JsonKeep::path(std::string_view dotPath) {
  JsonKeep* at = this;
  while (!dotPath.empty()) {
    const std::size_t dot = dotPath.find('.');
    at = &at->step(dotPath.substr(0, dot));
    dotPath = dot == std::string_view::npos ? std::string_view() : dotPath.substr(dot + 1);
  }
  return *at;
}

const JsonKeep* JsonKeep::find(std::string_view name) const {
  for (const auto& [n, child] : steps)
    if (n == name) return &child;
  return nullptr;
}

bool parseJsonKeeping(std::string_view text, const JsonKeep& keep, nlohmann::json* out,
                      JsonStrictError* error) {
  *out = nullptr;
  KeepingSax sax(keep, out);
  if (nlohmann::json::sax_parse(text.begin(), text.end(), &sax)) return true;
  *out = nullptr;
  if (!error) return false;
  if (sax.checkFailed()) {
    *error = sax.check().error();
    if (error->repeated) nameRepeatedMember(text, sax.check(), error);
  } else {
    *error = {};
    error->problem = sax.error();
  }
  return false;
}

bool parseJsonKeeping(std::string_view text, const JsonKeep& keep, nlohmann::json* out,
                      std::string* error) {
  JsonStrictError why;
  if (parseJsonKeeping(text, keep, out, &why)) return true;
  if (error) *error = describeJsonStrictError(why);
  return false;
}

}  // namespace ragscope::core
