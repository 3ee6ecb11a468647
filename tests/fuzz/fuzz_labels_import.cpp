// Label imports (core/labels/labelio.cpp): JSONL, the qid,label CSV and TREC qrels, read as
// streams in pieces. The first byte picks the format (byte % 3: 0 JSONL, 1 CSV, 2 qrels) and the
// piece size (1 to 4 labels, so that every piece boundary is crossed); the whole input is the
// file, so the seeds below are read as they are. Checked:
// - readLabelsFile: either labels that each pass labelProblem() with no target twice for one
//   annotator, or an error naming the file and no label; labels read are written back as JSONL
//   and read again unchanged;
// - the text path (parseLabelsText) reads JSONL and qrels as the streamed file path does;
// - importLabelsFile into a fresh store is all or nothing, also when the catalog refuses a label
//   of a late piece (any target whose qid ends in '7'): every label read, in order, or no row.
// max_len: 16384
// dict: json
// seed: resources/demo/qrels.txt
// seed: data/trec_eval/test/qrels.test

#include <memory>
#include <set>

#include "core/labels/labelio.h"
#include "core/labels/labelstore.h"
#include "fuzzsupport.h"

using namespace ragscope;
using namespace ragscope::core::labels;

namespace {

bool sameLabels(const std::vector<Label>& a, const std::vector<Label>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i].target == b[i].target) || a[i].value != b[i].value ||
        a[i].annotator != b[i].annotator || a[i].time != b[i].time ||
        a[i].comment != b[i].comment || a[i].context != b[i].context)
      return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const LabelFileFormat format = data[0] % 3 == 0   ? LabelFileFormat::Jsonl
                                 : data[0] % 3 == 1 ? LabelFileFormat::Csv
                                                    : LabelFileFormat::Qrels;
  const std::string_view text = fuzz::bytes(data, size);
  const auto path = fuzz::writeScratch("labels.txt", text);
  LabelImportOptions options;
  options.annotator = "fuzz";
  options.scope = "scope";
  options.time = "2026-11-27T10:00:00Z";
  options.pieceLabels = 1 + (data[0] / 3) % 4;
  const LabelImport in = readLabelsFile(path, format, options);
  if (!in.ok()) {
    fuzz::check(in.labels.empty(), "a failed import kept labels");
    fuzz::check(in.error.rfind(path.string(), 0) == 0, "an import error does not name the file");
  } else {
    std::set<std::string> seen;
    for (const Label& l : in.labels) {
      fuzz::check(!labelProblem(l), "an imported label fails labelProblem");
      fuzz::check(seen.insert(l.target.key() + "\n" + l.annotator).second,
                  "an import kept a target twice for one annotator");
    }
  }

  // The text path reads what the file path reads (the file reader refuses CR-only line ends, so
  // inputs with a CR are left out).
  if (format != LabelFileFormat::Csv && text.find('\r') == std::string_view::npos) {
    const LabelImport fromText = parseLabelsText(text, path.string(), format, options);
    fuzz::check(fromText.ok() == in.ok(), "text and file imports disagree on success");
    if (fromText.ok() && in.ok())
      fuzz::check(sameLabels(fromText.labels, in.labels), "text and file imports read apart");
    else if (!fromText.ok() && !in.ok())
      fuzz::check(fromText.error == in.error, "text and file imports give other errors");
  }

  // Into a store, all or nothing. One store serves many inputs (made again past 5,000 rows):
  // what an input adds is the rows after the ones it found.
  static std::unique_ptr<LabelStore> store;
  if (!store || store->rowCount() > 5000) {
    store.reset();
    fuzz::removeScratch("store");
    store = std::make_unique<LabelStore>();
    std::string error;
    fuzz::check(store->open(fuzz::scratchDir() / "store" / "l.db", &error), "no scratch store");
  }
  const std::int64_t before = store->rowCount();
  const LabelCatalog catalog = [](const Target& t) -> std::optional<std::string> {
    if (!t.qid.empty() && t.qid.back() == '7') return std::string("refused by the catalog");
    return std::nullopt;
  };
  bool refused = false;
  for (const Label& l : in.labels) refused |= !l.target.qid.empty() && l.target.qid.back() == '7';
  const LabelFileImport done = importLabelsFile(*store, path, format, options, catalog);
  if (done.ok()) {
    fuzz::check(in.ok() && !refused, "an import stored labels a check refuses");
    auto rows = store->history();
    rows.erase(rows.begin(), rows.begin() + std::min<std::size_t>(rows.size(), before));
    fuzz::check(done.added == in.labels.size() && sameLabels(rows, in.labels),
                "the store does not hold the labels read, in order");
  } else {
    fuzz::check(store->rowCount() == before, "a failed import left rows in the store");
    fuzz::check(done.error.rfind(path.string(), 0) == 0, "a failed import does not name the file");
    fuzz::check(!in.ok() || refused, "an import failed on a file that reads");
  }

  if (!in.ok() || in.labels.empty()) return 0;
  const LabelExport out = exportLabels(in.labels, LabelFileFormat::Jsonl, {});
  fuzz::check(out.ok(), "labels read cannot be written as JSONL");
  const LabelImport back = parseLabelsText(out.text, "x.jsonl", LabelFileFormat::Jsonl, {});
  fuzz::check(back.ok() && back.labels.size() == in.labels.size(),
              "labels written as JSONL do not read back");
  for (std::size_t i = 0; i < back.labels.size() && back.ok(); ++i)
    fuzz::check(
        back.labels[i].target == in.labels[i].target && back.labels[i].value == in.labels[i].value,
        "a label changed through JSONL");
  return 0;
}
