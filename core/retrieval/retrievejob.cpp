#include "core/retrieval/retrievejob.h"

#include <chrono>
#include <optional>

#include "core/retrieval/retrievecheckpoint.h"
#include "core/util/sha256.h"
#include "core/util/urlredact.h"

namespace ragscope::core {

namespace fs = std::filesystem;

namespace {

// True when the retriever (or a hybrid's member) searches an index of the dataset's corpus.
bool searchesCorpus(const RetrieverSpec& spec) {
  if (spec.kind == RetrieverSpec::Kind::Bm25 || spec.kind == RetrieverSpec::Kind::Dense)
    return true;
  for (const auto& m : spec.members)
    if (searchesCorpus(m)) return true;
  return false;
}

// The corpus fingerprint of the index opened, else computed.
std::string corpusStamp(const OpenedRetriever& opened, const Dataset& dataset) {
  if (opened.index.ok && !opened.index.fingerprint.empty()) return opened.index.fingerprint;
  if (opened.dense.ok && opened.dense.index) return opened.dense.index->manifest().corpusStamp;
  return corpusFingerprint(dataset.corpus);
}

// What an answer depends on: the retriever's settings, k, the queries' ids and texts and, for a
// retriever over a local index, the corpus (`stamp`). Hashed, so the checkpoint names no URL.
std::string checkpointKey(const RetrieverSpec& spec, const std::vector<Query>& queries,
                          std::size_t k, const std::string& stamp) {
  std::string s = retrieverSpecToJson(spec).dump() + "\nk=" + std::to_string(k) + "\n";
  if (!stamp.empty()) s += "corpus=" + stamp + "\n";
  for (const auto& q : queries)
    s += std::to_string(q.id.size()) + ":" + q.id + std::to_string(q.text.size()) + ":" + q.text;
  return sha256Hex(s);
}

// The spec as run records keep it: every URL (members' and embedders' too) without credentials.
nlohmann::json recordedSpec(const nlohmann::json& spec) {
  nlohmann::json out = spec;
  for (const char* key : {"url", "embed_url"})
    if (out.contains(key) && out[key].is_string())
      out[key] = redactUrl(out[key].get<std::string>());
  if (out.contains("members") && out["members"].is_array())
    for (auto& m : out["members"]) m = recordedSpec(m);
  return out;
}

}  // namespace

RetrieverProbe probeRetriever(const RetrieverSpec& spec, const Dataset& dataset,
                              const fs::path& firstPath, const std::string& queryText,
                              std::size_t k, const IndexBuildOptions& indexOptions,
                              std::function<std::string()> apiKey) {
  RetrieverProbe probe;
  OpenedRetriever opened = openRetriever(spec, dataset, firstPath, indexOptions, std::move(apiKey));
  probe.index = opened.index;
  probe.notes = opened.notes;
  if (!opened.retriever) {
    probe.cancelled = opened.cancelled;
    probe.error = opened.error;
    return probe;
  }
  Query query;
  query.id = "test";
  query.text = queryText;
  const auto started = std::chrono::steady_clock::now();
  probe.hits = opened.retriever->search(query, k, &probe.error);
  probe.searchMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  probe.ok = probe.error.empty();
  // The embedded index returns ids only; the test shows what was found.
  for (auto& hit : probe.hits)
    if (hit.text.empty())
      if (auto d = dataset.corpus.find(hit.id)) hit.text = d->fullText();
  return probe;
}

fs::path retrieveCheckpointPath(const fs::path& out) { return fs::path(out.string() + ".partial"); }

RetrieveJobResult runRetrieveJob(const RetrieverSpec& spec, const Dataset& dataset,
                                 const fs::path& firstPath, const RetrieveJobOptions& options) {
  RetrieveJobResult result;
  const auto started = std::chrono::steady_clock::now();
  if (dataset.queries.empty()) {
    result.error = "the dataset has no queries";
    return result;
  }
  if (!options.out.empty() && options.out.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(options.out.parent_path(),
                           ec);  // a failure shows when the run is written
  }
  IndexBuildOptions io;
  io.progress = options.indexProgress;
  io.embedProgress = options.embedProgress;
  io.embedBatch = options.embedBatch;
  io.stop = options.stop;
  OpenedRetriever opened = openRetriever(spec, dataset, firstPath, io, options.apiKey);
  result.index = opened.index;
  result.dense = opened.dense;
  result.notes = opened.notes;  // a project's index folder left alone
  if (!opened.retriever) {
    result.cancelled = opened.cancelled || options.stop.stop_requested();
    if (!result.cancelled) result.error = opened.error;
    return result;
  }

  std::optional<RetrieveCheckpoint> checkpoint;
  std::optional<CheckpointedRetriever> resumable;
  Retriever* retriever = opened.retriever.get();
  // Only retrievers that call out are worth resuming: a local search (bm25, dense:offline) is
  // asked again in less time than a checkpoint takes.
  if (!retrieverTrustEndpoints(spec).empty() && options.resume && !options.out.empty()) {
    std::string note;
    const std::string stamp = searchesCorpus(spec) ? corpusStamp(opened, dataset) : std::string();
    checkpoint.emplace(retrieveCheckpointPath(options.out),
                       checkpointKey(spec, dataset.queries, options.k, stamp), &note);
    if (!note.empty()) result.notes.push_back(note);
    if (checkpoint->ok()) {
      result.resumed = checkpoint->resumed();
      resumable.emplace(*retriever, *checkpoint);
      retriever = &*resumable;
    } else {
      result.notes.push_back(checkpoint->error() + "; the run is not resumable");
      checkpoint.reset();
    }
  }

  RetrieveOptions ro;
  ro.k = options.k;
  ro.threads = options.threads;
  ro.tag = !options.tag.empty() ? options.tag
           : !spec.name.empty() ? spec.name
                                : retrieverKindName(spec.kind);
  ro.onError = OnError::Skip;
  bool declined = false;  // the progress callback asked to stop
  if (options.retrieveProgress)
    ro.progress = [&](std::uint64_t done, std::uint64_t total) {
      declined = !options.retrieveProgress(done, total);
      return !declined;
    };
  ro.stop = options.stop;
  result.run = retrieveAll(*retriever, dataset.queries, ro);
  if (checkpoint && !checkpoint->ok()) result.notes.push_back(checkpoint->error());
  result.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (declined || options.stop.stop_requested() || result.run.report.cancelled) {
    result.cancelled = true;
    if (checkpoint) result.checkpoint = checkpoint->path();
    return result;
  }

  // Recorded in the run stores made from this run: a URL's credentials never are.
  result.setting = {
      {"retriever", recordedSpec(retrieverSpecToJson(spec))}, {"k", options.k}, {"tag", ro.tag}};
  if (result.index.ok) {
    result.setting["index"] = result.index.dir.string();
    result.setting["fingerprint"] = result.index.fingerprint;
  }
  if (result.dense.ok && result.dense.index) {
    result.setting["dense_index"] = result.dense.dir.string();
    result.setting["fingerprint"] = result.dense.index->manifest().corpusStamp;
  }
  if (!options.out.empty()) {
    result.run.value.source = options.out.string();
    std::string error;
    if (!writeTrecRun(result.run.value, options.out, &error)) {
      result.error = error;
      if (checkpoint) result.checkpoint = checkpoint->path();
      return result;
    }
  }
  if (checkpoint) {
    // Failed queries are asked again by the next job with these settings; a complete run needs no
    // checkpoint.
    if (result.run.report.skipped > 0)
      result.checkpoint = checkpoint->path();
    else
      checkpoint->remove();
  }
  result.ok = true;
  return result;
}

}  // namespace ragscope::core
