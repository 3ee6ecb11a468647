#include "core/labels/labelstore.h"

#include <sqlite3.h>

#include <algorithm>
#include <map>

#include "core/store/project.h"
#include "core/util/sqlitedb.h"

namespace ragscope::core::labels {

namespace {

// Schema 2 of the labels store (core/labels/README.md, "The labels store"): one append-only
// table. Rows are never updated or deleted; the row id orders them (the latest of a target and
// annotator wins). The table's SQL is kept exactly as SQLite stores it (it drops "IF NOT
// EXISTS"), so that the schema check can compare a store's definition with these texts: the
// current one, and schema 1's, which an open for writing migrates (labelsMigrateFromV1).
constexpr int kLabelsSchemaVersion = 2;
// Schema 1: a claim label did not say what it judged the claim against (read as
// defaultClaimPremise).
constexpr int kLabelsSchemaVersionV1 = 1;
constexpr const char* kLabelsTableSqlV1 = R"(CREATE TABLE labels (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  scope TEXT NOT NULL,
  qid TEXT NOT NULL,
  item TEXT NOT NULL,
  value TEXT NOT NULL,
  annotator TEXT NOT NULL,
  time TEXT NOT NULL,
  comment TEXT NOT NULL,
  context TEXT NOT NULL
))";
// Schema 2: `premise`, a claim's premise name (label.h claimPremiseName), empty for other kinds.
constexpr const char* kLabelsTableSql = R"(CREATE TABLE labels (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  scope TEXT NOT NULL,
  qid TEXT NOT NULL,
  item TEXT NOT NULL,
  value TEXT NOT NULL,
  annotator TEXT NOT NULL,
  time TEXT NOT NULL,
  comment TEXT NOT NULL,
  context TEXT NOT NULL,
  premise TEXT NOT NULL
))";
// The same in both schemas.
constexpr const char* kLabelsIndexSql =
    "CREATE INDEX labels_target ON labels(kind, scope, qid, item, annotator, id)";
// What a labels store may hold (SqliteDb::schemaProblem): the table and index above, defined
// exactly so, or schema 1's table, which open() migrates. A table named `labels` defined
// otherwise (ON CONFLICT IGNORE or REPLACE, `id INTEGER` that is not the row id, a DEFAULT) is
// refused.
const SqliteSchema kLabelsSchema{{kLabelsTableSql, kLabelsIndexSql}, {kLabelsTableSqlV1}};

// The columns read, in labelFromRow's order; schema 1 has no premise (read as '').
std::string labelColumns(int version) {
  return std::string("id, kind, scope, qid, item, value, annotator, time, comment, context, ") +
         (version >= kLabelsSchemaVersion ? "premise" : "''");
}

void setLabelsError(std::string* error, std::string text) {
  if (error) *error = std::move(text);
}

// A row as a Label; nullopt with `why` when a column is not what add() writes. A claim row of
// schema 1 (`version`) gets the default premise; of schema 2, the one it names.
std::optional<Label> labelFromRow(const SqliteStatement& st, int version, std::string* why) {
  Label label;
  label.id = st.int64(0);
  const auto kind = targetKindFromName(st.text(1));
  if (!kind) {
    if (why) *why = "row " + std::to_string(label.id) + ": kind is not a target kind";
    return std::nullopt;
  }
  label.target = {*kind, st.text(2), st.text(3), st.text(4)};
  label.value = st.text(5);
  label.annotator = st.text(6);
  label.time = st.text(7);
  label.comment = st.text(8);
  label.context = st.text(9);
  const std::string premise = st.text(10);
  if (*kind == TargetKind::Claim) {
    label.target.premise = version >= kLabelsSchemaVersion
                               ? claimPremiseFromName(premise)
                               : std::optional(defaultClaimPremise(label.target.item));
    if (!label.target.premise) {
      if (why) *why = "row " + std::to_string(label.id) + ": premise is not a claim premise";
      return std::nullopt;
    }
  } else if (!premise.empty()) {
    if (why) *why = "row " + std::to_string(label.id) + ": premise on a label that is no claim's";
    return std::nullopt;
  }
  return label;
}

// Schema 1 to 2, inside the caller's transaction: the table is made again under its new
// definition (so that its stored SQL is kLabelsTableSql, not an ALTER-edited text), every row
// copied with its id and each claim row given the premise it was read with (the default).
bool labelsMigrateFromV1(SqliteDb& db, std::string* error) {
  return db.exec("ALTER TABLE labels RENAME TO labels_v1", error) &&
         db.exec(kLabelsTableSql, error) &&
         db.exec(
             "INSERT INTO labels(id, kind, scope, qid, item, value, annotator, time, "
             "comment, context, premise) SELECT id, kind, scope, qid, item, value, "
             "annotator, time, comment, context, CASE WHEN kind <> 'claim' THEN '' WHEN "
             "substr(item, 1, 5) = 'gold:' THEN 'response' ELSE 'chunks' END FROM labels_v1 "
             "ORDER BY id",
             error) &&
         db.exec("DROP TABLE labels_v1", error) && db.exec(kLabelsIndexSql, error);
}

}  // namespace

