#include "core/retrieval/vectorindex.h"

#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIVFPQ.h>
#include <faiss/impl/FaissException.h>
#include <faiss/impl/io.h>
#include <faiss/index_io.h>
#include <faiss/invlists/OnDiskInvertedLists.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "core/retrieval/faissfilecheck.h"
#include "core/util/atomicfile.h"
#include "core/util/inputfile.h"
#include "core/util/jsonstrict.h"

// libgomp's (linked with FAISS); declared here because the fuzz tree's clang has no omp.h.
extern "C" {
int omp_get_max_threads(void);
void omp_set_num_threads(int);
}

namespace ragscope::core {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr const char* kVectorManifestName = "manifest.json";
constexpr const char* kIndexName = "index.faiss";
constexpr const char* kManifestKind = "ragscope-vector-index";
constexpr int kFormat = 1;
constexpr int kMaxDimensions = 65536;
constexpr std::size_t kMaxIvfLists = 65536;
constexpr std::size_t kAddChunk = 16384;  // rows copied (and normalised) per FAISS add

// FAISS's writer onto a stream (the safe writer's temporary file).
struct StreamWriter : faiss::IOWriter {
  explicit StreamWriter(std::ostream& out) : out(out) {}
  size_t operator()(const void* ptr, size_t size, size_t nitems) override {
    if (size == 0 || nitems == 0) return nitems;
    out.write(static_cast<const char*>(ptr), static_cast<std::streamsize>(size * nitems));
    return out ? nitems : 0;
  }
  std::ostream& out;
};

// Names of the manifest members (core/retrieval/README.md, "Dense retrieval").
const char* const kTopMembers[] = {"kind",         "format",     "embedder",     "model",
                                   "dimensions",   "doc_prefix", "query_prefix", "normalized",
                                   "corpus_stamp", "documents",  "ann",          "params"};
// Written by save() beside the above; index_bytes is checked on open, faiss is for people.
const char* const kSaveMembers[] = {"index_bytes", "faiss"};
const char* const kParamMembers[] = {"hnsw_m",    "hnsw_ef_construction", "hnsw_ef_search",
                                     "ivf_lists", "pq_subquantizers",     "pq_bits",
                                     "ivf_probe"};

std::string faissVersion() {
  return std::to_string(FAISS_VERSION_MAJOR) + "." + std::to_string(FAISS_VERSION_MINOR) + "." +
         std::to_string(FAISS_VERSION_PATCH);
}

// FAISS's messages carry its source file and function; the part after "Error: " says what.
std::string faissMessage(const std::exception& e) {
  std::string s = e.what();
  if (const auto at = s.find("Error: "); at != std::string::npos) s = s.substr(at + 7);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

std::optional<std::string> manifestProblem(const VectorIndexManifest& m) {
  const AnnParams& p = m.params;
  if (m.format != kFormat)
    return "format: " + std::to_string(m.format) + " is not a format this ragscope reads";
  if (m.dimensions < 1 || m.dimensions > kMaxDimensions)
    return "dimensions: " + std::to_string(m.dimensions) + " is not within 1.." +
           std::to_string(kMaxDimensions);
  if (m.ann == AnnKind::Hnsw &&
      m.documents >= static_cast<std::size_t>(std::numeric_limits<int>::max()))
    return "documents: HNSW holds fewer than 2^31 vectors";
  if (p.hnswM < 2 || p.hnswM > 512) return "params.hnsw_m: not within 2..512";
  if (p.hnswEfConstruction < 1 || p.hnswEfConstruction > 100000)
    return "params.hnsw_ef_construction: not within 1..100000";
  if (p.hnswEfSearch < 1 || p.hnswEfSearch > 100000)
    return "params.hnsw_ef_search: not within 1..100000";
  if (p.ivfLists < 0 || static_cast<std::size_t>(p.ivfLists) > kMaxIvfLists)
    return "params.ivf_lists: not within 0.." + std::to_string(kMaxIvfLists);
  if (p.pqSubquantizers < 0 || p.pqSubquantizers > m.dimensions)
    return "params.pq_subquantizers: not within 0..dimensions";
  if (p.pqSubquantizers > 0 && m.dimensions % p.pqSubquantizers != 0)
    return "params.pq_subquantizers: " + std::to_string(p.pqSubquantizers) + " does not divide " +
           std::to_string(m.dimensions) + " dimensions";
  if (p.pqBits < 1 || p.pqBits > 16) return "params.pq_bits: not within 1..16";
  if (p.ivfProbe < 1 || p.ivfProbe > static_cast<int>(kMaxIvfLists))
    return "params.ivf_probe: not within 1.." + std::to_string(kMaxIvfLists);
  return std::nullopt;
}

FaissFileExpectation expectationOf(const VectorIndexManifest& m) {
  FaissFileExpectation e;
  e.ann = m.ann;
  e.dimensions = m.dimensions;
  e.vectors = m.documents;
  e.ivfLists = static_cast<std::size_t>(ivfListsFor(m));
  e.pqM = static_cast<std::size_t>(pqSubquantizersFor(m));
  e.pqBits = static_cast<std::size_t>(m.params.pqBits);
  e.hnswM = static_cast<std::size_t>(m.params.hnswM);
  return e;
}

// "vector 17: component 3 is NaN" for the first non-finite component of n rows; `first` is the
// label of the first row.
std::optional<std::string> nonFinite(const float* rows, std::size_t n, int d, std::size_t first,
                                     const char* what) {
  const std::size_t dd = static_cast<std::size_t>(d);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < dd; ++j) {
      const float v = rows[i * dd + j];
      if (!std::isfinite(v))
        return std::string(what) + " " + std::to_string(first + i) + ": component " +
               std::to_string(j) + " is " + (std::isnan(v) ? "NaN" : "infinite");
    }
  return std::nullopt;
}

// A manifest member of the expected JSON type, or a message naming it.
const json* member(const json& obj, const char* name, json::value_t type, const std::string& path,
                   std::string* error) {
  const auto it = obj.find(name);
  const std::string field = path.empty() ? name : path + "." + name;
  if (it == obj.end()) {
    *error = "field \"" + field + "\": missing";
    return nullptr;
  }
  const bool ok = type == json::value_t::number_integer
                      ? it->is_number_integer()
                      : (type == json::value_t::number_unsigned ? it->is_number_unsigned()
                                                                : it->type() == type);
  if (!ok) {
    const char* want = type == json::value_t::string            ? "a string"
                       : type == json::value_t::boolean         ? "true or false"
                       : type == json::value_t::object          ? "an object"
                       : type == json::value_t::number_unsigned ? "a whole number >= 0"
                                                                : "a whole number";
    *error = "field \"" + field + "\": expected " + want;
    return nullptr;
  }
  return &*it;
}

bool intMember(const json& obj, const char* name, const std::string& path, int* out,
               std::string* error) {
  const json* v = member(obj, name, json::value_t::number_integer, path, error);
  if (!v) return false;
  const auto x = v->get<std::int64_t>();
  if (x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max()) {
    *error =
        "field \"" + (path.empty() ? std::string(name) : path + "." + name) + "\": out of range";
    return false;
  }
  *out = static_cast<int>(x);
  return true;
}

bool onlyMembers(const json& obj, std::initializer_list<const char* const*> lists,
                 std::initializer_list<std::size_t> sizes, const std::string& path,
                 std::string* error) {
  for (const auto& [key, value] : obj.items()) {
    bool known = false;
    auto size = sizes.begin();
    for (const char* const* names : lists) {
      for (std::size_t i = 0; i < *size; ++i) known = known || key == names[i];
      ++size;
    }
    if (!known) {
      *error = "field \"" + (path.empty() ? key : path + "." + key) + "\": not a member of " +
               "a vector index manifest";
      return false;
    }
  }
  return true;
}

// fsync of a folder, so a rename into it survives a crash.
void syncFolder(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)::fsync(fd);
  ::close(fd);
}

