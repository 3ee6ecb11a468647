#pragma once
// Finding documents in a big corpus (a KILT knowledge source of 5.9M pages, MS MARCO's 8.8M
// passages). A substring filter and column sorts there build every document on each keystroke or
// click; what an analyst needs is to get to a page they can name: by the start of its id or title.

#include <cstddef>
#include <string_view>
#include <vector>

#include "core/data/model.h"

namespace ragscope::ui {

// Above this many documents, or with documents behind a side index, the corpus list is not
// filtered or sorted row by row.
constexpr std::size_t kBigCorpusDocuments = 200000;
bool isBigCorpus(const core::Corpus& corpus);

struct PrefixMatches {
  std::vector<std::size_t> positions;  // corpus positions: id matches first, then title matches
  std::size_t byId = 0;                // how many of them matched by id
  bool more = false;                   // more documents match than `limit`
};

// Documents whose id starts with `prefix` (bytes as typed), then those whose title does (ASCII
// letters in any case), each once, at most `limit`. Leading spaces are ignored; trailing ones are
// part of a title prefix ("Paris " is not "Parish") but not of an id prefix. Side-indexed files
// answer with binary searches; documents held in memory are scanned: call it off the GUI thread.
PrefixMatches findByPrefix(const core::Corpus& corpus, std::string_view prefix, std::size_t limit);

}  // namespace ragscope::ui
