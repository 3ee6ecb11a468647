#include "core/labels/labelio.h"

#include <charconv>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "core/data/csvreader.h"
#include "core/data/jsonguard.h"
#include "core/data/linereader.h"
#include "core/data/trecid.h"
#include "core/export/csv.h"
#include "core/util/sqlitedb.h"
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

// Problems of one import, formatted "file:line: field: problem" (or "file: problem").
struct ImportProblem {
  std::string file;
  std::string text;
  bool failed = false;
  void set(std::uint64_t line, std::string_view field, const std::string& problem) {
    if (failed) return;
    failed = true;
    text = file + ":" + std::to_string(line) + ": " + std::string(field) + ": " + problem;
  }
  void setWhole(const std::string& problem) {
    if (failed) return;
    failed = true;
    text = file + ": " + problem;
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

// Duplicate targets of one annotator within one file, remembered in a temporary SQLite file (a
// few MiB of its pages in memory, however long the file): an 8-million-line import kept them in
// a std::map before, and ran out of memory.
class ImportDuplicates {
 public:
  std::optional<std::string> open() {
    std::string error;
    if (!m_db.openTemporary(4096, &error)) return error;
    if (!m_db.exec("CREATE TABLE seen (key BLOB PRIMARY KEY, line INTEGER NOT NULL) WITHOUT ROWID;"
                   "BEGIN",
                   &error))
      return "a temporary database: " + error;
    m_insert =
        m_db.prepare("INSERT INTO seen(key, line) VALUES (?, ?) ON CONFLICT DO NOTHING", &error);
    m_find = m_db.prepare("SELECT line FROM seen WHERE key = ?", &error);
    if (!m_insert.valid() || !m_find.valid()) return "a temporary database: " + error;
    return std::nullopt;
  }

  // The line where this target and annotator came first, or nullopt (and it is remembered).
  // `failed` when the temporary file cannot be written (a full disk).
  std::optional<std::uint64_t> seen(const Label& label, std::uint64_t line, bool& failed) {
    m_key = label.target.key();
    m_key += '\n';
    m_key += label.annotator;
    m_insert.reset();
    m_insert.bind(1, m_key).bind(2, static_cast<std::int64_t>(line));
    m_insert.step();
    const bool ok = m_insert.ok();
    const bool added = m_db.changes() > 0;  // 0: the key was there (the conflict skipped it)
    m_insert.reset();
    if (!ok) {
      failed = true;
      return std::nullopt;
    }
    if (added) return std::nullopt;
    m_find.reset();
    m_find.bind(1, m_key);
    const std::uint64_t first = m_find.step() ? static_cast<std::uint64_t>(m_find.int64(0)) : 0;
    m_find.reset();
    return first;
  }

  std::string lastError() const { return m_db.lastError(); }

 private:
  SqliteDb m_db;
  SqliteStatement m_insert, m_find;
  std::string m_key;
};

std::string importTime(const LabelImportOptions& options) {
  return options.time.empty() ? nowIso8601() : options.time;
}

// The lines of an import: from text in memory or from a file.
class ImportLines {
 public:
  virtual ~ImportLines() = default;
  // The next line without its end; false at the end, or on a problem (set in `problem`).
  virtual bool next(std::string_view& row, std::uint64_t& line, ImportProblem& problem) = 0;
};

// Lines of a text, with their numbers (a UTF-8 BOM skipped, CRLF tolerated).
class TextLines : public ImportLines {
 public:
  explicit TextLines(std::string_view text) : m_text(text) {
    if (m_text.rfind("\xEF\xBB\xBF", 0) == 0) m_pos = 3;
  }
  bool next(std::string_view& row, std::uint64_t& line, ImportProblem&) override {
    if (m_done) return false;
    const std::size_t end = m_text.find('\n', m_pos);
    row =
        m_text.substr(m_pos, end == std::string_view::npos ? std::string_view::npos : end - m_pos);
    if (!row.empty() && row.back() == '\r') row.remove_suffix(1);
    line = ++m_line;
    if (end == std::string_view::npos)
      m_done = true;
    else
      m_pos = end + 1;
    return true;
  }

 private:
  std::string_view m_text;
  std::size_t m_pos = 0;
  std::uint64_t m_line = 0;
  bool m_done = false;
};

std::string labelFileTooLarge(std::uint64_t maxBytes, LabelFileFormat format) {
  return "is larger than " + std::to_string(maxBytes) + " bytes, the limit for a " +
         std::string(labelFileFormatName(format)) + " labels file";
}

// Lines of a file, streamed (core/data/linereader.h): never more than one line in memory, no
// line over kMaxLabelLineBytes, no more than `maxBytes` in all.
class FileLines : public ImportLines {
 public:
  FileLines(const std::filesystem::path& path, std::uint64_t maxBytes, LabelFileFormat format)
      : m_reader(path, kMaxLabelLineBytes), m_maxBytes(maxBytes), m_format(format) {}
  bool open(ImportProblem& problem) {
    if (!m_reader.isOpen()) {
      problem.setWhole(m_reader.openError());
      return false;
    }
    if (m_reader.fileSize() > m_maxBytes) {
      problem.setWhole(labelFileTooLarge(m_maxBytes, m_format));
      return false;
    }
    return true;
  }
  bool next(std::string_view& row, std::uint64_t& line, ImportProblem& problem) override {
    const auto status = m_reader.next(row);
    line = m_reader.lineNumber();
    if (m_reader.bytesRead() > m_maxBytes) {  // a file that grows while it is read
      problem.setWhole(labelFileTooLarge(m_maxBytes, m_format));
      return false;
    }
    switch (status) {
      case LineReader::Status::Line:
        return true;
      case LineReader::Status::End:
        return false;
      case LineReader::Status::TooLong:
        problem.set(line, "record", "longer than " + std::to_string(kMaxLabelLineBytes) + " bytes");
        return false;
      case LineReader::Status::IoError:
        problem.set(line, "record", "read error");
        return false;
    }
    return false;
  }

 private:
  LineReader m_reader;
  std::uint64_t m_maxBytes;
  LabelFileFormat m_format;
};

enum class ReadStatus { Label, End, Failed };

// One format's labels, one at a time, each checked (labelProblem); duplicates are the driver's.
class LabelReader {
 public:
  virtual ~LabelReader() = default;
  virtual ReadStatus next(Label& label, std::uint64_t& line, ImportProblem& problem) = 0;
  // The problem of a target given twice for one annotator (first on line `first`).
  virtual void duplicate(const Label& label, std::uint64_t line, std::uint64_t first,
                         ImportProblem& problem) const {
    problem.set(line, label.target.kind == TargetKind::Answer ? "qid" : "item",
                describeTarget(label.target) + " is labelled twice by " +
                    ioQuoted(label.annotator) + " in this file (first on line " +
                    std::to_string(first) + ")");
  }
};

class QrelsReader : public LabelReader {
 public:
  QrelsReader(ImportLines& lines, const LabelImportOptions& options)
      : m_lines(lines), m_options(options), m_time(importTime(options)) {}

  ReadStatus next(Label& label, std::uint64_t& line, ImportProblem& problem) override {
    std::string_view row;
    while (m_lines.next(row, line, problem)) {
      m_fields.clear();
      std::size_t i = 0;
      while (i < row.size()) {
        while (i < row.size() && (row[i] == ' ' || row[i] == '\t')) ++i;
        const std::size_t start = i;
        while (i < row.size() && row[i] != ' ' && row[i] != '\t') ++i;
        if (i > start) m_fields.push_back(row.substr(start, i - start));
      }
      if (m_fields.empty()) continue;
      if (m_fields.size() != 4) {
        problem.set(line, "record",
                    "a qrels line has 4 fields (qid iter docno rel), this one has " +
                        std::to_string(m_fields.size()));
        return ReadStatus::Failed;
      }
      // Ids as the qrels reader reads them (core/data/trecid.h): what an export escaped.
      label = {};
      label.target = {TargetKind::Relevance, m_options.scope, decodeTrecId(m_fields[0]),
                      decodeTrecId(m_fields[2])};
      label.annotator = m_options.annotator;
      label.time = m_time;
      std::string why;
      if (!canonicalValue(TargetKind::Relevance, m_fields[3], &why)) {
        problem.set(line, "rel", why);
        return ReadStatus::Failed;
      }
      return finishImportedLabel(label, std::string(m_fields[3]), line, problem)
                 ? ReadStatus::Label
                 : ReadStatus::Failed;
    }
    return problem.failed ? ReadStatus::Failed : ReadStatus::End;
  }

  void duplicate(const Label& label, std::uint64_t line, std::uint64_t first,
                 ImportProblem& problem) const override {
    problem.set(line, "docno",
                "document " + ioQuoted(label.target.item) + " of query " +
                    ioQuoted(label.target.qid) + " is graded twice (first on line " +
                    std::to_string(first) + ")");
  }

 private:
  ImportLines& m_lines;
  const LabelImportOptions& m_options;
  std::string m_time;
  std::vector<std::string_view> m_fields;
};

std::string jsonTextField(const nlohmann::json& j, const char* key, bool& wrongType) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return {};
  if (it->is_string()) return it->get<std::string>();
  wrongType = true;
  return {};
}

class JsonlReader : public LabelReader {
 public:
  JsonlReader(ImportLines& lines, const LabelImportOptions& options)
      : m_lines(lines), m_options(options), m_time(importTime(options)) {}