std::atomic<unsigned> g_saveCounter{0};

// One OpenMP thread for this calling thread's parallel regions while it lives (the setting is
// the calling thread's own; every other thread keeps FAISS's defaults). FAISS's HNSW search
// opens a team of every core even for a single query, which only one thread can work on: the
// others just wait at the barrier, and on a busy machine that wait costs more than the search
// (a one-query search took ~20 ms instead of ~0.1 ms with other jobs on the 2 cores).
class SingleOmpThread {
 public:
  SingleOmpThread() : m_saved(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~SingleOmpThread() { omp_set_num_threads(m_saved); }
  SingleOmpThread(const SingleOmpThread&) = delete;
  SingleOmpThread& operator=(const SingleOmpThread&) = delete;

 private:
  int m_saved;
};

}  // namespace

// ---------------------------------------------------------------------------------------------

const char* annKindName(AnnKind kind) {
  switch (kind) {
    case AnnKind::Flat:
      return "flat";
    case AnnKind::Hnsw:
      return "hnsw";
    case AnnKind::IvfPq:
      return "ivfpq";
  }
  return "flat";
}

std::optional<AnnKind> annKindFromName(std::string_view name) {
  if (name == "flat") return AnnKind::Flat;
  if (name == "hnsw") return AnnKind::Hnsw;
  if (name == "ivfpq") return AnnKind::IvfPq;
  return std::nullopt;
}

