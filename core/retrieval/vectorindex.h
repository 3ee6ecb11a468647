#pragma once
// A dense retriever's vector index (core/retrieval/README.md, "Dense retrieval"): one FAISS index
// over a corpus's document vectors, labels = corpus positions, kept in a folder with a manifest
// that says what the vectors are (model, dimensions, prefixes, normalisation, corpus stamp). An
// index is only ever opened against the manifest its caller expects: a folder whose manifest,
// files or sizes say anything else is refused (the caller rebuilds), so nothing a foreign folder
// holds is believed. No hand-written ANN: flat (exact), HNSW and IVF-PQ are FAISS's own.
//
//   VectorIndexManifest m = ...;                     // what the caller's settings make
//   auto built = VectorIndex::create(m, &error);     // then add() in corpus order, then save()
//   auto index = VectorIndex::open(dir, m, &why);    // null when the folder is not that index
//   index->search(queries, nq, 10, &scores, &positions);
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ragscope::core {

enum class AnnKind {
  Flat,   // exact inner product over every vector (FAISS IndexFlatIP)
  Hnsw,   // graph search (IndexHNSWFlat, inner product)
  IvfPq,  // inverted lists of product-quantised codes (IndexIVFPQ): corpora too big for float32
};
// "flat", "hnsw", "ivfpq".
const char* annKindName(AnnKind kind);
std::optional<AnnKind> annKindFromName(std::string_view name);
// The kind `--ann` chooses when not given: flat up to kFlatDefaultLimit vectors, HNSW above.
inline constexpr std::size_t kFlatDefaultLimit = 1'000'000;
AnnKind defaultAnnKind(std::size_t vectors);

// Defaults (core/retrieval/README.md, "Vector index"): HNSW M 32, efConstruction 80, efSearch
// 128 (recall@10 >= 0.9 of exact in tst_vectorindex); IVF-PQ as the comments say, nprobe 32.
struct AnnParams {
  int hnswM = 32;               // HNSW: neighbours per node
  int hnswEfConstruction = 80;  // HNSW: candidates while building
  int hnswEfSearch = 128;       // HNSW: candidates while searching (set again on open)
  int ivfLists = 0;             // IVF-PQ: inverted lists; 0: about 4 sqrt(n), at most 65536
  int pqSubquantizers = 0;  // IVF-PQ: codes per vector; 0: the largest divisor of d <= d/4, <= 64
  int pqBits = 8;           // IVF-PQ: bits per code
  int ivfProbe = 32;        // IVF-PQ: lists searched (set again on open)
  bool operator==(const AnnParams&) const = default;
};

// What an index folder holds, written as manifest.json. Two manifests equal in every field
// describe interchangeable indexes; open() refuses any other.
struct VectorIndexManifest {
  int format = 1;
  std::string embedder;  // the embeddings endpoint's identity (base URL without credentials)
  std::string model;
  int dimensions = 0;
  std::string docPrefix;
  std::string queryPrefix;
  bool normalized = true;   // vectors scaled to unit length: inner product = cosine
  std::string corpusStamp;  // corpusFingerprint() of the corpus embedded (xapianindex.h)
  std::size_t documents = 0;
  AnnKind ann = AnnKind::Flat;
  AnnParams params;
  bool operator==(const VectorIndexManifest&) const = default;
};
// IVF-PQ trains on a sample of at most this many bytes of vectors: with 768 dimensions, 43,690.
inline constexpr std::size_t kIvfTrainingBytes = std::size_t{128} << 20;
// The IVF-PQ shape a manifest implies: its params, or the defaults (lists: round(4
// sqrt(documents)) within 1..min(documents, 65536), and at most one list per 39 training
// vectors, FAISS's own rule for k-means, so that every list is trained on enough points;
// subquantizers: the largest divisor of d within 2..min(d/4, 64), else 1).
int ivfListsFor(const VectorIndexManifest& manifest);
int pqSubquantizersFor(const VectorIndexManifest& manifest);
// Vectors the IVF-PQ index is trained on: all documents up to kIvfTrainingBytes of them.
std::size_t ivfTrainingVectorsFor(const VectorIndexManifest& manifest);

// Members: kind "ragscope-vector-index", format, embedder, model, dimensions, doc_prefix,
// query_prefix, normalized, corpus_stamp, documents, ann, params {hnsw_m, hnsw_ef_construction,
// hnsw_ef_search, ivf_lists, pq_subquantizers, pq_bits, ivf_probe}; save() adds index_bytes
// (checked by open) and faiss (the library's version, for people).
nlohmann::json toJson(const VectorIndexManifest& manifest);
// Strict: every field present with its type and within its range, no other member; *error
// names the field ("field \"params.pq_bits\": not within 1..16").
std::optional<VectorIndexManifest> manifestFromJson(const nlohmann::json& json, std::string* error);

// The manifest of the index in `dir`, read strictly (any unknown, missing, mistyped or repeated
// member refuses it), with the index file's size it records; nullopt with *why otherwise.
// VectorIndex::open() reads it so before comparing it with what its caller expects.
std::optional<VectorIndexManifest> readVectorIndexManifest(const std::filesystem::path& dir,
                                                           std::string* why,
                                                           std::uint64_t* indexBytes = nullptr);

class VectorIndex {
 public:
  ~VectorIndex();
  VectorIndex(const VectorIndex&) = delete;
  VectorIndex& operator=(const VectorIndex&) = delete;

  // An empty index of manifest.ann over manifest.dimensions. IVF-PQ must be trained (train())
  // before add().
  static std::unique_ptr<VectorIndex> create(const VectorIndexManifest& manifest,
                                             std::string* error);
  // Opens the index in `dir` only when its manifest.json equals `expected` and its files have the
  // sizes the manifest implies; memory-mapped where FAISS allows it (IVF-PQ's lists). Null with
  // *why ("no index", "model changed", "corpus changed", "dimensions changed (index: 384,
  // expected: 768)", "manifest.json: ...", "index file damaged: ...", "index file holds an hnsw
  // index, the manifest says flat") otherwise. Search settings (hnswEfSearch, ivfProbe) are
  // taken from `expected`, never compared. The index opened is read-only (add/train refuse).
  static std::unique_ptr<VectorIndex> open(const std::filesystem::path& dir,
                                           const VectorIndexManifest& expected, std::string* why);

  bool needsTraining() const;
  // IVF-PQ: trains the coarse quantiser and codebooks on `n` sample vectors (n >= the lists).
  bool train(const float* vectors, std::size_t n, std::string* error);
  // Appends n vectors (n x dimensions floats, row-major); labels continue from size(). Vectors
  // are normalised here when the manifest says so. A NaN or infinite component is refused.
  bool add(const float* vectors, std::size_t n, std::string* error);
  std::size_t size() const;
  int dimensions() const;
  const VectorIndexManifest& manifest() const { return m_manifest; }

  // Writes the index and manifest into `dir` through a temporary folder renamed into place, so a
  // reader never sees half an index; files 0600. size() must equal manifest().documents. An old
  // index in `dir` is swapped out and deleted; any other folder there is refused, so keep other
  // files (an embeddings store) outside `dir`.
  bool save(const std::filesystem::path& dir, std::string* error) const;

  // The k best positions of each of nq queries (nq x dimensions floats; normalised here as the
  // documents were): scores and positions are nq x k, best first; a row with fewer than k hits
  // ends in position -1 (score -infinity). A NaN or infinite query component is refused. Safe to
  // call from several threads at once (never together with add/train).
  bool search(const float* queries, std::size_t nq, std::size_t k, std::vector<float>* scores,
              std::vector<std::int64_t>* positions, std::string* error) const;

 private:
  struct Impl;
  explicit VectorIndex(std::unique_ptr<Impl> impl, VectorIndexManifest manifest);
  std::unique_ptr<Impl> m_impl;
  VectorIndexManifest m_manifest;
};

// Scales each of n rows of `d` floats to unit length (a zero row stays zero).
void normalizeRows(float* vectors, std::size_t n, int d);

}  // namespace ragscope::core