  ReadStatus next(Label& label, std::uint64_t& line, ImportProblem& problem) override {
    std::string_view row;
    while (m_lines.next(row, line, problem)) {
      if (row.find_first_not_of(" \t") == std::string_view::npos) continue;
      label = {};
      return readLine(row, line, label, problem) ? ReadStatus::Label : ReadStatus::Failed;
    }
    return problem.failed ? ReadStatus::Failed : ReadStatus::End;
  }

 private:
  bool readLine(std::string_view row, std::uint64_t line, Label& label, ImportProblem& problem) {
    static const std::set<std::string> known = {"id",      "kind",    "scope",     "qid",
                                                "item",    "value",   "annotator", "time",
                                                "comment", "context", "premise"};
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
        problem.set(line, escapeControlChars(key.substr(0, 80)),
                    "unknown field (a label has kind, scope, qid, item, value, annotator, time, "
                    "comment, context, premise)");
        return false;
      }
    bool wrongType = false;
    const std::string kindName = jsonTextField(j, "kind", wrongType);
    std::optional<TargetKind> kind =
        kindName.empty() ? m_options.kind : targetKindFromName(kindName);
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
    auto scope = text("scope", m_options.scope), qid = text("qid", {}), item = text("item", {}),
         annotator = text("annotator", m_options.annotator), when = text("time", m_time),
         comment = text("comment", {}), context = text("context", {}),
         premise = text("premise", {});
    if (!scope || !qid || !item || !annotator || !when || !comment || !context || !premise)
      return false;
    label.target.scope = std::move(*scope);
    label.target.qid = std::move(*qid);
    label.target.item = std::move(*item);
    label.annotator = std::move(*annotator);
    label.time = std::move(*when);
    label.comment = std::move(*comment);
    label.context = std::move(*context);
    // A claim label without a premise reads as the default (label.h, defaultClaimPremise).
    if (!premise->empty()) {
      label.target.premise = claimPremiseFromName(*premise);
      if (!label.target.premise) {
        problem.set(line, "premise",
                    ioQuoted(*premise) + " is not a claim premise (chunks, gold_answer, response)");
        return false;
      }
    }
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
    return finishImportedLabel(label, rawValue, line, problem);
  }

