#pragma once
// The first open of a big JSON-lines corpus (core/data/README.md, "Big corpora"): the file is cut
// into pieces read on every core; each record is checked (corpusrecord.h) and its id, title and
// text place noted, without building a JSON document. Problems are reported as the in-memory
// loaders report them (file, line, field). What the scan finds does not depend on how a caller
// treats bad records: it skips them all (up to the error cap) and notes where the first one
// stopped a reader that stops at the first error, so that one side index serves both policies.

#include <filesystem>
#include <optional>

#include "core/data/diagnostic.h"
#include "core/data/docindex.h"

namespace ragscope::core {

struct CorpusScan {
  DocIndexContent content;  // documents in file order, bad records and duplicates left out
  LoadReport report;        // what the in-memory loader reports under OnError::Skip
  // The report as it stood just after the first error (a Stop reader ends there), and how many
  // documents came before it; none when the file has no bad record.
  struct FirstError {
    std::uint64_t diagnostics = 0;  // stored diagnostics up to and with it
    std::uint64_t records = 0, warnings = 0, errors = 0, unstored = 0;
    std::uint64_t documents = 0;
  };
  std::optional<FirstError> firstError;
  bool failed = false;  // the file could not be read through (open, read error, changed)
};

// Reads `path` (already checked to be a regular file) as `layout`, whatever options.onError says
// (above). report.cancelled when options.progress returned false; report.stopped when too many
// errors ended the read (content then holds the documents before that point).
CorpusScan scanCorpusFile(const std::filesystem::path& path, CorpusLayout layout,
                          const LoadOptions& options);

}  // namespace ragscope::core
