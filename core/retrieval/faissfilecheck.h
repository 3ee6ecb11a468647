#pragma once
// Checks of a FAISS index file from an index folder (vectorindex.h), which is untrusted input
// (core/retrieval/README.md, "Dense retrieval"). FAISS's reader believes the file: it sizes its
// vectors by the lengths the file states before reading them (a forged length of 2^39 is an
// allocation of terabytes, which ASan turns into an abort) and never checks that an HNSW
// neighbour, a graph level or an inverted list stays within its arrays, so a foreign file could
// make a search read out of bounds. So a file goes through two checks around faiss::read_index:
//
//   checkFaissFileLayout()  before: walks the exact layout FAISS 1.7.3's write_index gives the
//                           three kinds ragscope writes, bounding every stated length by the bytes
//                           left in the file and comparing the header with the manifest;
//   checkLoadedIndex()      after: the C++ type, metric, sizes and every graph link / list
//                           offset of what FAISS built, so a search stays in bounds.
//
// Both return nullopt when the file is fine, else what is wrong, to follow "index file ":
// "holds an hnsw index, the manifest says flat" for a whole index of another kind, otherwise
// "damaged: ..." ("damaged: ends early in the HNSW levels", "damaged: the index holds 99
// vectors, expected 100").

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "core/retrieval/vectorindex.h"

namespace faiss {
struct Index;
}

namespace ragscope::core {

struct FaissFileExpectation {
  AnnKind ann = AnnKind::Flat;
  int dimensions = 0;
  std::size_t vectors = 0;   // ntotal
  std::size_t ivfLists = 0;  // IVF-PQ only: nlist
  std::size_t pqM = 0;       // IVF-PQ only: subquantizers
  std::size_t pqBits = 0;    // IVF-PQ only: bits per code
  std::size_t hnswM = 0;     // HNSW only: neighbours per node above level 0
};

// Reads `file` (of `size` bytes) from its current position to its end.
std::optional<std::string> checkFaissFileLayout(std::FILE* file, std::uint64_t size,
                                                const FaissFileExpectation& expected);

// The index faiss::read_index made of a file that passed checkFaissFileLayout().
std::optional<std::string> checkLoadedIndex(const faiss::Index& index,
                                            const FaissFileExpectation& expected);

}  // namespace ragscope::core
