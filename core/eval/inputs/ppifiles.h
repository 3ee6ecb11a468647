#pragma once
// The two CSV files of `ragscope-cli ppi` (core/eval/inputs/README.md, "Human labels and PPI"):
// predictions (the judge's value of every item) and labels (the human value of some), each a CSV
// with a header naming the columns `id` and `value`. Every id of the labels must be an id of the
// predictions; an id twice in one file, an empty id or a value that is not a finite number is an
// error naming the file, the line and the field. Nothing is dropped silently.
//
//   PpiFiles f = readPpiFiles("judge.csv", "human.csv");
//   if (!f.ok()) print(f.error);   // "human.csv:7: id: \"q9\" is also on line 3"
//   stats::PpiResult r = stats::ppiMean(f.input, {});

#include <filesystem>
#include <string>
#include <vector>

#include "core/stats/ppi.h"

namespace ragscope::core::eval {

struct PpiFiles {
  std::string error;  // non-empty: nothing read
  stats::PpiInput input;
  std::vector<std::string> labelledIds, unlabelledIds;  // the order of input's vectors
  bool ok() const { return error.empty(); }
};

PpiFiles readPpiFiles(const std::filesystem::path& predictions,
                      const std::filesystem::path& labels);

}  // namespace ragscope::core::eval
