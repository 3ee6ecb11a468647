#include "core/labels/labelio.h"

#include <charconv>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/data/csvreader.h"
#include "core/data/inputfile.h"
#include "core/data/jsonguard.h"
#include "core/export/csv.h"
#include "core/util/textescape.h"

namespace ragscope::core::labels {

namespace {

std::string ioQuoted(std::string_view text) {
  std::string out(1, '"');
  out += escapeControlChars(text.substr(0, 120));
  out += text.size() > 120 ? "...\"" : "\"";
  return out;
}

std::string ioNumber(double v) {
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v == 0 ? 0.0 : v);
  return ec == std::errc() ? std::string(buf, ptr) : std::string("0");
}

// Problems of one import, formatted "file:line: field: problem".
struct ImportProblem {
  std::string file;
  std::string text;
  bool failed = false;
  void set(std::uint64_t line, std::string_view field, const std::string& problem) {
    if (failed) return;
    failed = true;
    text = file + ":" + std::to_string(line) + ": " + std::string(field) + ": " + problem;
  }
};

// A label of an import, its value made canonical and the whole label checked; the field named
// in a problem is the label's.
bool finishImportedLabel(Label& label, const std::string& rawValue, std::uint64_t line,
                         ImportProblem& problem) {
  std::string why;
  const auto canonical = canonicalValue(label.target.kind, rawValue, &why);
  if (!canonical) {
    problem.set(line, "value", why);
    return false;
  }
  label.value = *canonical;
  if (auto p = labelProblem(label)) {
    const auto space = p->find(' ');
    const std::string field = space == std::string::npos ? *p : p->substr(0, space);
    problem.set(line, field, *p);
    return false;
  }
  return true;
}

// Duplicate targets of one annotator within one file.
class ImportDuplicates {
 public:
  // The line where this target and annotator came first, or nullopt (and it is remembered).
  std::optional<std::uint64_t> seen(const Label& label, std::uint64_t line) {
    auto [it, added] = m_first.emplace(label.target.key() + '\n' + label.annotator, line);
    if (added) return std::nullopt;
    return it->second;
  }

 private:
  std::map<std::string, std::uint64_t> m_first;
};

bool checkDuplicate(ImportDuplicates& dups, const Label& label, std::uint64_t line,
                    ImportProblem& problem) {
  if (auto first = dups.seen(label, line)) {
    problem.set(line, label.target.kind == TargetKind::Answer ? "qid" : "item",
                describeTarget(label.target) + " is labelled twice by " +
                    ioQuoted(label.annotator) + " in this file (first on line " +
                    std::to_string(*first) + ")");
    return false;
  }
  return true;
}

std::string importTime(const LabelImportOptions& options) {
  return options.time.empty() ? nowIso8601() : options.time;
}

// Lines of a text, with their numbers (CRLF tolerated).
template <typename Fn>
void forEachImportLine(std::string_view text, Fn&& fn) {
  std::uint64_t line = 0;
  std::size_t pos = 0;
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) pos = 3;
  while (pos <= text.size()) {
    const std::size_t end = text.find('\n', pos);
    std::string_view row =
        text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    if (!row.empty() && row.back() == '\r') row.remove_suffix(1);
    ++line;
    if (!fn(row, line)) return;
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
}

LabelImport parseQrelsLabels(std::string_view text, std::string_view name,
                             const LabelImportOptions& options) {
  LabelImport out;
  ImportProblem problem{std::string(name), {}, false};
  if (options.annotator.empty() || options.scope.empty()) {
    out.error = std::string(name) +
                ": a qrels import needs the annotator's name and the dataset (scope) it grades";
    return out;
  }
  ImportDuplicates dups;
  const std::string time = importTime(options);
  forEachImportLine(text, [&](std::string_view row, std::uint64_t line) {
    std::vector<std::string_view> fields;
    std::size_t i = 0;
    while (i < row.size()) {
      while (i < row.size() && (row[i] == ' ' || row[i] == '\t')) ++i;
      const std::size_t start = i;
      while (i < row.size() && row[i] != ' ' && row[i] != '\t') ++i;
      if (i > start) fields.push_back(row.substr(start, i - start));
    }
    if (fields.empty()) return true;
    if (fields.size() != 4) {
      problem.set(line, "record",
                  "a qrels line has 4 fields (qid iter docno rel), this one has " +
                      std::to_string(fields.size()));
      return false;
    }
    Label label;
    label.target = {TargetKind::Relevance, options.scope, std::string(fields[0]),
                    std::string(fields[2])};
    label.annotator = options.annotator;
    label.time = time;
    std::string why;
    if (!canonicalValue(TargetKind::Relevance, fields[3], &why)) {
      problem.set(line, "rel", why);
      return false;
    }
    if (!finishImportedLabel(label, std::string(fields[3]), line, problem)) return false;
    if (auto first = dups.seen(label, line)) {
      problem.set(line, "docno",
                  "document " + ioQuoted(label.target.item) + " of query " +
                      ioQuoted(label.target.qid) + " is graded twice (first on line " +
                      std::to_string(*first) + ")");
      return false;
    }
    out.labels.push_back(std::move(label));
    return true;
  });
  if (problem.failed) {
    out.labels.clear();
    out.error = problem.text;
  }
  return out;
}

std::string jsonTextField(const nlohmann::json& j, const char* key, bool& wrongType) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return {};
  if (it->is_string()) return it->get<std::string>();
  wrongType = true;
  return {};
}

