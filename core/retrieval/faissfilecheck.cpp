#include "core/retrieval/faissfilecheck.h"

#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIVFPQ.h>
#include <faiss/invlists/InvertedLists.h>
#include <faiss/invlists/OnDiskInvertedLists.h>

#include <cstring>
#include <limits>
#include <typeinfo>
#include <vector>

namespace ragscope::core {

namespace {

// FAISS's four-character codes (index_io.h's fourcc: the first character in the lowest byte).
constexpr std::uint32_t fourcc(const char (&s)[5]) {
  return static_cast<std::uint32_t>(static_cast<unsigned char>(s[0])) |
         static_cast<std::uint32_t>(static_cast<unsigned char>(s[1])) << 8 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(s[2])) << 16 |
         static_cast<std::uint32_t>(static_cast<unsigned char>(s[3])) << 24;
}

// The kind a top-level code names, for "holds an X index" (nullptr: none ragscope writes).
const char* kindOfCode(std::uint32_t code) {
  if (code == fourcc("IxFI")) return annKindName(AnnKind::Flat);
  if (code == fourcc("IHNf")) return annKindName(AnnKind::Hnsw);
  if (code == fourcc("IwPQ") || code == fourcc("IvPQ")) return annKindName(AnnKind::IvfPq);
  return nullptr;
}

// A failed check, carried out of the walk.
struct Bad {
  std::string why;
  bool otherKind = false;  // a whole index of another kind, not a damaged one
};

// Sequential reads bounded by the bytes left in the file: every length FAISS will believe is
// compared with what is left before anything of that length is read or skipped.
class Walker {
 public:
  Walker(std::FILE* f, std::uint64_t size) : m_f(f), m_left(size) {}

  template <typename T>
  T read(const char* what) {
    T v{};
    need(sizeof v, what);
    if (std::fread(&v, sizeof v, 1, m_f) != 1) throw Bad{std::string("cannot read ") + what};
    m_left -= sizeof v;
    return v;
  }
  // A FAISS vector: its element count (size_t), then the elements; returns the count.
  std::uint64_t vectorCount(std::size_t elementBytes, const char* what) {
    const auto n = read<std::uint64_t>(what);
    if (n > m_left / elementBytes) throw Bad{std::string("ends early in ") + what};
    return n;
  }
  void skip(std::uint64_t bytes, const char* what) {
    need(bytes, what);
    while (bytes > 0) {
      const long step = static_cast<long>(std::min<std::uint64_t>(bytes, 1u << 30));
      if (std::fseek(m_f, step, SEEK_CUR) != 0) throw Bad{std::string("cannot read ") + what};
      bytes -= static_cast<std::uint64_t>(step);
      m_left -= static_cast<std::uint64_t>(step);
    }
  }
  template <typename T>
  std::vector<T> readArray(std::uint64_t n, const char* what) {
    need(n * sizeof(T), what);  // n was bounded by vectorCount
    std::vector<T> out(n);
    if (n > 0 && std::fread(out.data(), sizeof(T), n, m_f) != n)
      throw Bad{std::string("cannot read ") + what};
    m_left -= n * sizeof(T);
    return out;
  }
  std::uint64_t left() const { return m_left; }