AnnKind defaultAnnKind(std::size_t vectors) {
  return vectors <= kFlatDefaultLimit ? AnnKind::Flat : AnnKind::Hnsw;
}

std::size_t ivfTrainingVectorsFor(const VectorIndexManifest& manifest) {
  const std::size_t rowBytes =
      sizeof(float) * static_cast<std::size_t>(std::max(1, manifest.dimensions));
  return std::min(manifest.documents, std::max<std::size_t>(1, kIvfTrainingBytes / rowBytes));
}

int ivfListsFor(const VectorIndexManifest& manifest) {
  if (manifest.params.ivfLists > 0) return manifest.params.ivfLists;
  const double n = static_cast<double>(manifest.documents);
  const auto lists = static_cast<std::size_t>(std::llround(4.0 * std::sqrt(n)));
  constexpr std::size_t kPointsPerList = 39;  // FAISS's k-means asks for 39 points a centroid
  const std::size_t trainable = ivfTrainingVectorsFor(manifest) / kPointsPerList;
  return static_cast<int>(
      std::clamp<std::size_t>(std::min({lists, manifest.documents, trainable}), 1, kMaxIvfLists));
}

int pqSubquantizersFor(const VectorIndexManifest& manifest) {
  if (manifest.params.pqSubquantizers > 0) return manifest.params.pqSubquantizers;
  const int d = manifest.dimensions;
  for (int m = std::min(d / 4, 64); m > 1; --m)
    if (d % m == 0) return m;
  return 1;
}

void normalizeRows(float* vectors, std::size_t n, int d) {
  if (d <= 0) return;
  const std::size_t dd = static_cast<std::size_t>(d);
  for (std::size_t i = 0; i < n; ++i) {
    float* row = vectors + i * dd;
    double sum = 0.0;
    for (std::size_t j = 0; j < dd; ++j) sum += static_cast<double>(row[j]) * row[j];
    if (sum <= 0.0 || !std::isfinite(sum)) continue;  // a zero row stays zero
    const double scale = 1.0 / std::sqrt(sum);
    for (std::size_t j = 0; j < dd; ++j) row[j] = static_cast<float>(row[j] * scale);
  }
}

json toJson(const VectorIndexManifest& m) {
  const AnnParams& p = m.params;
  return json{
      {"kind", kManifestKind},
      {"format", m.format},
      {"embedder", m.embedder},
      {"model", m.model},
      {"dimensions", m.dimensions},
      {"doc_prefix", m.docPrefix},
      {"query_prefix", m.queryPrefix},
      {"normalized", m.normalized},
      {"corpus_stamp", m.corpusStamp},
      {"documents", m.documents},
      {"ann", annKindName(m.ann)},
      {"params",
       {{"hnsw_m", p.hnswM},
        {"hnsw_ef_construction", p.hnswEfConstruction},
        {"hnsw_ef_search", p.hnswEfSearch},
        {"ivf_lists", p.ivfLists},
        {"pq_subquantizers", p.pqSubquantizers},
        {"pq_bits", p.pqBits},
        {"ivf_probe", p.ivfProbe}}},
  };
}

