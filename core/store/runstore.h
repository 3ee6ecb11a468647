#pragma once
// The run store (core/store/README.md, "Run store"): one SQLite file per run, WAL mode, schema
// versioned with PRAGMA user_version. It holds the run's settings (input hashes, template text and
// hash, endpoint config without secrets), its work items (one provider call each, with a stable
// key) and their results, each committed as it arrives, so a killed run loses at most the calls in
// flight and a resumed run repeats no finished call.
//
//   RunStore store;
//   store.create("run.db", record, &err);
//   store.addItems({{"gen:q1", "generate", requestJson}}, &err);
//   for (const auto& item : store.itemsToRun(false)) ...
//   store.commitResults(batch, &err);   // one transaction per batch

#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/llm/provider.h"
#include "core/util/sqlitedb.h"

namespace ragscope::core::store {

enum class ItemStatus { Pending, Done, Error, Cancelled };
std::string_view itemStatusName(ItemStatus status);  // "pending", "done", "error", "cancelled"
std::optional<ItemStatus> itemStatusFromName(std::string_view name);

// Run statuses written by the engine: "created", "running", "done", "done with errors",
// "cancelled", "paused: budget", "failed: <reason>". A run killed mid-way still says "running".
struct RunRecord {
  std::string kind;         // job name: "generate", "erag", ...
  nlohmann::json settings;  // job settings incl. input paths and hashes
  std::string templateText;
  std::string templateHash;
  nlohmann::json endpoint;  // llm::toJson(EndpointConfig): key *names* only
  std::string status = "created";
  std::string created;  // ISO 8601 UTC
  std::string updated;
};

struct NewItem {
  std::string key;          // stable across resumes: "gen:<qid>", "erag:<qid>:<rank>", ...
  std::string kind;         // "generate", "judge", ...
  std::string requestJson;  // llm::toJson(LlmRequest).dump()
};

struct WorkItem {
  std::int64_t id = 0;
  std::string key;
  std::string kind;
  std::string requestJson;
  ItemStatus status = ItemStatus::Pending;
  int attempts = 0;
};

struct ItemResult {
  std::int64_t itemId = 0;
  ItemStatus status = ItemStatus::Done;  // Done, Error or Cancelled (no result row)
  std::string text;
  nlohmann::json extra;  // embeddings / rerank scores when present (null otherwise)
  llm::Usage usage;
  double latencyMs = 0.0;
  int httpStatus = 0;
  std::string error;
  bool fromCache = false;
  bool heuristic = false;
  int attempts = 1;  // HTTP attempts the call took (retries included); added to the item's count
};

struct StoredResult {
  std::string key;
  std::string kind;
  ItemResult result;
};

struct RunCounts {
  std::size_t total = 0;
  std::size_t pending = 0;
  std::size_t done = 0;
  std::size_t errors = 0;
  std::size_t cancelled = 0;
  std::size_t fromCache = 0;
  std::size_t heuristic = 0;
  std::int64_t promptTokens = 0;
  std::int64_t completionTokens = 0;
  double costUsd = 0.0;
};

std::string isoNowUtc();

// Tables the eRAG and end-to-end jobs add to their run stores (core/eval), created with these
// statements; a store is opened only when every table it holds is defined exactly as ragscope
// creates it (runStoreSchema(), SqliteDb::schemaProblem).
inline constexpr const char* kEragLabelsTableSql =
    "CREATE TABLE IF NOT EXISTS erag_labels (qid TEXT NOT NULL, rank INTEGER NOT NULL, "
    "doc_id TEXT NOT NULL, item_key TEXT NOT NULL, label REAL, PRIMARY KEY (qid, rank));";
inline constexpr const char* kQueryScoresTableSql =
    "CREATE TABLE IF NOT EXISTS query_scores (qid TEXT NOT NULL, measure TEXT NOT NULL, "
    "value REAL, PRIMARY KEY (qid, measure));";
// Everything a run store may hold, for every connection that opens one (RunStore's, and the
// jobs' writers of the tables above).
const SqliteSchema& runStoreSchema();

class RunStore {
 public:
  static constexpr int kSchemaVersion = 1;

