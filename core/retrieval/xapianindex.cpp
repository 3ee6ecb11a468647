#include "core/retrieval/xapianindex.h"

#include <unistd.h>
#include <xapian.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <system_error>
#include <thread>

#include "core/util/atomicfile.h"
#include "core/util/inputfile.h"
#include "core/util/jsonstrict.h"

namespace ragscope::core {

namespace fs = std::filesystem;

namespace {

constexpr const char* kManifestName = "manifest.json";
constexpr const char* kDbName = "xapian";
constexpr const char* kFormatName = "ragscope-xapian-index";
constexpr int kFormatVersion = 1;
// Xapian rejects terms longer than 245 bytes; the unique-id term is only an aid, so long ids go
// without it rather than failing the build.
constexpr std::size_t kMaxIdTermBytes = 240;

// Everything that changes which terms a document gets: a change here must invalidate old indexes.
std::string analysisSignature(bool stemming) {
  std::string s = stemming ? "stemmer=english;strategy=some;positions=0;stopwords="
                           : "stemmer=none;positions=0;stopwords=";
  for (const auto& w : englishStopwords()) s += w + ",";
  return s;
}

// FNV-1a 64: simple, stable across platforms and runs (std::hash is neither).
struct Fnv64 {
  std::uint64_t h = 1469598103934665603ull;
  void bytes(std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
  }
  void field(std::string_view s) {
    const std::uint64_t n = s.size();
    char len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<char>((n >> (8 * i)) & 0xff);
    bytes(std::string_view(len, 8));
    bytes(s);
  }
};

std::string hex64(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::uint64_t folderBytes(const fs::path& dir) {
  std::uint64_t total = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    if (it->is_regular_file(e2)) total += it->file_size(e2);
  }
  return total;
}

std::optional<nlohmann::json> readManifest(const fs::path& dir, std::string* why) {
  std::string problem;
  const auto text =
      readBoundedFile(dir / kManifestName, kMaxSmallJsonBytes, "an index manifest", problem);
  if (!text) {
    if (why) *why = "no readable manifest (" + problem + ")";
    return std::nullopt;
  }
  try {
    // Strict (core/util/jsonstrict.h): a manifest repeating a member is not one ragscope wrote.
    nlohmann::json j;
    if (JsonStrictError strict; !parseJsonStrict(*text, j, &strict)) {
      if (why) *why = "unreadable manifest: " + describeJsonStrictError(strict);
      return std::nullopt;
    }
    if (!j.is_object() || j.value("format", "") != kFormatName) {
      if (why) *why = "manifest is not a ragscope index manifest";
      return std::nullopt;
    }
    return j;
  } catch (const nlohmann::json::exception& e) {
    if (why) *why = std::string("unreadable manifest: ") + e.what();
    return std::nullopt;
  }
}

bool wantsStop(const IndexBuildOptions& o, std::size_t done, std::size_t total) {
  if (o.stop.stop_requested()) return true;
  return o.progress && !o.progress(done, total);
}

// ---- Building -------------------------------------------------------------------------------
//
// The corpus is cut into shards, contiguous ranges of positions in corpus order, and worker
// threads take them in turn, each shard into a database of its own (Xapian objects are not safe
// to share between threads, but separate databases are independent). The shards are then
// compacted into one in corpus order: compaction gives each source's docids one offset following
// the previous source's, so docid i + 1 is corpus.at(i) as when one thread adds every document,
// and BM25, which breaks ties by docid, ranks the same whatever the number of workers.

// Turns a corpus document into a Xapian document with our analysis. One per worker.
class Analyzer {
 public:
  explicit Analyzer(bool stemming)
      : m_stopper(englishStopwords().begin(), englishStopwords().end()) {
    if (stemming) {
      m_gen.set_stemmer(Xapian::Stem("english"));
      m_gen.set_stemming_strategy(Xapian::TermGenerator::STEM_SOME);
    } else {
      m_gen.set_stemming_strategy(Xapian::TermGenerator::STEM_NONE);
    }
    m_gen.set_stopper(&m_stopper);
    m_gen.set_stopper_strategy(Xapian::TermGenerator::STOP_STEMMED);
  }

  Xapian::Document document(const Document& d) {
    Xapian::Document doc;
    doc.set_data(d.id);
    if (d.id.size() <= kMaxIdTermBytes) doc.add_boolean_term("Q" + d.id);
    m_gen.set_document(doc);
    if (!d.title.empty()) {
      m_gen.index_text_without_positions(d.title);
      m_gen.increase_termpos();
    }
    m_gen.index_text_without_positions(d.fullText());
    return doc;
  }

