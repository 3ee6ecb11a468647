#include "core/retrieval/retrieverspec.h"

#include <cmath>
#include <sstream>
#include <stop_token>

#include "core/eval/engine/runengine.h"
#include "core/llm/offline.h"
#include "core/llm/responsecache.h"
#include "core/retrieval/denseretriever.h"
#include "core/retrieval/esopen.h"
#include "core/retrieval/esretriever.h"
#include "core/retrieval/httpretriever.h"
#include "core/retrieval/hybridretriever.h"
#include "core/retrieval/indexdir.h"
#include "core/retrieval/requesttemplate.h"
#include "core/util/httpsafety.h"
#include "core/util/sha256.h"
#include "core/util/textescape.h"
#include "core/util/urlredact.h"

namespace ragscope::core {

namespace {

using Kind = RetrieverSpec::Kind;

// Bounds of what a spec may ask for. A project file is input from elsewhere: a hybrid nested
// without end, or a thousand members, would be a way to exhaust the stack or the machine.
constexpr int kMaxHybridNesting = 4;  // hybrid levels, the outermost included
constexpr std::size_t kMaxHybridMembers = 16;
constexpr std::size_t kMaxEmbedBatch = 4096;  // inputs per embeddings request
constexpr std::size_t kMaxNumCandidates = kEsMaxKnn;
constexpr long kMaxTimeoutMs = 3'600'000;

constexpr const char* kOffline = "offline";

// The problem with a URL a retriever calls ("" when it may be called): http or https only, so a
// file:// or gopher:// URL is refused where it is configured, before any request
// (core/util/httpsafety.h); embeddings endpoints may also be "offline" (the hashed bag of words).
std::string urlProblem(const std::string& what, const std::string& url, bool offlineOk) {
  if (offlineOk && url == kOffline) return {};
  const auto problem = httpUrlProblem(url);
  return problem ? what + " retriever: " + *problem : std::string();
}

std::string memberLabel(const RetrieverSpec& member, std::size_t i) {
  return "member " + std::to_string(i + 1) + " (" +
         (member.name.empty() ? std::string(retrieverKindName(member.kind)) : member.name) + ")";
}

// Why `spec` cannot be opened ("" when it can), for specs from any source: the parsers below
// check the same, field by field, and openRetriever checks specs the workbench builds itself.
std::string specProblem(const RetrieverSpec& spec, int nesting) {
  switch (spec.kind) {
    case Kind::Bm25:
      return {};
    case Kind::Elasticsearch:
    case Kind::Http: {
      std::string p = urlProblem(retrieverKindName(spec.kind), spec.url, false);
      if (p.empty() && !spec.embedUrl.empty())
        p = urlProblem("es kNN embedder of the es", spec.embedUrl, true);
      if (p.empty() && !spec.esKnnField.empty() && spec.embedUrl.empty())
        p = "es retriever: a kNN search (es_knn_field) needs an embeddings endpoint (embed_url)";
      return p;
    }
    case Kind::Dense:
      if (auto p = urlProblem("dense", spec.url, true); !p.empty()) return p;
      if (spec.url != kOffline && spec.embedModel.empty())
        return "dense retriever: no embedding model (the model the endpoint serves: "
               "--embed-model, embed_model)";
      if (spec.embedBatch < 1 || spec.embedBatch > kMaxEmbedBatch)
        return "dense retriever: the embedding batch must be from 1 to " +
               std::to_string(kMaxEmbedBatch);
      return {};
    case Kind::Hybrid: {
      if (nesting > kMaxHybridNesting)
        return "hybrid retriever: nested more than " + std::to_string(kMaxHybridNesting) +
               " levels deep";
      if (spec.members.size() > kMaxHybridMembers)
        return "hybrid retriever: more than " + std::to_string(kMaxHybridMembers) + " members";
      if (std::string p = fusionOptionsProblem(spec.fusion, spec.members.size()); !p.empty())
        return "hybrid retriever: " + p;
      for (std::size_t i = 0; i < spec.members.size(); ++i)
        if (std::string p = specProblem(spec.members[i], nesting + 1); !p.empty())
          return "hybrid retriever: " + memberLabel(spec.members[i], i) + ": " + p;
      return {};
    }
  }
  return {};
}

// A member of "hybrid:A+B" or a retriever of its own.
std::optional<RetrieverSpec> parseSingle(std::string_view arg, std::string* error) {
  RetrieverSpec spec;
  auto checked = [&]() -> std::optional<RetrieverSpec> {
    if (std::string p =
            urlProblem(retrieverKindName(spec.kind), spec.url, spec.kind == Kind::Dense);
        !p.empty()) {
      if (error) *error = p;
      return std::nullopt;
    }
    return spec;
  };
  if (arg == "bm25") return spec;
  if (arg.rfind("es:", 0) == 0 && arg.size() > 3) {
    spec.kind = Kind::Elasticsearch;
    spec.url = std::string(arg.substr(3));
    return checked();
  }
  if (arg.rfind("http:", 0) == 0 && arg.size() > 5) {
    spec.kind = Kind::Http;
    spec.url = std::string(arg.substr(5));
    // "http:http://host/x" is the documented form; "http://host/x" is shorthand for it.
    if (spec.url.rfind("//", 0) == 0) spec.url = "http:" + spec.url;
    return checked();
  }
  if (arg.rfind("dense:", 0) == 0 && arg.size() > 6) {
    spec.kind = Kind::Dense;
    spec.url = std::string(arg.substr(6));
    return checked();
  }
  if (error)
    *error = "unknown retriever '" + escapeControlChars(arg) +
             "' (expected bm25, es:URL, http:URL, dense:URL, dense:offline or "
             "hybrid:SPEC+SPEC[+...])";
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Project JSON, read strictly: a member of the wrong type is an error naming its path
// ("members[1].embed_batch"), never an exception or a silent default.

class FieldReader {
 public:
  FieldReader(const nlohmann::json& j, std::string prefix) : m_j(j), m_prefix(std::move(prefix)) {}

  std::string path(std::string_view key) const { return m_prefix + std::string(key); }
  bool ok() const { return m_problem.empty(); }
  const std::string& problem() const { return m_problem; }
  void fail(std::string_view key, const std::string& why) {
    if (m_problem.empty()) m_problem = "field '" + path(key) + "': " + why;
  }
  void setProblem(std::string problem) {
    if (m_problem.empty()) m_problem = std::move(problem);
  }

  const nlohmann::json* find(std::string_view key) const {
    auto it = m_j.find(key);
    return it == m_j.end() || it->is_null() ? nullptr : &*it;
  }
  void text(std::string_view key, std::string& out) {
    if (const auto* v = find(key)) {
      if (v->is_string())
        out = v->get<std::string>();
      else
        fail(key, "expected a string, found " + typeName(*v));
    }
  }
  void flag(std::string_view key, bool& out) {
    if (const auto* v = find(key)) {
      if (v->is_boolean())
        out = v->get<bool>();
      else
        fail(key, "expected true or false, found " + typeName(*v));
    }
  }
  void number(std::string_view key, double& out) {
    if (const auto* v = find(key)) {
      if (v->is_number() && std::isfinite(v->get<double>()))
        out = v->get<double>();
      else
        fail(key, "expected a finite number, found " + typeName(*v));
    }
  }
  template <class T>
  void integer(std::string_view key, T& out, std::int64_t min, std::int64_t max) {
    if (const auto* v = find(key)) {
      bool fits = false;
      std::int64_t x = 0;
      if (v->is_number_unsigned()) {
        const std::uint64_t u = v->get<std::uint64_t>();
        fits = u <= static_cast<std::uint64_t>(max);
        x = static_cast<std::int64_t>(u);
      } else if (v->is_number_integer()) {
        x = v->get<std::int64_t>();
        fits = x <= max;
      }
      if (fits && x >= min)
        out = static_cast<T>(x);
      else
        fail(key, "expected an integer from " + std::to_string(min) + " to " + std::to_string(max) +
                      ", found " + (v->is_number() ? v->dump() : typeName(*v)));
    }
  }
  void texts(std::string_view key, std::vector<std::string>& out) {
    if (const auto* v = find(key)) {
      if (!v->is_array()) return fail(key, "expected a list of strings, found " + typeName(*v));
      std::vector<std::string> items;
      for (std::size_t i = 0; i < v->size(); ++i) {
        if (!(*v)[i].is_string())
          return fail(std::string(key) + "[" + std::to_string(i) + "]",
                      "expected a string, found " + typeName((*v)[i]));
        items.push_back((*v)[i].get<std::string>());
      }
      out = std::move(items);
    }
  }

 private:
  static std::string typeName(const nlohmann::json& v) {
    if (v.is_number()) return "a number";
    if (v.is_string()) return "a string";
    if (v.is_boolean()) return "a boolean";
    if (v.is_array()) return "a list";
    if (v.is_object()) return "an object";
    return "null";
  }
  const nlohmann::json& m_j;
  std::string m_prefix;
  std::string m_problem;
};

nlohmann::json fusionToJson(const FusionOptions& f) {
  nlohmann::json j;
  j["method"] = fusionMethodName(f.method);
  j["norm"] = scoreNormName(f.norm);
  if (!f.weights.empty()) j["weights"] = f.weights;
  j["rrf_k"] = f.rrfK;
  if (f.depth > 0) j["depth"] = f.depth;
  return j;
}

void fusionFromJson(const nlohmann::json& j, const std::string& prefix, FieldReader& outer,
                    FusionOptions& f) {
  if (!j.is_object()) return outer.fail("fusion", "expected an object");
  FieldReader r(j, prefix);
  std::string method = fusionMethodName(f.method), norm = scoreNormName(f.norm);
  r.text("method", method);
  r.text("norm", norm);
  if (r.ok()) {
    if (auto m = fusionMethodFromName(method))
      f.method = *m;
    else
      r.fail("method", "'" + escapeControlChars(method) + "' is not rrf, combsum, combmnz or wsum");
  }
  if (r.ok()) {
    if (auto n = scoreNormFromName(norm))
      f.norm = *n;
    else
      r.fail("norm", "'" + escapeControlChars(norm) + "' is not none, min-max, max, sum or zmuv");
  }
  if (const auto* w = r.find("weights")) {
    if (!w->is_array()) r.fail("weights", "expected a list of numbers");
    f.weights.clear();
    for (std::size_t i = 0; r.ok() && i < w->size(); ++i) {
      if (!(*w)[i].is_number() || !std::isfinite((*w)[i].get<double>()))
        r.fail("weights[" + std::to_string(i) + "]", "expected a finite number");
      else
        f.weights.push_back((*w)[i].get<double>());
    }
  }
  r.number("rrf_k", f.rrfK);
  if (r.ok() && f.rrfK < 0) r.fail("rrf_k", "must be >= 0");
  r.integer("depth", f.depth, 0, 100'000);
  if (!r.ok()) outer.setProblem(r.problem());
}

std::optional<RetrieverSpec> specFromJson(const nlohmann::json& j, const std::string& prefix,
                                          int nesting, std::string* error) {
  FieldReader r(j, prefix);
  auto fail = [&](std::string_view field, const std::string& why) -> std::optional<RetrieverSpec> {
    r.fail(field, why);
    if (error) *error = r.problem();
    return std::nullopt;
  };
  auto failed = [&]() -> std::optional<RetrieverSpec> {
    if (error) *error = r.problem();
    return std::nullopt;
  };
  if (!j.is_object()) {
    if (error)
      *error = (prefix.empty() ? "" : "field '" + prefix.substr(0, prefix.size() - 1) + "': ") +
               std::string("expected an object");
    return std::nullopt;
  }
  RetrieverSpec spec;
  std::string kind;
  r.text("kind", kind);
  if (!r.ok()) return failed();
  if (kind == "bm25")
    spec.kind = Kind::Bm25;
  else if (kind == "es")
    spec.kind = Kind::Elasticsearch;
  else if (kind == "http")
    spec.kind = Kind::Http;
  else if (kind == "dense")
    spec.kind = Kind::Dense;
  else if (kind == "hybrid")
    spec.kind = Kind::Hybrid;
  else
    return fail("kind",
                "'" + escapeControlChars(kind) + "' is not bm25, es, http, dense or hybrid");
  r.text("name", spec.name);

  switch (spec.kind) {
    case Kind::Bm25: {
      r.number("k1", spec.bm25.k1);
      r.number("b", spec.bm25.b);
      if (!r.ok()) return failed();
      if (spec.bm25.k1 < 0) return fail("k1", "must be >= 0");
      if (spec.bm25.b < 0 || spec.bm25.b > 1) return fail("b", "must be in [0, 1]");
      r.flag("stemming", spec.stemming);
      std::string dir;
      r.text("index_dir", dir);
      spec.indexDir = dir;
      spec.indexDirFromFile = !dir.empty();  // a file's folder is read, never written
      r.flag("rebuild", spec.rebuild);
      if (!r.ok()) return failed();
      return spec;
    }
    case Kind::Hybrid: {
      if (nesting > kMaxHybridNesting)
        return fail("kind", "hybrid retrievers nested more than " +
                                std::to_string(kMaxHybridNesting) + " levels deep");
      const auto* members = r.find("members");
      if (!members) return fail("members", "missing");
      if (!members->is_array()) return fail("members", "expected a list of retrievers");
      if (members->size() < 2 || members->size() > kMaxHybridMembers)
        return fail("members", "a hybrid retriever fuses 2 to " +
                                   std::to_string(kMaxHybridMembers) + " retrievers, not " +
                                   std::to_string(members->size()));
      for (std::size_t i = 0; i < members->size(); ++i) {
        auto member = specFromJson((*members)[i], r.path("members[" + std::to_string(i) + "]."),
                                   nesting + 1, error);
        if (!member) return std::nullopt;
        spec.members.push_back(std::move(*member));
      }
      if (const auto* f = r.find("fusion")) fusionFromJson(*f, r.path("fusion."), r, spec.fusion);
      if (!r.ok()) return failed();
      if (std::string p = fusionOptionsProblem(spec.fusion, spec.members.size()); !p.empty())
        return fail("fusion", p);
      return spec;
    }
    case Kind::Dense:
    case Kind::Elasticsearch:
    case Kind::Http:
      break;
  }

  // Remote (es, http) and dense: an endpoint and how to reach it.
  r.text("url", spec.url);
  if (!r.ok()) return failed();
  if (spec.url.empty()) return fail("url", "missing");
  if (std::string p = urlProblem(kind, spec.url, spec.kind == Kind::Dense); !p.empty())
    return fail("url", p);
  r.text("api_key_env", spec.apiKeyEnv);
  r.text("keychain_entry", spec.keychainEntry);
  r.integer("timeout_ms", spec.timeoutMs, 1, kMaxTimeoutMs);
  if (!r.ok()) return failed();

  if (spec.kind == Kind::Dense) {
    r.text("embed_model", spec.embedModel);
    r.text("query_prefix", spec.queryPrefix);
    r.text("doc_prefix", spec.docPrefix);
    r.integer("embed_batch", spec.embedBatch, 1, static_cast<std::int64_t>(kMaxEmbedBatch));
    std::string ann;
    r.text("ann", ann);
    if (r.ok() && !ann.empty()) {
      spec.ann = annKindFromName(ann);
      if (!spec.ann)
        return fail("ann", "'" + escapeControlChars(ann) + "' is not flat, hnsw or ivfpq");
    }
    std::string dir;
    r.text("index_dir", dir);
    spec.indexDir = dir;
    spec.indexDirFromFile = !dir.empty();  // a file's folder is read, never written
    r.flag("rebuild", spec.rebuild);
    if (!r.ok()) return failed();
    if (spec.url != kOffline && spec.embedModel.empty())
      return fail("embed_model", "missing (the model the endpoint serves)");
    return spec;
  }

  r.text("request_template", spec.requestTemplate);
  if (!r.ok()) return failed();
  if (std::string why;
      !spec.requestTemplate.empty() && !checkRequestTemplate(spec.requestTemplate, &why))
    return fail("request_template", why);
  if (spec.kind == Kind::Http) {
    r.text("results_path", spec.reply.results);
    r.text("id_path", spec.reply.id);
    r.text("score_path", spec.reply.score);
    r.text("text_path", spec.reply.text);
    if (!r.ok()) return failed();
    return spec;
  }
  r.texts("fields", spec.fields);
  if (!r.ok()) return failed();
  if (spec.fields.empty()) return fail("fields", "at least one field");
  r.text("id_field", spec.idField);
  r.text("text_field", spec.textField);
  // kNN (esretriever.h): the vector field and the endpoint that embeds each query.
  r.text("es_knn_field", spec.esKnnField);
  r.text("embed_url", spec.embedUrl);
  r.text("embed_api_key_env", spec.embedApiKeyEnv);
  r.text("embed_model", spec.embedModel);
  r.text("query_prefix", spec.queryPrefix);
  r.text("es_flavour", spec.esFlavour);
  r.integer("num_candidates", spec.numCandidates, 0, static_cast<std::int64_t>(kMaxNumCandidates));
  if (!r.ok()) return failed();
  if (!spec.esFlavour.empty() && spec.esFlavour != "elasticsearch" &&
      spec.esFlavour != "opensearch")
    return fail("es_flavour",
                "'" + escapeControlChars(spec.esFlavour) + "' is not elasticsearch or opensearch");
  if (!spec.embedUrl.empty())
    if (std::string p = urlProblem("es kNN embedder of the es", spec.embedUrl, true); !p.empty())
      return fail("embed_url", p);
  if (!spec.esKnnField.empty() && spec.embedUrl.empty())
    return fail("embed_url", "missing (a kNN search embeds each query there)");
  return spec;
}

// The trust entry of one endpoint a retriever calls.
llm::EndpointConfig trustEntry(std::string name, llm::EndpointKind kind, const std::string& url,
                               const std::string& keyEnv, const std::string& keychain) {
  llm::EndpointConfig endpoint;
  endpoint.name = std::move(name);
  endpoint.kind = kind;
  endpoint.baseUrl = url;
  endpoint.apiKeyEnv = keyEnv;
  endpoint.keychainEntry = keychain;
  return endpoint;
}

void collectEndpoints(const RetrieverSpec& spec, std::vector<llm::EndpointConfig>& out) {
  if (spec.kind == Kind::Hybrid) {
    for (const auto& m : spec.members) collectEndpoints(m, out);
    return;
  }
  if (auto primary = retrieverTrustEndpoint(spec)) out.push_back(std::move(*primary));
  // es kNN: the endpoint that embeds each query, with its own key variable.
  if (spec.kind == Kind::Elasticsearch && !spec.embedUrl.empty() && spec.embedUrl != kOffline)
    out.push_back(trustEntry((spec.name.empty() ? "es" : spec.name) + " embedder",
                             llm::EndpointKind::Embeddings, spec.embedUrl, spec.embedApiKeyEnv,
                             {}));
}

bool sameEndpoint(const llm::EndpointConfig& a, const llm::EndpointConfig& b) {
  return a.baseUrl == b.baseUrl && a.apiKeyEnv == b.apiKeyEnv && a.keychainEntry == b.keychainEntry;
}

std::string quoted(const std::string& text) { return "\"" + escapeControlChars(text) + "\""; }

// ---------------------------------------------------------------------------------------------
// Opening a dense retriever.

// Embedding progress (the run engine's listener) to the caller's ProgressFn; a callback that
// returns false stops the embedding as the stop token would.
class EmbedProgress : public eval::ProgressListener {
 public:
  EmbedProgress(ProgressFn fn, std::stop_source* stop) : m_fn(std::move(fn)), m_stop(stop) {}
  void onProgress(const eval::Progress& p) override {
    if (m_fn && !m_fn(p.done, p.total)) m_stop->request_stop();
  }

 private:
  ProgressFn m_fn;
  std::stop_source* m_stop;
};

EmbedderSettings embedderSettings(const RetrieverSpec& spec) {
  EmbedderSettings s;
  s.endpoint.name = spec.name.empty() ? "dense" : spec.name;
  s.endpoint.kind = llm::EndpointKind::Embeddings;
  s.endpoint.baseUrl = spec.url;
  s.endpoint.model = !spec.embedModel.empty() ? spec.embedModel
                     : spec.url == kOffline   ? std::string(llm::kOfflineEmbeddingModel)
                                              : std::string();
  s.endpoint.apiKeyEnv = spec.apiKeyEnv;
  s.endpoint.keychainEntry = spec.keychainEntry;
  s.endpoint.timeoutSeconds = static_cast<double>(spec.timeoutMs) / 1000.0;
  s.docPrefix = spec.docPrefix;
  s.queryPrefix = spec.queryPrefix;
  s.batch = spec.embedBatch;
  return s;
}

// The default folder of a dense index: beside the dataset (or in the cache, as the BM25 index
// goes), named for what makes the document vectors (endpoint, model, document prefix), so that
// switching between models rebuilds nothing and two models never share a folder. The index kind
// is not in the name: a change of it rebuilds the FAISS index from the embeddings kept there.
std::filesystem::path defaultDenseDir(const RetrieverSpec& spec,
                                      const std::filesystem::path& firstPath,
                                      const Corpus& corpus) {
  const EmbedderSettings s = embedderSettings(spec);
  const std::string identity = redactUrl(s.endpoint.baseUrl) + "\n" + s.endpoint.model + "\n" +
                               std::to_string(s.docPrefix.size()) + ":" + s.docPrefix;
  return chooseIndexDir(firstPath, corpus, "-dense-" + sha256Hex(identity).substr(0, 12));
}

// Why a project's index folder was left alone and where the index went instead.
std::string readOnlyNote(const std::filesystem::path& named, const std::string& why,
                         const std::filesystem::path& used, bool reused) {
  return "index folder " + named.string() +
         " named by the project was not written (a folder from a file is read only" +
         (why.empty() ? std::string() : "; " + why) + "); " +
         (reused ? "used the index in " : "built in ") + used.string();
}

std::shared_ptr<llm::ResponseCache> openResponseCache(const RetrieverSpec& spec) {
  if (spec.url == kOffline) return nullptr;  // computed here: nothing worth keeping
  auto cache = std::make_shared<llm::ResponseCache>();
  std::string why;
  if (!cache->open(llm::ResponseCache::defaultPath(), &why)) return nullptr;
  return cache;
}

OpenedRetriever openDense(const RetrieverSpec& spec, const Dataset& dataset,
                          const std::filesystem::path& firstPath,
                          const IndexBuildOptions& indexOptions,
                          const std::function<std::string()>& apiKey) {
  OpenedRetriever out;
  if (dataset.corpus.empty()) {
    out.error = "dense retrieval needs a corpus, and the dataset has no documents";
    return out;
  }
  const EmbedderSettings settings = embedderSettings(spec);
  auto cache = openResponseCache(spec);

  std::stop_source stop;
  std::stop_callback forward(indexOptions.stop, [&stop] { stop.request_stop(); });
  EmbedProgress listener(indexOptions.embedProgress, &stop);

  DenseIndexOptions o;
  o.indexDir =
      spec.indexDir.empty() ? defaultDenseDir(spec, firstPath, dataset.corpus) : spec.indexDir;
  // A folder a file names is only read: anything to embed or build goes to the default folder.
  o.readOnly = !spec.indexDir.empty() && spec.indexDirFromFile;
  o.ann = spec.ann;
  o.rebuild = spec.rebuild || indexOptions.forceRebuild;
  o.transport.apiKey = apiKey;
  o.cache = cache.get();
  o.listener = &listener;
  o.indexProgress = indexOptions.progress;
  o.stop = stop.get_token();
  if (indexOptions.embedBatch) o.batch = *indexOptions.embedBatch;
  out.dense = buildDenseIndex(dataset.corpus, settings, o);
  if (o.readOnly && !out.dense.ok) {
    const std::string refused = out.dense.rebuildReason;
    o.readOnly = false;
    o.indexDir = defaultDenseDir(spec, firstPath, dataset.corpus);
    out.dense = buildDenseIndex(dataset.corpus, settings, o);
    out.notes.push_back(readOnlyNote(spec.indexDir, refused, o.indexDir, out.dense.reused));
  }
  if (!out.dense.ok) {
    out.cancelled = out.dense.cancelled || stop.stop_requested();
    out.error = out.dense.paused           ? "dense index: the embedding stopped at the budget"
                : !out.dense.error.empty() ? out.dense.error
                                           : "dense index: not built";
    return out;
  }
  if (!out.dense.index) {
    out.error = out.dense.dir.string() + ": the vector index was not opened";
    return out;
  }
  llm::TransportOptions transport;
  transport.apiKey = apiKey;
  auto embedder = std::make_unique<QueryEmbedder>(settings, transport, cache.get());
  out.retriever = std::make_unique<DenseRetriever>(out.dense.index, std::move(embedder),
                                                   dataset.corpus, std::move(cache));
  return out;
}

}  // namespace

const char* retrieverKindName(RetrieverSpec::Kind k) {
  switch (k) {
    case Kind::Bm25:
      return "bm25";
    case Kind::Elasticsearch:
      return "es";
    case Kind::Http:
      return "http";
    case Kind::Dense:
      return "dense";
    case Kind::Hybrid:
      return "hybrid";
  }
  return "bm25";
}

std::optional<RetrieverSpec> parseRetrieverArg(std::string_view arg, std::string* error) {
  if (arg.rfind("hybrid:", 0) != 0) return parseSingle(arg, error);
  // Every '+' separates members: a member's URL cannot hold one (written %2B it can), so no
  // argument has two readings. Members are single retrievers; hybrids nest in project files.
  RetrieverSpec spec;
  spec.kind = Kind::Hybrid;
  std::string_view rest = arg.substr(7);
  for (;;) {
    const std::size_t plus = rest.find('+');
    const std::string_view part = rest.substr(0, plus);
    const std::size_t n = spec.members.size() + 1;
    if (part.empty()) {
      if (error) *error = "hybrid: member " + std::to_string(n) + " is empty (hybrid:SPEC+SPEC)";
      return std::nullopt;
    }
    if (part.rfind("hybrid:", 0) == 0) {
      if (error)
        *error = "hybrid: member " + std::to_string(n) +
                 " is a hybrid; on the command line members are single retrievers";
      return std::nullopt;
    }
    std::string why;
    auto member = parseSingle(part, &why);
    if (!member) {
      if (error) *error = "hybrid: member " + std::to_string(n) + ": " + why;
      return std::nullopt;
    }
    spec.members.push_back(std::move(*member));
    if (spec.members.size() > kMaxHybridMembers) {
      if (error) *error = "hybrid: more than " + std::to_string(kMaxHybridMembers) + " members";
      return std::nullopt;
    }
    if (plus == std::string_view::npos) break;
    rest = rest.substr(plus + 1);
  }
  if (spec.members.size() < 2) {
    if (error) *error = "hybrid: fuses two or more retrievers (hybrid:SPEC+SPEC)";
    return std::nullopt;
  }
  return spec;
}

nlohmann::json retrieverSpecToJson(const RetrieverSpec& spec) {
  nlohmann::json j;
  j["kind"] = retrieverKindName(spec.kind);
  if (!spec.name.empty()) j["name"] = spec.name;
  switch (spec.kind) {
    case Kind::Bm25:
      j["k1"] = spec.bm25.k1;
      j["b"] = spec.bm25.b;
      j["stemming"] = spec.stemming;
      if (!spec.indexDir.empty()) j["index_dir"] = spec.indexDir.string();
      if (spec.rebuild) j["rebuild"] = true;
      return j;
    case Kind::Hybrid: {
      nlohmann::json members = nlohmann::json::array();
      for (const auto& m : spec.members) members.push_back(retrieverSpecToJson(m));
      j["members"] = std::move(members);
      j["fusion"] = fusionToJson(spec.fusion);
      return j;
    }
    case Kind::Dense:
    case Kind::Elasticsearch:
    case Kind::Http:
      break;
  }
  j["url"] = spec.url;
  if (!spec.apiKeyEnv.empty()) j["api_key_env"] = spec.apiKeyEnv;
  if (!spec.keychainEntry.empty()) j["keychain_entry"] = spec.keychainEntry;
  j["timeout_ms"] = spec.timeoutMs;
  if (spec.kind == Kind::Dense) {
    if (!spec.embedModel.empty()) j["embed_model"] = spec.embedModel;
    if (!spec.queryPrefix.empty()) j["query_prefix"] = spec.queryPrefix;
    if (!spec.docPrefix.empty()) j["doc_prefix"] = spec.docPrefix;
    j["embed_batch"] = spec.embedBatch;
    if (spec.ann) j["ann"] = annKindName(*spec.ann);
    if (!spec.indexDir.empty()) j["index_dir"] = spec.indexDir.string();
    if (spec.rebuild) j["rebuild"] = true;
    return j;
  }
  if (!spec.requestTemplate.empty()) j["request_template"] = spec.requestTemplate;
  if (spec.kind == Kind::Elasticsearch) {
    j["fields"] = spec.fields;
    if (!spec.idField.empty()) j["id_field"] = spec.idField;
    if (!spec.textField.empty()) j["text_field"] = spec.textField;
    if (!spec.esKnnField.empty()) j["es_knn_field"] = spec.esKnnField;
    if (!spec.embedUrl.empty()) j["embed_url"] = spec.embedUrl;
    if (!spec.embedApiKeyEnv.empty()) j["embed_api_key_env"] = spec.embedApiKeyEnv;
    if (!spec.embedModel.empty()) j["embed_model"] = spec.embedModel;
    if (!spec.queryPrefix.empty()) j["query_prefix"] = spec.queryPrefix;
    if (!spec.esFlavour.empty()) j["es_flavour"] = spec.esFlavour;
    if (spec.numCandidates > 0) j["num_candidates"] = spec.numCandidates;
  } else {
    const HttpReplyPaths defaults;
    if (spec.reply.results != defaults.results) j["results_path"] = spec.reply.results;
    if (spec.reply.id != defaults.id) j["id_path"] = spec.reply.id;
    if (spec.reply.score != defaults.score) j["score_path"] = spec.reply.score;
    if (spec.reply.text != defaults.text) j["text_path"] = spec.reply.text;
  }
  return j;
}

std::optional<RetrieverSpec> retrieverSpecFromJson(const nlohmann::json& j, std::string* error) {
  std::string why;
  auto spec = specFromJson(j, "", 1, &why);
  if (!spec && error) *error = "retriever: " + why;
  return spec;
}

std::vector<llm::EndpointConfig> retrieverTrustEndpoints(const RetrieverSpec& spec) {
  std::vector<llm::EndpointConfig> out;
  collectEndpoints(spec, out);
  return out;
}

std::optional<llm::EndpointConfig> retrieverTrustEndpoint(const RetrieverSpec& spec) {
  const std::string name = spec.name.empty() ? retrieverKindName(spec.kind) : spec.name;
  switch (spec.kind) {
    case Kind::Bm25:
      return std::nullopt;
    case Kind::Elasticsearch:
    case Kind::Http:
      return trustEntry(name, llm::EndpointKind::Chat, spec.url, spec.apiKeyEnv,
                        spec.keychainEntry);
    case Kind::Dense:
      if (spec.url == kOffline) return std::nullopt;
      return trustEntry(name, llm::EndpointKind::Embeddings, spec.url, spec.apiKeyEnv,
                        spec.keychainEntry);
    case Kind::Hybrid: {
      // The member endpoint whose key a front end resolves (resolveRetrieverKey in the
      // workbench): the first that names a key source, else the first.
      std::optional<llm::EndpointConfig> first;
      for (const auto& m : spec.members)
        if (auto e = retrieverTrustEndpoint(m)) {
          if (!e->apiKeyEnv.empty() || !e->keychainEntry.empty()) return e;
          if (!first) first = std::move(e);
        }
      return first;
    }
  }
  return std::nullopt;
}

std::string describeRetriever(const RetrieverSpec& spec) {
  std::ostringstream out;
  switch (spec.kind) {
    case Kind::Bm25:
      out << "bm25 (Xapian BM25Weight k1=" << spec.bm25.k1 << " b=" << spec.bm25.b
          << (spec.stemming ? "" : ", no stemming") << ")";
      break;
    case Kind::Elasticsearch:
      if (!spec.esKnnField.empty())
        out << "es kNN (" << shownUrl(spec.url) << ", field " << quoted(spec.esKnnField)
            << ", query vectors from " << quoted(spec.embedModel) << " at "
            << shownUrl(spec.embedUrl) << ")";
      else
        out << "es (" << shownUrl(spec.url) << ")";
      break;
    case Kind::Http:
      out << "http (" << shownUrl(spec.url) << ")";
      break;
    case Kind::Dense: {
      out << "dense (";
      if (spec.url == kOffline)
        out << "offline hashed bag of words";
      else
        out << quoted(spec.embedModel) << " at " << shownUrl(spec.url);
      out << ", FAISS " << (spec.ann ? annKindName(*spec.ann) : "flat or hnsw by size");
      if (!spec.queryPrefix.empty()) out << ", query prefix " << quoted(spec.queryPrefix);
      if (!spec.docPrefix.empty()) out << ", document prefix " << quoted(spec.docPrefix);
      out << ")";
      break;
    }
    case Kind::Hybrid: {
      const FusionOptions& f = spec.fusion;
      out << "hybrid (" << fusionMethodName(f.method);
      if (f.method == FusionMethod::Rrf)
        out << " k=" << f.rrfK;
      else
        out << ", " << scoreNormName(f.norm);
      if (!f.weights.empty()) {
        out << ", weights ";
        for (std::size_t i = 0; i < f.weights.size(); ++i) out << (i ? "," : "") << f.weights[i];
      }
      if (f.depth > 0) out << ", depth " << f.depth;
      out << " of ";
      for (std::size_t i = 0; i < spec.members.size(); ++i)
        out << (i ? " + " : "") << describeRetriever(spec.members[i]);
      out << ")";
      break;
    }
  }
  return out.str();
}

OpenedRetriever openRetriever(const RetrieverSpec& spec, const Dataset& dataset,
                              const std::filesystem::path& firstPath,
                              const IndexBuildOptions& indexOptions,
                              std::function<std::string()> apiKey) {
  OpenedRetriever out;
  // Specs the workbench builds itself never pass the parsers above: checked here as well.
  if (std::string p = specProblem(spec, 1); !p.empty()) {
    out.error = p;
    return out;
  }
  switch (spec.kind) {
    case Kind::Bm25: {
      if (dataset.corpus.empty()) {
        out.error = "bm25 needs a corpus, and the dataset has no documents";
        return out;
      }
      auto dir = spec.indexDir;
      IndexBuildOptions options = indexOptions;
      options.forceRebuild = options.forceRebuild || spec.rebuild;
      options.stemming = spec.stemming;
      if (!dir.empty() && spec.indexDirFromFile) {
        // A folder a file names is only read: anything to build goes to the default folder.
        IndexBuildOptions readOnly = options;
        readOnly.readOnly = true;
        out.index = openOrBuildIndex(dataset.corpus, dir, readOnly);
        if (out.index.ok) {
          out.retriever = XapianRetriever::open(out.index.dir, spec.bm25, &out.error);
          return out;
        }
        dir.clear();
      }
      // Each analysis its own default folder, so switching back and forth rebuilds nothing.
      if (dir.empty())
        dir = chooseIndexDir(firstPath, dataset.corpus, spec.stemming ? "" : "-nostem");
      const std::string refused = spec.indexDirFromFile ? out.index.rebuildReason : "";
      out.index = openOrBuildIndex(dataset.corpus, dir, options);
      if (spec.indexDirFromFile && !spec.indexDir.empty())
        out.notes.push_back(readOnlyNote(spec.indexDir, refused, dir, out.index.reused));
      if (!out.index.ok) {
        out.cancelled = out.index.cancelled;
        out.error = out.index.error;
        return out;
      }
      out.retriever = XapianRetriever::open(out.index.dir, spec.bm25, &out.error);
      return out;
    }
    case Kind::Elasticsearch:
      // Full text, or kNN with a query embedder (esopen.h).
      out.retriever = openEsRetriever(spec, apiKey, &out.error);
      return out;
    case Kind::Http: {
      HttpRetrieverOptions o;
      o.url = spec.url;
      o.apiKeyEnv = spec.apiKeyEnv;
      o.timeoutMs = spec.timeoutMs;
      o.requestTemplate = spec.requestTemplate;
      o.reply = spec.reply;
      o.apiKey = apiKey;
      out.retriever = std::make_unique<HttpRetriever>(o);
      return out;
    }
    case Kind::Dense:
      return openDense(spec, dataset, firstPath, indexOptions, apiKey);
    case Kind::Hybrid: {
      // The key handed over in memory is the one of retrieverTrustEndpoint(spec): only the
      // members calling that very endpoint (URL and key source) get it; the others read their
      // own variables. A key never goes to an endpoint it was not resolved for.
      const auto keyed = retrieverTrustEndpoint(spec);
      std::vector<HybridMember> members;
      for (std::size_t i = 0; i < spec.members.size(); ++i) {
        const RetrieverSpec& m = spec.members[i];
        std::function<std::string()> memberKey;
        if (apiKey && keyed)
          if (const auto own = retrieverTrustEndpoint(m); own && sameEndpoint(*own, *keyed))
            memberKey = apiKey;
        OpenedRetriever opened = openRetriever(m, dataset, firstPath, indexOptions, memberKey);
        for (auto& note : opened.notes)
          out.notes.push_back(memberLabel(m, i) + ": " + std::move(note));
        if (!opened.retriever) {
          out.cancelled = opened.cancelled;
          out.error = "hybrid " + memberLabel(m, i) + ": " + opened.error;
          out.index = opened.index;
          out.dense = opened.dense;
          return out;
        }
        // The first BM25 and the first dense index, for the front ends' index lines.
        if (!out.index.ok && opened.index.ok) out.index = opened.index;
        if (!out.dense.ok && opened.dense.ok) out.dense = opened.dense;
        members.push_back(
            {m.name.empty() ? retrieverKindName(m.kind) : m.name, std::move(opened.retriever)});
      }
      out.retriever = std::make_unique<HybridRetriever>(std::move(members), spec.fusion);
      return out;
    }
  }
  return out;
}

}  // namespace ragscope::core
