#pragma once
// A thin RAII layer over the SQLite C API for our stores (run store, response cache): open with
// WAL and a busy timeout, prepared statements with positional binds, transactions. Errors come
// back as strings (core never throws on I/O problems).
//
// Every database is opened as untrusted input, since stores and caches travel between people:
// defensive mode, no trusted schema, views and triggers disabled, no value over kMaxValueBytes,
// and a work budget per statement step (a progress handler stops a query after about a billion
// VM instructions, far past anything a ragscope store needs), never through a symlink; a new file
// is created private (0600). Each store then checks its schema with schemaProblem(): every
// table and index exactly as ragscope creates it (SqliteSchema).
//
//   SqliteDb db; std::string err;
//   if (!db.open(path, &err)) ...;
//   auto st = db.prepare("INSERT INTO t(a, b) VALUES (?, ?)");
//   st.bind(1, "x").bind(2, std::int64_t{3}); st.step();

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace ragscope::core {

class SqliteStatement {
 public:
  SqliteStatement() = default;
  SqliteStatement(sqlite3* db, sqlite3_stmt* stmt, std::uint64_t* work = nullptr)
      : m_db(db), m_stmt(stmt), m_work(work) {}
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  bool valid() const { return m_stmt != nullptr; }
  SqliteStatement& bind(int index, std::string_view text);
  SqliteStatement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
  SqliteStatement& bind(int index, std::int64_t value);
  SqliteStatement& bind(int index, int value) { return bind(index, std::int64_t{value}); }
  SqliteStatement& bind(int index, double value);
  SqliteStatement& bindNull(int index);
  // True while a row is available; false when done or on error (see ok()).
  bool step();
  // Resets for reuse with new binds.
  void reset();
  bool ok() const { return m_ok; }

  std::int64_t int64(int column) const;
  double real(int column) const;
  std::string text(int column) const;
  bool isNull(int column) const;

 private:
  sqlite3* m_db = nullptr;
  sqlite3_stmt* m_stmt = nullptr;
  std::uint64_t* m_work = nullptr;  // the connection's work counter, reset at each step
  bool m_ok = true;
};

// What a store's file may hold (core/util/README.md, "SQLite"): the tables and named indexes of
// the statements it is created from, each defined exactly so, and the automatic indexes of those
// tables. schemaProblem() compares the `sql` text sqlite_schema keeps for every object with these
// statements, both normalised (sqliteDefinition()): a table of the right name defined otherwise
// (another key, ON CONFLICT IGNORE or REPLACE, a DEFAULT, a CHECK, a collation) is refused like
// a view, a trigger, a virtual table or any other table or index.
struct SqliteSchema {
  // The scripts the store is created from ("CREATE TABLE IF NOT EXISTS t (...); CREATE INDEX
  // ..."): the very constants the store executes, so what is accepted follows what is created.
  std::vector<std::string_view> scripts;
  // Earlier definitions still read: the exact statements an older ragscope created, for a schema
  // that a migration brings up to date when the store is opened for writing.
  std::vector<std::string_view> earlier = {};
};

// A CREATE statement as schemaProblem() compares it: comments dropped, ASCII letters outside
// quotes lower-cased, whitespace outside quotes removed next to ( ) , ; and one space elsewhere,
// quoted text ('...', "...", `...`, [...]) kept byte for byte, "IF NOT EXISTS" after CREATE
// TABLE / INDEX dropped (SQLite keeps a schema's text without it) and a final ';' dropped.
// "CREATE TABLE IF NOT EXISTS t (\n  a TEXT\n);" -> "create table t(a text)".
std::string sqliteDefinition(std::string_view statement);
// The statements of a script (split at ';' outside quotes and comments), each normalised.
std::vector<std::string> sqliteDefinitions(std::string_view script);

class SqliteDb {
 public:
  // The largest string or blob a statement may produce or store (SQLITE_LIMIT_LENGTH): above the
  // 64 MiB reply cap, far below what would exhaust memory.
  static constexpr int kMaxValueBytes = 256 << 20;

  SqliteDb() = default;
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;
  ~SqliteDb();

  // Opens (creating when `create`) in WAL mode with synchronous=NORMAL: a committed transaction
  // survives a killed process (it is in the WAL in the OS cache); only power loss may lose the
  // last ones.
  bool open(const std::filesystem::path& path, bool create, std::string* error);
  // Opens an existing database only to read it: nothing is written, no file is created beside it
  // and no modification time changes, so a view works from read-only media. A WAL database makes
  // a read-only connection create its -wal and -shm files (sqlite.org/wal.html, "Read-Only
  // Databases"); when neither exists, no connection has the database open and all of it is in
  // the main file, so it is opened `immutable` (no locks, no side files). Otherwise the existing
  // side files are shared with the writer (`mode=ro`).
  bool openReadOnly(const std::filesystem::path& path, std::string* error);
  // Opens a private scratch database (SQLite's empty file name): a file in the temporary folder,
  // deleted when closed, of which only `cacheKiB` stay in memory; with the same defensive
  // settings. For work whose size grows with an input (an import's duplicate check).
  bool openTemporary(int cacheKiB, std::string* error);
  // True for a regular file that starts with SQLite's header, read through the input check (a
  // FIFO or device under the name is never read): what may be handed to SQLite as a store.
  static bool hasSqliteHeader(const std::filesystem::path& path);
  void close();
  bool isOpen() const { return m_db != nullptr; }

  bool exec(std::string_view sql, std::string* error = nullptr);
  SqliteStatement prepare(std::string_view sql, std::string* error = nullptr);
  std::optional<std::int64_t> scalarInt(std::string_view sql);
  int userVersion();
  // Rows the last INSERT, UPDATE or DELETE changed (0 for an INSERT a conflict clause skipped).
  std::int64_t changes() const;
  std::string lastError() const;
  sqlite3* handle() const { return m_db; }
  // Why the open file is not a store of `schema`, or nullopt: "holds a view \"run\" ...",
  // "defines its table \"labels\" otherwise than ragscope (CREATE TABLE labels(...))", "its text
  // encoding is UTF-16le ...". Every store kind checks its file with this before reading it.
  std::optional<std::string> schemaProblem(const SqliteSchema& schema);

 private:
  bool harden(const std::filesystem::path& path, std::string* error);
  sqlite3* m_db = nullptr;
  // Progress-handler calls since the running statement's last step (SqliteStatement resets it).
  std::unique_ptr<std::uint64_t> m_work = std::make_unique<std::uint64_t>(0);
};

}  // namespace ragscope::core
