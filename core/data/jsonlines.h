#pragma once
// Shared machinery of the JSON loaders (KILT, BEIR, llama-index, generic RAG JSONL, RAGChecker):
// streaming record readers that never hold more than one record in memory, check nesting depth
// before anything recursive sees the input, cap record size at LoadOptions::maxLineBytes, and
// apply the Skip/Stop, progress and cancel rules of LoadOptions in one place.
//
// A loader supplies a callback that turns one parsed record into model objects. The callback
// records its problems in a RecordProblems; if it records any error it must not commit anything
// to the dataset (the reader then skips the record or stops, as the options say).
//
// File-level failures (cannot open, a syntax error that a whole-file JSON document cannot be
// resumed after, nesting beyond maxJsonDepth in such a document) set report.stopped even under
// OnError::Skip, because the load is incomplete and the caller must not treat it as ok().

#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/diagnostic.h"
#include "core/data/jsonfields.h"

namespace ragscope::core {

struct JsonRecordPlace {
  std::uint64_t line = 0;  // first line of the record (1-based)
  std::size_t index = 0;   // 0-based position among the file's records (array index for documents)
};

using JsonRecordFn = std::function<void(nlohmann::json& record, const JsonRecordPlace& place,
                                        RecordProblems& problems)>;

enum class JsonLayout {
  Auto,                 // decide from the first non-space byte and the first record's shape
  Lines,                // one JSON value per line (blank lines ignored)
  ConcatenatedObjects,  // a stream of (pretty-printed) objects, e.g. KILT's guess3_1.json
  TopLevelArray,        // one array whose elements are the records
};

// Reads a JSON-lines file (or, with Auto, a stream of multi-line objects or a top-level array).
LoadReport readJsonRecords(const std::filesystem::path& path, const LoadOptions& options,
                           const JsonRecordFn& fn, JsonLayout layout = JsonLayout::Auto);

// Streams the elements of the array under top-level key `arrayKey` of a whole-file JSON document
// (`{"results": [...], "metrics": {...}}`) without building the document: other keys are parsed
// and discarded. A document whose top level is itself an array is accepted as the list of records.
// Field paths in diagnostics are "<arrayKey>[i].field" and lines are those of each element's start.
LoadReport readJsonArrayElements(const std::filesystem::path& path, const LoadOptions& options,
                                 std::string_view arrayKey, const JsonRecordFn& fn);

// Calls options.progress through an offset so several files report as one load (BEIR folders).
LoadOptions withProgressOffset(const LoadOptions& options, std::uint64_t offset,
                               std::uint64_t total);

// "[json.exception.parse_error.101] parse error at line 1, column 5: x" -> "x (column 5)",
// with lines shifted by firstLine - 1 when the text spanned lines.
std::string describeParseError(const std::string& what, std::uint64_t firstLine, bool singleLine);

}  // namespace ragscope::core
