#include "core/store/runstore.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <ctime>

#include "core/export/json.h"
#include "core/util/jsonstrict.h"

namespace ragscope::core::store {

namespace {

constexpr const char* kSchema = R"(
CREATE TABLE run (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  kind TEXT NOT NULL,
  settings TEXT NOT NULL,
  template_text TEXT NOT NULL,
  template_hash TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  status TEXT NOT NULL,
  created TEXT NOT NULL,
  updated TEXT NOT NULL
);
CREATE TABLE items (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  request TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending',
  attempts INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX items_status ON items(status);
CREATE TABLE results (
  item_id INTEGER PRIMARY KEY REFERENCES items(id),
  response TEXT NOT NULL,
  extra TEXT,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  cost_usd REAL NOT NULL,
  latency_ms REAL NOT NULL,
  http_status INTEGER NOT NULL,
  error TEXT,
  from_cache INTEGER NOT NULL,
  heuristic INTEGER NOT NULL,
  created TEXT NOT NULL
);
CREATE TABLE run_data (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
)";

// Stores made before run_data was part of kSchema get it when first written (putData).
constexpr const char* kRunDataTableSql =
    "CREATE TABLE IF NOT EXISTS run_data (name TEXT PRIMARY KEY, value TEXT NOT NULL)";

void setError(std::string* error, std::string text) {
  if (error) *error = std::move(text);
}

// What both opens refuse before SQLite sees the file: a missing file, and a file that is not
// SQLite at all (SQLite would take it, and the read-write open would switch it to WAL).
bool refuseNonStoreFile(const std::filesystem::path& path, std::string* error) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    setError(error, path.string() + ": no such run store");
    return false;
  }
  if (!RunStore::hasSqliteHeader(path)) {
    setError(error, path.string() + ": not a ragscope run store (not a SQLite database)");
    return false;
  }
  return true;
}

}  // namespace

const SqliteSchema& runStoreSchema() {
  // The schema above, the scores tables the eRAG and end-to-end jobs add, and (by the check) the
  // automatic indexes of their keys.
  static const SqliteSchema schema{
      {kSchema, kRunDataTableSql, kEragLabelsTableSql, kQueryScoresTableSql}};
  return schema;
}

std::string_view itemStatusName(ItemStatus status) {
  switch (status) {
    case ItemStatus::Pending:
      return "pending";
    case ItemStatus::Done:
      return "done";
    case ItemStatus::Error:
      return "error";
    case ItemStatus::Cancelled:
      return "cancelled";
  }
  return "pending";
}

std::optional<ItemStatus> itemStatusFromName(std::string_view name) {
  if (name == "pending") return ItemStatus::Pending;
  if (name == "done") return ItemStatus::Done;
  if (name == "error") return ItemStatus::Error;
  if (name == "cancelled") return ItemStatus::Cancelled;
  return std::nullopt;
}

std::string isoNowUtc() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

bool RunStore::create(const std::filesystem::path& path, RunRecord record, std::string* error) {
  m_readOnly = false;
  // The record's settings and endpoint are JSON objects (open() refuses anything else).
  if (record.settings.is_null()) record.settings = nlohmann::json::object();
  if (record.endpoint.is_null()) record.endpoint = nlohmann::json::object();
  if (!record.settings.is_object() || !record.endpoint.is_object()) {
    setError(error, path.string() + ": the run's settings and endpoint must be JSON objects");
    return false;
  }
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    setError(error, path.string() + ": already exists (resume it, or choose another --store)");
    return false;
  }
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  if (!m_db.open(path, true, error)) return false;
  std::string err;
  if (!m_db.exec("BEGIN", &err) || !m_db.exec(kSchema, &err)) {
    setError(error, path.string() + ": " + err);
    m_db.close();
    return false;
  }
  if (record.created.empty()) record.created = isoNowUtc();
  record.updated = record.created;
  auto st = m_db.prepare(
      "INSERT INTO run(id, kind, settings, template_text, template_hash, endpoint, status, "
      "created, updated) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)");
  st.bind(1, record.kind)
      .bind(2, exporting::jsonText(record.settings))
      .bind(3, record.templateText)
      .bind(4, record.templateHash)
      .bind(5, exporting::jsonText(record.endpoint))
      .bind(6, record.status)
      .bind(7, record.created)
      .bind(8, record.updated);
  st.step();
  if (!st.ok() ||
      !m_db.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion) + "; COMMIT", &err)) {
    setError(error, path.string() + ": " + (err.empty() ? m_db.lastError() : err));
    m_db.close();
    return false;
  }
  m_path = path;
  return prepareStatements(error);
}

