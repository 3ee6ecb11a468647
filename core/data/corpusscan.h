#pragma once
// The first open of a big JSON-lines corpus (core/data/README.md, "Big corpora"): the file is cut
// into pieces read on every core; each record is checked by RecordScanner and its id, title and
// text place noted, without building a JSON document. Problems are reported as the in-memory
// loaders report them (file, line, field), under the same Skip/Stop and error-count rules.

#include <filesystem>

#include "core/data/diagnostic.h"
#include "core/data/docindex.h"

namespace ragscope::core {

struct CorpusScan {
  DocIndexContent content;  // documents in file order, duplicates left out
  LoadReport report;        // what the in-memory loader would have reported
  bool failed = false;      // the file could not be read through (open, read error, changed)
};

// Reads `path` (already checked to be a regular file) as `layout`. report.cancelled when
// options.progress returned false; report.stopped when the Stop policy or too many errors ended
// the read (content then holds the documents before that point).
CorpusScan scanCorpusFile(const std::filesystem::path& path, CorpusLayout layout,
                          const LoadOptions& options);

}  // namespace ragscope::core
