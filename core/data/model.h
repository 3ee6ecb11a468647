#pragma once
// The data model (core/data/README.md). Ids are always strings; integer ids in files are
// normalised.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/data/bulkmemory.h"
#include "core/data/docindex.h"
#include "core/data/textfile.h"

namespace ragscope::core {

// Where a gold output's evidence lives (KILT provenance, Docugami SOURCE(S) line, BEIR qrels).
struct Provenance {
  std::string docId;  // wikipedia_id, PDF file name, corpus id
  std::string title;
  std::string section;
  int startParagraph = -1;
  int endParagraph = -1;
  // KILT: the evidence's first and last character (code points, 0-based, end exclusive as KILT
  // writes them) within the start and end paragraphs; -1 when not given.
  int startCharacter = -1;
  int endCharacter = -1;
};

struct GoldOutput {
  std::string answer;  // may be empty when the output has only provenance
  bool hasAnswer = false;
  std::vector<Provenance> provenance;
};

struct Query {
  std::string id;
  std::string text;
  std::vector<GoldOutput> gold;
  std::string task;        // "hotpotqa", "Multi-Doc RAG", ...
  std::uint64_t line = 0;  // record's first line in its source file
  // Format-specific facts worth showing (Docugami "Source Docs" glob, chunk type, flags).
  std::vector<std::pair<std::string, std::string>> attributes;
  // A problem with this record that did not stop it from loading (e.g. no SOURCE(S) line).
  std::vector<std::string> flags;

  std::vector<std::string> goldAnswers() const;
  // Distinct provenance doc ids over all gold outputs, in first-seen order.
  std::vector<std::string> goldDocIds() const;
};

struct Document {
  std::string id;
  std::string title;
  std::string text;      // empty when the text was left in its file (`stored`)
  std::string parentId;  // the source document of a chunk (PDF file name); empty otherwise
  int page = 0;          // 1-based PDF page; 0 when not from a paged source
  int chunk = -1;        // chunk index within the page; -1 when not chunked
  // A big corpus leaves each text in its file (LoadOptions::textInFileFrom).
  StoredText stored;
  // A KILT page held in memory whose paragraphs are not its lines (one holds a line break of its
  // own, or the page is one empty paragraph): where each paragraph starts in `text`. Null for
  // every other document, whose paragraphs are its lines. Shared, as documents are copied.
  std::shared_ptr<const std::vector<std::size_t>> paragraphStarts;

  // The text, from `text` or read from its file. A text that can no longer be read (the file
  // changed or went away) comes back as a bracketed sentence saying so, never as "".
  std::string fullText() const;
  // At most the first n bytes of the text (a view's preview reads no more than it shows).
  std::string textPrefix(std::size_t n) const;
  // The text's length in bytes, without reading it (for a text stored as JSON, the length of its
  // JSON form: escapes make that a little more than the text).
  std::size_t textSize() const { return stored.file ? stored.length : text.size(); }
  // Paragraphs: a KILT page's elements of "text" (stored or in memory alike, a paragraph holding
  // line breaks of its own being still one); the lines of any other text. paragraphRange() gives
  // paragraphs first..last (0-based, inclusive) joined by "\n"; nullopt with `error` set when the
  // range is not in the document or the text cannot be read.
  std::size_t paragraphCount() const;
  std::optional<std::string> paragraphRange(std::size_t first, std::size_t last,
                                            std::string& error) const;
};

// The document positions of a corpus: documents held in memory first (in the order added), then
// those of each side-indexed corpus file (addStored), in file order. Documents of an indexed file
// are built on demand from its memory-mapped side index: at(), find() return them by value.
class Corpus {
 public:
  void add(Document doc);
  // Adds `doc` unless its id is already present; returns the position of the document already
  // holding the id (nullopt when added). One hash lookup instead of find() + add() for big
  // corpora.
  std::optional<std::size_t> tryAdd(Document doc);
  // Room for `n` documents held in memory in total (loaders of big collections know roughly how
  // many).
  void reserve(std::size_t n);
  // Adds every document of the corpus file `file` describes through its side index
  // (TextFile::index()). A document whose id is already present stays listed, but find() gives
  // the first.
  void addStored(std::shared_ptr<const TextFile> file);

  std::size_t size() const { return m_docs.size() + m_storedCount; }
  bool empty() const { return size() == 0; }
  // Documents held in memory: positions [0, inMemorySize()).
  std::size_t inMemorySize() const { return m_docs.size(); }
  const Document& inMemory(std::size_t i) const { return m_docs[i]; }
  Document at(std::size_t i) const;
  // Every document in position order, each built when reached: `for (const Document& d :
  // corpus.documents())`. Over an indexed file, that reads nothing but the side index until a
  // text is asked for.
  class Range;
  Range documents() const;
  // Id and title of position i without building the document (a list view's rows).
  std::string_view idAt(std::size_t i) const;
  std::string_view titleAt(std::size_t i) const;
  // nullopt when unknown. The first document with an id wins (duplicates are reported by loaders).
  std::optional<Document> find(std::string_view id) const;
  std::optional<std::size_t> indexOf(std::string_view id) const;
  bool contains(std::string_view id) const { return indexOf(id).has_value(); }
  // Positions of up to `limit` documents whose id (byTitle: title, ASCII letters without case)
  // starts with `prefix`: documents in memory first (in order), then each indexed file's in id or
  // title order.
  std::vector<std::size_t> withPrefix(std::string_view prefix, bool byTitle,
                                      std::size_t limit) const;

