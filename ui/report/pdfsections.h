#pragma once
// The parts a PDF report may leave out (the title page and the summary tables are always there):
// "settings" (conventions, notes, settings), "charts", "lowest" (lowest-scoring queries),
// "claims" (unsupported claims), "labels" (human labels: counts, agreement, PPI estimates),
// "comparisons", "appendix". Free of Qt, so that ragscope-cli
// checks --sections without loading the PDF writer (ui/report/pdfmodule.h).

#include <string>
#include <vector>

namespace ragscope::ui::report {

inline const std::vector<std::string>& pdfSections() {
  static const std::vector<std::string> sections = {"settings", "charts",      "lowest",  "claims",
                                                    "labels",   "comparisons", "appendix"};
  return sections;
}

}  // namespace ragscope::ui::report