std::filesystem::path labelsStorePath(const std::filesystem::path& projectFile) {
  std::filesystem::path path = projectFile;
  path.replace_extension(".labels.db");
  return path;
}

std::filesystem::path labelsStorePath(const Project& project) {
  return labelsStorePath(project.file);
}

LabelStore::LabelStore() = default;
LabelStore::~LabelStore() = default;

// Every row checked once at open: a store from elsewhere is untrusted input, and a row add()
// would have refused (a crafted or damaged file) makes the whole store refused, never half-read.
// `rows` false: the schema and version only (the writing connection, right after a read-only
// connection checked everything).
static std::optional<std::string> checkLabelsFile(SqliteDb& db, bool mayBeNew, bool rows = true) {
  if (auto problem = db.schemaProblem(kLabelsSchema))
    return "not a ragscope labels store: it " + *problem;
  const int version = db.userVersion();
  const bool hasTable = db.scalarInt(
                              "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = "
                              "'labels'")
                            .value_or(0) > 0;
  if (version == 0 && !hasTable) {
    if (mayBeNew) return std::nullopt;
    return std::string("not a ragscope labels store (an empty database)");
  }
  if ((version != kLabelsSchemaVersion && version != kLabelsSchemaVersionV1) || !hasTable)
    return "not a ragscope labels store of schema " + std::to_string(kLabelsSchemaVersionV1) +
           " or " + std::to_string(kLabelsSchemaVersion) + " (user_version " +
           std::to_string(version) + ")";
  if (!rows) return std::nullopt;
  {
    auto check = db.prepare("PRAGMA integrity_check(5)");
    std::string problems;
    while (check.valid() && check.step())
      if (check.text(0) != "ok") problems += (problems.empty() ? "" : "; ") + check.text(0);
    if (!check.valid() || !check.ok()) problems += db.lastError();
    if (!problems.empty()) {
      if (problems.size() > 300) problems = problems.substr(0, 300) + "...";
      return "the labels store is damaged (SQLite integrity_check: " + problems +
             "); it is not read. Use an intact copy of it";
    }
  }
  auto st = db.prepare("SELECT " + labelColumns(version) +
                       ", typeof(kind) || typeof(scope) || typeof(qid) || typeof(item) || "
                       "typeof(value) || typeof(annotator) || typeof(time) || typeof(comment) || "
                       "typeof(context) || typeof(" +
                       (version >= kLabelsSchemaVersion ? "premise" : "''") +
                       ") FROM labels ORDER BY id");
  if (!st.valid()) return "the labels table cannot be read (" + db.lastError() + ")";
  while (st.step()) {
    const std::string rowName = "row " + std::to_string(st.int64(0));
    if (st.text(11) != "texttexttexttexttexttexttexttexttexttext")
      return "not a ragscope labels store: " + rowName + " holds a value that is not text";
    std::string why;
    const auto label = labelFromRow(st, version, &why);
    if (!label) return "not a ragscope labels store: " + why;
    if (auto problem = labelProblem(*label))
      return "not a ragscope labels store: " + rowName + " (" + describeTarget(label->target) +
             "): " + *problem;
  }
  if (!st.ok()) return "the labels table cannot be read (" + db.lastError() + ")";
  return std::nullopt;
}