bool RunStore::open(const std::filesystem::path& path, std::string* error) {
  m_readOnly = false;
  if (!refuseNonStoreFile(path, error)) return false;
  // Checked before it is opened for writing: a damaged or foreign store is refused untouched
  // (the read-write open switches the file to WAL).
  if (!m_db.openReadOnly(path, error) || !checkOpened(path, error)) return false;
  m_db.close();
  if (!m_db.open(path, false, error)) return false;
  m_path = path;
  return prepareStatements(error);
}

bool RunStore::openReadOnly(const std::filesystem::path& path, std::string* error) {
  m_readOnly = true;
  if (!refuseNonStoreFile(path, error)) return false;
  if (!m_db.openReadOnly(path, error) || !checkOpened(path, error)) return false;
  m_path = path;
  return true;
}

bool RunStore::checkOpened(const std::filesystem::path& path, std::string* error) {
  auto fail = [&](const std::string& why) {
    setError(error, path.string() + ": " + why);
    m_db.close();
    return false;
  };
  auto version = m_db.prepare("PRAGMA user_version");
  if (!version.valid() || !version.step()) {
    return fail("not a readable ragscope run store (" + m_db.lastError() + ")");
  }
  if (version.int64(0) != kSchemaVersion) {
    return fail("not a ragscope run store of schema " + std::to_string(kSchemaVersion) +
                " (user_version " + std::to_string(version.int64(0)) + ")");
  }
  // A store from elsewhere is untrusted input: nothing but our tables (no view or trigger that
  // would run code, or spin, on every read).
  if (auto problem = m_db.schemaProblem(runStoreSchema()))
    return fail("not a ragscope run store: it " + *problem + "; it is not read");
  // A damaged file gives wrong answers without any error (rows missing from an index, pages of
  // another table): check it before reading anything. integrity_check, not quick_check: a flipped
  // byte in a row's key or status leaves the b-trees well-formed but the row missing from its
  // index, which only integrity_check's cross-check sees (80 of 400 seeded 5-byte flips of a demo
  // store), and the engine reads through those indexes (items by status, by key). Its cost is
  // small: 2-3 ms on a 1,000-item store with 2 kB prompts, about what quick_check takes
  // (tests/tst_engine.cpp: storeIntegrityCost prints both); it grows linearly with the store.
  {
    auto check = m_db.prepare("PRAGMA integrity_check(5)");
    if (!check.valid()) return fail("the run store is damaged (" + m_db.lastError() + ")");
    std::string problems;
    while (check.step()) {
      const std::string row = check.text(0);
      if (row == "ok") continue;
      problems += (problems.empty() ? "" : "; ") + row;
    }
    if (!check.ok()) problems += (problems.empty() ? "" : "; ") + m_db.lastError();
    if (!problems.empty()) {
      if (problems.size() > 300) problems = problems.substr(0, 300) + "...";
      return fail("the run store is damaged (SQLite integrity_check: " + problems +
                  "); it is not read. Use an intact copy of it");
    }
  }
  auto row = m_db.prepare(
      "SELECT kind, settings, endpoint, typeof(kind), typeof(settings), typeof(endpoint) FROM run "
      "WHERE id = 1");
  if (!row.valid())
    return fail("not a ragscope run store (no run table: " + m_db.lastError() + ")");
  if (!row.step()) {
    return fail(row.ok() ? "the run's record (table run, row 1) is missing"
                         : "the run's record cannot be read (" + m_db.lastError() + ")");
  }
  if (row.text(3) != "text" || row.text(0).empty()) return fail("run.kind is not a job name");
  // Strict (core/util/jsonstrict.h): a store from elsewhere must not show one endpoint or path
  // to a reader of its text and give ragscope another.
  const auto settings = parseJsonStrictOrDiscarded(row.text(1));
  if (!settings.is_object()) return fail("run.settings is not a JSON object");
  const auto endpoint = parseJsonStrictOrDiscarded(row.text(2));
  if (!endpoint.is_object()) return fail("run.endpoint is not a JSON object");
  return true;
}

bool RunStore::refuseWrite(std::string* error) const {
  if (!m_readOnly) return false;
  setError(error, m_path.string() + ": opened read-only (for viewing)");
  return true;
}