std::optional<VectorIndexManifest> manifestFromJson(const json& j, std::string* error) {
  std::string local;
  std::string* err = error ? error : &local;
  if (!j.is_object()) {
    *err = "not a JSON object";
    return std::nullopt;
  }
  if (!onlyMembers(j, {kTopMembers, kSaveMembers},
                   {std::size(kTopMembers), std::size(kSaveMembers)}, "", err))
    return std::nullopt;
  const json* kind = member(j, "kind", json::value_t::string, "", err);
  if (!kind) return std::nullopt;
  if (kind->get<std::string>() != kManifestKind) {
    *err = "field \"kind\": not a ragscope vector index";
    return std::nullopt;
  }
  VectorIndexManifest m;
  auto str = [&](const char* name, std::string* out) {
    const json* v = member(j, name, json::value_t::string, "", err);
    if (v) *out = v->get<std::string>();
    return v != nullptr;
  };
  if (!intMember(j, "format", "", &m.format, err) || !str("embedder", &m.embedder) ||
      !str("model", &m.model) || !intMember(j, "dimensions", "", &m.dimensions, err) ||
      !str("doc_prefix", &m.docPrefix) || !str("query_prefix", &m.queryPrefix) ||
      !str("corpus_stamp", &m.corpusStamp))
    return std::nullopt;
  const json* normalized = member(j, "normalized", json::value_t::boolean, "", err);
  if (!normalized) return std::nullopt;
  m.normalized = normalized->get<bool>();
  const json* documents = member(j, "documents", json::value_t::number_unsigned, "", err);
  if (!documents) return std::nullopt;
  m.documents = documents->get<std::size_t>();
  std::string annName;
  if (!str("ann", &annName)) return std::nullopt;
  const auto ann = annKindFromName(annName);
  if (!ann) {
    *err = "field \"ann\": not flat, hnsw or ivfpq";
    return std::nullopt;
  }
  m.ann = *ann;
  const json* params = member(j, "params", json::value_t::object, "", err);
  if (!params || !onlyMembers(*params, {kParamMembers}, {std::size(kParamMembers)}, "params", err))
    return std::nullopt;
  AnnParams& p = m.params;
  if (!intMember(*params, "hnsw_m", "params", &p.hnswM, err) ||
      !intMember(*params, "hnsw_ef_construction", "params", &p.hnswEfConstruction, err) ||
      !intMember(*params, "hnsw_ef_search", "params", &p.hnswEfSearch, err) ||
      !intMember(*params, "ivf_lists", "params", &p.ivfLists, err) ||
      !intMember(*params, "pq_subquantizers", "params", &p.pqSubquantizers, err) ||
      !intMember(*params, "pq_bits", "params", &p.pqBits, err) ||
      !intMember(*params, "ivf_probe", "params", &p.ivfProbe, err))
    return std::nullopt;
  if (auto bad = manifestProblem(m)) {  // "FIELD: why" -> field "FIELD": why
    const auto colon = bad->find(':');
    *err = "field \"" + bad->substr(0, colon) + "\"" + bad->substr(colon);
    return std::nullopt;
  }
  return m;
}

// ---------------------------------------------------------------------------------------------

struct VectorIndex::Impl {
  std::unique_ptr<faiss::Index> index;
  bool readOnly = false;  // opened from a folder (IVF lists may be a read-only mapping)
};

VectorIndex::VectorIndex(std::unique_ptr<Impl> impl, VectorIndexManifest manifest)
    : m_impl(std::move(impl)), m_manifest(std::move(manifest)) {}

VectorIndex::~VectorIndex() = default;

std::unique_ptr<VectorIndex> VectorIndex::create(const VectorIndexManifest& manifest,
                                                 std::string* error) {
  if (auto bad = manifestProblem(manifest)) {
    if (error) *error = "vector index: " + *bad;
    return nullptr;
  }
  auto impl = std::make_unique<Impl>();
  const int d = manifest.dimensions;
  const AnnParams& p = manifest.params;
  try {
    switch (manifest.ann) {
      case AnnKind::Flat: {
        // Reserved once: a vector grown by doubling would hold up to twice the index at its peak.
        auto flat = std::make_unique<faiss::IndexFlatIP>(d);
        flat->codes.reserve(manifest.documents * flat->code_size);
        impl->index = std::move(flat);
        break;
      }
      case AnnKind::Hnsw: {
        auto hnsw = std::make_unique<faiss::IndexHNSWFlat>(d, p.hnswM, faiss::METRIC_INNER_PRODUCT);
        if (auto* storage = dynamic_cast<faiss::IndexFlatCodes*>(hnsw->storage))
          storage->codes.reserve(manifest.documents * storage->code_size);
        hnsw->hnsw.efConstruction = p.hnswEfConstruction;
        hnsw->hnsw.efSearch = p.hnswEfSearch;
        impl->index = std::move(hnsw);
        break;
      }
      case AnnKind::IvfPq: {
        auto quantizer = std::make_unique<faiss::IndexFlatIP>(d);
        auto ivf = std::make_unique<faiss::IndexIVFPQ>(
            quantizer.get(), d, static_cast<std::size_t>(ivfListsFor(manifest)),
            static_cast<std::size_t>(pqSubquantizersFor(manifest)),
            static_cast<std::size_t>(p.pqBits), faiss::METRIC_INNER_PRODUCT);
        ivf->own_fields = true;
        quantizer.release();
        // train() refuses fewer points than centroids; FAISS's "please provide at least 39x"
        // warnings would only reach stderr.
        ivf->cp.min_points_per_centroid = 1;
        ivf->pq.cp.min_points_per_centroid = 1;
        ivf->cp.verbose = ivf->pq.cp.verbose = false;
        ivf->nprobe = static_cast<std::size_t>(std::min(p.ivfProbe, ivfListsFor(manifest)));
        impl->index = std::move(ivf);
        break;
      }
    }
  } catch (const std::exception& e) {
    if (error) *error = "vector index: FAISS: " + faissMessage(e);
    return nullptr;
  }
  return std::unique_ptr<VectorIndex>(new VectorIndex(std::move(impl), manifest));
}

