#include "core/llm/responsecache.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "core/export/json.h"
#include "core/llm/llmjson.h"
#include "core/util/sha256.h"
#include "core/util/userfolders.h"

namespace ragscope::core::llm {

namespace {
constexpr int kSchemaVersion = 1;
}

std::filesystem::path ResponseCache::defaultPath() {
  return userCacheFolder() / "responses.sqlite";
}

std::string ResponseCache::key(std::string_view identity, std::string_view body) {
  Sha256 h;
  h.update(identity);
  // A separator that cannot occur in either part keeps ("ab","c") and ("a","bc") apart.
  h.update("\0", 1);
  h.update(body);
  return h.hexDigest();
}

std::string ResponseCache::key(const Provider& provider, const LlmRequest& request) {
  return key(provider.cacheIdentity(), provider.requestBody(request));
}

namespace {

// The cache's one table (and, by the check, the automatic index of its key): created with this
// statement, and a cache file is opened only when its table is defined exactly so.
constexpr const char* kCacheTableSql =
    "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, identity TEXT NOT NULL, "
    "response TEXT NOT NULL, created INTEGER NOT NULL);";
const SqliteSchema kCacheSchema{{kCacheTableSql}};

}  // namespace

bool ResponseCache::isCacheFile(const std::filesystem::path& path) {
  if (!SqliteDb::hasSqliteHeader(path)) return false;
  SqliteDb db;
  return db.openReadOnly(path, nullptr) && !db.schemaProblem(kCacheSchema);
}

bool ResponseCache::open(const std::filesystem::path& path, std::string* error) {
  std::lock_guard lock(m_mutex);
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  // An existing file is checked read-only first, so a foreign database handed over as a cache is
  // refused without a byte of it changed (the read-write open would switch it to WAL).
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_symlink(path, ec) &&
      std::filesystem::file_size(path, ec) > 0) {
    SqliteDb check;
    if (!check.openReadOnly(path, error)) return false;
    if (auto problem = check.schemaProblem(kCacheSchema)) {
      if (error) *error = path.string() + ": not a ragscope response cache: it " + *problem;
      return false;
    }
  }
  if (!m_db.open(path, true, error)) return false;
  std::string err;
  // Checked again on the connection that writes (the file may have changed in between).
  if (auto problem = m_db.schemaProblem(kCacheSchema)) {
    if (error) *error = path.string() + ": not a ragscope response cache: it " + *problem;
    m_db.close();
    return false;
  }
  const int version = m_db.userVersion();
  if (version > kSchemaVersion) {
    if (error)
      *error = path.string() + ": cache schema " + std::to_string(version) +
               " is newer than this ragscope";
    m_db.close();
    return false;
  }
  if (!m_db.exec(std::string(kCacheTableSql) + "PRAGMA user_version = 1;", &err)) {
    if (error) *error = path.string() + ": " + err;
    m_db.close();
    return false;
  }
  m_select = m_db.prepare("SELECT response FROM responses WHERE key = ?");
  m_insert = m_db.prepare(
      "INSERT OR REPLACE INTO responses(key, identity, response, created) VALUES (?, ?, ?, ?)");
  m_path = path;
  return m_select.valid() && m_insert.valid();
}

bool ResponseCache::isOpen() const {
  std::lock_guard lock(m_mutex);
  return m_db.isOpen();
}

std::optional<LlmResponse> ResponseCache::lookup(const std::string& key) {
  std::string stored;
  {
    std::lock_guard lock(m_mutex);
    if (!m_db.isOpen()) return std::nullopt;
    m_select.reset();
    m_select.bind(1, key);
    const bool found = m_select.step();
    if (found) stored = m_select.text(0);
    m_select.reset();
    if (!found) {
      ++m_misses;
      return std::nullopt;
    }
  }
  auto response = fromStored(stored);
  if (!response) {
    ++m_misses;
    return std::nullopt;
  }
  ++m_hits;
  return response;
}

std::optional<LlmResponse> ResponseCache::fromStored(const std::string& stored) {
  auto response = responseFromJson(nlohmann::json::parse(stored, nullptr, false));
  if (!response) return std::nullopt;  // unreadable: asked again, and replaced when answered
  response->fromCache = true;
  response->usage.costUsd = 0.0;
  response->attempts = 0;
  return response;
}

std::vector<std::optional<std::string>> ResponseCache::lookupStored(
    const std::vector<std::string>& keys) {
  std::vector<std::optional<std::string>> out(keys.size());
  std::lock_guard lock(m_mutex);
  if (!m_db.isOpen()) return out;
  // One read transaction for the window: a lock and a snapshot check instead of one per key.
  const bool inTransaction = m_db.exec("BEGIN", nullptr);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    m_select.reset();
    m_select.bind(1, keys[i]);
    if (m_select.step()) out[i] = m_select.text(0);
  }
  m_select.reset();
  if (inTransaction) m_db.exec("COMMIT", nullptr);
  return out;
}

bool ResponseCache::store(const std::string& key, std::string_view identity,
                          const LlmResponse& response) {
  if (response.status != CallStatus::Ok) return false;
  const std::string body = exporting::jsonText(responseToJson(response));
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  std::lock_guard lock(m_mutex);
  if (!m_db.isOpen()) return false;
  m_insert.reset();
  m_insert.bind(1, key).bind(2, identity).bind(3, body).bind(4, std::int64_t{now});
  m_insert.step();
  const bool ok = m_insert.ok();
  m_insert.reset();
  if (ok) ++m_stores;
  return ok;
}

std::uint64_t ResponseCache::entryCount() {
  std::lock_guard lock(m_mutex);
  if (!m_db.isOpen()) return 0;
  return static_cast<std::uint64_t>(m_db.scalarInt("SELECT COUNT(*) FROM responses").value_or(0));
}

}  // namespace ragscope::core::llm