LabelImport parseJsonlLabels(std::string_view text, std::string_view name,
                             const LabelImportOptions& options) {
  LabelImport out;
  ImportProblem problem{std::string(name), {}, false};
  ImportDuplicates dups;
  const std::string time = importTime(options);
  static const std::set<std::string> known = {"id",    "kind",      "scope", "qid",     "item",
                                              "value", "annotator", "time",  "comment", "context"};
  forEachImportLine(text, [&](std::string_view row, std::uint64_t line) {
    if (row.find_first_not_of(" \t") == std::string_view::npos) return true;
    if (auto why = checkJsonDepth(row, 8)) {
      problem.set(line, "record", *why);
      return false;
    }
    const auto j = nlohmann::json::parse(row, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      problem.set(line, "record", "not a JSON object");
      return false;
    }
    for (const auto& [key, value] : j.items())
      if (!known.contains(key)) {
        problem.set(line, key,
                    "unknown field (a label has kind, scope, qid, item, value, "
                    "annotator, time, comment, context)");
        return false;
      }
    Label label;
    bool wrongType = false;
    const std::string kindName = jsonTextField(j, "kind", wrongType);
    std::optional<TargetKind> kind = kindName.empty() ? options.kind : targetKindFromName(kindName);
    if (wrongType || !kind) {
      problem.set(line, "kind",
                  (kindName.empty() ? std::string("missing") : ioQuoted(kindName) + " is unknown") +
                      " (claim, answer, relevance, erag)");
      return false;
    }
    label.target.kind = *kind;
    auto text = [&](const char* key, const std::string& fallback) -> std::optional<std::string> {
      bool bad = false;
      std::string v = jsonTextField(j, key, bad);
      if (bad) {
        problem.set(line, key, "is not a string");
        return std::nullopt;
      }
      return v.empty() ? fallback : v;
    };
    auto scope = text("scope", options.scope), qid = text("qid", {}), item = text("item", {}),
         annotator = text("annotator", options.annotator), when = text("time", time),
         comment = text("comment", {}), context = text("context", {});
    if (!scope || !qid || !item || !annotator || !when || !comment || !context) return false;
    label.target.scope = *scope;
    label.target.qid = *qid;
    label.target.item = *item;
    label.annotator = *annotator;
    label.time = *when;
    label.comment = *comment;
    label.context = *context;
    std::string rawValue;
    auto v = j.find("value");
    if (v == j.end() || v->is_null()) {
      problem.set(line, "value", "missing");
      return false;
    }
    if (v->is_string())
      rawValue = v->get<std::string>();
    else if (v->is_number())
      rawValue = ioNumber(v->get<double>());
    else {
      problem.set(line, "value", "is neither a string nor a number");
      return false;
    }
    if (!finishImportedLabel(label, rawValue, line, problem)) return false;
    if (!checkDuplicate(dups, label, line, problem)) return false;
    out.labels.push_back(std::move(label));
    return true;
  });
  if (problem.failed) {
    out.labels.clear();
    out.error = problem.text;
  }
  return out;
}