 private:
  struct Segment {
    std::shared_ptr<const TextFile> file;
    const DocIndex* index = nullptr;
  };
  // The segment holding stored position p (>= m_docs.size()) and the position within it.
  std::pair<const Segment*, std::size_t> locate(std::size_t p) const;
  Document storedDocument(const Segment& s, std::size_t i) const;
  // Open addressing over document positions (position + 1; 0 = empty), hashed by the document's
  // own id: 8-16 bytes a document where a map of id copies took ~80 (8.8M MS MARCO passages).
  std::size_t slotOf(std::string_view id) const;
  std::optional<std::size_t> memoryIndexOf(std::string_view id) const;
  void grow(std::size_t documents);
  std::vector<Document> m_docs;
  std::vector<std::uint32_t> m_slots;
  std::vector<Segment> m_segments;
  std::size_t m_storedCount = 0;
};

class Corpus::Range {
 public:
  class Iterator {
   public:
    using difference_type = std::ptrdiff_t;
    using value_type = Document;
    Iterator(const Corpus* c, std::size_t i) : m_corpus(c), m_i(i) {}
    Document operator*() const { return m_corpus->at(m_i); }
    Iterator& operator++() {
      ++m_i;
      return *this;
    }
    bool operator==(const Iterator& o) const { return m_i == o.m_i; }

   private:
    const Corpus* m_corpus;
    std::size_t m_i;
  };
  explicit Range(const Corpus& c) : m_corpus(&c) {}
  Iterator begin() const { return {m_corpus, 0}; }
  Iterator end() const { return {m_corpus, m_corpus->size()}; }
  std::size_t size() const { return m_corpus->size(); }
  bool empty() const { return m_corpus->empty(); }
  Document operator[](std::size_t i) const { return m_corpus->at(i); }

 private:
  const Corpus* m_corpus;
};

inline Corpus::Range Corpus::documents() const { return Range(*this); }

struct Judgment {
  std::string docId;
  int rel = 0;
  std::uint64_t line = 0;
};

// query id -> judgments, kept in qid byte order (trec_eval's evaluation order).
struct Qrels {
  std::string source;
  std::map<std::string, std::vector<Judgment>> byQuery;
  // Lines of the file with a grade > 0, repeats and skipped duplicates included: trec_eval's
  // summary num_rel under -c. Unset for formats read otherwise (counted from byQuery then).
  std::optional<std::size_t> positiveLines;
  // A document judged twice for one query in one TREC qrels file. trec_eval stops only when it
  // evaluates that query (form_res_rels: "duplicate docs"), so the reader keeps the first
  // judgment with a warning and the evaluators refuse an evaluated query that has a repeat
  // (core/metrics/README.md, "trec_eval conventions").
  struct Repeat {
    std::string qid, docId;
    std::uint64_t firstLine = 0, line = 0;
    std::string file;
  };
  std::vector<Repeat> repeats;

  std::size_t judgmentCount() const;
  // grade -> number of judgments with that grade.
  std::map<int, std::size_t> gradeCounts() const;
};

// One retrieved document. The docno bytes live in the Run's arena (7M-line runs stay compact).
struct RunEntry {
  const char* doc = nullptr;
  std::uint32_t docLen = 0;
  std::uint32_t line = 0;  // line in the run file, for diagnostics
  double score = 0.0;
  std::string_view docId() const { return {doc, docLen}; }
};

// A run file's entries live in its Run's BulkPool (huge pages, one allocation per ranking);
// rankings built elsewhere use the ordinary heap (a default PoolAllocator).
using RunEntries = std::vector<RunEntry, PoolAllocator<RunEntry>>;

struct Ranking {
  std::string queryId;
  RunEntries entries;  // in file order; evaluators sort by trec_eval's rule
};

// A ranking seen through a view: what a run reader hands over while it reads (see
// streamTrecRun), and how evaluators take a held Ranking too.
struct RankingView {
  std::string_view queryId;
  std::span<const RunEntry> entries;
};
inline RankingView viewOf(const Ranking& r) {
  return {r.queryId, {r.entries.data(), r.entries.size()}};
}

// Append-only storage for docno bytes; pointers stay valid for the arena's life. Blocks grow
// from 64 KiB; big ones are huge-page regions (see bulkmemory.h).
class StringArena {
 public:
  std::string_view store(std::string_view s);
  std::size_t bytes() const { return m_used; }
  // The next block holds at least this many bytes (a parser that knows its input size asks for
  // it once; untouched bytes of a reserved region cost no memory).
  void reserve(std::size_t bytes);
  // Forgets every string stored (their views dangle) but keeps the last block for reuse.
  void recycle();
  // Takes over another arena's blocks (views into them stay valid): lets parser threads fill
  // their own arenas and hand the bytes to one Run without copying.
  void absorb(StringArena&& other);

 private:
  struct Block {
    std::unique_ptr<char[]> heap;
    HugeRegion region;
    char* data() const { return heap ? heap.get() : region.data(); }
  };
  void addBlock(std::size_t size);
  std::vector<Block> m_blocks;
  std::size_t m_blockSize = 0;
  std::size_t m_offset = 0;
  std::size_t m_used = 0;
};

struct Run {
  // Declared first, destroyed last: the rankings' entries and docnos point into these.
  std::shared_ptr<BulkPool> pool = std::make_shared<BulkPool>();
  std::shared_ptr<StringArena> arena = std::make_shared<StringArena>();
  std::string tag;                // run tag column (the first one seen), or the file name
  std::string source;             // file path
  std::vector<Ranking> rankings;  // one per query id, in order of first appearance

  std::size_t entryCount() const;
  const Ranking* find(std::string_view queryId) const;
};

// Generation-side record (generic RAG JSONL, RAGChecker).
struct Example {
  std::string id;
  std::string query;
  std::vector<Document> contexts;
  std::string response;
  std::string reference;
  std::uint64_t line = 0;
};

}  // namespace ragscope::core
