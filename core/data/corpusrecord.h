#pragma once
// One record of a big JSON-lines corpus, read as the first open reads it (core/data/README.md,
// "Big corpora"): checked by RecordScanner, its id, title and text placed without building a JSON
// document, its problems worded as the in-memory loaders word them. The scan (corpusscan.h) reads
// every line with it; every read through a side index reads the record at an entry's offset with
// it again (recordcheck.h), so that the two cannot disagree about what a record says.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/diagnostic.h"
#include "core/data/docindex.h"
#include "core/data/jsonfields.h"
#include "core/data/jsonscan.h"

namespace ragscope::core {

// Where a record's reading goes: appended to these (the scan's per-piece tables).
struct RecordSink {
  std::vector<DocIndexEntry>& entries;
  std::vector<std::uint32_t>& paragraphs;  // from the text value's start
  std::string& strings;                    // id bytes, then title bytes
  std::vector<Diagnostic>& diagnostics;
};

class CorpusRecordReader {
 public:
  CorpusRecordReader(CorpusLayout layout, int maxJsonDepth, std::string file);

  // `record`: one line without its surrounding blanks, starting at byte `offset` of the file, on
  // line `line`. A record without errors appends one entry (its id and title to out.strings, its
  // paragraph starts to out.paragraphs); its problems go to out.diagnostics either way.
  void read(std::string_view record, std::uint64_t offset, std::uint64_t line, RecordSink out);

 private:
  bool appendField(std::string_view record, const ScannedValue& v, std::string_view key, bool isId,
                   bool required, std::string& strings, std::uint32_t& length,
                   RecordProblems& problems);
  void kiltPage(std::string_view record, DocIndexEntry& e, RecordSink& out,
                RecordProblems& problems);
  void jsonlDocument(std::string_view record, DocIndexEntry& e, RecordSink& out,
                     RecordProblems& problems);
  void describeInvalid(std::string_view record, RecordProblems& problems) const;

  CorpusLayout m_layout;
  int m_maxJsonDepth;
  std::string m_file;
  RecordScanner m_scanner;
};

}  // namespace ragscope::core
