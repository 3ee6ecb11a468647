#include "core/util/sqlitedb.h"

#include <sqlite3.h>

#include <cctype>
#include <fstream>
#include <utility>

namespace ragscope::core {

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : m_db(std::exchange(other.m_db, nullptr)),
      m_stmt(std::exchange(other.m_stmt, nullptr)),
      m_ok(other.m_ok) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    if (m_stmt) sqlite3_finalize(m_stmt);
    m_db = std::exchange(other.m_db, nullptr);
    m_stmt = std::exchange(other.m_stmt, nullptr);
    m_ok = other.m_ok;
  }
  return *this;
}

SqliteStatement::~SqliteStatement() {
  if (m_stmt) sqlite3_finalize(m_stmt);
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view text) {
  if (m_stmt &&
      sqlite3_bind_text64(m_stmt, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8) !=
          SQLITE_OK) {
    m_ok = false;
  }
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value) {
  if (m_stmt && sqlite3_bind_int64(m_stmt, index, value) != SQLITE_OK) m_ok = false;
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
  if (m_stmt && sqlite3_bind_double(m_stmt, index, value) != SQLITE_OK) m_ok = false;
  return *this;
}

SqliteStatement& SqliteStatement::bindBlob(int index, std::string_view bytes) {
  if (m_stmt &&
      sqlite3_bind_blob64(m_stmt, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT) != SQLITE_OK) {
    m_ok = false;
  }
  return *this;
}

SqliteStatement& SqliteStatement::bindNull(int index) {
  if (m_stmt && sqlite3_bind_null(m_stmt, index) != SQLITE_OK) m_ok = false;
  return *this;
}

bool SqliteStatement::step() {
  if (!m_stmt) {
    m_ok = false;
    return false;
  }
  const int rc = sqlite3_step(m_stmt);
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE) m_ok = false;
  return false;
}

void SqliteStatement::reset() {
  if (!m_stmt) return;
  sqlite3_reset(m_stmt);
  sqlite3_clear_bindings(m_stmt);
  m_ok = true;
}

std::int64_t SqliteStatement::int64(int column) const { return sqlite3_column_int64(m_stmt, column); }

double SqliteStatement::real(int column) const { return sqlite3_column_double(m_stmt, column); }

std::string SqliteStatement::text(int column) const {
  const auto* p = static_cast<const char*>(sqlite3_column_blob(m_stmt, column));
  const int n = sqlite3_column_bytes(m_stmt, column);
  return p ? std::string(p, static_cast<std::size_t>(n)) : std::string();
}

bool SqliteStatement::isNull(int column) const {
  return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

SqliteDb::~SqliteDb() { close(); }

bool SqliteDb::open(const std::filesystem::path& path, bool create, std::string* error) {
  close();
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.string().c_str(), &m_db, flags, nullptr) != SQLITE_OK) {
    if (error) *error = path.string() + ": " + (m_db ? sqlite3_errmsg(m_db) : "cannot open");
    close();
    return false;
  }
  sqlite3_busy_timeout(m_db, 10000);
  std::string err;
  // A page cache of up to 64 MiB (allocated as pages are read) and a checkpoint every 64 MiB of
  // WAL rather than 4: a run store of 50,000 calls is then written once instead of being copied
  // back from the WAL every few hundred commits (bench_judge: 1.9 -> 1.7 s). The WAL file is
  // removed when the last connection closes.
  if (!exec("PRAGMA journal_mode=WAL", &err) || !exec("PRAGMA synchronous=NORMAL", &err) ||
      !exec("PRAGMA foreign_keys=ON", &err) || !exec("PRAGMA cache_size=-65536", &err) ||
      !exec("PRAGMA wal_autocheckpoint=16384", &err)) {
    if (error) *error = path.string() + ": " + err;
    close();
    return false;
  }
  return true;
}

namespace {

// The path as a `file:` URI path: everything but unreserved characters and '/' percent-encoded.
std::string uriPath(const std::filesystem::path& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path.string()) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

// Bytes 18 and 19 of the header are 2 for a WAL database (1: rollback journal).
bool headerSaysWal(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char header[20] = {};
  if (!in.read(header, sizeof header)) return false;
  return header[18] == 2 || header[19] == 2;
}

}  // namespace

bool SqliteDb::openReadOnly(const std::filesystem::path& path, std::string* error) {
  close();
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  const std::filesystem::path& p = ec ? path : absolute;
  auto exists = [](const std::filesystem::path& f) {
    std::error_code e;
    return std::filesystem::exists(f, e);
  };
  const bool immutable = headerSaysWal(p) && !exists(p.string() + "-wal") && !exists(p.string() + "-shm");
  const std::string uri = "file:" + uriPath(p) + (immutable ? "?mode=ro&immutable=1" : "?mode=ro");
  const int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(uri.c_str(), &m_db, flags, nullptr) != SQLITE_OK) {
    if (error) *error = path.string() + ": " + (m_db ? sqlite3_errmsg(m_db) : "cannot open");
    close();
    return false;
  }
  sqlite3_busy_timeout(m_db, 10000);
  return true;
}

void SqliteDb::close() {
  if (m_db) {
    sqlite3_close_v2(m_db);
    m_db = nullptr;
  }
}

bool SqliteDb::exec(std::string_view sql, std::string* error) {
  char* msg = nullptr;
  const std::string text(sql);
  if (sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
    if (error) *error = msg ? msg : "sqlite error";
    sqlite3_free(msg);
    return false;
  }
  return true;
}

SqliteStatement SqliteDb::prepare(std::string_view sql, std::string* error) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(m_db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) !=
      SQLITE_OK) {
    if (error) *error = sqlite3_errmsg(m_db);
    return {};
  }
  return {m_db, stmt};
}

std::optional<std::int64_t> SqliteDb::scalarInt(std::string_view sql) {
  auto st = prepare(sql);
  if (!st.valid() || !st.step()) return std::nullopt;
  return st.int64(0);
}

int SqliteDb::userVersion() { return static_cast<int>(scalarInt("PRAGMA user_version").value_or(0)); }

std::string SqliteDb::lastError() const { return m_db ? sqlite3_errmsg(m_db) : "not open"; }

}  // namespace ragscope::core