 private:
  Xapian::SimpleStopper m_stopper;  // declared first: the generator points to it
  Xapian::TermGenerator m_gen;
};

// Corpus positions [begin, end), indexed into a database of their own at `path`.
struct Shard {
  std::size_t begin = 0;
  std::size_t end = 0;
  fs::path path;
};

// What the workers of one build share with the thread that reports their progress.
class BuildState {
 public:
  static constexpr std::size_t kStep = 500;  // documents between progress reports

  explicit BuildState(std::stop_token stop) : m_stop(std::move(stop)) {}

  // Workers look before every document, so a cancel stops them within one document each.
  bool halted() const { return m_halt.load(std::memory_order_relaxed) || m_stop.stop_requested(); }
  std::size_t done() const { return m_done.load(); }

  void documentIndexed() {
    // Waking the reporter at each step only, not per document, keeps the lock out of the loop.
    if ((m_done.fetch_add(1) + 1) % kStep == 0) notify([] {});
  }
  void workerStarting() {
    notify([this] { ++m_running; });
  }
  // The next shard to index, in corpus order; >= the shard count when none is left.
  std::size_t takeShard() { return m_nextShard.fetch_add(1); }
  void workerFinished() {
    notify([this] { --m_running; });
  }
  void halt() {
    notify([this] { m_halt = true; });
  }
  // The first failure is the one reported; it halts the other workers.
  void fail(std::string message) {
    notify([&] {
      if (m_error.empty()) m_error = std::move(message);
      m_halt = true;
    });
  }
  std::string error() {
    std::lock_guard lock(m_mutex);
    return m_error;
  }

  // Until `target` documents are done, every worker has finished, or a tenth of a second passed
  // (the stop token is looked at by the caller). True when every worker has finished.
  bool waitFor(std::size_t target) {
    std::unique_lock lock(m_mutex);
    m_wake.wait_for(lock, std::chrono::milliseconds(100),
                    [&] { return m_running == 0 || m_done.load() >= target; });
    return m_running == 0;
  }

 private:
  // Changes under the lock, then wakes the reporter: a change made between its test and its wait
  // could otherwise go unseen for a whole timeout.
  template <typename Change>
  void notify(Change change) {
    {
      std::lock_guard lock(m_mutex);
      change();
    }
    m_wake.notify_all();
  }