LabelImport readCsvLabels(const std::filesystem::path& path, const LabelImportOptions& options) {
  LabelImport out;
  const std::string name = path.string();
  ImportProblem problem{name, {}, false};
  const TargetKind kind = options.kind.value_or(TargetKind::Answer);
  if (options.annotator.empty() || options.scope.empty()) {
    out.error = name +
                ": a CSV import needs the annotator's name and the scope (the run store "
                "or dataset the labels are about)";
    return out;
  }
  CsvReader csv(path, 1 << 20);
  if (!csv.isOpen()) {
    out.error = name + ": cannot open: " + csv.openError();
    return out;
  }
  std::vector<std::string> header, fields;
  if (csv.readHeader(header) != CsvReader::Status::Record) {
    out.error = name + ":" + std::to_string(csv.error().line) +
                ": header: " + (csv.error().problem.empty() ? "empty file" : csv.error().problem);
    return out;
  }
  std::size_t qidColumn = header.size(), itemColumn = header.size(), labelColumn = header.size();
  for (std::size_t c = 0; c < header.size(); ++c) {
    if (header[c] == "qid" || header[c] == "query_id")
      qidColumn = c;
    else if (header[c] == "item" || header[c] == "docid" || header[c] == "doc_id")
      itemColumn = c;
    else if (header[c] == "label")
      labelColumn = c;
    else {
      out.error = name + ":1: " + escapeControlChars(header[c]) +
                  ": unexpected column (a labels CSV has qid, label and, for claims, relevance "
                  "and eRAG labels, item)";
      return out;
    }
  }
  if (qidColumn == header.size() || labelColumn == header.size()) {
    out.error = name + ":1: header: needs a qid and a label column";
    return out;
  }
  if (kind != TargetKind::Answer && itemColumn == header.size()) {
    out.error = name + ":1: header: " + std::string(targetKindName(kind)) +
                " labels need an item column (the claim key or document id)";
    return out;
  }
  ImportDuplicates dups;
  const std::string time = importTime(options);
  for (;;) {
    const auto status = csv.next(fields);
    if (status == CsvReader::Status::End) break;
    if (status == CsvReader::Status::Error) {
      problem.set(csv.error().line, csv.error().field, csv.error().problem);
      break;
    }
    const std::uint64_t line = csv.recordLine();
    Label label;
    label.target = {kind, options.scope, fields[qidColumn],
                    itemColumn < fields.size() ? fields[itemColumn] : std::string()};
    label.annotator = options.annotator;
    label.time = time;
    if (fields[labelColumn].empty()) {
      problem.set(line, "label", "empty");
      break;
    }
    if (!finishImportedLabel(label, fields[labelColumn], line, problem)) break;
    if (!checkDuplicate(dups, label, line, problem)) break;
    out.labels.push_back(std::move(label));
  }
  if (problem.failed) {
    out.labels.clear();
    out.error = problem.text;
  }
  return out;
}

std::string singleScope(const std::vector<const Label*>& labels, const LabelFilter& filter,
                        std::string_view kindName, std::string& error) {
  if (!filter.scope.empty()) return filter.scope;
  std::set<std::string> scopes;
  for (const Label* l : labels) scopes.insert(l->target.scope);
  if (scopes.size() > 1) {
    error = std::string(kindName) + " labels of several scopes (";
    std::size_t shown = 0;
    for (const auto& s : scopes) {
      if (shown++ == 5) {
        error += ", ...";
        break;
      }
      error += (shown > 1 ? ", " : "") + ioQuoted(s);
    }
    error += "): choose one";
  }
  return scopes.empty() ? std::string() : *scopes.begin();
}

}  // namespace

std::string_view labelFileFormatName(LabelFileFormat format) {
  switch (format) {
    case LabelFileFormat::Qrels:
      return "qrels";
    case LabelFileFormat::Csv:
      return "csv";
    case LabelFileFormat::Jsonl:
      return "jsonl";
  }
  return "jsonl";
}

std::optional<LabelFileFormat> labelFileFormatFromName(std::string_view name) {
  if (name == "qrels") return LabelFileFormat::Qrels;
  if (name == "csv") return LabelFileFormat::Csv;
  if (name == "jsonl") return LabelFileFormat::Jsonl;
  return std::nullopt;
}

bool LabelFilter::accepts(const Label& label) const {
  return (!kind || label.target.kind == *kind) && (scope.empty() || label.target.scope == scope) &&
         (annotator.empty() || label.annotator == annotator);
}

