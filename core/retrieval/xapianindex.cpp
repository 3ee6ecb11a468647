#include "core/retrieval/xapianindex.h"

#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>
#include <xapian.h>

#include "core/data/inputfile.h"
#include "core/util/atomicfile.h"

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
  const auto text = readBoundedFile(dir / kManifestName, kMaxSmallJsonBytes, "an index manifest", problem);
  if (!text) {
    if (why) *why = "no readable manifest (" + problem + ")";
    return std::nullopt;
  }
  try {
    nlohmann::json j = nlohmann::json::parse(*text);
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

std::unique_ptr<Xapian::SimpleStopper> makeStopper() {
  const auto& words = englishStopwords();
  return std::make_unique<Xapian::SimpleStopper>(words.begin(), words.end());
}

bool wantsStop(const IndexBuildOptions& o, std::size_t done, std::size_t total) {
  if (o.stop.stop_requested()) return true;
  return o.progress && !o.progress(done, total);
}

}  // namespace

const std::vector<std::string>& englishStopwords() {
  // Lucene's (and so Anserini's) English list: short on purpose, BM25's idf already discounts
  // common words, and a long list hurts queries like "what is the..." less than it hurts recall.
  static const std::vector<std::string> words = {
      "a",    "an",   "and",  "are",   "as",    "at",   "be",    "but",  "by",
      "for",  "if",   "in",   "into",  "is",    "it",   "no",    "not",  "of",
      "on",   "or",   "such", "that",  "the",   "their", "then", "there", "these",
      "they", "this", "to",   "was",   "will",  "with"};
  return words;
}

std::string corpusFingerprint(const Corpus& corpus) {
  Fnv64 h;
  for (const Document& d : corpus.documents()) {
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
    if (why) *why = manifest->value("stemming", true) != stemming ? "built with stemming " + std::string(stemming ? "off" : "on")
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
  try {
    Xapian::WritableDatabase db((tmp / kDbName).string(),
                                Xapian::DB_CREATE_OR_OVERWRITE | Xapian::DB_NO_SYNC);
    Xapian::TermGenerator gen;
    if (options.stemming) {
      gen.set_stemmer(Xapian::Stem("english"));
      gen.set_stemming_strategy(Xapian::TermGenerator::STEM_SOME);
    } else {
      gen.set_stemming_strategy(Xapian::TermGenerator::STEM_NONE);
    }
    auto stopper = makeStopper();
    gen.set_stopper(stopper.get());
    gen.set_stopper_strategy(Xapian::TermGenerator::STOP_STEMMED);

    if (wantsStop(options, 0, total)) {
      r.cancelled = true;
      cleanup();
      return r;
    }
    const std::size_t step = 500;
    std::size_t done = 0;
    for (const Document& d : corpus.documents()) {
      Xapian::Document doc;
      doc.set_data(d.id);
      if (d.id.size() <= kMaxIdTermBytes) doc.add_boolean_term("Q" + d.id);
      gen.set_document(doc);
      if (!d.title.empty()) {
        gen.index_text_without_positions(d.title);
        gen.increase_termpos();
      }
      gen.index_text_without_positions(d.fullText());
      db.add_document(doc);
      ++done;
      if (done % step == 0 && wantsStop(options, done, total)) {
        db.close();
        r.cancelled = true;
        cleanup();
        return r;
      }
    }
    db.commit();
    db.close();
  } catch (const Xapian::Error& e) {
    r.error = dir.string() + ": Xapian: " + e.get_description();
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
                                                       const Bm25Params& params,
                                                       std::string* error,
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
    enquire.set_weighting_scheme(Xapian::BM25Weight(m_params.k1, m_params.k2, m_params.k3,
                                                    m_params.b, m_params.minNormLen));
    enquire.set_query(q);
    const Xapian::MSet mset = enquire.get_mset(0, static_cast<Xapian::doccount>(k));
    out.reserve(mset.size());
    for (auto it = mset.begin(); it != mset.end(); ++it) {
      ScoredDoc d;
      d.id = it.get_document().get_data();
      d.score = it.get_weight();
      if (m_corpus) {
        if (const Document* doc = m_corpus->find(d.id)) d.text = doc->fullText();
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
