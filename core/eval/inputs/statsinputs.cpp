#include "core/eval/inputs/statsinputs.h"

#include "core/data/loaders.h"
#include "core/eval/inputs/storedscores.h"
#include "core/metrics/measurename.h"
#include "core/stats/perqueryfile.h"
#include "core/store/runstore.h"

namespace ragscope::core::eval {

std::string statsMeasureLabel(const std::string& measure) {
  const auto name = parseMeasureName(measure);
  if (name.ok() && !name.value.column().empty()) return name.value.column();
  return measure;
}

void StatsInputs::report(const LoadReport& r) {
  for (const auto& d : r.diagnostics)
    m_messages.push_back(d.toString() + (d.severity == Severity::Warning ? " (warning)" : ""));
  if (r.unstoredDiagnostics)
    m_messages.push_back("... and " + std::to_string(r.unstoredDiagnostics) +
                         " more diagnostics not stored");
}

bool StatsInputs::load(const StatsInputRequest& request) {
  m_request = request;
  m_tables.clear();
  m_messages.clear();
  if (m_request.qrels && !prepareEvaluation()) return false;
  for (const auto& f : m_request.files) {
    std::optional<stats::MeasureTable> table;
    if (store::RunStore::hasSqliteHeader(f))
      table = loadStore(f);
    else if (m_request.qrels)
      table = evaluateRun(f);
    else
      table = loadPerQuery(f);
    if (!table) return false;
    m_tables.push_back(std::move(*table));
  }
  return true;
}

std::optional<std::string> StatsInputs::soleMeasure() const {
  if (m_tables.empty() || m_tables[0].size() != 1) return std::nullopt;
  return m_tables[0].begin()->first;
}

const stats::QueryValues* StatsInputs::values(std::size_t input, const std::string& measure,
                                              std::string* error) const {
  const stats::MeasureTable& t = m_tables.at(input);
  if (auto it = t.find(measure); it != t.end()) return &it->second;
  // Per-query files and run stores key retrieval measures by their printed column name.
  if (auto it = t.find(statsMeasureLabel(measure)); it != t.end()) return &it->second;
  if (error) {
    *error = m_request.files[input] + ": no per-query values for measure '" + measure + "' (have:";
    for (const auto& [name, v] : t) *error += " " + name;
    *error += ")";
  }
  return nullptr;
}

bool StatsInputs::anyStore() const {
  for (const auto& f : m_request.files)
    if (store::RunStore::hasSqliteHeader(f)) return true;
  return false;
}

std::optional<stats::MeasureTable> StatsInputs::loadPerQuery(const std::string& f) {
  auto loaded = stats::loadPerQueryFile(f, LoadOptions{});
  report(loaded.report);
  if (!loaded.report.ok() || loaded.report.hasErrors()) return std::nullopt;
  if (loaded.value.empty()) {
    m_messages.push_back(f + ": no per-query values (is it `trec_eval -q` output?)");
    return std::nullopt;
  }
  return std::move(loaded.value);
}

std::optional<stats::MeasureTable> StatsInputs::loadStore(const std::string& f) {
  StoredScores stored = readStoredScores(f);
  if (!stored.ok()) {
    m_messages.push_back(stored.error);
    return std::nullopt;
  }
  return std::move(stored.table);
}

// Reads the qrels and resolves the measures once, for every run evaluated in-process.
bool StatsInputs::prepareEvaluation() {
  auto qrels = readTrecQrels(*m_request.qrels, LoadOptions{});
  report(qrels.report);
  if (!qrels.report.ok() || qrels.report.hasErrors()) return false;
  m_qrels = std::move(qrels.value);
  std::vector<std::string> requested = m_request.measures;
  if (!m_request.measureY.empty()) requested.push_back(m_request.measureY);
  m_settings = EvalSettings{};
  m_settings.threads = m_request.threads ? m_request.threads : 2;
  for (const std::string& m : requested) {
    const auto name = parseMeasureName(m);
    if (!name.ok()) {
      // Not a retrieval measure: fine when it names a run store's measure (e.g. rouge-l).
      if (anyStore()) continue;
      m_messages.push_back(name.error);
      return false;
    }
    m_settings.measures.push_back(name.value.request);
  }
  return true;
}

std::optional<stats::MeasureTable> StatsInputs::evaluateRun(const std::string& f) {
  if (m_settings.measures.empty()) {
    m_messages.push_back("no retrieval measure to evaluate " + f + " with");
    return std::nullopt;
  }
  auto run = readTrecRun(f, LoadOptions{});
  report(run.report);
  if (!run.report.ok() || run.report.hasErrors()) return std::nullopt;
  const EvalResult r = evaluate(m_qrels, run.value, m_settings);
  for (const auto& d : r.diagnostics) m_messages.push_back(d.toString());
  if (!r.ok()) return std::nullopt;
  stats::MeasureTable table;
  for (std::size_t c = 0; c < r.columns.size(); ++c) {
    if (!r.columns[c].perQuery || !r.columns[c].numeric()) continue;
    stats::QueryValues& qv = table[r.columns[c].name];
    for (const auto& q : r.queries) qv.emplace(q.qid, q.values[c]);
  }
  return table;
}

}  // namespace ragscope::core::eval