LabelExport exportLabels(const std::vector<Label>& current, LabelFileFormat format,
                         const LabelFilter& filterIn, const Qrels* mergeWith) {
  LabelExport out;
  LabelFilter filter = filterIn;
  if (format == LabelFileFormat::Qrels) {
    if (filter.kind && *filter.kind != TargetKind::Relevance) {
      out.error = "qrels hold relevance labels only";
      return out;
    }
    filter.kind = TargetKind::Relevance;
  }
  if (format == LabelFileFormat::Csv && !filter.kind) filter.kind = TargetKind::Answer;
  std::vector<const Label*> chosen;
  for (const auto& l : current)
    if (filter.accepts(l)) chosen.push_back(&l);
  if (format == LabelFileFormat::Jsonl) {
    std::ostringstream s;
    for (const Label* l : chosen) {
      nlohmann::ordered_json j;
      j["id"] = l->id;
      j["kind"] = std::string(targetKindName(l->target.kind));
      j["scope"] = l->target.scope;
      j["qid"] = l->target.qid;
      j["item"] = l->target.item;
      j["value"] = l->value;
      j["annotator"] = l->annotator;
      j["time"] = l->time;
      j["comment"] = l->comment;
      j["context"] = l->context;
      s << j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
      ++out.rows;
    }
    out.text = s.str();
  } else {
    const std::string kindName(targetKindName(*filter.kind));
    const std::string scope = singleScope(chosen, filter, kindName, out.error);
    if (!out.error.empty()) return out;
    std::erase_if(chosen, [&](const Label* l) { return l->target.scope != scope; });
    if (format == LabelFileFormat::Csv) {
      std::ostringstream s;
      exporting::CsvWriter w(s);
      const bool answers = *filter.kind == TargetKind::Answer;
      w.text("qid");
      if (!answers) w.text("item");
      w.text("label").endRow();
      for (const Label* l : chosen) {
        w.text(l->target.qid);
        if (!answers) w.text(l->target.item);
        // Answers as numbers (what the agreement command reads); other kinds as spelled.
        const auto number = numericValue(l->target.kind, l->value);
        if (answers && number)
          w.number(*number);
        else
          w.text(l->value);
        w.endRow();
        ++out.rows;
      }
      out.text = s.str();
    } else {
      // One grade per pair: the latest label of the pair (largest row id) among the annotators
      // chosen; annotators who disagree on a pair are noted.
      std::map<std::string, std::map<std::string, const Label*>> pairs;
      std::map<std::string, std::map<std::string, std::set<std::string>>> grades;
      for (const Label* l : chosen) {
        const Label*& slot = pairs[l->target.qid][l->target.item];
        if (!slot || l->id > slot->id) slot = l;
        grades[l->target.qid][l->target.item].insert(l->value);
      }
      for (const auto& [qid, docs] : grades)
        for (const auto& [doc, values] : docs)
          if (values.size() > 1)
            out.notes.push_back("query " + ioQuoted(qid) + ", document " + ioQuoted(doc) +
                                ": annotators disagree; the latest grade (" +
                                pairs[qid][doc]->value + ", by " +
                                ioQuoted(pairs[qid][doc]->annotator) + ") is written");
      std::map<std::string, std::map<std::string, int>> merged;
      if (mergeWith)
        for (const auto& [qid, judgments] : mergeWith->byQuery)
          for (const auto& j : judgments) merged[qid][j.docId] = j.rel;
      for (const auto& [qid, docs] : pairs)
        for (const auto& [doc, label] : docs) {
          const int human = label->value[0] - '0';
          auto q = merged.find(qid);
          if (mergeWith && q != merged.end()) {
            auto d = q->second.find(doc);
            if (d != q->second.end() && d->second != human)
              out.conflicts.push_back({qid, doc, d->second, human, label->annotator});
          }
          merged[qid][doc] = human;
        }
      std::ostringstream s;
      for (const auto& [qid, docs] : merged)
        for (const auto& [doc, grade] : docs) {
          s << qid << " 0 " << doc << " " << grade << "\n";
          ++out.rows;
        }
      out.text = s.str();
    }
  }
  if (out.rows == 0) out.error = "no labels to export (none match the kind, scope and annotator)";
  return out;
}

LabelImport parseLabelsText(std::string_view text, std::string_view name, LabelFileFormat format,
                            const LabelImportOptions& options) {
  if (format == LabelFileFormat::Qrels) {
    if (options.kind && *options.kind != TargetKind::Relevance) {
      LabelImport out;
      out.error = std::string(name) + ": qrels hold relevance labels only";
      return out;
    }
    return parseQrelsLabels(text, name, options);
  }
  if (format == LabelFileFormat::Jsonl) return parseJsonlLabels(text, name, options);
  LabelImport out;
  out.error = std::string(name) + ": CSV labels are read from their file";
  return out;
}

LabelImport readLabelsFile(const std::filesystem::path& path, LabelFileFormat format,
                           const LabelImportOptions& options) {
  if (format == LabelFileFormat::Csv) {
    if (auto why = specialFileProblem(path)) {
      LabelImport out;
      out.error = path.string() + ": " + *why;
      return out;
    }
    return readCsvLabels(path, options);
  }
  std::string error;
  const auto text = readBoundedFile(path, kMaxLabelFileBytes, "a labels file", error);
  if (!text) {
    LabelImport out;
    out.error = path.string() + ": " + error;
    return out;
  }
  return parseLabelsText(*text, path.string(), format, options);
}

}  // namespace ragscope::core::labels
