#include "core/util/sqlitedb.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <utility>

#include "core/data/inputfile.h"
#include "core/util/atomicfile.h"

namespace ragscope::core {

namespace {

// The progress handler runs every kProgressInstructions VM instructions; a statement step that
// needs more than kMaxProgressCalls of those is stopped (about 1e9 instructions: seconds of CPU;
// the largest store query we run, an integrity check or a scan of 100,000 items, needs a few
// million). A crafted file (recursive views, huge computed values) cannot spin forever.
constexpr int kProgressInstructions = 10000;
constexpr std::uint64_t kMaxProgressCalls = 100000;

int onProgress(void* work) {
  auto* calls = static_cast<std::uint64_t*>(work);
  return ++*calls > kMaxProgressCalls ? 1 : 0;
}

}  // namespace

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : m_db(std::exchange(other.m_db, nullptr)),
      m_stmt(std::exchange(other.m_stmt, nullptr)),
      m_work(std::exchange(other.m_work, nullptr)),
      m_ok(other.m_ok) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    if (m_stmt) sqlite3_finalize(m_stmt);
    m_db = std::exchange(other.m_db, nullptr);
    m_stmt = std::exchange(other.m_stmt, nullptr);
    m_work = std::exchange(other.m_work, nullptr);
    m_ok = other.m_ok;
  }
  return *this;
}

SqliteStatement::~SqliteStatement() {
  if (m_stmt) sqlite3_finalize(m_stmt);
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view text) {
  if (m_stmt && sqlite3_bind_text64(m_stmt, index, text.data(), text.size(), SQLITE_TRANSIENT,
                                    SQLITE_UTF8) != SQLITE_OK) {
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

SqliteStatement& SqliteStatement::bindNull(int index) {
  if (m_stmt && sqlite3_bind_null(m_stmt, index) != SQLITE_OK) m_ok = false;
  return *this;
}

bool SqliteStatement::step() {
  if (!m_stmt) {
    m_ok = false;
    return false;
  }
  if (m_work) *m_work = 0;
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

std::int64_t SqliteStatement::int64(int column) const {
  return sqlite3_column_int64(m_stmt, column);
}

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

namespace {

// SQLite opens a database's side files by name, following links: a planted `run.db-wal` link to
// another file would get WAL frames written into it. They must be regular files, or absent.
std::optional<std::string> unsafeSideFile(const std::filesystem::path& path) {
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    const std::filesystem::path side = path.string() + suffix;
    if (auto why = unsafeWriteTarget(side)) return side.string() + ": " + *why;
  }
  return std::nullopt;
}

}  // namespace

bool SqliteDb::harden(const std::filesystem::path& path, std::string* error) {
  int applied = 0;
  const bool ok =
      sqlite3_db_config(m_db, SQLITE_DBCONFIG_DEFENSIVE, 1, &applied) == SQLITE_OK &&
      applied == 1 &&
      sqlite3_db_config(m_db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, &applied) == SQLITE_OK &&
      applied == 0 &&
      sqlite3_db_config(m_db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, &applied) == SQLITE_OK &&
      applied == 0 &&
      sqlite3_db_config(m_db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, &applied) == SQLITE_OK &&
      applied == 0;
  if (!ok) {
    if (error) *error = path.string() + ": SQLite refused the defensive settings";
    close();
    return false;
  }
  sqlite3_limit(m_db, SQLITE_LIMIT_LENGTH, kMaxValueBytes);
  sqlite3_progress_handler(m_db, kProgressInstructions, onProgress, m_work.get());
  sqlite3_busy_timeout(m_db, 10000);
  return true;
}

bool SqliteDb::open(const std::filesystem::path& path, bool create, std::string* error) {
  close();
  // A new store is created here, private, so SQLite (which creates files 0644 and gives its -wal
  // and -shm files the database's mode) never makes one others can read.
  if (create) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) ::close(fd);
  }
  if (auto why = unsafeWriteTarget(path)) {
    if (error) *error = path.string() + ": " + *why;
    return false;
  }
  if (auto why = unsafeSideFile(path)) {
    if (error) *error = *why;
    return false;
  }
  const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) |
                    SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW;
  if (sqlite3_open_v2(path.string().c_str(), &m_db, flags, nullptr) != SQLITE_OK) {
    if (error) *error = path.string() + ": " + (m_db ? sqlite3_errmsg(m_db) : "cannot open");
    close();
    return false;
  }
  if (!harden(path, error)) return false;
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
// The first 20 bytes of a database file (its magic string and format bytes), read through the
// input check; empty when the file is shorter, special or unreadable.
std::string headerBytes(const std::filesystem::path& path) {
  std::string error;
  std::uint64_t size = 0;
  std::FILE* in = isStdinPath(path) ? nullptr : openForReading(path, error, size);
  if (!in) return {};
  std::string header(20, '\0');
  const bool got = std::fread(header.data(), 1, header.size(), in) == header.size();
  std::fclose(in);
  return got ? header : std::string();
}