  ImportLines& m_lines;
  const LabelImportOptions& m_options;
  std::string m_time;
};

// The qid,label CSV (qid,item,label for other kinds than answers), record by record.
class CsvLabelReader : public LabelReader {
 public:
  CsvLabelReader(const std::filesystem::path& path, const LabelImportOptions& options,
                 std::uint64_t maxBytes)
      : m_csv(path, kMaxLabelLineBytes),
        m_options(options),
        m_kind(options.kind.value_or(TargetKind::Answer)),
        m_time(importTime(options)),
        m_maxBytes(maxBytes) {}

  bool open(ImportProblem& problem) {
    if (m_options.annotator.empty() || m_options.scope.empty()) {
      problem.setWhole(
          "a CSV import needs the annotator's name and the scope (the run store or dataset the "
          "labels are about)");
      return false;
    }
    if (!m_csv.isOpen()) {
      problem.setWhole("cannot open: " + m_csv.openError());
      return false;
    }
    if (m_csv.fileSize() > m_maxBytes) {
      problem.setWhole(labelFileTooLarge(m_maxBytes, LabelFileFormat::Csv));
      return false;
    }
    std::vector<std::string> header;
    if (m_csv.readHeader(header) != CsvReader::Status::Record) {
      problem.set(m_csv.error().line, "header",
                  m_csv.error().problem.empty() ? "empty file" : m_csv.error().problem);
      return false;
    }
    m_qid = m_item = m_label = m_premise = header.size();
    for (std::size_t c = 0; c < header.size(); ++c) {
      if (header[c] == "qid" || header[c] == "query_id") {
        m_qid = c;
      } else if (header[c] == "item" || header[c] == "docid" || header[c] == "doc_id") {
        m_item = c;
      } else if (header[c] == "label") {
        m_label = c;
      } else if (header[c] == "premise" && m_kind == TargetKind::Claim) {
        m_premise = c;  // optional: without it, claims read with the default premise
      } else {
        problem.set(1, escapeControlChars(header[c].substr(0, 80)),
                    "unexpected column (a labels CSV has qid, label and, for claims, relevance "
                    "and eRAG labels, item; claims may have premise)");
        return false;
      }
    }
    if (m_qid == header.size() || m_label == header.size()) {
      problem.set(1, "header", "needs a qid and a label column");
      return false;
    }
    if (m_kind != TargetKind::Answer && m_item == header.size()) {
      problem.set(1, "header",
                  std::string(targetKindName(m_kind)) +
                      " labels need an item column (the claim key or document id)");
      return false;
    }
    return true;
  }

