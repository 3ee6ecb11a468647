#pragma once
// Splitting page text into retrieval chunks, and the chunk id convention `file#page#n` that
// document-level evaluation (core/metrics/README.md, "Document level") undoes with
// documentOfChunk().
//
//   for (auto span : chunkText(pageText, 1500, 200)) {
//     std::string_view piece = pageText.substr(span.begin, span.end - span.begin);
//     ... id = makeChunkId("2022 Q3 AAPL.pdf", page, n++);
//   }

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ragscope::core {

// Byte range [begin, end) of one chunk in the text it was cut from.
struct ChunkSpan {
  std::size_t begin = 0;
  std::size_t end = 0;
};

// Cuts `text` into chunks of at most `maxChars` characters (Unicode code points, never splitting
// a UTF-8 sequence), each starting about `overlapChars` characters before the previous one ended.
// A cut prefers, within the second half of the window, a paragraph break (blank line), then a
// sentence end (. ! ? followed by whitespace), then a line break, then any space; only a run with
// none of these is cut hard. The overlap start is moved forward to a word start. Chunks are
// trimmed of surrounding whitespace; blank ones are dropped. maxChars == 0 means "no chunking":
// the whole (trimmed) text is one chunk. An overlap >= maxChars is reduced to maxChars - 1 (each
// chunk still starts after the previous one).
std::vector<ChunkSpan> chunkText(std::string_view text, std::size_t maxChars,
                                 std::size_t overlapChars);

// Number of code points in a UTF-8 string (continuation bytes are not counted).
std::size_t utf8Length(std::string_view text);

// "2022 Q3 AAPL.pdf", 3, 0 -> "2022 Q3 AAPL.pdf#3#0" (page 1-based, chunk index 0-based).
std::string makeChunkId(std::string_view file, int page, int chunk);

// The document a chunk belongs to: "2022 Q3 AAPL.pdf#3#0" -> "2022 Q3 AAPL.pdf". Only a trailing
// `#<page>#<n>` is removed (so a file name containing '#' survives); an id without that suffix is
// a whole document and comes back unchanged.
std::string documentOfChunk(std::string_view chunkId);

}  // namespace ragscope::core
