#include "core/export/datasetsummary.h"

#include <map>
#include <nlohmann/json.hpp>

#include "core/export/json.h"

namespace ragscope::core::exporting {

namespace {

const char* summarySeverityName(Severity s) { return s == Severity::Error ? "error" : "warning"; }

struct DatasetCounts {
  std::size_t queries = 0;
  std::size_t queriesWithGold = 0;
  std::size_t queriesWithGoldDocs = 0;  // gold provenance (KILT, Docugami SOURCE(S))
  std::size_t documents = 0;
  std::size_t judgments = 0;
  std::map<int, std::size_t> grades;
  std::size_t qrelsQueries = 0;
  std::size_t examples = 0;
};

DatasetCounts datasetCounts(const Dataset& d) {
  DatasetCounts c;
  c.queries = d.queries.size();
  for (const auto& q : d.queries)
    if (!q.gold.empty()) ++c.queriesWithGold;
  for (const auto& q : d.queries)
    if (!q.goldDocIds().empty()) ++c.queriesWithGoldDocs;
  c.documents = d.corpus.size();
  c.judgments = d.qrels.judgmentCount();
  c.grades = d.qrels.gradeCounts();
  c.qrelsQueries = d.qrels.byQuery.size();
  c.examples = d.examples.size();
  return c;
}

}  // namespace

void writeDatasetSummaryText(std::ostream& out, const Dataset& d, const LoadReport& r) {
  const DatasetCounts c = datasetCounts(d);
  out << "dataset: " << d.name << "\n";
  out << "parts:\n";
  for (const auto& p : d.parts)
    out << "  " << p.path.string() << " (" << (p.format ? formatName(*p.format) : "?") << ")\n";
  out << "queries: " << c.queries << "\n";
  out << "queries with gold outputs: " << c.queriesWithGold << "\n";
  out << "queries with gold documents: " << c.queriesWithGoldDocs << "\n";
  out << "documents: " << c.documents << "\n";
  out << "judgments: " << c.judgments;
  if (!c.grades.empty()) {
    out << " (";
    bool first = true;
    for (const auto& [grade, n] : c.grades) {
      out << (first ? "" : ", ") << "grade " << grade << ": " << n;
      first = false;
    }
    out << ")";
  }
  out << "\n";
  out << "qrels queries: " << c.qrelsQueries << "\n";
  out << "runs: " << d.runs.size() << "\n";
  for (const auto& run : d.runs)
    out << "  " << run.tag << " (" << run.source << "): " << run.rankings.size() << " queries, "
        << run.entryCount() << " entries\n";
  out << "examples: " << c.examples << "\n";
  out << "records loaded: " << r.records << "\n";
  out << "diagnostics: " << r.errors << " errors, " << r.warnings << " warnings, " << r.skipped
      << " skipped";
  if (r.stopped) out << ", stopped";
  if (r.cancelled) out << ", cancelled";
  out << "\n";
  for (const auto& diag : r.diagnostics)
    out << diag.toString() << (diag.severity == Severity::Warning ? " (warning)" : "") << "\n";
  if (r.unstoredDiagnostics > 0)
    out << "... and " << r.unstoredDiagnostics << " more diagnostics\n";
}

void writeDatasetSummaryJson(std::ostream& stream, const Dataset& d, const LoadReport& r) {
  const DatasetCounts c = datasetCounts(d);
  nlohmann::json out;
  out["name"] = d.name;
  out["parts"] = nlohmann::json::array();
  for (const auto& p : d.parts)
    out["parts"].push_back({{"path", p.path.string()},
                            {"format", p.format ? std::string(formatName(*p.format)) : ""}});
  out["queries"] = c.queries;
  out["queries_with_gold"] = c.queriesWithGold;
  out["queries_with_gold_docs"] = c.queriesWithGoldDocs;
  out["documents"] = c.documents;
  out["judgments"] = c.judgments;
  nlohmann::json grades = nlohmann::json::object();
  for (const auto& [grade, n] : c.grades) grades[std::to_string(grade)] = n;
  out["judgments_by_grade"] = grades;
  out["qrels_queries"] = c.qrelsQueries;
  out["runs"] = nlohmann::json::array();
  for (const auto& run : d.runs)
    out["runs"].push_back({{"tag", run.tag},
                           {"source", run.source},
                           {"queries", run.rankings.size()},
                           {"entries", run.entryCount()}});
  out["examples"] = c.examples;
  out["records"] = r.records;
  out["errors"] = r.errors;
  out["warnings"] = r.warnings;
  out["skipped"] = r.skipped;
  out["stopped"] = r.stopped;
  out["cancelled"] = r.cancelled;
  out["unstored_diagnostics"] = r.unstoredDiagnostics;
  out["diagnostics"] = nlohmann::json::array();
  for (const auto& diag : r.diagnostics)
    out["diagnostics"].push_back({{"severity", summarySeverityName(diag.severity)},
                                  {"file", diag.file},
                                  {"line", diag.line},
                                  {"field", diag.field},
                                  {"problem", diag.problem},
                                  {"text", diag.toString()}});
  // Diagnostics may quote raw input that is not UTF-8: writeJson replaces such bytes.
  writeJson(stream, out, 2);
}

}  // namespace ragscope::core::exporting