  std::stop_token m_stop;
  std::atomic<std::size_t> m_done{0};
  std::atomic<std::size_t> m_nextShard{0};
  std::atomic<bool> m_halt{false};
  std::mutex m_mutex;
  std::condition_variable m_wake;
  unsigned m_running = 0;
  std::string m_error;
};

unsigned workerCount(unsigned requested, std::size_t documents) {
  const unsigned wanted = requested ? requested : std::max(1u, std::thread::hardware_concurrency());
  return static_cast<unsigned>(std::min<std::size_t>(wanted, documents));
}

std::size_t ceilDiv(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// Documents a shard. Adding a document costs more the bigger its database grows (every commit
// rewrites the blocks holding the ends of the postings lists it extends, and there are more of
// them), so small shards merged at the end are faster than one database per worker: with 2
// workers over 1M passages, indexing into shards of 100,000 took 105 s, of 167,000 110 s and of
// 500,000 117 s; 50,000 were no faster than 100,000, and the merge takes longer the more shards
// it reads.
constexpr std::size_t kShardDocuments = 100000;
// Shards merged at once: each is a few open files during the merge. Bigger corpora get bigger
// shards (8.8M passages: 64 of 138,000).
constexpr std::size_t kMaxShards = 64;

// Shards of equal size (to one document), in corpus order, as many as a whole number of rounds
// of `workers` needs, so that the last round keeps every worker busy. A single shard is the index
// itself; more are merged into it.
std::vector<Shard> planShards(std::size_t documents, unsigned workers, const fs::path& tmp) {
  const std::size_t shardSize = std::max(kShardDocuments, ceilDiv(documents, kMaxShards));
  const std::size_t rounds = std::max<std::size_t>(1, ceilDiv(documents, shardSize * workers));
  const std::size_t count = std::min(documents, rounds * workers);
  std::vector<Shard> shards(count);
  for (std::size_t s = 0; s < count; ++s) {
    shards[s].begin = documents * s / count;
    shards[s].end = documents * (s + 1) / count;
    shards[s].path = count == 1 ? tmp / kDbName : tmp / ("shard-" + std::to_string(s));
  }
  return shards;
}

// Documents a worker adds between commits. Xapian buffers the postings of uncommitted documents
// in maps keyed by term and flushes them every XAPIAN_FLUSH_THRESHOLD documents (10,000 by
// default); every term of every document is looked up in those maps, and smaller maps are faster
// to search: committing every 3,000 documents made a build 10-15% faster than 10,000 (2,000 was
// as fast, 1,000 slower: commits then cost more than they save) and keeps each worker's buffer
// to tens of MB. 0 (leave flushing to Xapian) when the user set XAPIAN_FLUSH_THRESHOLD.
std::size_t commitInterval() { return std::getenv("XAPIAN_FLUSH_THRESHOLD") ? 0 : 3000; }

// One shard, document by document, into a database of its own; Xapian::Error escapes.
void indexShard(const Corpus& corpus, const Shard& shard, Analyzer& analyzer,
                std::size_t commitEvery, BuildState& state) {
  // DB_DANGEROUS: blocks are updated in place instead of copied at each commit, which saves
  // writing and space; a database left half-written is unusable, but a shard that is not
  // finished is deleted with the build folder anyway.
  Xapian::WritableDatabase db(shard.path.string(), Xapian::DB_CREATE_OR_OVERWRITE |
                                                       Xapian::DB_NO_SYNC | Xapian::DB_DANGEROUS);
  std::size_t pending = 0;
  for (std::size_t i = shard.begin; i < shard.end && !state.halted(); ++i) {
    const Document& d = corpus.at(i);
    db.add_document(analyzer.document(d));
    state.documentIndexed();
    if (++pending == commitEvery) {
      db.commit();
      pending = 0;
    }
  }
  if (!state.halted()) db.commit();
  db.close();
}

// A worker: the next shard not yet taken, until none is left. Taking them in turn rather than a
// fixed share each keeps every core busy when one worker is slowed down.
void runWorker(const Corpus& corpus, const std::vector<Shard>& shards, bool stemming,
               std::size_t commitEvery, BuildState& state) {
  try {
    Analyzer analyzer(stemming);
    for (auto s = state.takeShard(); s < shards.size() && !state.halted(); s = state.takeShard())
      indexShard(corpus, shards[s], analyzer, commitEvery, state);
  } catch (const Xapian::Error& e) {
    state.fail("Xapian: " + e.get_description());
  } catch (const std::exception& e) {
    state.fail(e.what());
  } catch (...) {
    // An escaping exception would end the process (std::terminate) from a worker thread.
    state.fail("unexpected error while indexing");
  }
  state.workerFinished();
}

// On the calling thread while the workers run: calls the progress callback at every 500
// documents indexed over all workers (the calls a one-thread build makes), and halts the workers
// when it returns false or the stop token fires. False when cancelled.
bool reportProgress(BuildState& state, const IndexBuildOptions& options, std::size_t total) {
  std::size_t reported = 0;
  while (true) {
    const bool finished = state.waitFor(reported + BuildState::kStep);
    for (const std::size_t done = state.done(); reported + BuildState::kStep <= done;) {
      reported += BuildState::kStep;
      if (wantsStop(options, reported, total)) {
        state.halt();
        return false;
      }
    }
    if (options.stop.stop_requested()) return false;
    if (finished) return true;
  }
}

// Starts `count` workers; a thread that cannot be started fails the build (the ones started
// stop and are joined by the caller).
std::vector<std::thread> startWorkers(unsigned count, const Corpus& corpus,
                                      const std::vector<Shard>& shards, bool stemming,
                                      BuildState& state) {
  std::vector<std::thread> workers;
  workers.reserve(count);
  const std::size_t commitEvery = commitInterval();  // getenv here, not in the threads
  for (unsigned w = 0; w < count; ++w) {
    state.workerStarting();
    try {
      workers.emplace_back(runWorker, std::cref(corpus), std::cref(shards), stemming, commitEvery,
                           std::ref(state));
    } catch (const std::system_error& e) {
      state.workerFinished();
      state.fail(std::string("cannot start an indexing thread: ") + e.what());
      break;
    }
  }
  return workers;
}

// The shards, in order, compacted into one database at `out`, then deleted.
void mergeShards(const std::vector<Shard>& shards, const fs::path& out) {
  {
    Xapian::Database all;
    for (const Shard& shard : shards) all.add_database(Xapian::Database(shard.path.string()));
    // FULL: the index is never updated, so blocks may be packed as tight as they go. No
    // DBCOMPACT_MULTIPASS: merging 10 shards in passes took 4.1 s against 2.2 s in one.
    all.compact(out.string(), Xapian::Compactor::FULL);
  }
  for (const Shard& shard : shards) {
    std::error_code ec;
    fs::remove_all(shard.path, ec);  // the temporary folder goes anyway, on success or not
  }
}

enum class BuildOutcome { Built, Cancelled, Failed };

// Indexes the whole corpus into `tmp`/kDbName; *error (without the index folder's name) when
// Failed. The temporary folder is the caller's to remove on anything but Built.
BuildOutcome buildDatabase(const Corpus& corpus, const fs::path& tmp,
                           const IndexBuildOptions& options, std::string* error) {
  const std::size_t total = corpus.size();
  const unsigned workerTotal = workerCount(options.threads, total);
  const std::vector<Shard> shards = planShards(total, workerTotal, tmp);
  BuildState state(options.stop);
  std::vector<std::thread> workers =
      startWorkers(workerTotal, corpus, shards, options.stemming, state);
  auto joinAll = [&workers] {
    for (auto& w : workers) w.join();
  };
  bool completed = false;
  try {
    completed = reportProgress(state, options, total);
  } catch (...) {
    // A throwing progress callback reaches the caller as before, not std::terminate through the
    // destructor of a running std::thread.
    state.halt();
    joinAll();
    throw;
  }
  joinAll();
  if (!completed || options.stop.stop_requested()) return BuildOutcome::Cancelled;
  if (std::string failure = state.error(); !failure.empty()) {
    *error = std::move(failure);
    return BuildOutcome::Failed;
  }
  if (shards.size() > 1) {
    try {
      mergeShards(shards, tmp / kDbName);
    } catch (const Xapian::Error& e) {
      *error = "Xapian: " + e.get_description();
      return BuildOutcome::Failed;
    }
  }
  return BuildOutcome::Built;
}

}  // namespace

const std::vector<std::string>& englishStopwords() {
  // Lucene's (and so Anserini's) English list: short on purpose, BM25's idf already discounts
  // common words, and a long list hurts queries like "what is the..." less than it hurts recall.
  static const std::vector<std::string> words = {
      "a",   "an",    "and",  "are",   "as",    "at",   "be",   "but", "by",  "for",  "if",
      "in",  "into",  "is",   "it",    "no",    "not",  "of",   "on",  "or",  "such", "that",
      "the", "their", "then", "there", "these", "they", "this", "to",  "was", "will", "with"};
  return words;
}

std::string corpusFingerprint(const Corpus& corpus) {
  Fnv64 h;
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    const Document& d = corpus.at(i);
    h.field(d.id);
    h.field(d.title);
    if (d.stored.file) {
      // A text left in its file is named by the file (path, size, time) and its place in it:
      // reading millions of passages back only to hash them would cost more than the check saves.
      h.field(d.stored.file->identity());
      h.field(std::to_string(d.stored.offset) + "+" + std::to_string(d.stored.length));
    } else {
      h.field(d.text);
    }
  }
  return std::to_string(corpus.size()) + "-" + hex64(h.h);
}

fs::path defaultIndexDir(const fs::path& datasetPath) {
  fs::path p = datasetPath;
  // "folder/" has an empty file name: drop trailing separators first.
  while (!p.empty() && p.filename().empty() && p != p.root_path()) p = p.parent_path();
  fs::path out = p;
  out += ".ragscope-index";
  return out;
}

bool indexMatches(const Corpus& corpus, const fs::path& dir, std::string* why, bool stemming) {
  auto manifest = readManifest(dir, why);
  if (!manifest) return false;
  if (manifest->value("version", 0) != kFormatVersion) {
    if (why) *why = "index format version changed";
    return false;
  }
  if (manifest->value("analysis", "") != analysisSignature(stemming)) {
    if (why)
      *why = manifest->value("stemming", true) != stemming
                 ? "built with stemming " + std::string(stemming ? "off" : "on")
                 : "analysis settings changed";
    return false;
  }
  if (manifest->value("fingerprint", "") != corpusFingerprint(corpus)) {
    if (why) *why = "corpus changed";
    return false;
  }
  std::error_code ec;
  if (!fs::is_directory(dir / kDbName, ec)) {
    if (why) *why = "database folder missing";
    return false;
  }
  return true;
}

IndexBuildResult openOrBuildIndex(const Corpus& corpus, const fs::path& dir,
                                  const IndexBuildOptions& options) {
  IndexBuildResult r;
  r.dir = dir;
  r.documents = corpus.size();
  const std::string fingerprint = corpusFingerprint(corpus);
  r.fingerprint = fingerprint;
  std::error_code ec;

  const bool exists = fs::exists(dir, ec);
  if (exists && !options.forceRebuild) {
    std::string why;
    if (indexMatches(corpus, dir, &why, options.stemming)) {
      r.ok = true;
      r.reused = true;
      r.bytes = folderBytes(dir);
      return r;
    }
    r.rebuildReason = why;
  } else if (exists) {
    r.rebuildReason = "rebuild requested";
  }
  if (options.readOnly) {
    if (!exists) r.rebuildReason = "no such folder";
    r.error = dir.string() + ": not opened read-only (" + r.rebuildReason + ")";
    return r;
  }
  // Never delete a folder we did not make: it must be empty or carry our manifest.
  if (exists) {
    if (!fs::is_directory(dir, ec)) {
      r.error = dir.string() + ": exists and is not a folder";
      return r;
    }
    const bool empty = fs::is_empty(dir, ec);
    std::string ignored;
    if (!empty && !readManifest(dir, &ignored)) {
      r.error = dir.string() + ": exists and is not a ragscope index (no " + kManifestName +
                "); choose another index folder";
      return r;
    }
  }
  if (corpus.empty()) {
    r.error = "the dataset has no corpus (documents) to index";
    return r;
  }

  const auto started = std::chrono::steady_clock::now();
  fs::path tmp = dir;
  tmp += ".building-" + std::to_string(::getpid());
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  if (ec) {
    r.error = tmp.string() + ": cannot create folder: " + ec.message();
    return r;
  }
  auto cleanup = [&tmp] {
    std::error_code e;
    fs::remove_all(tmp, e);
  };

  const std::size_t total = corpus.size();
  if (wantsStop(options, 0, total)) {
    r.cancelled = true;
    cleanup();
    return r;
  }
  std::string failure;
  switch (buildDatabase(corpus, tmp, options, &failure)) {
    case BuildOutcome::Built:
      break;
    case BuildOutcome::Cancelled:
      r.cancelled = true;
      cleanup();
      return r;
    case BuildOutcome::Failed:
      r.error = dir.string() + ": " + failure;
      cleanup();
      return r;
  }
  if (options.progress) options.progress(total, total);

  r.buildSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  nlohmann::json manifest = {
      {"format", kFormatName},
      {"version", kFormatVersion},
      {"fingerprint", fingerprint},
      {"documents", total},
      {"analysis", analysisSignature(options.stemming)},
      {"stemming", options.stemming},
      {"xapian", Xapian::version_string()},
      {"build_seconds", r.buildSeconds},
      {"created_unix", static_cast<long long>(std::time(nullptr))},
  };
  if (std::string err; !writeBytesAtomically(tmp / kManifestName, manifest.dump(2) + "\n", &err)) {
    r.error = err;
    cleanup();
    return r;
  }
  if (exists) {
    fs::remove_all(dir, ec);
    if (ec) {
      r.error = dir.string() + ": cannot replace old index: " + ec.message();
      cleanup();
      return r;
    }
  } else if (dir.has_parent_path()) {
    fs::create_directories(dir.parent_path(), ec);
  }
  fs::rename(tmp, dir, ec);
  if (ec) {
    r.error = dir.string() + ": cannot move the new index into place: " + ec.message();
    cleanup();
    return r;
  }
  r.ok = true;
  r.bytes = folderBytes(dir);
  return r;
}

// ---------------------------------------------------------------------------------------------

struct XapianRetriever::Handle {
  Xapian::Database db;
  Xapian::SimpleStopper stopper;
  Xapian::QueryParser parser;
  Xapian::Stem stem{"english"};