bool headerSaysWal(const std::filesystem::path& path) {
  const std::string header = headerBytes(path);
  return !header.empty() && (header[18] == 2 || header[19] == 2);
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
  const bool immutable =
      headerSaysWal(p) && !exists(p.string() + "-wal") && !exists(p.string() + "-shm");
  if (auto why = unsafeSideFile(p)) {
    if (error) *error = *why;
    return false;
  }
  const std::string uri = "file:" + uriPath(p) + (immutable ? "?mode=ro&immutable=1" : "?mode=ro");
  // Viewing may go through a symlink (nothing is written); the read-write open never does.
  const int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(uri.c_str(), &m_db, flags, nullptr) != SQLITE_OK) {
    if (error) *error = path.string() + ": " + (m_db ? sqlite3_errmsg(m_db) : "cannot open");
    close();
    return false;
  }
  return harden(path, error);
}

bool SqliteDb::hasSqliteHeader(const std::filesystem::path& path) {
  return headerBytes(path).rfind(std::string_view("SQLite format 3\0", 16), 0) == 0;
}

void SqliteDb::close() {
  if (m_db) {
    sqlite3_close_v2(m_db);
    m_db = nullptr;
  }
}

bool SqliteDb::exec(std::string_view sql, std::string* error) {
  *m_work = 0;
  char* msg = nullptr;
  const std::string text(sql);
  if (sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
    if (error) *error = *m_work > kMaxProgressCalls ? lastError() : msg ? msg : "sqlite error";
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
  return {m_db, stmt, m_work.get()};
}

std::optional<std::int64_t> SqliteDb::scalarInt(std::string_view sql) {
  auto st = prepare(sql);
  if (!st.valid() || !st.step()) return std::nullopt;
  return st.int64(0);
}

int SqliteDb::userVersion() {
  return static_cast<int>(scalarInt("PRAGMA user_version").value_or(0));
}

std::string SqliteDb::lastError() const {
  if (!m_db) return "not open";
  if (sqlite3_errcode(m_db) == SQLITE_INTERRUPT && *m_work > kMaxProgressCalls)
    return "a query was stopped after about " +
           std::to_string(kMaxProgressCalls * kProgressInstructions) +
           " steps, far more than a ragscope store needs (the file is crafted or damaged)";
  return sqlite3_errmsg(m_db);
}

std::optional<std::string> SqliteDb::schemaProblem(const SqliteSchema& schema) {
  auto listed = [](const std::vector<std::string_view>& names, std::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  // Views and triggers first: they are what runs code, so they are what the message names.
  auto st = prepare(
      "SELECT type, name, tbl_name, sql FROM sqlite_schema "
      "ORDER BY type NOT IN ('view', 'trigger'), rowid");
  if (!st.valid()) return "its schema cannot be read (" + lastError() + ")";
  while (st.step()) {
    const std::string type = st.text(0);
    const std::string name = st.text(1);
    const std::string table = st.text(2);
    std::string sql = st.text(3);
    for (char& c : sql) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::string quoted = "\"" + name.substr(0, 80) + "\"";
    if (type == "table") {
      if (sql.rfind("create virtual table", 0) == 0) return "holds a virtual table " + quoted;
      if (!listed(schema.tables, name)) return "holds an unexpected table " + quoted;
    } else if (type == "index") {
      const bool automatic = name.rfind("sqlite_autoindex_", 0) == 0 && sql.empty();
      if (!(automatic ? listed(schema.tables, table) : listed(schema.indexes, name)))
        return "holds an unexpected index " + quoted;
    } else {
      // Views and triggers run code on every read or write: a store holds tables only.
      return "holds a " + type.substr(0, 20) + " " + quoted + " (a store holds tables only)";
    }
  }
  if (!st.ok()) return "its schema cannot be read (" + lastError() + ")";
  return std::nullopt;
}

}  // namespace ragscope::core
