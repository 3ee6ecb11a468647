#pragma once
// Labels to and from files (core/labels/README.md, "Export and import"):
//   qrels  TREC qrels `qid 0 docid grade` of relevance labels; on export optionally merged with
//          the dataset's qrels (a pair both grade differently is a conflict: listed, and the
//          human grade is written);
//   csv    `qid,label` as `ragscope-cli agreement --human` reads it (answer labels; rows of one
//          qid are several annotators), or `qid,item,label` for the other kinds;
//   jsonl  one object per label with every field.
// Imports are all or nothing: the first problem stops the import with "file:line: field:
// problem", and a target given twice for the same annotator in one file is such a problem.
//
//   auto in = readLabelsFile("grades.qrels", LabelFileFormat::Qrels,
//                            {.annotator = "ana", .scope = "dl19"});
//   if (!in.ok()) fail(in.error);   else store.add(in.labels, &err, catalog);

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/model.h"
#include "core/labels/label.h"

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
};

struct LabelImport {
  std::vector<Label> labels;  // each passed labelProblem()
  std::string error;          // "file:line: field: problem"; labels is then empty
  bool ok() const { return error.empty(); }
};

// The largest label file read (a bound, as for every whole-file read).
inline constexpr std::uint64_t kMaxLabelFileBytes = std::uint64_t{256} << 20;

LabelImport readLabelsFile(const std::filesystem::path& path, LabelFileFormat format,
                           const LabelImportOptions& options);
// The same from text in memory (JSONL and qrels; CSV is read from its file); `name` is the
// file name used in messages.
LabelImport parseLabelsText(std::string_view text, std::string_view name, LabelFileFormat format,
                            const LabelImportOptions& options);

}  // namespace ragscope::core::labels