  bool stemming = true;

  Handle(const std::string& path, bool stemmed)
      : db(path), stopper(englishStopwords().begin(), englishStopwords().end()), stemming(stemmed) {
    if (stemming) {
      parser.set_stemmer(stem);
      parser.set_stemming_strategy(Xapian::QueryParser::STEM_SOME);
    } else {
      parser.set_stemming_strategy(Xapian::QueryParser::STEM_NONE);
    }
    parser.set_stopper(&stopper);
    parser.set_default_op(Xapian::Query::OP_OR);
    parser.set_database(db);
  }
};

XapianRetriever::~XapianRetriever() = default;

std::unique_ptr<XapianRetriever> XapianRetriever::open(const fs::path& dir,
                                                       const Bm25Params& params, std::string* error,
                                                       const Corpus* corpus) {
  std::unique_ptr<XapianRetriever> r(new XapianRetriever());
  r->m_dbDir = dir / kDbName;
  r->m_params = params;
  r->m_corpus = corpus;
  std::string why;
  const auto manifest = readManifest(dir, &why);
  if (!manifest) {
    if (error) *error = dir.string() + ": not a ragscope index (" + why + ")";
    return nullptr;
  }
  // Queries are analysed as the documents were (indexes from before the option are stemmed).
  r->m_stemming = manifest->value("stemming", true);
  auto h = r->borrow(error);
  if (!h) return nullptr;
  r->m_documents = h->db.get_doccount();
  r->giveBack(std::move(h));
  return r;
}

std::unique_ptr<XapianRetriever::Handle> XapianRetriever::borrow(std::string* error) {
  {
    std::lock_guard lock(m_mutex);
    if (!m_pool.empty()) {
      auto h = std::move(m_pool.back());
      m_pool.pop_back();
      return h;
    }
  }
  try {
    return std::make_unique<Handle>(m_dbDir.string(), m_stemming);
  } catch (const Xapian::Error& e) {
    if (error) *error = m_dbDir.string() + ": Xapian: " + e.get_description();
    return nullptr;
  }
}

void XapianRetriever::giveBack(std::unique_ptr<Handle> h) {
  std::lock_guard lock(m_mutex);
  m_pool.push_back(std::move(h));
}

std::vector<ScoredDoc> XapianRetriever::search(const Query& query, std::size_t k,
                                               std::string* error) {
  if (k == 0) return {};
  auto h = borrow(error);
  if (!h) return {};
  std::vector<ScoredDoc> out;
  try {
    Xapian::Query q;
    try {
      // No flags: questions are full of '-', '"', ':' and capitalised AND/OR/NOT that must stay
      // words, not operators.
      q = h->parser.parse_query(query.text, 0);
    } catch (const Xapian::QueryParserError&) {
      // Fall back to an OR of the stemmed words, built by hand.
      std::vector<Xapian::Query> terms;
      std::string word;
      auto flush = [&] {
        if (word.empty()) return;
        if (!h->stopper(word)) terms.emplace_back(h->stemming ? "Z" + h->stem(word) : word);
        word.clear();
      };
      for (unsigned char c : query.text) {
        if (std::isalnum(c) || c >= 0x80)
          word += static_cast<char>(std::tolower(c));
        else
          flush();
      }
      flush();
      q = Xapian::Query(Xapian::Query::OP_OR, terms.begin(), terms.end());
    }
    if (q.empty()) {
      giveBack(std::move(h));
      return {};
    }
    Xapian::Enquire enquire(h->db);
    enquire.set_weighting_scheme(
        Xapian::BM25Weight(m_params.k1, m_params.k2, m_params.k3, m_params.b, m_params.minNormLen));
    enquire.set_query(q);
    const Xapian::MSet mset = enquire.get_mset(0, static_cast<Xapian::doccount>(k));
    out.reserve(mset.size());
    for (auto it = mset.begin(); it != mset.end(); ++it) {
      ScoredDoc d;
      d.id = it.get_document().get_data();
      d.score = it.get_weight();
      if (m_corpus) {
        if (auto doc = m_corpus->find(d.id)) d.text = doc->fullText();
      }
      out.push_back(std::move(d));
    }
  } catch (const Xapian::DatabaseModifiedError&) {
    // Rebuilt underneath us: drop the handle; the caller's retry gets a fresh one.
    if (error) *error = m_dbDir.string() + ": index changed during the search; retry";
    return {};
  } catch (const Xapian::Error& e) {
    if (error) *error = m_dbDir.string() + ": Xapian: " + e.get_description();
    return {};
  }
  giveBack(std::move(h));
  return out;
}

}  // namespace ragscope::core
