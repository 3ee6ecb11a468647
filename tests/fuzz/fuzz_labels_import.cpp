// Label imports (core/labels/labelio.cpp: readLabelsFile): JSONL, the qid,label CSV and TREC
// qrels. The first byte picks the format (byte % 3: 0 JSONL, 1 CSV, 2 qrels); the whole input is
// the file, so the seeds below are read as they are. An import is all or nothing: either labels
// that each pass labelProblem() with no target twice for one annotator, or an error naming the
// file and no label; labels read are written back as JSONL and read again unchanged.
// max_len: 16384
// dict: json
// seed: resources/demo/qrels.txt
// seed: data/trec_eval/test/qrels.test

#include <set>

#include "core/labels/labelio.h"
#include "fuzzsupport.h"

using namespace ragscope;
using namespace ragscope::core::labels;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const LabelFileFormat format = data[0] % 3 == 0   ? LabelFileFormat::Jsonl
                                 : data[0] % 3 == 1 ? LabelFileFormat::Csv
                                                    : LabelFileFormat::Qrels;
  const auto path = fuzz::writeScratch("labels.txt", fuzz::bytes(data, size));
  LabelImportOptions options;
  options.annotator = "fuzz";
  options.scope = "scope";
  options.time = "2026-11-27T10:00:00Z";
  const LabelImport in = readLabelsFile(path, format, options);
  if (!in.ok()) {
    fuzz::check(in.labels.empty(), "a failed import kept labels");
    fuzz::check(in.error.rfind(path.string(), 0) == 0, "an import error does not name the file");
    return 0;
  }
  std::set<std::string> seen;
  for (const Label& l : in.labels) {
    fuzz::check(!labelProblem(l), "an imported label fails labelProblem");
    fuzz::check(seen.insert(l.target.key() + "\n" + l.annotator).second,
                "an import kept a target twice for one annotator");
  }
  const LabelExport out = exportLabels(in.labels, LabelFileFormat::Jsonl, {});
  if (in.labels.empty()) return 0;
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