bool LabelStore::open(const std::filesystem::path& path, std::string* error) {
  m_db.reset();
  m_readOnly = false;
  m_snapshot = false;
  std::error_code ec;
  const bool exists = std::filesystem::exists(std::filesystem::symlink_status(path, ec));
  // An existing file is checked read-only first: a foreign or damaged database is refused with
  // no byte changed (the read-write open would switch it to WAL). An empty file is what an open
  // killed before its first commit leaves: it becomes a store.
  if (exists &&
      !(std::filesystem::is_regular_file(path, ec) && std::filesystem::file_size(path, ec) == 0)) {
    if (!SqliteDb::hasSqliteHeader(path)) {
      setLabelsError(error,
                     path.string() + ": not a ragscope labels store (not a SQLite database)");
      return false;
    }
    SqliteDb check;
    if (!check.openReadOnly(path, error)) return false;
    if (auto problem = checkLabelsFile(check, true)) {
      setLabelsError(error, path.string() + ": " + *problem);
      return false;
    }
  }
  if (!exists && path.has_parent_path())
    std::filesystem::create_directories(path.parent_path(), ec);
  auto db = std::make_unique<SqliteDb>();
  if (!db->open(path, true, error)) return false;
  std::string err;
  // The schema is made (when new) in one transaction, and the file checked again on the
  // connection that writes (it may have changed in between).
  if (!db->exec("BEGIN IMMEDIATE", &err)) {
    setLabelsError(error, path.string() + ": " + err);
    return false;
  }
  if (auto problem = checkLabelsFile(*db, true, /*rows=*/false)) {
    db->exec("ROLLBACK");
    setLabelsError(error, path.string() + ": " + *problem);
    return false;
  }
  // A new store gets schema 2; one of schema 1 is migrated (labelsMigrateFromV1), in the same
  // transaction: all of it or nothing.
  const int version = db->userVersion();
  const bool hasTable =
      db->scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'labels'")
          .value_or(0) > 0;
  bool made = true;
  if (!hasTable)
    made = db->exec(kLabelsTableSql, &err) && db->exec(kLabelsIndexSql, &err);
  else if (version == kLabelsSchemaVersionV1)
    made = labelsMigrateFromV1(*db, &err);
  else  // stored as kLabelsIndexSql ("IF NOT EXISTS" is not kept)
    made = db->exec(
        "CREATE INDEX IF NOT EXISTS labels_target ON labels(kind, scope, qid, item, annotator, id)",
        &err);
  if (!made || !db->exec("PRAGMA user_version = " + std::to_string(kLabelsSchemaVersion), &err) ||
      !db->exec("COMMIT", &err)) {
    db->exec("ROLLBACK");
    setLabelsError(error, path.string() + ": " + err);
    return false;
  }
  m_db = std::move(db);
  m_path = path;
  m_version = kLabelsSchemaVersion;
  return true;
}

bool LabelStore::openReadOnly(const std::filesystem::path& path, std::string* error) {
  m_db.reset();
  m_readOnly = true;
  std::error_code ec;
  // SqliteDb opens a WAL file without -wal and -shm beside it as immutable; remember its size and
  // time to notice a writer (reopenIfWritten).
  m_snapshot = !std::filesystem::exists(path.string() + "-wal", ec) &&
               !std::filesystem::exists(path.string() + "-shm", ec);
  m_snapshotSize = std::filesystem::file_size(path, ec);
  m_snapshotTime = std::filesystem::last_write_time(path, ec);
  if (!std::filesystem::is_regular_file(path, ec)) {
    setLabelsError(error, path.string() + ": no such labels store");
    return false;
  }
  if (!SqliteDb::hasSqliteHeader(path)) {
    setLabelsError(error, path.string() + ": not a ragscope labels store (not a SQLite database)");
    return false;
  }
  auto db = std::make_unique<SqliteDb>();
  if (!db->openReadOnly(path, error)) return false;
  if (auto problem = checkLabelsFile(*db, false)) {
    setLabelsError(error, path.string() + ": " + *problem);
    return false;
  }
  m_version = db->userVersion();
  m_db = std::move(db);
  m_path = path;
  return true;
}

bool LabelStore::openProjectOrStore(const std::filesystem::path& path, bool readOnly,
                                    std::string* error) {
  const std::filesystem::path store = path.extension() == ".json" ? labelsStorePath(path) : path;
  if (readOnly && path.extension() == ".json") {
    std::error_code ec;
    if (!std::filesystem::exists(store, ec)) {
      setLabelsError(error, path.string() + ": the project has no labels yet (no " +
                                store.filename().string() + " beside it)");
      return false;
    }
  }
  return readOnly ? openReadOnly(store, error) : open(store, error);
}

bool LabelStore::add(std::vector<Label>& labels, std::string* error, const LabelCatalog& catalog) {
  if (!m_db) {
    setLabelsError(error, "the labels store is not open");
    return false;
  }
  if (m_readOnly) {
    setLabelsError(error, m_path.string() + ": opened read-only");
    return false;
  }
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const Label& label = labels[i];
    auto problem = labelProblem(label);
    if (!problem && catalog) problem = catalog(label.target);
    if (problem) {
      rollbackImport();
      setLabelsError(
          error, "label " + std::to_string(i + 1) + " of " + std::to_string(labels.size()) + " (" +
                     describeTarget(label.target) + "): " + *problem + "; no label was stored");
      return false;
    }
  }
  if (labels.empty()) return true;
  std::string err;
  // Inside an import (beginImport) the import's transaction holds every piece.
  if (!m_importing && !m_db->exec("BEGIN IMMEDIATE", &err)) {
    setLabelsError(error, m_path.string() + ": " + err + "; no label was stored");
    return false;
  }
  auto st = m_db->prepare(
      "INSERT INTO labels(kind, scope, qid, item, value, annotator, time, comment, context, "
      "premise) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      &err);
  std::vector<std::int64_t> ids;
  bool ok = st.valid();
  for (std::size_t i = 0; ok && i < labels.size(); ++i) {
    const Label& l = labels[i];
    st.reset();
    st.bind(1, targetKindName(l.target.kind))
        .bind(2, l.target.scope)
        .bind(3, l.target.qid)
        .bind(4, l.target.item)
        .bind(5, l.value)
        .bind(6, l.annotator)
        .bind(7, l.time)
        .bind(8, l.comment)
        .bind(9, l.context)
        .bind(10, l.target.claimPremise() ? claimPremiseName(*l.target.claimPremise())
                                          : std::string_view());
    st.step();
    ok = st.ok();
    if (ok) ids.push_back(sqlite3_last_insert_rowid(m_db->handle()));
  }
  if (ok && !m_importing) {
    st = {};
    ok = m_db->exec("COMMIT", &err);
  }
  if (!ok) {
    if (err.empty()) err = m_db->lastError();
    st = {};
    m_db->exec("ROLLBACK");
    m_importing = false;
    setLabelsError(error, m_path.string() + ": " + err + "; no label was stored");
    return false;
  }
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i].id = ids[i];
  return true;
}

