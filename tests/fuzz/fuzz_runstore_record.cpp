// Run-store records (core/store/runstore.cpp, core/eval/api/jobspec.cpp: resumeSettings, the eRAG
// and end-to-end report readers): a well-formed store whose record and rows come from the input, so
// the fuzzer works on the JSON and text a store holds rather than on SQLite's page format.
// Parts (fuzz::kPartSeparator between them):
//   0 run kind ("erag", "e2e", "generate", ...)
//   1 settings text (JSON as stored: need not parse)
//   2 endpoint text
//   3 items, one per line: key<TAB>status<TAB>response<TAB>extra<TAB>error (a line with a
//     response gets a result row; an empty extra / error column is NULL)
//   4 the request text of every item
// max_len: 32768
// dict: json
// seed: tests/fuzz/seeds/runstore_record

#include <sqlite3.h>

#include <fstream>
#include <sstream>

#include "core/store/runstore.h"
#include "fuzzsupport.h"
#include "runstorecheck.h"

using namespace ragscope;

namespace {

std::vector<std::string_view> splitOn(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  for (;;) {
    const auto at = text.find(sep);
    out.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return out;
    text.remove_prefix(at + 1);
  }
}

void bind(sqlite3_stmt* st, int index, std::string_view text, bool nullWhenEmpty = false) {
  if (nullWhenEmpty && text.empty())
    sqlite3_bind_null(st, index);
  else  // never a null pointer: SQLite binds that as NULL, and the text columns are NOT NULL
    sqlite3_bind_text(st, index, text.empty() ? "" : text.data(), static_cast<int>(text.size()),
                      SQLITE_TRANSIENT);
}

bool step(sqlite3_stmt* st) {
  const int rc = sqlite3_step(st);
  sqlite3_reset(st);
  return rc == SQLITE_DONE;
}

void fill(const std::filesystem::path& path, const std::vector<std::string_view>& parts) {
  auto part = [&](std::size_t i) { return i < parts.size() ? parts[i] : std::string_view(); };
  sqlite3* db = nullptr;
  fuzz::check(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK,
              "cannot open the scratch store");
  sqlite3_exec(db, "PRAGMA synchronous=OFF; BEGIN", nullptr, nullptr, nullptr);
  sqlite3_stmt* run = nullptr;
  sqlite3_prepare_v2(db, "UPDATE run SET kind = ?, settings = ?, endpoint = ? WHERE id = 1", -1,
                     &run, nullptr);
  bind(run, 1, part(0));
  bind(run, 2, part(1));
  bind(run, 3, part(2));
  fuzz::check(step(run), "cannot write the run row");
  sqlite3_finalize(run);

  sqlite3_stmt* item = nullptr;
  sqlite3_stmt* result = nullptr;
  sqlite3_prepare_v2(db,
                     "INSERT OR IGNORE INTO items(key, kind, request, status, attempts) "
                     "VALUES (?, ?, ?, ?, 1)",
                     -1, &item, nullptr);
  sqlite3_prepare_v2(db,
                     "INSERT OR REPLACE INTO results(item_id, response, extra, prompt_tokens, "
                     "completion_tokens, cost_usd, latency_ms, http_status, error, from_cache, "
                     "heuristic, created) SELECT id, ?, ?, 10, 5, 0.0, 1.0, 200, ?, 0, 1, "
                     "'2024-01-01T00:00:00Z' FROM items WHERE key = ?",
                     -1, &result, nullptr);
  for (std::string_view line : splitOn(part(3), '\n')) {
    if (line.empty()) continue;
    const auto cols = splitOn(line, '\t');
    bind(item, 1, cols[0]);
    bind(item, 2, part(0));
    bind(item, 3, part(4));
    bind(item, 4, cols.size() > 1 ? cols[1] : "pending");
    step(item);
    if (cols.size() > 2) {
      bind(result, 1, cols[2]);
      bind(result, 2, cols.size() > 3 ? cols[3] : "", true);
      bind(result, 3, cols.size() > 4 ? cols[4] : "", true);
      bind(result, 4, cols[0]);
      step(result);
    }
  }
  sqlite3_finalize(item);
  sqlite3_finalize(result);
  fuzz::check(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK,
              "cannot commit the scratch store");
  sqlite3_close(db);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& base = fuzz::emptyStoreBytes("erag");
  fuzz::removeScratch("store");
  const auto path = fuzz::writeScratch("store/run.db", base);
  fill(path, fuzz::splitParts(fuzz::bytes(data, size), 5));
  fuzz::exerciseRunStore(path);
  return 0;
}
