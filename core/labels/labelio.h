#pragma once
// Labels to and from files (core/labels/README.md, "Export and import"):
//   qrels  TREC qrels `qid 0 docid grade` of relevance labels; on export optionally merged with
//          the dataset's qrels (a pair both grade differently is a conflict: listed, and the
//          human grade is written);
//   csv    `qid,label` as `ragscope-cli agreement --human` reads it (answer labels; rows of one
//          qid are several annotators), or `qid,item,label` for the other kinds;
//   jsonl  one object per label with every field.
// Imports are all or nothing: the first problem stops the import with "file:line: field:
// problem", and a target given twice for the same annotator in one file is such a problem. They
// are read in bounded memory (pieces of kLabelPieceSize labels, added in one transaction).
// Qrels ids are TREC ids (core/data/trecid.h): written escaped, read decoded.
//
//   auto done = importLabelsFile(store, "grades.qrels", LabelFileFormat::Qrels,
//                                {.annotator = "ana", .scope = "dl19"}, catalog);
//   if (!done.ok()) fail(done.error);   // "grades.qrels:7: rel: ..."; nothing was stored

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/model.h"
#include "core/labels/label.h"
#include "core/labels/labelstore.h"

namespace ragscope::core::labels {

enum class LabelFileFormat { Qrels, Csv, Jsonl };
std::string_view labelFileFormatName(LabelFileFormat format);  // "qrels", "csv", "jsonl"
std::optional<LabelFileFormat> labelFileFormatFromName(std::string_view name);

// Which labels an export writes (empty / nullopt: all).
struct LabelFilter {
  std::optional<TargetKind> kind;
  std::string scope;
  std::string annotator;
  bool accepts(const Label& label) const;
};

// A relevance label that disagrees with the dataset's qrels grade (merged export).
struct QrelsConflict {
  std::string qid, doc;
  int qrelsGrade = 0;
  int humanGrade = 0;
  std::string annotator;
};

struct LabelExport {
  std::string text;   // the file's content
  std::string error;  // non-empty: nothing to write (names why)
  std::size_t rows = 0;
  std::vector<QrelsConflict> conflicts;  // qrels merged with the dataset's
  // Pairs graded differently by several annotators (qrels without --annotator: the latest
  // label of the pair is written), one line each.
  std::vector<std::string> notes;
  bool ok() const { return error.empty(); }
};

// `current` = LabelStore::current(). The CSV needs one kind (filter.kind, default answer) and
// one scope (the filter's, or the only one the labels have); qrels need one dataset scope.
LabelExport exportLabels(const std::vector<Label>& current, LabelFileFormat format,
                         const LabelFilter& filter, const Qrels* mergeWith = nullptr);

// What an import file does not say itself. JSONL lines carry every field (a field given here
// fills in where a line has none); qrels need annotator and scope (kind is relevance); CSV
// needs annotator, scope and kind (default answer).
struct LabelImportOptions {
  std::string annotator;
  std::string scope;
  std::optional<TargetKind> kind;
  std::string time;  // empty: now
  // 0: the format's bound (maxLabelFileBytes) and kLabelPieceSize; smaller for tests and fuzzing
  // (the same code path on small inputs).
  std::uint64_t maxFileBytes = 0;
  std::size_t pieceLabels = 0;
};

struct LabelImport {
  std::vector<Label> labels;  // each passed labelProblem()
  std::string error;          // "file:line: field: problem"; labels is then empty
  bool ok() const { return error.empty(); }
};

// The largest label file an import reads, one bound per format (a file read as a stream still
// needs an end: time and the store's size grow with it). About 30 million qrels or CSV lines, 10
// million JSONL labels.
inline constexpr std::uint64_t kMaxQrelsLabelFileBytes = std::uint64_t{1} << 30;
inline constexpr std::uint64_t kMaxCsvLabelFileBytes = std::uint64_t{1} << 30;
inline constexpr std::uint64_t kMaxJsonlLabelFileBytes = std::uint64_t{4} << 30;
std::uint64_t maxLabelFileBytes(LabelFileFormat format);
// The longest line (CSV: record) of a label file: far past a label's largest fields (comment and
// context 16 KiB each, JSON-escaped).
inline constexpr std::size_t kMaxLabelLineBytes = std::size_t{1} << 20;
// How many labels an import holds at once (about 560 bytes each).
inline constexpr std::size_t kLabelPieceSize = 4096;

// A piece of a streamed import: labels in file order, each checked (labelProblem, no target twice
// for one annotator in the file), and the line each came from.
struct LabelPiece {
  std::vector<Label> labels;
  std::vector<std::uint64_t> lines;
};
// Why the caller refuses a piece: the label at `index` (reported "file:line: field: problem"),
// or with index kWholeImport the import as a whole ("file: problem").
struct LabelPieceProblem {
  static constexpr std::size_t kWholeImport = static_cast<std::size_t>(-1);
  std::size_t index = kWholeImport;
  std::string field;
  std::string problem;
};
using LabelPieceSink = std::function<std::optional<LabelPieceProblem>(LabelPiece&)>;

struct LabelStreamResult {
  std::uint64_t labels = 0;  // labels the sink took
  std::string error;         // "file:line: field: problem" or "file: problem"
  bool ok() const { return error.empty(); }
};

// Reads a label file in bounded memory: line by line (CSV record by record), each label checked
// as it is read, handed to `sink` in pieces of at most kLabelPieceSize labels. Whether a target
// came twice for one annotator is kept in a temporary SQLite file (core/util/sqlitedb.h), not in
// memory. The first problem stops the read; what the sink did with earlier pieces is the
// caller's to undo (importLabelsFile rolls its transaction back).
LabelStreamResult streamLabelsFile(const std::filesystem::path& path, LabelFileFormat format,
                                   const LabelImportOptions& options, const LabelPieceSink& sink);

// Adds the labels of a file to `store` in one transaction, piece by piece (streamLabelsFile):
// each piece passed through `prepare` (e.g. adoptSourceScopes), its targets checked against
// `catalog` (a target that does not exist is "file:line: target: ..."), then added. All or
// nothing: on any problem the transaction is rolled back and `error` says so.
struct LabelFileImport {
  std::uint64_t added = 0;
  std::string error;
  bool ok() const { return error.empty(); }
};
LabelFileImport importLabelsFile(LabelStore& store, const std::filesystem::path& path,
                                 LabelFileFormat format, const LabelImportOptions& options,
                                 const LabelCatalog& catalog = {},
                                 const std::function<void(std::vector<Label>&)>& prepare = {});

// The whole file in memory (tests, fuzzing, small files): streamLabelsFile collecting every
// label.
LabelImport readLabelsFile(const std::filesystem::path& path, LabelFileFormat format,
                           const LabelImportOptions& options);
// The same from text in memory (JSONL and qrels; CSV is read from its file); `name` is the
// file name used in messages.
LabelImport parseLabelsText(std::string_view text, std::string_view name, LabelFileFormat format,
                            const LabelImportOptions& options);

}  // namespace ragscope::core::labels