  ReadStatus next(Label& label, std::uint64_t& line, ImportProblem& problem) override {
    const auto status = m_csv.next(m_fields);
    if (m_csv.bytesRead() > m_maxBytes) {
      problem.setWhole(labelFileTooLarge(m_maxBytes, LabelFileFormat::Csv));
      return ReadStatus::Failed;
    }
    if (status == CsvReader::Status::End) return ReadStatus::End;
    if (status == CsvReader::Status::Error) {
      problem.set(m_csv.error().line, m_csv.error().field, m_csv.error().problem);
      return ReadStatus::Failed;
    }
    line = m_csv.recordLine();
    label = {};
    label.target = {m_kind, m_options.scope, std::move(m_fields[m_qid]),
                    m_item < m_fields.size() ? std::move(m_fields[m_item]) : std::string()};
    label.annotator = m_options.annotator;
    label.time = m_time;
    if (m_premise < m_fields.size() && !m_fields[m_premise].empty()) {
      label.target.premise = claimPremiseFromName(m_fields[m_premise]);
      if (!label.target.premise) {
        problem.set(line, "premise",
                    ioQuoted(m_fields[m_premise]) +
                        " is not a claim premise (chunks, gold_answer, response)");
        return ReadStatus::Failed;
      }
    }
    if (m_fields[m_label].empty()) {
      problem.set(line, "label", "empty");
      return ReadStatus::Failed;
    }
    return finishImportedLabel(label, m_fields[m_label], line, problem) ? ReadStatus::Label
                                                                        : ReadStatus::Failed;
  }

