#pragma once
// Every read through a side index checks the record it reads (core/data/README.md, "Big
// corpora"). A side index's checksums prove that it is whole, not that it is true: one made
// elsewhere, with its checksums recomputed, could swap two documents' offsets and show page 10's
// text under id 1003. So the record at an entry's offset is read whole and read again as the first
// open reads it (corpusrecord.h): it must be one whole line of the file, parse, and give the
// entry's id, title, text place and paragraph starts. Anything else refutes the index
// (DocIndex::refute: refused from then on, removed, rebuilt by the next load) and the read fails
// with a message naming the index, the document and what was found: never another record's text.

#include <cstddef>
#include <optional>
#include <string>

#include "core/data/textfile.h"

namespace ragscope::core {

// The record of document `item` of `file`'s side index (its recordLength bytes), checked as above;
// nullopt with `error` set when the file cannot be read or has changed, or the record is not the
// one the index describes. The last record checked on each thread is kept, so that reading a
// page's paragraphs one by one reads and checks it once (the file's size and time are still
// checked on every call).
std::optional<std::string> readCheckedRecord(const TextFile& file, std::size_t item,
                                             std::string& error);

}  // namespace ragscope::core