bool VectorIndex::needsTraining() const { return !m_impl->index->is_trained; }

std::size_t VectorIndex::size() const { return static_cast<std::size_t>(m_impl->index->ntotal); }

int VectorIndex::dimensions() const { return m_manifest.dimensions; }

bool VectorIndex::train(const float* vectors, std::size_t n, std::string* error) {
  std::string local;
  std::string* err = error ? error : &local;
  if (!needsTraining()) return true;
  if (m_impl->readOnly) {
    *err = "the index was opened from a folder: it is read-only";
    return false;
  }
  const auto* ivf = dynamic_cast<const faiss::IndexIVFPQ*>(m_impl->index.get());
  const std::size_t lists = ivf ? ivf->nlist : 1;
  const std::size_t codes = ivf ? ivf->pq.ksub : 1;
  if (n < lists || n < codes) {
    *err = "IVF-PQ training needs at least " + std::to_string(std::max(lists, codes)) +
           " vectors (" + std::to_string(lists) + " lists, " + std::to_string(codes) +
           " codes per subquantiser), got " + std::to_string(n);
    return false;
  }
  const int d = m_manifest.dimensions;
  if (auto bad = nonFinite(vectors, n, d, 0, "training vector")) {
    *err = *bad;
    return false;
  }
  try {
    std::vector<float> copy(vectors, vectors + n * static_cast<std::size_t>(d));
    if (m_manifest.normalized) normalizeRows(copy.data(), n, d);
    m_impl->index->train(static_cast<faiss::Index::idx_t>(n), copy.data());
  } catch (const std::exception& e) {
    *err = "FAISS: " + faissMessage(e);
    return false;
  }
  return true;
}

bool VectorIndex::add(const float* vectors, std::size_t n, std::string* error) {
  std::string local;
  std::string* err = error ? error : &local;
  if (m_impl->readOnly) {
    *err = "the index was opened from a folder: it is read-only";
    return false;
  }
  if (needsTraining()) {
    *err = "the IVF-PQ index must be trained before vectors are added";
    return false;
  }
  const std::size_t have = size();
  if (n > m_manifest.documents - std::min(have, m_manifest.documents)) {
    *err = "the index holds " + std::to_string(m_manifest.documents) +
           " vectors (its manifest's documents); " + std::to_string(have + n) + " were added";
    return false;
  }
  const int d = m_manifest.dimensions;
  const std::size_t dd = static_cast<std::size_t>(d);
  // Check everything first, so a refused call adds nothing.
  if (auto bad = nonFinite(vectors, n, d, have, "vector")) {
    *err = *bad;
    return false;
  }
  try {
    std::vector<float> chunk;
    for (std::size_t first = 0; first < n; first += kAddChunk) {
      const std::size_t rows = std::min(kAddChunk, n - first);
      chunk.assign(vectors + first * dd, vectors + (first + rows) * dd);
      if (m_manifest.normalized) normalizeRows(chunk.data(), rows, d);
      m_impl->index->add(static_cast<faiss::Index::idx_t>(rows), chunk.data());
    }
  } catch (const std::exception& e) {
    *err = "FAISS: " + faissMessage(e);
    return false;
  }
  return true;
}