 private:
  CsvReader m_csv;
  const LabelImportOptions& m_options;
  TargetKind m_kind;
  std::string m_time;
  std::uint64_t m_maxBytes;
  std::size_t m_qid = 0, m_item = 0, m_label = 0, m_premise = 0;
  std::vector<std::string> m_fields;
};

// The read loop every format shares: duplicates checked, labels handed over in pieces.
LabelStreamResult streamLabels(LabelReader& reader, ImportProblem& problem,
                               const LabelImportOptions& options, const LabelPieceSink& sink) {
  LabelStreamResult out;
  const std::size_t pieceSize = options.pieceLabels ? options.pieceLabels : kLabelPieceSize;
  ImportDuplicates dups;
  if (auto why = dups.open()) problem.setWhole(*why);
  LabelPiece piece;
  auto hand = [&]() {
    if (piece.labels.empty()) return true;
    if (sink) {
      if (auto refused = sink(piece)) {
        if (refused->index < piece.lines.size())
          problem.set(piece.lines[refused->index], refused->field, refused->problem);
        else
          problem.setWhole(refused->problem);
        return false;
      }
    }
    out.labels += piece.labels.size();
    piece.labels.clear();
    piece.lines.clear();
    return true;
  };
  while (!problem.failed) {
    Label label;
    std::uint64_t line = 0;
    const ReadStatus status = reader.next(label, line, problem);
    if (status != ReadStatus::Label) break;
    bool failed = false;
    if (auto first = dups.seen(label, line, failed)) {
      reader.duplicate(label, line, *first, problem);
      break;
    }
    if (failed) {
      problem.setWhole("the duplicate check's temporary database failed (" + dups.lastError() +
                       ")");
      break;
    }
    piece.labels.push_back(std::move(label));
    piece.lines.push_back(line);
    if (piece.labels.size() >= pieceSize && !hand()) break;
  }
  if (!problem.failed) hand();
  if (problem.failed) out.error = problem.text;
  return out;
}

// The sink that keeps every label (readLabelsFile, parseLabelsText).
LabelImport collectAll(const std::function<LabelStreamResult(const LabelPieceSink&)>& stream) {
  LabelImport out;
  const LabelStreamResult result = stream([&](LabelPiece& piece) {
    for (Label& l : piece.labels) out.labels.push_back(std::move(l));
    return std::optional<LabelPieceProblem>();
  });
  if (!result.ok()) {
    out.labels.clear();
    out.error = result.error;
  }
  return out;
}

// What a qrels import needs before its first line.
bool qrelsOptionsOk(const LabelImportOptions& options, ImportProblem& problem) {
  if (options.kind && *options.kind != TargetKind::Relevance) {
    problem.setWhole("qrels hold relevance labels only");
    return false;
  }
  if (options.annotator.empty() || options.scope.empty()) {
    problem.setWhole("a qrels import needs the annotator's name and the dataset (scope) it grades");
    return false;
  }
  return true;
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
      if (const auto premise = l->target.claimPremise())
        j["premise"] = std::string(claimPremiseName(*premise));
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
      const bool claims = *filter.kind == TargetKind::Claim;
      w.text("qid");
      if (!answers) w.text("item");
      if (claims) w.text("premise");  // what each verdict was judged against
      w.text("label").endRow();
      for (const Label* l : chosen) {
        w.text(l->target.qid);
        if (!answers) w.text(l->target.item);
        if (claims) w.text(claimPremiseName(*l->target.claimPremise()));
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
          // TREC ids (trecid.h): an id with a space or '%' reads back as itself.
          s << encodeTrecId(qid) << " 0 " << encodeTrecId(doc) << " " << grade << "\n";
          ++out.rows;
        }
      out.text = s.str();
    }
  }
  if (out.rows == 0) out.error = "no labels to export (none match the kind, scope and annotator)";
  return out;
}

