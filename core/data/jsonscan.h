#pragma once
// A JSON record scanner for the first open of big corpora (see README "Big corpora"): it checks
// that one record (a JSON line) is valid JSON, as nlohmann's parser would, and notes where the
// values of a few top-level keys lie, without building a document. A KILT page of 6 KB is read at
// about a byte per cycle, where building its nlohmann::json took ten times longer.
//
//   RecordScanner scan({"wikipedia_id", "wikipedia_title", "text"}, /*elementsOf=*/2);
//   if (scan.scan(line, 256)) { auto id = scan.value(0); ... scan.elements() ... }
//
// It accepts exactly what the strict JSON reader accepts (core/util/jsonstrict.h: RFC 8259, UTF-8
// checked inside strings, numbers that overflow a double refused as nlohmann refuses them, and no
// member name given twice in one object, at any depth), so a record it refuses is one the
// in-memory loaders refuse too; the caller then parses it with parseJsonStrict only to word the
// error.

#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <vector>

namespace ragscope::core {

enum class JsonKind : std::uint8_t { None, String, Number, Object, Array, True, False, Null };

struct ScannedValue {
  JsonKind kind = JsonKind::None;  // None: the key is absent
  bool escaped = false;     // a string holding backslash escapes (its bytes are not its text)
  std::uint32_t begin = 0;  // the value's bytes in the record: [begin, end)
  std::uint32_t end = 0;
  std::string_view in(std::string_view record) const { return record.substr(begin, end - begin); }
};

class RecordScanner {
 public:
  // `keys`: the top-level keys whose values are noted (at most 8). `elementsOf`: the index in
  // `keys` of an array whose elements are noted too (-1: none).
  RecordScanner(std::initializer_list<std::string_view> keys, int elementsOf = -1);

  // True when `record` is one valid JSON value with only JSON whitespace around it, nested no
  // deeper than `maxDepth`. isObject() tells whether it is an object; the values are noted only
  // then.
  bool scan(std::string_view record, int maxDepth);
  bool isObject() const { return m_object; }
  const ScannedValue& value(std::size_t key) const { return m_values[key]; }
  const std::vector<ScannedValue>& elements() const { return m_elements; }

 private:
  bool value(std::size_t& i, int depth, int keyIndex);
  bool string(std::size_t& i, bool& escaped);
  bool number(std::size_t& i);
  bool literal(std::size_t& i, std::string_view word);
  void skipSpace(std::size_t& i) const;

  std::vector<std::string_view> m_keys;
  int m_elementsOf = -1;
  std::string_view m_text;
  int m_maxDepth = 0;
  bool m_object = false;
  ScannedValue m_values[8];
  ScannedValue m_last;  // the value read last (an array's element, once read)
  std::vector<ScannedValue> m_elements;
  std::vector<std::uint64_t> m_memberHashes;  // names of the objects open, innermost last
};

}  // namespace ragscope::core