bool VectorIndex::search(const float* queries, std::size_t nq, std::size_t k,
                         std::vector<float>* scores, std::vector<std::int64_t>* positions,
                         std::string* error) const {
  std::string local;
  std::string* err = error ? error : &local;
  const int d = m_manifest.dimensions;
  const std::size_t dd = static_cast<std::size_t>(d);
  scores->assign(nq * k, -std::numeric_limits<float>::infinity());
  positions->assign(nq * k, -1);
  if (nq == 0 || k == 0) return true;
  if (auto bad = nonFinite(queries, nq, d, 0, "query")) {
    *err = *bad;
    return false;
  }
  const std::size_t n = size();
  if (n == 0) return true;
  const std::size_t kk = std::min(k, n);  // FAISS's heaps need no room for hits that cannot be
  std::vector<float> q(queries, queries + nq * dd);
  if (m_manifest.normalized) normalizeRows(q.data(), nq, d);
  std::vector<float> distances(nq * kk);
  std::vector<faiss::Index::idx_t> labels(nq * kk);
  try {
    // Per-call parameters: the index itself is never written during a search, so threads may
    // search it at once (FAISS's search methods are const and read-only for these kinds).
    faiss::SearchParametersHNSW hnsw;
    faiss::SearchParametersIVF ivf;
    const faiss::SearchParameters* params = nullptr;
    if (m_manifest.ann == AnnKind::Hnsw) {
      hnsw.efSearch = std::max(m_manifest.params.hnswEfSearch, static_cast<int>(kk));
      params = &hnsw;
    } else if (m_manifest.ann == AnnKind::IvfPq) {
      const auto* index = static_cast<const faiss::IndexIVF*>(m_impl->index.get());
      ivf.nprobe = std::min(static_cast<std::size_t>(m_manifest.params.ivfProbe), index->nlist);
      params = &ivf;
    }
    std::optional<SingleOmpThread> single;
    if (nq == 1) single.emplace();  // flat and IVF start no team for one query; HNSW would
    m_impl->index->search(static_cast<faiss::Index::idx_t>(nq), q.data(),
                          static_cast<faiss::Index::idx_t>(kk), distances.data(), labels.data(),
                          params);
  } catch (const std::exception& e) {
    *err = "FAISS: " + faissMessage(e);
    return false;
  }
  for (std::size_t i = 0; i < nq; ++i)
    for (std::size_t j = 0; j < kk; ++j) {
      const auto label = labels[i * kk + j];
      if (label == -1) continue;  // fewer hits than k
      // IVF lists carry their labels in the file: one outside the corpus is not believed.
      if (label < 0 || static_cast<std::size_t>(label) >= n) {
        *err = "index file damaged: label " + std::to_string(label) + " is not a position of the " +
               std::to_string(n) + " documents";
        return false;
      }
      (*positions)[i * k + j] = label;
      (*scores)[i * k + j] = distances[i * kk + j];
    }
  return true;
}

// ---------------------------------------------------------------------------------------------

bool VectorIndex::save(const fs::path& dir, std::string* error) const {
  std::string local;
  std::string* err = error ? error : &local;
  if (size() != m_manifest.documents) {
    *err = dir.string() + ": the index holds " + std::to_string(size()) + " of the " +
           std::to_string(m_manifest.documents) + " vectors its manifest names";
    return false;
  }
  std::error_code ec;
  // Never replace what is not a vector index ragscope wrote (a symlink, a file, a folder of
  // other things), nor write through a link.
  const auto st = fs::symlink_status(dir, ec);
  const bool exists = fs::exists(st);
  if (exists) {
    if (fs::is_symlink(st)) {
      *err = dir.string() + ": is a symbolic link; choose another index folder";
      return false;
    }
    if (!fs::is_directory(st)) {
      *err = dir.string() + ": exists and is not a folder";
      return false;
    }
    std::string problem;
    const auto text = readBoundedFile(dir / kVectorManifestName, kMaxSmallJsonBytes,
                                      "a vector index manifest", problem);
    const json j = text ? parseJsonStrictOrDiscarded(*text) : json();
    if (!fs::is_empty(dir, ec) &&
        !(j.is_object() && j.value("kind", json()) == json(kManifestKind))) {
      *err = dir.string() + ": exists and is not a ragscope vector index (no " +
             kVectorManifestName + "); choose another index folder";
      return false;
    }
  } else if (dir.has_parent_path()) {
    fs::create_directories(dir.parent_path(), ec);
  }

  const std::string suffix =
      "-" + std::to_string(::getpid()) + "-" + std::to_string(g_saveCounter.fetch_add(1));
  fs::path tmp = dir;
  tmp += ".saving" + suffix;
  fs::remove_all(tmp, ec);  // a leftover of a crashed save under the same pid (links not followed)
  if (::mkdir(tmp.c_str(), 0777) != 0) {
    *err = tmp.string() + ": cannot create folder: " + std::strerror(errno);
    return false;
  }
  auto fail = [&](std::string why) {
    std::error_code e;
    fs::remove_all(tmp, e);
    *err = std::move(why);
    return false;
  };

  // The index goes through the one safe writer (core/util/atomicfile.h) as a stream: FAISS
  // writes to any IOWriter, so no descriptor is opened here.
  const fs::path indexPath = tmp / kIndexName;
  std::string writeError;
  std::string faissError;
  const bool written = writeFileAtomically(
      indexPath,
      [&](std::ostream& out) {
        StreamWriter writer(out);
        try {
          faiss::write_index(m_impl->index.get(), &writer);
        } catch (const std::exception& e) {
          faissError = faissMessage(e);
          return false;
        }
        return static_cast<bool>(out);
      },
      &writeError, true, FileAccess::Private);
  if (!written)
    return fail(faissError.empty() ? writeError
                                   : indexPath.string() + ": cannot write: " + faissError);
  std::error_code sizeError;
  const auto indexBytes = fs::file_size(indexPath, sizeError);
  if (sizeError) return fail(indexPath.string() + ": cannot write: " + sizeError.message());

  json manifest = toJson(m_manifest);
  manifest["index_bytes"] = static_cast<std::uint64_t>(indexBytes);
  manifest["faiss"] = faissVersion();
  if (std::string why; !writeBytesAtomically(tmp / kVectorManifestName, manifest.dump(2) + "\n",
                                             &why, FileAccess::Private))
    return fail(why);
  syncFolder(tmp);

  if (exists) {
    // Swap the folders in one step, so a reader sees the old index or the new one; where the
    // file system cannot swap, the old folder is moved aside first.
    if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, dir.c_str(), RENAME_EXCHANGE) == 0) {
      fs::remove_all(tmp, ec);  // now the old index
    } else {
      fs::path old = dir;
      old += ".old" + suffix;
      fs::remove_all(old, ec);
      if (::rename(dir.c_str(), old.c_str()) != 0)
        return fail(dir.string() + ": cannot replace the old index: " + std::strerror(errno));
      if (::rename(tmp.c_str(), dir.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        (void)::rename(old.c_str(), dir.c_str());
        return fail(dir.string() + ": cannot move the new index into place: " + why);
      }
      fs::remove_all(old, ec);
    }
  } else if (::rename(tmp.c_str(), dir.c_str()) != 0) {
    return fail(dir.string() + ": cannot move the new index into place: " + std::strerror(errno));
  }
  syncFolder(dir.has_parent_path() ? dir.parent_path() : fs::path("."));
  return true;
}