bool LabelStore::beginImport(std::string* error) {
  if (!m_db || m_readOnly || m_importing) {
    setLabelsError(error, m_path.string() + ": not open for an import");
    return false;
  }
  std::string err;
  if (!m_db->exec("BEGIN IMMEDIATE", &err)) {
    setLabelsError(error, m_path.string() + ": " + err);
    return false;
  }
  m_importing = true;
  return true;
}

bool LabelStore::commitImport(std::string* error) {
  if (!m_importing) {
    setLabelsError(error, m_path.string() + ": no import to commit; no label was stored");
    return false;
  }
  m_importing = false;
  std::string err;
  if (!m_db->exec("COMMIT", &err)) {
    m_db->exec("ROLLBACK");
    setLabelsError(error, m_path.string() + ": " + err + "; no label was stored");
    return false;
  }
  return true;
}

void LabelStore::rollbackImport() {
  if (!m_importing) return;
  m_importing = false;
  m_db->exec("ROLLBACK");
}

void LabelStore::reopenIfWritten() {
  if (!m_db || !m_readOnly || !m_snapshot) return;
  std::error_code ec;
  const bool written = std::filesystem::exists(m_path.string() + "-wal", ec) ||
                       std::filesystem::file_size(m_path, ec) != m_snapshotSize ||
                       std::filesystem::last_write_time(m_path, ec) != m_snapshotTime;
  if (!written) return;
  // Reopened through every check; should that fail, the old view stays (better than none).
  auto keep = std::move(m_db);
  const std::filesystem::path path = m_path;
  if (!openReadOnly(path, nullptr)) {
    m_db = std::move(keep);
    m_path = path;
    m_readOnly = true;
  }
}

std::vector<Label> LabelStore::history(const std::optional<Target>& only) {
  std::vector<Label> out;
  reopenIfWritten();
  if (!m_db) return out;
  std::string sql = "SELECT " + labelColumns(m_version) + " FROM labels";
  if (only) sql += " WHERE kind = ? AND scope = ? AND qid = ? AND item = ?";
  sql += " ORDER BY id";
  auto st = m_db->prepare(sql);
  if (!st.valid()) return out;
  if (only)
    st.bind(1, targetKindName(only->kind))
        .bind(2, only->scope)
        .bind(3, only->qid)
        .bind(4, only->item);
  while (st.step())
    if (auto label = labelFromRow(st, m_version, nullptr))
      if (!only || label->target == *only) out.push_back(std::move(*label));
  return out;
}

std::vector<Label> LabelStore::current() {
  std::vector<Label> rows = history();
  // The latest row of each (target, annotator): rows come oldest first, so a later row replaces
  // an earlier one of the same pair.
  std::map<std::pair<std::string, std::string>, std::size_t> latest;
  for (std::size_t i = 0; i < rows.size(); ++i)
    latest[{rows[i].target.key(), rows[i].annotator}] = i;
  std::vector<Label> out;
  out.reserve(latest.size());
  for (const auto& [key, index] : latest) out.push_back(std::move(rows[index]));
  return out;
}

std::int64_t LabelStore::rowCount() {
  reopenIfWritten();
  if (!m_db) return 0;
  return m_db->scalarInt("SELECT count(*) FROM labels").value_or(0);
}

std::vector<std::string> LabelStore::annotators() {
  std::vector<std::string> out;
  reopenIfWritten();
  if (!m_db) return out;
  auto st = m_db->prepare("SELECT DISTINCT annotator FROM labels ORDER BY annotator");
  while (st.valid() && st.step()) out.push_back(st.text(0));
  return out;
}

}  // namespace ragscope::core::labels