 private:
  void need(std::uint64_t bytes, const char* what) const {
    if (bytes > m_left) throw Bad{std::string("ends early in ") + what};
  }
  std::FILE* m_f;
  std::uint64_t m_left;
};

std::string count(std::uint64_t n) { return std::to_string(n); }

// faiss write_index_header: d, ntotal, two unused idx_t, is_trained, metric (+ its argument).
void header(Walker& w, int d, std::uint64_t ntotal, const char* what, bool trained) {
  const auto dims = w.read<std::int32_t>("the header");
  const auto n = w.read<std::int64_t>("the header");
  w.read<std::int64_t>("the header");
  w.read<std::int64_t>("the header");
  const auto isTrained = w.read<std::uint8_t>("the header");
  const auto metric = w.read<std::int32_t>("the header");
  if (metric != faiss::METRIC_INNER_PRODUCT)
    throw Bad{std::string(what) + " does not rank by inner product (metric " +
              std::to_string(metric) + ")"};
  if (dims != d)
    throw Bad{std::string(what) + " has " + std::to_string(dims) +
              " dimensions, the manifest says " + std::to_string(d)};
  if (n < 0 || static_cast<std::uint64_t>(n) != ntotal)
    throw Bad{std::string(what) + " holds " + std::to_string(n) + " vectors, expected " +
              count(ntotal)};
  if (isTrained != (trained ? 1 : 0)) throw Bad{std::string(what) + " is not trained"};
}

void flatBody(Walker& w, int d, std::uint64_t ntotal, const char* what) {
  header(w, d, ntotal, what, true);
  const std::uint64_t floats = w.vectorCount(4, "the vectors");
  if (floats != ntotal * static_cast<std::uint64_t>(d))
    throw Bad{std::string(what) + " stores " + count(floats) + " floats for " + count(ntotal) +
              " vectors"};
  w.skip(floats * 4, "the vectors");
}

void code(Walker& w, std::uint32_t want, AnnKind manifestKind) {
  const auto c = w.read<std::uint32_t>("the index type");
  if (c == want) return;
  if (const char* kind = kindOfCode(c))
    throw Bad{std::string("holds ") + (kind == std::string("flat") ? "a " : "an ") + kind +
                  " index, the manifest says " + annKindName(manifestKind),
              true};
  throw Bad{"not a FAISS index of a kind ragscope writes"};
}

void walk(Walker& w, const FaissFileExpectation& e) {
  const std::uint64_t n = e.vectors;
  switch (e.ann) {
    case AnnKind::Flat:
      code(w, fourcc("IxFI"), e.ann);
      flatBody(w, e.dimensions, n, "the index");
      break;
    case AnnKind::Hnsw: {
      code(w, fourcc("IHNf"), e.ann);
      header(w, e.dimensions, n, "the index", true);
      w.skip(w.vectorCount(8, "the HNSW level probabilities") * 8, "the HNSW level probabilities");
      w.skip(w.vectorCount(4, "the HNSW neighbour counts") * 4, "the HNSW neighbour counts");
      const auto levels = w.vectorCount(4, "the HNSW levels");
      if (levels != n) throw Bad{"the HNSW graph has levels for " + count(levels) + " vectors"};
      w.skip(levels * 4, "the HNSW levels");
      const auto offsets = w.vectorCount(8, "the HNSW offsets");
      if (offsets != n + 1) throw Bad{"the HNSW graph has " + count(offsets) + " offsets"};
      w.skip(offsets * 8, "the HNSW offsets");
      w.skip(w.vectorCount(4, "the HNSW links") * 4, "the HNSW links");
      w.skip(5 * 4, "the HNSW settings");  // entry point, max level, efConstruction/Search, beam
      code(w, fourcc("IxFI"), e.ann);
      flatBody(w, e.dimensions, n, "the HNSW storage");
      break;
    }
    case AnnKind::IvfPq: {
      code(w, fourcc("IwPQ"), e.ann);
      header(w, e.dimensions, n, "the index", true);
      const auto nlist = w.read<std::uint64_t>("the IVF header");
      w.read<std::uint64_t>("the IVF header");  // nprobe: ragscope sets its own
      if (nlist != e.ivfLists)
        throw Bad{"the index has " + count(nlist) + " lists, the manifest implies " +
                  count(e.ivfLists)};
      code(w, fourcc("IxFI"), e.ann);
      flatBody(w, e.dimensions, nlist, "the IVF quantiser");
      if (w.read<std::uint8_t>("the direct map") != 0) throw Bad{"the index keeps a direct map"};
      if (w.vectorCount(8, "the direct map") != 0) throw Bad{"the index keeps a direct map"};
      if (w.read<std::uint8_t>("the IVF-PQ header") != 1)
        throw Bad{"the index does not encode residuals"};
      const std::uint64_t codeSize = (e.pqM * e.pqBits + 7) / 8;
      if (w.read<std::uint64_t>("the IVF-PQ header") != codeSize)
        throw Bad{"the index's code size is not " + count(codeSize) + " bytes"};
      const auto pqD = w.read<std::uint64_t>("the product quantiser");
      const auto pqM = w.read<std::uint64_t>("the product quantiser");
      const auto pqBits = w.read<std::uint64_t>("the product quantiser");
      if (pqD != static_cast<std::uint64_t>(e.dimensions) || pqM != e.pqM || pqBits != e.pqBits)
        throw Bad{"the product quantiser is " + count(pqM) + "x" + count(pqBits) + " bits over " +
                  count(pqD) + " dimensions, the manifest implies " + count(e.pqM) + "x" +
                  count(e.pqBits) + " over " + std::to_string(e.dimensions)};
      const auto centroids = w.vectorCount(4, "the product quantiser");
      if (centroids != static_cast<std::uint64_t>(e.dimensions) << e.pqBits)
        throw Bad{"the product quantiser has " + count(centroids) + " centroid floats"};
      w.skip(centroids * 4, "the product quantiser");
      if (w.read<std::uint32_t>("the inverted lists") != fourcc("ilar"))
        throw Bad{"the inverted lists are not stored in the file"};
      if (w.read<std::uint64_t>("the inverted lists") != nlist ||
          w.read<std::uint64_t>("the inverted lists") != codeSize)
        throw Bad{"the inverted lists do not match the index"};
      std::vector<std::uint64_t> sizes(nlist, 0);
      const auto type = w.read<std::uint32_t>("the inverted lists");
      if (type == fourcc("full")) {
        if (w.vectorCount(8, "the list sizes") != nlist)
          throw Bad{"the inverted lists have sizes for another number of lists"};
        sizes = w.readArray<std::uint64_t>(nlist, "the list sizes");
      } else if (type == fourcc("sprs")) {
        const auto pairs = w.vectorCount(8, "the list sizes");
        if (pairs % 2 != 0 || pairs > 2 * nlist) throw Bad{"the list sizes are malformed"};
        const auto v = w.readArray<std::uint64_t>(pairs, "the list sizes");
        for (std::size_t j = 0; j < v.size(); j += 2) {
          if (v[j] >= nlist) throw Bad{"a list size names list " + count(v[j])};
          sizes[v[j]] = v[j + 1];
        }
      } else {
        throw Bad{"the inverted lists are of an unknown layout"};
      }
      const std::uint64_t entryBytes = codeSize + 8;
      std::uint64_t total = 0;
      for (const auto s : sizes) {
        if (s > w.left() / entryBytes || total > n) throw Bad{"ends early in the inverted lists"};
        total += s;
      }
      if (total != n)
        throw Bad{"the inverted lists hold " + count(total) + " vectors, the manifest says " +
                  count(n)};
      w.skip(total * entryBytes, "the inverted lists");
      break;
    }
  }
  if (w.left() != 0) throw Bad{count(w.left()) + " bytes follow the index"};
}

// Every link of the graph stays within the vectors, on a level both ends have, and each node's
// slice of the link array is where FAISS will look for it: what HNSW::search indexes blindly.
std::optional<std::string> checkHnsw(const faiss::IndexHNSW& index, const FaissFileExpectation& e) {
  const faiss::HNSW& h = index.hnsw;
  const std::size_t n = e.vectors;
  const auto& cum = h.cum_nneighbor_per_level;
  if (cum.size() < 2 || cum.size() > 64 || cum[0] != 0)
    return "the HNSW graph has malformed neighbour counts";
  for (std::size_t l = 1; l < cum.size(); ++l) {
    const int per = cum[l] - cum[l - 1];
    if (per != static_cast<int>(l == 1 ? 2 * e.hnswM : e.hnswM))
      return "the HNSW graph was not built with M = " + std::to_string(e.hnswM);
  }
  const int maxLevels = static_cast<int>(cum.size()) - 1;
  if (h.levels.size() != n || h.offsets.size() != n + 1 || h.offsets[0] != 0)
    return "the HNSW graph does not cover the vectors";
  int top = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int lv = h.levels[i];
    if (lv < 1 || lv > maxLevels) return "the HNSW graph puts vector " + count(i) + " on no level";
    if (h.offsets[i + 1] < h.offsets[i] ||
        h.offsets[i + 1] - h.offsets[i] != static_cast<std::size_t>(cum[lv]))
      return "the HNSW graph's link offsets are inconsistent at vector " + count(i);
    top = std::max(top, lv);
  }
  if (h.neighbors.size() != h.offsets[n]) return "the HNSW link array has the wrong size";
  for (std::size_t i = 0; i < n; ++i) {
    for (int l = 0; l < h.levels[i]; ++l) {
      for (std::size_t j = h.offsets[i] + cum[l]; j < h.offsets[i] + cum[l + 1]; ++j) {
        const int to = h.neighbors[j];
        if (to == -1) continue;
        if (to < 0 || static_cast<std::size_t>(to) >= n || h.levels[to] <= l)
          return "the HNSW graph links vector " + count(i) + " to a vector it cannot reach";
      }
    }
  }
  if (n == 0) {
    if (h.entry_point != -1) return "the empty HNSW graph has an entry point";
    return std::nullopt;
  }
  if (h.entry_point < 0 || static_cast<std::size_t>(h.entry_point) >= n || h.max_level != top - 1 ||
      h.levels[h.entry_point] != top)
    return "the HNSW graph's entry point is not on its top level";
  if (h.upper_beam != 1) return "the HNSW graph has an unexpected search beam";
  return std::nullopt;
}