bool RunStore::hasSqliteHeader(const std::filesystem::path& path) {
  return SqliteDb::hasSqliteHeader(path);
}

bool RunStore::looksLikeRunStore(const std::filesystem::path& path) {
  // Only SQLite files: SQLite must not create or touch anything else.
  if (!hasSqliteHeader(path)) return false;
  SqliteDb db;
  if (!db.openReadOnly(path, nullptr)) return false;
  // The run table, even without its row: such a store is listed (as unreadable), not skipped.
  auto st = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'run'");
  return st.valid() && st.step();
}

bool RunStore::prepareStatements(std::string* error) {
  std::string err;
  m_insertResult = m_db.prepare(
      "INSERT OR REPLACE INTO results(item_id, response, extra, prompt_tokens, completion_tokens, "
      "cost_usd, latency_ms, http_status, error, from_cache, heuristic, created) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      &err);
  if (m_insertResult.valid()) {
    m_updateItem =
        m_db.prepare("UPDATE items SET status = ?, attempts = attempts + ? WHERE id = ?", &err);
  }
  if (!m_insertResult.valid() || !m_updateItem.valid()) {
    setError(error, m_path.string() + ": " + err);
    m_db.close();
    return false;
  }
  return true;
}

RunRecord RunStore::run() {
  RunRecord r;
  r.settings = nlohmann::json::object();
  r.endpoint = nlohmann::json::object();
  r.status.clear();
  if (!m_db.isOpen()) return r;
  auto st = m_db.prepare(
      "SELECT kind, settings, template_text, template_hash, endpoint, status, created, updated "
      "FROM run WHERE id = 1");
  if (st.valid() && st.step()) {
    r.kind = st.text(0);
    // Never a "discarded" value (json::value() on it throws): what is not an object reads as {}.
    auto settings = parseJsonStrictOrDiscarded(st.text(1));
    if (settings.is_object()) r.settings = std::move(settings);
    r.templateText = st.text(2);
    r.templateHash = st.text(3);
    auto endpoint = parseJsonStrictOrDiscarded(st.text(4));
    if (endpoint.is_object()) r.endpoint = std::move(endpoint);
    r.status = st.text(5);
    r.created = st.text(6);
    r.updated = st.text(7);
  }
  return r;
}

bool RunStore::putData(std::string_view name, std::string_view value, std::string* error) {
  if (refuseWrite(error)) return false;
  std::string err;
  // Stores made before the table existed get it when first written.
  if (!m_db.exec(kRunDataTableSql, &err)) {
    setError(error, m_path.string() + ": " + err);
    return false;
  }
  auto st = m_db.prepare("INSERT OR REPLACE INTO run_data(name, value) VALUES (?, ?)");
  st.bind(1, name).bind(2, value);
  st.step();
  if (!st.ok()) {
    setError(error, m_path.string() + ": " + m_db.lastError());
    return false;
  }
  return true;
}

std::optional<std::string> RunStore::data(std::string_view name) {
  if (!m_db.isOpen()) return std::nullopt;
  auto has = m_db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'run_data'");
  if (!has.valid() || !has.step()) return std::nullopt;
  auto st = m_db.prepare("SELECT value FROM run_data WHERE name = ?");
  if (!st.valid()) return std::nullopt;
  st.bind(1, name);
  if (!st.step()) return std::nullopt;
  return st.text(0);
}

bool RunStore::setStatus(std::string_view status, std::string* error) {
  if (refuseWrite(error)) return false;
  auto st = m_db.prepare("UPDATE run SET status = ?, updated = ? WHERE id = 1");
  st.bind(1, status).bind(2, isoNowUtc());
  st.step();
  if (!st.ok()) setError(error, m_path.string() + ": " + m_db.lastError());
  return st.ok();
}

bool RunStore::addItems(const std::vector<NewItem>& items, std::string* error) {
  if (refuseWrite(error)) return false;
  std::string err;
  if (!m_db.exec("BEGIN", &err)) {
    setError(error, m_path.string() + ": " + err);
    return false;
  }
  auto st = m_db.prepare("INSERT OR IGNORE INTO items(key, kind, request) VALUES (?, ?, ?)");
  for (const auto& item : items) {
    st.reset();
    st.bind(1, item.key).bind(2, item.kind).bind(3, item.requestJson);
    st.step();
    if (!st.ok()) {
      setError(error, m_path.string() + ": item " + item.key + ": " + m_db.lastError());
      m_db.exec("ROLLBACK");
      return false;
    }
  }
  if (!m_db.exec("COMMIT", &err)) {
    setError(error, m_path.string() + ": " + err);
    m_db.exec("ROLLBACK");
    return false;
  }
  return true;
}

namespace {

WorkItem readItem(const SqliteStatement& st) {
  WorkItem w;
  w.id = st.int64(0);
  w.key = st.text(1);
  w.kind = st.text(2);
  w.requestJson = st.text(3);
  w.status = itemStatusFromName(st.text(4)).value_or(ItemStatus::Pending);
  w.attempts = static_cast<int>(st.int64(5));
  return w;
}

}  // namespace

std::vector<WorkItem> RunStore::items(std::optional<ItemStatus> only) {
  std::vector<WorkItem> out;
  auto st = m_db.prepare(only ? "SELECT id, key, kind, request, status, attempts FROM items "
                                "WHERE status = ? ORDER BY id"
                              : "SELECT id, key, kind, request, status, attempts FROM items "
                                "ORDER BY id");
  if (only) st.bind(1, itemStatusName(*only));
  while (st.step()) out.push_back(readItem(st));
  return out;
}

std::vector<std::pair<std::string, ItemStatus>> RunStore::itemKeys() {
  std::vector<std::pair<std::string, ItemStatus>> out;
  auto st = m_db.prepare("SELECT key, status FROM items ORDER BY id");
  while (st.step())
    out.emplace_back(st.text(0), itemStatusFromName(st.text(1)).value_or(ItemStatus::Pending));
  return out;
}

std::vector<WorkItem> RunStore::itemsToRun(bool retryErrors) {
  std::vector<WorkItem> out;
  auto st =
      m_db.prepare(retryErrors ? "SELECT id, key, kind, request, status, attempts FROM items "
                                 "WHERE status IN ('pending', 'cancelled', 'error') ORDER BY id"
                               : "SELECT id, key, kind, request, status, attempts FROM items "
                                 "WHERE status IN ('pending', 'cancelled') ORDER BY id");
  while (st.step()) out.push_back(readItem(st));
  return out;
}

bool RunStore::commitResults(const std::vector<ItemResult>& results, std::string* error) {
  if (refuseWrite(error)) return false;
  if (results.empty()) return true;
  std::string err;
  // Inside beginResults the outer transaction holds these rows; a failure rolls all of it back.
  const bool outer = m_inResults;
  if (outer) m_inResults = false;  // set again below unless this piece fails
  if (!outer && !m_db.exec("BEGIN IMMEDIATE", &err)) {
    setError(error, m_path.string() + ": " + err);
    return false;
  }
  const std::string now = isoNowUtc();
  for (const auto& r : results) {
    if (r.status != ItemStatus::Cancelled) {
      m_insertResult.reset();
      m_insertResult.bind(1, r.itemId).bind(2, r.text);
      if (r.extra.is_null()) {
        m_insertResult.bindNull(3);
      } else {
        m_insertResult.bind(3, exporting::jsonText(r.extra));
      }
      m_insertResult.bind(4, r.usage.promptTokens)
          .bind(5, r.usage.completionTokens)
          .bind(6, r.usage.costUsd)
          .bind(7, r.latencyMs)
          .bind(8, r.httpStatus);
      if (r.error.empty()) {
        m_insertResult.bindNull(9);
      } else {
        m_insertResult.bind(9, r.error);
      }
      m_insertResult.bind(10, r.fromCache ? 1 : 0).bind(11, r.heuristic ? 1 : 0).bind(12, now);
      m_insertResult.step();
      if (!m_insertResult.ok()) {
        setError(error, m_path.string() + ": result of item " + std::to_string(r.itemId) + ": " +
                            m_db.lastError());
        m_insertResult.reset();
        m_db.exec("ROLLBACK");
        return false;
      }
    }
    m_updateItem.reset();
    // A cancelled call did not complete: it does not count as an attempt.
    m_updateItem.bind(1, itemStatusName(r.status))
        .bind(2, r.status == ItemStatus::Cancelled ? 0 : std::max(1, r.attempts))
        .bind(3, r.itemId);
    m_updateItem.step();
    if (!m_updateItem.ok()) {
      setError(error,
               m_path.string() + ": item " + std::to_string(r.itemId) + ": " + m_db.lastError());
      m_updateItem.reset();
      m_db.exec("ROLLBACK");
      return false;
    }
  }
  m_insertResult.reset();
  m_updateItem.reset();
  auto st = m_db.prepare("UPDATE run SET updated = ? WHERE id = 1");
  st.bind(1, now);
  st.step();
  if (outer) {
    m_inResults = true;
    return true;
  }
  if (!m_db.exec("COMMIT", &err)) {
    setError(error, m_path.string() + ": " + err);
    m_db.exec("ROLLBACK");
    return false;
  }
  return true;
}

bool RunStore::beginResults(std::string* error) {
  if (refuseWrite(error)) return false;
  std::string err;
  if (m_inResults || !m_db.exec("BEGIN IMMEDIATE", &err)) {
    setError(error, m_path.string() + ": " + (err.empty() ? "a transaction is open" : err));
    return false;
  }
  m_inResults = true;
  return true;
}

bool RunStore::commitBegunResults(std::string* error) {
  if (!m_inResults) {
    setError(error, m_path.string() + ": the results were rolled back");
    return false;
  }
  m_inResults = false;
  std::string err;
  if (!m_db.exec("COMMIT", &err)) {
    setError(error, m_path.string() + ": " + err);
    m_db.exec("ROLLBACK");
    return false;
  }
  return true;
}

void RunStore::rollbackBegunResults() {
  if (!m_inResults) return;
  m_inResults = false;
  m_db.exec("ROLLBACK");
}

RunCounts RunStore::counts() {
  RunCounts c;
  auto st = m_db.prepare("SELECT status, COUNT(*) FROM items GROUP BY status");
  while (st.step()) {
    const auto n = static_cast<std::size_t>(st.int64(1));
    c.total += n;
    switch (itemStatusFromName(st.text(0)).value_or(ItemStatus::Pending)) {
      case ItemStatus::Pending:
        c.pending += n;
        break;
      case ItemStatus::Done:
        c.done += n;
        break;
      case ItemStatus::Error:
        c.errors += n;
        break;
      case ItemStatus::Cancelled:
        c.cancelled += n;
        break;
    }
  }
  auto sums = m_db.prepare(
      "SELECT COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0), "
      "COALESCE(SUM(cost_usd), 0), COALESCE(SUM(from_cache), 0), COALESCE(SUM(heuristic), 0) "
      "FROM results");
  if (sums.step()) {
    c.promptTokens = sums.int64(0);
    c.completionTokens = sums.int64(1);
    c.costUsd = sums.real(2);
    c.fromCache = static_cast<std::size_t>(sums.int64(3));
    c.heuristic = static_cast<std::size_t>(sums.int64(4));
  }
  return c;
}

std::vector<StoredResult> RunStore::results() {
  std::vector<StoredResult> out;
  forEachResult([&](StoredResult&& s) {
    out.push_back(std::move(s));
    return true;
  });
  return out;
}

bool RunStore::limitPageCache(int kib, std::string* error) {
  return m_db.exec("PRAGMA cache_size=-" + std::to_string(std::max(kib, 64)), error);
}

bool RunStore::forEachResult(const std::function<bool(StoredResult&&)>& visit) {
  auto st = m_db.prepare(
      "SELECT i.key, i.kind, i.status, r.item_id, r.response, r.extra, r.prompt_tokens, "
      "r.completion_tokens, r.cost_usd, r.latency_ms, r.http_status, r.error, r.from_cache, "
      "r.heuristic FROM results r JOIN items i ON i.id = r.item_id ORDER BY i.id");
  while (st.step()) {
    StoredResult s;
    s.key = st.text(0);
    s.kind = st.text(1);
    auto& r = s.result;
    r.status = itemStatusFromName(st.text(2)).value_or(ItemStatus::Done);
    r.itemId = st.int64(3);
    r.text = st.text(4);
    if (!st.isNull(5)) r.extra = parseJsonStrictOrDiscarded(st.text(5));
    r.usage.promptTokens = st.int64(6);
    r.usage.completionTokens = st.int64(7);
    r.usage.costUsd = st.real(8);
    r.latencyMs = st.real(9);
    r.httpStatus = static_cast<int>(st.int64(10));
    if (!st.isNull(11)) r.error = st.text(11);
    r.fromCache = st.int64(12) != 0;
    r.heuristic = st.int64(13) != 0;
    if (!visit(std::move(s))) return false;
  }
  return true;
}

}  // namespace ragscope::core::store
