#include "core/util/sqlitedb.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <utility>

#include "core/util/atomicfile.h"
#include "core/util/inputfile.h"
#include "core/util/textescape.h"

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
  // An empty view may have no data pointer, which SQLite would bind as NULL, not as ''.
  if (m_stmt && sqlite3_bind_text64(m_stmt, index, text.data() ? text.data() : "", text.size(),
                                    SQLITE_TRANSIENT, SQLITE_UTF8) != SQLITE_OK) {
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

bool SqliteDb::openTemporary(int cacheKiB, std::string* error) {
  close();
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2("", &m_db, flags, nullptr) != SQLITE_OK) {
    if (error)
      *error =
          std::string("a temporary database: ") + (m_db ? sqlite3_errmsg(m_db) : "cannot open");
    close();
    return false;
  }
  if (!harden("a temporary database", error)) return false;
  // Nothing in it outlives the connection: no journal, no sync.
  std::string err;
  if (!exec("PRAGMA journal_mode=OFF", &err) || !exec("PRAGMA synchronous=OFF", &err) ||
      !exec("PRAGMA cache_size=-" + std::to_string(std::max(cacheKiB, 64)), &err)) {
    if (error) *error = "a temporary database: " + err;
    close();
    return false;
  }
  return true;
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

std::int64_t SqliteDb::changes() const { return m_db ? sqlite3_changes64(m_db) : 0; }

std::string SqliteDb::lastError() const {
  if (!m_db) return "not open";
  if (sqlite3_errcode(m_db) == SQLITE_INTERRUPT && *m_work > kMaxProgressCalls)
    return "a query was stopped after about " +
           std::to_string(kMaxProgressCalls * kProgressInstructions) +
           " steps, far more than a ragscope store needs (the file is crafted or damaged)";
  return sqlite3_errmsg(m_db);
}

namespace {

bool isSqlSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool isSqlDelimiter(char c) { return c == '(' || c == ')' || c == ',' || c == ';'; }

// The end of the quoted run or comment that starts at `i`, or `i` when none starts there. A
// quote doubled inside its run ('it''s', "a""b") is part of it; an unclosed one runs to the end.
std::size_t skipQuotedOrComment(std::string_view sql, std::size_t i) {
  const char c = sql[i];
  if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
    const std::size_t end = sql.find('\n', i);
    return end == std::string_view::npos ? sql.size() : end + 1;
  }
  if (c == '/' && i + 1 < sql.size() && sql[i + 1] == '*') {
    const std::size_t end = sql.find("*/", i + 2);
    return end == std::string_view::npos ? sql.size() : end + 2;
  }
  if (c != '\'' && c != '"' && c != '`' && c != '[') return i;
  const char close = c == '[' ? ']' : c;
  std::size_t j = i + 1;
  while (j < sql.size()) {
    if (sql[j] != close) {
      ++j;
    } else if (close != ']' && j + 1 < sql.size() && sql[j + 1] == close) {
      j += 2;
    } else {
      return j + 1;
    }
  }
  return sql.size();
}

bool isComment(std::string_view sql, std::size_t i) {
  return i + 1 < sql.size() &&
         ((sql[i] == '-' && sql[i + 1] == '-') || (sql[i] == '/' && sql[i + 1] == '*'));
}

// One object a store may hold: its type ("table", "index"), name (lower case) and definition.
struct SchemaObject {
  std::string type;
  std::string name;
  std::string definition;
};

std::optional<SchemaObject> schemaObject(std::string definition) {
  for (std::string_view type : {"table", "index", "unique index"}) {
    const std::string prefix = "create " + std::string(type) + " ";
    if (definition.rfind(prefix, 0) != 0) continue;
    const std::size_t end = definition.find_first_of(" (", prefix.size());
    std::string name = definition.substr(prefix.size(), end - prefix.size());
    return SchemaObject{type == "table" ? "table" : "index", std::move(name),
                        std::move(definition)};
  }
  return std::nullopt;
}

std::string lowerSchemaName(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

std::string sqliteDefinition(std::string_view sql) {
  std::string out;
  bool space = false;  // whitespace or a comment since the last byte written
  std::size_t i = 0;
  while (i < sql.size()) {
    const char c = sql[i];
    if (isSqlSpace(c) || isComment(sql, i)) {
      space = true;
      i = isSqlSpace(c) ? i + 1 : skipQuotedOrComment(sql, i);
      continue;
    }
    if (space && !out.empty() && !isSqlDelimiter(out.back()) && !isSqlDelimiter(c)) out += ' ';
    space = false;
    if (const std::size_t end = skipQuotedOrComment(sql, i); end != i) {
      out.append(sql.substr(i, end - i));
      i = end;
      continue;
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    ++i;
  }
  while (!out.empty() && out.back() == ';') out.pop_back();
  for (const char* type : {"table", "index", "unique index"}) {
    const std::string prefix = std::string("create ") + type + " if not exists ";
    if (out.rfind(prefix, 0) == 0) out.erase(prefix.size() - 14, 14);
  }
  return out;
}

std::vector<std::string> sqliteDefinitions(std::string_view script) {
  std::vector<std::string> out;
  std::size_t start = 0, i = 0;
  auto flush = [&](std::size_t end) {
    std::string definition = sqliteDefinition(script.substr(start, end - start));
    if (!definition.empty()) out.push_back(std::move(definition));
    start = end + 1;
  };
  while (i < script.size()) {
    if (const std::size_t end = skipQuotedOrComment(script, i); end != i) {
      i = end;
    } else if (script[i] == ';') {
      flush(i++);
    } else {
      ++i;
    }
  }
  if (start < script.size()) flush(script.size());
  return out;
}

std::optional<std::string> SqliteDb::schemaProblem(const SqliteSchema& schema) {
  std::vector<SchemaObject> accepted;
  for (const auto* list : {&schema.scripts, &schema.earlier})
    for (std::string_view script : *list)
      for (std::string& definition : sqliteDefinitions(script))
        if (auto object = schemaObject(std::move(definition))) accepted.push_back(*object);
  auto acceptedTable = [&](const std::string& name) {
    return std::any_of(accepted.begin(), accepted.end(), [&](const SchemaObject& o) {
      return o.type == "table" && o.name == lowerSchemaName(name);
    });
  };
  // Text is compared and stored as UTF-8 bytes: a UTF-16 file would hand back other bytes.
  auto encoding = prepare("PRAGMA encoding");
  if (!encoding.valid() || !encoding.step())
    return "its schema cannot be read (" + lastError() + ")";
  if (encoding.text(0) != "UTF-8")
    return "has the text encoding " + escapeControlChars(encoding.text(0).substr(0, 20)) +
           " (ragscope's stores are UTF-8)";
  // Views and triggers first: they are what runs code, so they are what the message names.
  auto st = prepare(
      "SELECT type, name, tbl_name, sql FROM sqlite_schema "
      "ORDER BY type NOT IN ('view', 'trigger'), rowid");
  if (!st.valid()) return "its schema cannot be read (" + lastError() + ")";
  while (st.step()) {
    const std::string type = st.text(0);
    const std::string name = st.text(1);
    const std::string table = st.text(2);
    const std::string sql = st.text(3);
    const std::string definition = sqliteDefinition(sql);
    const std::string quoted = "\"" + escapeControlChars(name.substr(0, 80)) + "\"";
    if (type == "table" && definition.rfind("create virtual table", 0) == 0)
      return "holds a virtual table " + quoted;
    if (type == "index" && st.isNull(3) && name.rfind("sqlite_autoindex_", 0) == 0) {
      // An automatic index (a UNIQUE or PRIMARY KEY of its table, whose definition is checked).
      if (!acceptedTable(table)) return "holds an unexpected index " + quoted;
      continue;
    }
    if (type != "table" && type != "index")
      // Views and triggers run code on every read or write: a store holds tables only.
      return "holds a " + escapeControlChars(type.substr(0, 20)) + " " + quoted +
             " (a store holds tables only)";
    auto sameName = [&](const SchemaObject& o) {
      return o.type == type && o.name == lowerSchemaName(name);
    };
    if (std::none_of(accepted.begin(), accepted.end(), sameName))
      return "holds an unexpected " + type + " " + quoted;
    if (std::none_of(accepted.begin(), accepted.end(), [&](const SchemaObject& o) {
          return sameName(o) && o.definition == definition;
        })) {
      // Shown where it parts from the closest of ragscope's definitions (both normalised).
      const SchemaObject* closest = nullptr;
      std::size_t common = 0;
      for (const SchemaObject& o : accepted) {
        if (!sameName(o)) continue;
        const auto end = std::mismatch(o.definition.begin(), o.definition.end(), definition.begin(),
                                       definition.end());
        const auto n = static_cast<std::size_t>(end.first - o.definition.begin());
        if (!closest || n > common) {
          closest = &o;
          common = n;
        }
      }
      auto excerpt = [&](const std::string& text) {
        const std::size_t from = common > 40 ? common - 40 : 0;
        std::string out = from > 0 ? "\"..." : "\"";
        out += escapeControlChars(text.substr(from, 120));
        return out + (from + 120 < text.size() ? "...\"" : "\"");
      };
      return "defines its " + type + " " + quoted +
             " otherwise than ragscope does: " + excerpt(definition) + " where ragscope has " +
             excerpt(closest->definition);
    }
  }
  if (!st.ok()) return "its schema cannot be read (" + lastError() + ")";
  return std::nullopt;
}

}  // namespace ragscope::core