// ---------------------------------------------------------------------------------------------

namespace {

// The first field in which the folder's manifest differs from the caller's, as a reason to
// rebuild; search-time settings (HNSW efSearch, IVF nprobe) are the caller's and never differ.
std::optional<std::string> difference(const VectorIndexManifest& have,
                                      const VectorIndexManifest& want) {
  auto num = [](const char* what, std::size_t a, std::size_t b) {
    return std::string(what) + " changed (index: " + std::to_string(a) +
           ", expected: " + std::to_string(b) + ")";
  };
  if (have.format != want.format) return "index format changed";
  if (have.embedder != want.embedder) return "embedder changed";
  if (have.model != want.model) return "model changed";
  if (have.dimensions != want.dimensions)
    return num("dimensions", static_cast<std::size_t>(have.dimensions),
               static_cast<std::size_t>(want.dimensions));
  if (have.docPrefix != want.docPrefix) return "document prefix changed";
  if (have.queryPrefix != want.queryPrefix) return "query prefix changed";
  if (have.normalized != want.normalized) return "normalisation changed";
  if (have.corpusStamp != want.corpusStamp) return "corpus changed";
  if (have.documents != want.documents)
    return "corpus changed (index: " + std::to_string(have.documents) +
           " documents, expected: " + std::to_string(want.documents) + ")";
  if (have.ann != want.ann)
    return std::string("index kind changed (index: ") + annKindName(have.ann) +
           ", expected: " + annKindName(want.ann) + ")";
  if (want.ann == AnnKind::Hnsw) {
    if (have.params.hnswM != want.params.hnswM)
      return num("HNSW M", static_cast<std::size_t>(have.params.hnswM),
                 static_cast<std::size_t>(want.params.hnswM));
    if (have.params.hnswEfConstruction != want.params.hnswEfConstruction)
      return num("HNSW efConstruction", static_cast<std::size_t>(have.params.hnswEfConstruction),
                 static_cast<std::size_t>(want.params.hnswEfConstruction));
  }
  if (want.ann == AnnKind::IvfPq) {
    if (ivfListsFor(have) != ivfListsFor(want))
      return num("IVF lists", static_cast<std::size_t>(ivfListsFor(have)),
                 static_cast<std::size_t>(ivfListsFor(want)));
    if (pqSubquantizersFor(have) != pqSubquantizersFor(want))
      return num("PQ subquantizers", static_cast<std::size_t>(pqSubquantizersFor(have)),
                 static_cast<std::size_t>(pqSubquantizersFor(want)));
    if (have.params.pqBits != want.params.pqBits)
      return num("PQ bits", static_cast<std::size_t>(have.params.pqBits),
                 static_cast<std::size_t>(want.params.pqBits));
  }
  return std::nullopt;
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

}  // namespace

std::optional<VectorIndexManifest> readVectorIndexManifest(const fs::path& dir, std::string* why,
                                                           std::uint64_t* indexBytes) {
  // Strictly: every member known and typed, none repeated.
  std::error_code ec;
  if (!fs::exists(dir / kVectorManifestName, ec)) {
    *why = "no index (no manifest.json)";
    return std::nullopt;
  }
  std::string problem;
  const auto text = readBoundedFile(dir / kVectorManifestName, kMaxSmallJsonBytes,
                                    "a vector index manifest", problem);
  if (!text) {
    *why = "manifest.json: " + problem;
    return std::nullopt;
  }
  json j;
  if (JsonStrictError strict; !parseJsonStrict(*text, j, &strict)) {
    *why = "manifest.json: " + describeJsonStrictError(strict);
    return std::nullopt;
  }
  std::string field;
  auto have = manifestFromJson(j, &field);
  if (!have) {
    *why = "manifest.json: " + field;
    return std::nullopt;
  }
  const auto bytes = j.find("index_bytes");
  if (bytes == j.end() || !bytes->is_number_unsigned()) {
    *why = "manifest.json: field \"index_bytes\": missing";
    return std::nullopt;
  }
  if (indexBytes) *indexBytes = bytes->get<std::uint64_t>();
  return have;
}

std::unique_ptr<VectorIndex> VectorIndex::open(const fs::path& dir,
                                               const VectorIndexManifest& expected,
                                               std::string* why) {
  std::string local;
  std::string* out = why ? why : &local;
  std::error_code ec;
  const auto st = fs::status(dir, ec);
  if (!fs::exists(st)) {
    *out = "no index";
    return nullptr;
  }
  if (!fs::is_directory(st)) {
    *out = "no index (" + dir.string() + " is not a folder)";
    return nullptr;
  }
  if (auto bad = manifestProblem(expected)) {
    *out = "vector index: " + *bad;
    return nullptr;
  }

  std::uint64_t indexBytes = 0;
  const auto have = readVectorIndexManifest(dir, out, &indexBytes);
  if (!have) return nullptr;
  if (auto changed = difference(*have, expected)) {
    *out = *changed;
    return nullptr;
  }
  std::string problem;

  // The index file: its size, its layout, then FAISS's reading of it, then what FAISS built.
  std::uint64_t size = 0;
  std::unique_ptr<std::FILE, FileCloser> file(openForReading(dir / kIndexName, problem, size));
  if (!file) {
    *out = std::string("index file ") + kIndexName + ": " + problem;
    return nullptr;
  }
  if (size != indexBytes) {
    *out = "index file damaged: " + std::to_string(size) + " bytes, the manifest says " +
           std::to_string(indexBytes);
    return nullptr;
  }
  const FaissFileExpectation e = expectationOf(expected);
  if (auto bad = checkFaissFileLayout(file.get(), size, e)) {
    *out = "index file " + *bad;
    return nullptr;
  }
  if (std::fseek(file.get(), 0, SEEK_SET) != 0) {
    *out = "index file damaged: cannot read it again";
    return nullptr;
  }
  auto impl = std::make_unique<Impl>();
  impl->readOnly = true;
  try {
    // IVF lists are memory-mapped (the one part FAISS 1.7.3 can map); flat vectors and HNSW
    // graphs are read into memory.
    const int flags =
        faiss::IO_FLAG_READ_ONLY | (expected.ann == AnnKind::IvfPq ? faiss::IO_FLAG_MMAP : 0);
    faiss::FileIOReader reader(file.get());
    impl->index.reset(faiss::read_index(&reader, flags));
  } catch (const std::exception& ex) {
    *out = "index file damaged: FAISS: " + faissMessage(ex);
    return nullptr;
  }
  if (!impl->index) {
    *out = "index file damaged: FAISS read nothing";
    return nullptr;
  }
  if (auto bad = checkLoadedIndex(*impl->index, e)) {
    *out = "index file " + *bad;
    return nullptr;
  }
  // Search settings are set once here, before any thread can search.
  if (auto* hnsw = dynamic_cast<faiss::IndexHNSWFlat*>(impl->index.get())) {
    hnsw->hnsw.efSearch = expected.params.hnswEfSearch;
  } else if (auto* ivf = dynamic_cast<faiss::IndexIVFPQ*>(impl->index.get())) {
    ivf->nprobe = std::min(static_cast<std::size_t>(expected.params.ivfProbe), ivf->nlist);
    // The mapped lists would start 32 prefetch threads for every search; the page cache does.
    if (auto* disk = dynamic_cast<faiss::OnDiskInvertedLists*>(ivf->invlists))
      disk->prefetch_nthread = 0;
  }
  return std::unique_ptr<VectorIndex>(new VectorIndex(std::move(impl), expected));
}

}  // namespace ragscope::core
