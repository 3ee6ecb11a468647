#include "core/labels/labelcatalog.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "core/labels/labelscope.h"
#include "core/util/textescape.h"

namespace ragscope::core::labels {

namespace {

std::string catalogQuoted(std::string_view text) {
  std::string out(1, '"');
  out += escapeControlChars(text.substr(0, 120));
  out += '"';
  return out;
}

std::string scopeFileName(std::string_view scope) {
  return std::filesystem::path(std::string(scope)).filename().string();
}

// The claim index of "response:<i>" / "gold:<i>" (labelProblem checked the spelling).
std::size_t catalogClaimIndex(const std::string& item) {
  std::size_t index = std::numeric_limits<std::size_t>::max();
  const char* digits = item.data() + std::min(item.size(), item.find(':') + 1);
  std::from_chars(digits, item.data() + item.size(), index);
  return index;
}

std::optional<std::string> claimTargetProblem(const RunSource& run, const Target& t) {
  if (!run.judging)
    return "the run store " + catalogQuoted(run.scope) + " is a '" + run.kind +
           "' run: it has no claims (a judging run has)";
  const auto query = run.claims.find(t.qid);
  if (query == run.claims.end())
    return "query " + catalogQuoted(t.qid) + " is not in " + catalogQuoted(run.scope);
  const bool gold = t.item.rfind("gold:", 0) == 0;
  const std::size_t count = gold ? query->second.gold.size() : query->second.response.size();
  if (catalogClaimIndex(t.item) >= count)
    return std::string("the ") + (gold ? "gold answer" : "answer") + " has " +
           std::to_string(count) + (gold ? " gold" : " response") + " claims (indexes from 0)";
  return std::nullopt;
}

// A scope no run has: the stores of the same file name, by their scopes, as a hint.
std::string sameNameHint(const LabelSources& sources, std::string_view scope) {
  const std::string name = scopeFileName(scope);
  std::string out;
  for (const auto& run : sources.runs)
    if (scopeFileName(run.scope) == name)
      out += (out.empty() ? " (a store of that file name: " : ", ") + catalogQuoted(run.scope);
  return out.empty() ? out : out + "; a store is named by its path, not its file name)";
}

}  // namespace

std::optional<claims::Label> AnswerClaims::verdict(bool gold, std::size_t claim,
                                                   ClaimPremise premise) const {
  const auto& verdicts = gold ? goldVerdicts : responseVerdicts;
  const auto it = verdicts.find(premise);
  if (it == verdicts.end() || claim >= it->second.size()) return std::nullopt;
  return it->second[claim];
}

bool AnswerClaims::judged(bool gold, ClaimPremise premise) const {
  return (gold ? goldVerdicts : responseVerdicts).contains(premise);
}

const RunSource* LabelSources::findRun(std::string_view scope) const {
  for (const auto& run : runs)
    if (run.scope == scope) return &run;
  if (scope.empty()) return nullptr;
  const std::lock_guard lock(*m_foundLock);
  if (m_foundRuns != runs.size()) {
    m_found.clear();
    m_foundRuns = runs.size();
  }
  auto it = m_found.find(scope);
  if (it == m_found.end()) {
    std::size_t index = runs.size();
    const std::filesystem::path file = scopePath(scope, folder);
    for (std::size_t i = 0; i < runs.size() && index == runs.size(); ++i)
      if (!runs[i].path.empty() && sameStoreFile(file, runs[i].path)) index = i;
    it = m_found.emplace(std::string(scope), index).first;
  }
  return it->second < runs.size() ? &runs[it->second] : nullptr;
}

const DatasetSource* LabelSources::findDataset(std::string_view scope) const {
  for (const auto& ds : datasets)
    if (ds.name == scope) return &ds;
  return nullptr;
}

claims::PointwiseTable pointwiseFromMeasures(const stats::MeasureTable& table) {
  claims::PointwiseTable out;
  std::set<std::string> qids;
  for (const auto& [measure, values] : table) {
    out.columns.push_back(measure);
    for (const auto& [qid, v] : values) qids.insert(qid);
  }
  for (const auto& qid : qids) {
    claims::PointwiseTable::Row row{qid, {}, 0};
    for (const auto& [measure, values] : table) {
      auto it = values.find(qid);
      row.values.push_back(it == values.end() ? std::numeric_limits<double>::quiet_NaN()
                                              : it->second);
    }
    out.rows.push_back(std::move(row));
  }
  return out;
}

void adoptSourceScopes(std::vector<Label>& labels, const LabelSources& sources) {
  for (auto& l : labels) {
    if (l.target.kind == TargetKind::Relevance) continue;
    if (const RunSource* run = sources.findRun(l.target.scope)) l.target.scope = run->scope;
  }
}

DocumentStatus documentStatus(const Dataset& dataset, std::string_view qid, std::string_view doc) {
  DocumentStatus status;
  status.queryKnown = dataset.findQuery(qid) != nullptr;
  auto it = dataset.qrels.byQuery.find(std::string(qid));
  if (it != dataset.qrels.byQuery.end()) {
    status.queryKnown = true;
    for (const auto& j : it->second)
      if (j.docId == doc) status.qrelsGrade = j.rel;
  }
  if (!status.queryKnown)
    for (const auto& run : dataset.runs)
      if (run.find(qid)) status.queryKnown = true;
  status.inCorpus = dataset.corpus.find(doc).has_value();
  return status;
}

LabelCatalog makeLabelCatalog(std::shared_ptr<const LabelSources> sources) {
  return [sources](const Target& t) -> std::optional<std::string> {
    if (t.kind == TargetKind::Relevance) {
      const DatasetSource* ds = sources->findDataset(t.scope);
      if (!ds || !ds->dataset) return "no dataset named " + catalogQuoted(t.scope) + " is known";
      if (!documentStatus(*ds->dataset, t.qid, t.item).queryKnown)
        return "query " + catalogQuoted(t.qid) + " is not in dataset " + catalogQuoted(t.scope);
      return std::nullopt;  // any document may be graded, judged or not
    }
    const RunSource* run = sources->findRun(t.scope);
    if (!run)
      return "no run store named " + catalogQuoted(t.scope) + " is known" +
             sameNameHint(*sources, t.scope);
    switch (t.kind) {
      case TargetKind::Claim:
        return claimTargetProblem(*run, t);
      case TargetKind::Answer:
        if (!run->qids.contains(t.qid))
          return "query " + catalogQuoted(t.qid) + " is not in " + catalogQuoted(run->scope);
        return std::nullopt;
      case TargetKind::EragDoc: {
        auto q = run->eragDocs.find(t.qid);
        if (q == run->eragDocs.end())
          return "query " + catalogQuoted(t.qid) + " has no eRAG labels in " +
                 catalogQuoted(run->scope);
        if (!q->second.contains(t.item))
          return "document " + catalogQuoted(t.item) + " was not labelled by the eRAG run for " +
                 "query " + catalogQuoted(t.qid);
        return std::nullopt;
      }
      default:
        return std::nullopt;
    }
  };
}

}  // namespace ragscope::core::labels