  // Creates a new store; fails when `path` exists (a run is never silently overwritten).
  bool create(const std::filesystem::path& path, RunRecord record, std::string* error);
  // Opens an existing store to continue or update it. A store is refused, with an error naming it
  // and what is wrong, unless it has our schema version, passes SQLite's integrity_check (a damaged
  // file is never half-read) and holds its run row with settings and endpoint as JSON objects.
  bool open(const std::filesystem::path& path, std::string* error);
  // The same checks, for a store that is only viewed: opened read-only, it is never written, no
  // file is created beside it and its modification time stays (SqliteDb::openReadOnly). The
  // writing calls (setStatus, addItems, commitResults) then fail.
  bool openReadOnly(const std::filesystem::path& path, std::string* error);
  // True when `path` is a SQLite file with our run table (for `ragscope-cli runs`); opens it
  // read-only and writes nothing.
  static bool looksLikeRunStore(const std::filesystem::path& path);
  // True when `path` starts with the 16-byte SQLite header ("SQLite format 3\0"); opens nothing.
  static bool hasSqliteHeader(const std::filesystem::path& path);

  const std::filesystem::path& path() const { return m_path; }
  // The run row (checked when the store was opened). Never throws: should the row have gone since,
  // the record is empty with settings and endpoint empty objects.
  RunRecord run();
  bool setStatus(std::string_view status, std::string* error = nullptr);
  // Named documents of a run that are too big for its settings (the run row is rewritten on every
  // commit): a judging run's answers and chunks. Table run_data; a store without it has none.
  bool putData(std::string_view name, std::string_view value, std::string* error);
  std::optional<std::string> data(std::string_view name);
  // Adds the plan's items in one transaction; keys already present are kept as they are.
  bool addItems(const std::vector<NewItem>& items, std::string* error);

  std::vector<WorkItem> items(std::optional<ItemStatus> only = std::nullopt);
  // Every item's key and status, in item order, without the requests.
  std::vector<std::pair<std::string, ItemStatus>> itemKeys();
  // What a (resumed) run still has to do: pending and cancelled items, and errors when asked.
  std::vector<WorkItem> itemsToRun(bool retryErrors);
  // One transaction: result rows written (replacing an earlier error), item statuses updated and
  // each call's attempts added to its item's (a cancelled call adds none), run's `updated` stamped.
  bool commitResults(const std::vector<ItemResult>& results, std::string* error);
  // Several commitResults as one transaction, for results written a piece at a time that must
  // land all together or not at all (a batch output file, core/eval/engine/batchrun.h): between
  // begin and commit each commitResults writes into it; a failed commitResults, or rollback, undoes
  // every piece.
  bool beginResults(std::string* error);
  bool commitBegunResults(std::string* error);
  void rollbackBegunResults();

  RunCounts counts();
  // Every stored result (done and error), in item order, with its item key.
  std::vector<StoredResult> results();
  // The same one result at a time, for stores too big to hold at once (a corpus's embeddings):
  // `visit` returning false stops the walk. False when `visit` stopped it.
  bool forEachResult(const std::function<bool(StoredResult&&)>& visit);
  // Lowers SQLite's page cache of this connection to `kib` KiB (from the 64 MiB every store
  // opens with), freeing the pages above it: for a long sequential read after the writing is
  // done (a dense index build reads its vectors once, in order).
  bool limitPageCache(int kib, std::string* error = nullptr);

 private:
  bool prepareStatements(std::string* error);
  // Schema version, integrity and run row of the store open in m_db; closes it on failure.
  bool checkOpened(const std::filesystem::path& path, std::string* error);
  bool refuseWrite(std::string* error) const;

  SqliteDb m_db;
  std::filesystem::path m_path;
  bool m_readOnly = false;
  bool m_inResults = false;  // between beginResults and its commit or rollback
  SqliteStatement m_insertResult;
  SqliteStatement m_updateItem;
};

}  // namespace ragscope::core::store
