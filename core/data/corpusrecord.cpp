#include "core/data/corpusrecord.h"

#include <nlohmann/json.hpp>

#include "core/data/jsonguard.h"
#include "core/data/jsonlines.h"
#include "core/util/jsonstrict.h"

namespace ragscope::core {

namespace {

using nlohmann::json;

// The value of `v` as a one-key object, for the shared field helpers.
json recordValueAsObject(std::string_view record, const ScannedValue& v, std::string_view key) {
  json obj = json::object();
  if (v.kind != JsonKind::None) obj[std::string(key)] = json::parse(v.in(record));
  return obj;
}

}  // namespace

CorpusRecordReader::CorpusRecordReader(CorpusLayout layout, int maxJsonDepth, std::string file)
    : m_layout(layout),
      m_maxJsonDepth(maxJsonDepth),
      m_file(std::move(file)),
      m_scanner(layout == CorpusLayout::KiltPages
                    ? RecordScanner({"wikipedia_id", "wikipedia_title", "text"}, 2)
                    : RecordScanner({"_id", "id", "docid", "title", "text", "contents"})) {}

void CorpusRecordReader::read(std::string_view record, std::uint64_t offset, std::uint64_t line,
                              RecordSink out) {
  RecordProblems problems(m_file, line, {});
  if (!m_scanner.scan(record, m_maxJsonDepth)) {
    describeInvalid(record, problems);
  } else if (!m_scanner.isObject()) {
    problems.error("record", "must be a JSON object, not " + jsonTypeName(json::parse(record)));
  } else {
    DocIndexEntry e;
    e.recordOffset = offset;
    e.recordLength = static_cast<std::uint32_t>(record.size());
    e.line = line;
    e.stringOffset = out.strings.size();
    e.firstParagraph = out.paragraphs.size();
    if (m_layout == CorpusLayout::KiltPages)
      kiltPage(record, e, out, problems);
    else
      jsonlDocument(record, e, out, problems);
    if (!problems.hasErrors()) {
      out.entries.push_back(e);
    } else {
      out.strings.resize(e.stringOffset);
      out.paragraphs.resize(e.firstParagraph);
    }
  }
  for (auto& d : problems.items()) out.diagnostics.push_back(std::move(d));
}

void CorpusRecordReader::describeInvalid(std::string_view record, RecordProblems& problems) const {
  if (auto tooDeep = checkJsonDepth(record, m_maxJsonDepth)) {
    problems.error("record", *tooDeep + " (maxJsonDepth)");
    return;
  }
  // Worded as the in-memory loaders word it: the strict reader's repeat names the member.
  json parsed;
  JsonStrictError why;
  if (parseJsonStrict(record, parsed, &why, m_maxJsonDepth))
    problems.error("record", "JSON the fast scanner could not read (please report this record)");
  else if (why.repeated)
    problems.error(why.field, why.problem);
  else
    problems.error("record", describeParseError(why.problem, 1, true));
}

// An id or a string field, appended to `strings`; false after an error.
bool CorpusRecordReader::appendField(std::string_view record, const ScannedValue& v,
                                     std::string_view key, bool isId, bool required,
                                     std::string& strings, std::uint32_t& length,
                                     RecordProblems& problems) {
  std::optional<std::string> decoded;
  std::string_view value;
  if (v.kind == JsonKind::String && !v.escaped) {
    value = record.substr(v.begin + 1, v.end - v.begin - 2);
    if (isId && value.empty()) {
      problems.error(key, "is empty");
      return false;
    }
  } else {
    json obj = recordValueAsObject(record, v, key);
    decoded =
        isId ? jsonId(obj, key, problems, required) : jsonString(obj, key, problems, required);
    if (problems.hasErrors()) return false;
    if (decoded) value = *decoded;
  }
  strings.append(value);
  length = static_cast<std::uint32_t>(value.size());
  return true;
}

void CorpusRecordReader::kiltPage(std::string_view record, DocIndexEntry& e, RecordSink& out,
                                  RecordProblems& problems) {
  // Every field is checked, as the in-memory loader does: a record can have several problems.
  appendField(record, m_scanner.value(0), "wikipedia_id", true, true, out.strings, e.idLength,
              problems);
  appendField(record, m_scanner.value(1), "wikipedia_title", false, false, out.strings,
              e.titleLength, problems);
  const ScannedValue& t = m_scanner.value(2);
  if (t.kind == JsonKind::None || t.kind == JsonKind::Null) {
    problems.error("text", "missing");
    return;
  }
  if (t.kind != JsonKind::Array) {
    problems.error(
        "text", "must be an array of paragraphs, not " + jsonTypeName(json::parse(t.in(record))));
    return;
  }
  const auto& paragraphs = m_scanner.elements();
  for (std::size_t i = 0; i < paragraphs.size(); ++i) {
    if (paragraphs[i].kind != JsonKind::String) {
      problems.error(
          indexedField("text", i),
          "must be a string, not " + jsonTypeName(json::parse(paragraphs[i].in(record))));
      return;
    }
    out.paragraphs.push_back(paragraphs[i].begin - t.begin);
  }
  e.textOffset = t.begin;
  e.textLength = t.end - t.begin;
  e.paragraphCount = static_cast<std::uint32_t>(paragraphs.size());
}

// BEIR and passage corpora: the id under "_id", "id" or "docid"; the text under "text" or
// "contents"; an optional "title".
void CorpusRecordReader::jsonlDocument(std::string_view record, DocIndexEntry& e, RecordSink& out,
                                       RecordProblems& problems) {
  static constexpr const char* kIdKeys[] = {"_id", "id", "docid"};
  std::size_t idKey = 0;
  while (idKey < 2 && m_scanner.value(idKey).kind == JsonKind::None) ++idKey;
  appendField(record, m_scanner.value(idKey), kIdKeys[idKey], true, true, out.strings, e.idLength,
              problems);
  appendField(record, m_scanner.value(3), "title", false, false, out.strings, e.titleLength,
              problems);
  const bool contents =
      m_scanner.value(4).kind == JsonKind::None && m_scanner.value(5).kind != JsonKind::None;
  const ScannedValue& t = m_scanner.value(contents ? 5 : 4);
  if (t.kind != JsonKind::String) {
    json obj = recordValueAsObject(record, t, contents ? "contents" : "text");
    (void)jsonString(obj, contents ? "contents" : "text", problems, true);
    return;
  }
  e.textOffset = t.begin;
  e.textLength = t.end - t.begin;
}

}  // namespace ragscope::core
