// Store schemas (core/util/sqlitedb.cpp: the defensive open and schemaProblem; core/store and
// core/llm/responsecache.cpp): a well-formed run store to which the input's SQL statements are
// applied with plain SQLite first (views, triggers, virtual tables, odd tables and indexes, rows),
// so the fuzzer works on what a crafted store can hold rather than on SQLite's page format. Then
// every reader of a store runs on it (runstorecheck.h), and a response cache is opened on a copy.
// Checked: a store whose schema holds a view, a trigger or a virtual table, or a table or index
// defined otherwise than ragscope creates it (SqliteDb::schemaProblem), is never opened.
// max_len: 4096
// seed: tests/fuzz/seeds/store_schema

#include <sqlite3.h>

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "core/llm/responsecache.h"
#include "core/store/runstore.h"
#include "fuzzsupport.h"
#include "runstorecheck.h"

using namespace ragscope;

namespace {

// The crafting connection is bounded too, so the fuzzer's own SQL cannot hang the target.
int stopLongWork(void* calls) { return ++*static_cast<int*>(calls) > 2000 ? 1 : 0; }

// Only statements that change this file's schema or rows: nothing the fuzzer writes may attach,
// vacuum into or otherwise touch another file.
int onlyThisFile(void*, int action, const char*, const char*, const char*, const char*) {
  return action == SQLITE_ATTACH || action == SQLITE_DETACH || action == SQLITE_PRAGMA ? SQLITE_DENY
                                                                                       : SQLITE_OK;
}

void applyStatements(sqlite3* db, const std::string& sql) {
  sqlite3_set_authorizer(db, onlyThisFile, nullptr);
  const char* at = sql.c_str();
  while (at && *at) {
    sqlite3_stmt* st = nullptr;
    const char* tail = nullptr;
    if (sqlite3_prepare_v2(db, at, -1, &st, &tail) != SQLITE_OK) break;
    if (st) {
      std::string head(sqlite3_sql(st));
      head = head.substr(head.find_first_not_of(" \t\r\n") == std::string::npos
                             ? 0
                             : head.find_first_not_of(" \t\r\n"));
      for (auto& c : head) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      static const char* allowed[] = {"CREATE", "ALTER", "INSERT",  "UPDATE",
                                      "DELETE", "DROP",  "REPLACE", "WITH"};
      bool ok = false;
      for (const char* a : allowed) ok = ok || head.rfind(a, 0) == 0;
      if (ok)
        while (sqlite3_step(st) == SQLITE_ROW) {
        }
      sqlite3_finalize(st);
    }
    if (tail == at) break;
    at = tail;
  }
}

// What the crafted file's schema holds that must make every open refuse it.
bool holdsCode(sqlite3* db) {
  sqlite3_stmt* st = nullptr;
  bool found = false;
  if (sqlite3_prepare_v2(db,
                         "SELECT 1 FROM sqlite_schema WHERE type IN ('view', 'trigger') OR "
                         "lower(sql) LIKE 'create virtual table%'",
                         -1, &st, nullptr) == SQLITE_OK)
    found = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return found;
}

// Whether the crafted file defines a table or index otherwise than ragscope creates it (its
// `sql` text, normalised, is none of runStoreSchema()'s statements): such a store is never opened.
bool definesOtherwise(sqlite3* db) {
  std::set<std::string> ours;
  for (std::string_view script : core::store::runStoreSchema().scripts)
    for (auto& definition : core::sqliteDefinitions(script)) ours.insert(definition);
  sqlite3_stmt* st = nullptr;
  bool other = false;
  if (sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL", -1, &st,
                         nullptr) == SQLITE_OK)
    while (!other && sqlite3_step(st) == SQLITE_ROW) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
      other = !ours.contains(core::sqliteDefinition(text ? text : ""));
    }
  sqlite3_finalize(st);
  return other;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::removeScratch("schema");
  const auto path = fuzz::writeScratch("schema/run.db", fuzz::emptyStoreBytes("generate"));
  bool crafted = false;
  {
    sqlite3* db = nullptr;
    if (sqlite3_open(path.c_str(), &db) == SQLITE_OK) {
      int calls = 0;
      sqlite3_progress_handler(db, 1000, stopLongWork, &calls);
      sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
      applyStatements(db, std::string(fuzz::bytes(data, size)));
      crafted = holdsCode(db) || definesOtherwise(db);
    }
    sqlite3_close(db);
  }
  fuzz::exerciseRunStore(path);
  std::string error;
  if (crafted) {
    core::store::RunStore store;
    fuzz::check(!store.open(path, &error),
                "a store holding a view, trigger, virtual table or a table defined otherwise was "
                "opened");
    fuzz::check(!store.openReadOnly(path, &error), "a store holding code was opened for viewing");
  }
  // The same file handed over as a response cache: never opened (it holds other tables).
  const auto cachePath = fuzz::scratchDir() / "schema" / "cache.db";
  std::error_code ec;
  std::filesystem::copy_file(path, cachePath, std::filesystem::copy_options::overwrite_existing,
                             ec);
  core::llm::ResponseCache cache;
  fuzz::check(!cache.open(cachePath, &error), "a run store was opened as a response cache");
  return 0;
}