std::optional<std::string> checkFlat(const faiss::Index* index, int d, std::size_t n,
                                     const char* what) {
  const auto* flat = dynamic_cast<const faiss::IndexFlat*>(index);
  if (!flat || flat->metric_type != faiss::METRIC_INNER_PRODUCT || flat->d != d ||
      flat->ntotal != static_cast<faiss::Index::idx_t>(n) ||
      flat->codes.size() != n * static_cast<std::size_t>(d) * sizeof(float))
    return std::string(what) + " is not the flat inner-product index expected";
  return std::nullopt;
}

std::optional<std::string> checkIvfPq(const faiss::IndexIVFPQ& index,
                                      const FaissFileExpectation& e) {
  if (!index.quantizer || typeid(*index.quantizer) != typeid(faiss::IndexFlatIP))
    return "the IVF quantiser is not a flat inner-product index";
  if (auto bad = checkFlat(index.quantizer, e.dimensions, e.ivfLists, "the IVF quantiser"))
    return bad;
  const std::size_t codeSize = (e.pqM * e.pqBits + 7) / 8;
  if (index.nlist != e.ivfLists || !index.by_residual || index.code_size != codeSize ||
      index.pq.d != static_cast<std::size_t>(e.dimensions) || index.pq.M != e.pqM ||
      index.pq.nbits != e.pqBits || index.pq.code_size != codeSize ||
      index.pq.centroids.size() != static_cast<std::size_t>(e.dimensions) << e.pqBits ||
      index.direct_map.type != faiss::DirectMap::NoMap)
    return "the IVF-PQ parameters differ from the manifest's";
  const faiss::InvertedLists* lists = index.invlists;
  if (!lists || lists->nlist != e.ivfLists || lists->code_size != codeSize)
    return "the inverted lists do not match the index";
  std::size_t total = 0;
  for (std::size_t l = 0; l < lists->nlist; ++l) total += lists->list_size(l);
  if (total != e.vectors) return "the inverted lists do not hold every vector";
  // Memory-mapped lists (IO_FLAG_MMAP): each list's codes and ids lie inside the mapping.
  if (const auto* disk = dynamic_cast<const faiss::OnDiskInvertedLists*>(lists)) {
    for (const auto& l : disk->lists) {
      const std::size_t bytes = l.size * (codeSize + sizeof(faiss::Index::idx_t));
      if (l.size > 0 && (l.offset > disk->totsize || bytes > disk->totsize - l.offset))
        return "an inverted list lies outside the file";
    }
  } else if (!dynamic_cast<const faiss::ArrayInvertedLists*>(lists)) {
    return "the inverted lists are of an unknown kind";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> checkFaissFileLayout(std::FILE* file, std::uint64_t size,
                                                const FaissFileExpectation& expected) {
  try {
    Walker w(file, size);
    walk(w, expected);
    return std::nullopt;
  } catch (const Bad& bad) {
    return bad.otherKind ? bad.why : "damaged: " + bad.why;
  } catch (const std::exception& ex) {  // bad_alloc of a list-size table (bounded by the file)
    return std::string("damaged: ") + ex.what();
  }
}

namespace {

std::optional<std::string> loadedProblem(const faiss::Index& index, const FaissFileExpectation& e) {
  if (index.d != e.dimensions || index.ntotal != static_cast<faiss::Index::idx_t>(e.vectors) ||
      index.metric_type != faiss::METRIC_INNER_PRODUCT || !index.is_trained)
    return "the index read differs from its header";
  switch (e.ann) {
    case AnnKind::Flat:
      if (typeid(index) != typeid(faiss::IndexFlatIP))
        return "the index read is not a flat inner-product index";
      return checkFlat(&index, e.dimensions, e.vectors, "the index");
    case AnnKind::Hnsw: {
      if (typeid(index) != typeid(faiss::IndexHNSWFlat))
        return "the index read is not an HNSW index";
      const auto& hnsw = static_cast<const faiss::IndexHNSWFlat&>(index);
      if (!hnsw.storage) return "the HNSW index has no vectors";
      if (auto bad = checkFlat(hnsw.storage, e.dimensions, e.vectors, "the HNSW storage"))
        return bad;
      return checkHnsw(hnsw, e);
    }
    case AnnKind::IvfPq:
      if (typeid(index) != typeid(faiss::IndexIVFPQ))
        return "the index read is not an IVF-PQ index";
      return checkIvfPq(static_cast<const faiss::IndexIVFPQ&>(index), e);
  }
  return "unknown index kind";
}

}  // namespace

std::optional<std::string> checkLoadedIndex(const faiss::Index& index,
                                            const FaissFileExpectation& expected) {
  if (auto bad = loadedProblem(index, expected)) return "damaged: " + *bad;
  return std::nullopt;
}

}  // namespace ragscope::core