std::uint64_t maxLabelFileBytes(LabelFileFormat format) {
  switch (format) {
    case LabelFileFormat::Qrels:
      return kMaxQrelsLabelFileBytes;
    case LabelFileFormat::Csv:
      return kMaxCsvLabelFileBytes;
    case LabelFileFormat::Jsonl:
      return kMaxJsonlLabelFileBytes;
  }
  return kMaxQrelsLabelFileBytes;
}

LabelStreamResult streamLabelsFile(const std::filesystem::path& path, LabelFileFormat format,
                                   const LabelImportOptions& options, const LabelPieceSink& sink) {
  ImportProblem problem{path.string(), {}, false};
  const std::uint64_t maxBytes =
      options.maxFileBytes ? options.maxFileBytes : maxLabelFileBytes(format);
  auto failed = [&]() {
    LabelStreamResult out;
    out.error = problem.text;
    return out;
  };
  if (format == LabelFileFormat::Csv) {
    CsvLabelReader reader(path, options, maxBytes);
    if (!reader.open(problem)) return failed();
    return streamLabels(reader, problem, options, sink);
  }
  if (format == LabelFileFormat::Qrels && !qrelsOptionsOk(options, problem)) return failed();
  FileLines lines(path, maxBytes, format);
  if (!lines.open(problem)) return failed();
  if (format == LabelFileFormat::Qrels) {
    QrelsReader reader(lines, options);
    return streamLabels(reader, problem, options, sink);
  }
  JsonlReader reader(lines, options);
  return streamLabels(reader, problem, options, sink);
}

LabelFileImport importLabelsFile(LabelStore& store, const std::filesystem::path& path,
                                 LabelFileFormat format, const LabelImportOptions& options,
                                 const LabelCatalog& catalog,
                                 const std::function<void(std::vector<Label>&)>& prepare) {
  LabelFileImport out;
  if (!store.beginImport(&out.error)) return out;
  const LabelStreamResult result = streamLabelsFile(path, format, options, [&](LabelPiece& piece) {
    if (prepare) prepare(piece.labels);
    if (catalog)
      for (std::size_t i = 0; i < piece.labels.size(); ++i)
        if (auto problem = catalog(piece.labels[i].target))
          return std::optional<LabelPieceProblem>(
              {i, "target", describeTarget(piece.labels[i].target) + ": " + *problem});
    std::string error;
    if (!store.add(piece.labels, &error))
      return std::optional<LabelPieceProblem>({LabelPieceProblem::kWholeImport, "", error});
    return std::optional<LabelPieceProblem>();
  });
  if (!result.ok()) {
    store.rollbackImport();
    out.error = result.error;
    return out;
  }
  if (!store.commitImport(&out.error)) return out;
  out.added = result.labels;
  return out;
}

LabelImport parseLabelsText(std::string_view text, std::string_view name, LabelFileFormat format,
                            const LabelImportOptions& options) {
  ImportProblem problem{std::string(name), {}, false};
  if (format == LabelFileFormat::Csv) {
    LabelImport out;
    out.error = std::string(name) + ": CSV labels are read from their file";
    return out;
  }
  if (format == LabelFileFormat::Qrels && !qrelsOptionsOk(options, problem)) {
    LabelImport out;
    out.error = problem.text;
    return out;
  }
  return collectAll([&](const LabelPieceSink& sink) {
    TextLines lines(text);
    if (format == LabelFileFormat::Qrels) {
      QrelsReader reader(lines, options);
      return streamLabels(reader, problem, options, sink);
    }
    JsonlReader reader(lines, options);
    return streamLabels(reader, problem, options, sink);
  });
}

LabelImport readLabelsFile(const std::filesystem::path& path, LabelFileFormat format,
                           const LabelImportOptions& options) {
  return collectAll(
      [&](const LabelPieceSink& sink) { return streamLabelsFile(path, format, options, sink); });
}

}  // namespace ragscope::core::labels
