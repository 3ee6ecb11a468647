#include "core/metrics/doclevel.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "core/data/dataset.h"
#include "core/data/loaders.h"

namespace ragscope::core {

namespace {

MeasureColumn docColumn(const char* name, MeasureKind kind, bool integer) {
  MeasureColumn c;
  c.name = name;
  c.kind = kind;
  c.integer = integer;
  c.aggregate = integer ? Aggregate::Sum : Aggregate::Mean;
  return c;
}

// The chunk ids of one ranking in trec_eval's order, cut at the depth.
std::vector<std::string> orderedChunkIds(const Ranking& ranking,
                                         std::optional<std::size_t> maxDepth) {
  const std::vector<const RunEntry*> order = trecOrder(ranking, maxDepth);
  std::vector<std::string> ids;
  ids.reserve(order.size());
  for (const RunEntry* e : order) ids.emplace_back(e->docId());
  return ids;
}

bool allDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}
}  // namespace

std::string chunkDocumentId(std::string_view chunkId) {
  const auto last = chunkId.rfind('#');
  if (last == std::string_view::npos || last == 0) return std::string(chunkId);
  const auto prev = chunkId.rfind('#', last - 1);
  if (prev == std::string_view::npos || prev == 0) return std::string(chunkId);
  if (!allDigits(chunkId.substr(last + 1)) || !allDigits(chunkId.substr(prev + 1, last - prev - 1)))
    return std::string(chunkId);
  return std::string(chunkId.substr(0, prev));
}

DocLevelResult evaluateDocLevel(const std::vector<std::string>& retrievedChunkIds,
                                const std::vector<std::string>& goldDocIds,
                                const ChunkToDoc& toDoc) {
  DocLevelResult r;
  const std::unordered_set<std::string> gold(goldDocIds.begin(), goldDocIds.end());
  r.goldCount = gold.size();
  std::unordered_set<std::string> seen;
  double precisionSum = 0.0;
  for (const auto& chunk : retrievedChunkIds) {
    std::string doc = toDoc ? toDoc(chunk) : chunk;
    if (!seen.insert(doc).second) continue;  // later chunks of a document already ranked
    const bool rel = gold.count(doc) > 0;
    r.rankedDocs.push_back(std::move(doc));
    r.relevant.push_back(rel);
    if (rel) {
      ++r.relevantRetrieved;
      precisionSum +=
          static_cast<double>(r.relevantRetrieved) / static_cast<double>(r.rankedDocs.size());
    }
  }
  if (!r.rankedDocs.empty())
    r.precision =
        static_cast<double>(r.relevantRetrieved) / static_cast<double>(r.rankedDocs.size());
  if (r.goldCount) {
    r.recall = static_cast<double>(r.relevantRetrieved) / static_cast<double>(r.goldCount);
    r.apTrecEval = precisionSum / static_cast<double>(r.goldCount);
  }
  if (r.relevantRetrieved)
    r.apRetrievedRelevant = precisionSum / static_cast<double>(r.relevantRetrieved);
  return r;
}

DocLevelResult meanDocLevel(const std::vector<DocLevelResult>& perQuery) {
  DocLevelResult m;
  if (perQuery.empty()) return m;
  for (const auto& q : perQuery) {
    m.precision += q.precision;
    m.recall += q.recall;
    m.apTrecEval += q.apTrecEval;
    m.apRetrievedRelevant += q.apRetrievedRelevant;
    m.relevantRetrieved += q.relevantRetrieved;
    m.goldCount += q.goldCount;
  }
  const double n = static_cast<double>(perQuery.size());
  m.precision /= n;
  m.recall /= n;
  m.apTrecEval /= n;
  m.apRetrievedRelevant /= n;
  return m;
}

EvalResult evaluateRunDocLevel(const Qrels& qrels, const Run& run, const EvalSettings& settings,
                               const ProgressFn& progress) {
  EvalResult result;
  result.settings = settings;
  result.runId = run.tag;
  result.runSource = run.source;
  result.columns = {docColumn("num_ret", MeasureKind::NumRet, true),
                    docColumn("num_rel", MeasureKind::NumRel, true),
                    docColumn("num_rel_ret", MeasureKind::NumRelRet, true),
                    docColumn(kDocApTrecEval, MeasureKind::Map, false),
                    docColumn(kDocApRetrievedRelevant, MeasureKind::Map, false),
                    docColumn("P", MeasureKind::SetP, false),
                    docColumn("recall", MeasureKind::SetRecall, false)};
  result.all.assign(result.columns.size(), 0.0);

  std::unordered_map<std::string_view, const Ranking*> rankings;
  for (const auto& r : run.rankings) {
    rankings.emplace(r.queryId, &r);
    if (!qrels.byQuery.count(r.queryId)) result.ignoredRunQueries.push_back(r.queryId);
  }
  std::size_t done = 0;
  const std::size_t total = qrels.byQuery.size();
  for (const auto& [qid, judgments] : qrels.byQuery) {
    if (progress && !progress(done++, total)) {
      result.cancelled = true;
      return result;
    }
    const auto it = rankings.find(qid);
    if (it == rankings.end() && !settings.complete) {
      result.skippedQueries.push_back(qid);
      continue;
    }
    if (it == rankings.end()) result.zeroFilledQueries.push_back(qid);
    std::vector<std::string> gold;
    for (const auto& j : judgments)
      if (j.rel >= settings.relevanceLevel) gold.push_back(chunkDocumentId(j.docId));
    const std::vector<std::string> chunks = it == rankings.end()
                                                ? std::vector<std::string>{}
                                                : orderedChunkIds(*it->second, settings.maxDepth);
    const DocLevelResult d = evaluateDocLevel(chunks, gold);

    QueryEval q;
    q.qid = qid;
    q.inRun = it != rankings.end();
    q.numRet = static_cast<long>(d.rankedDocs.size());
    q.numRel = static_cast<long>(d.goldCount);
    q.numRelRet = static_cast<long>(d.relevantRetrieved);
    q.numJudgedRet = q.numRelRet;
    q.values = {double(q.numRet), double(q.numRel),      double(q.numRelRet),
                d.apTrecEval,     d.apRetrievedRelevant, d.precision,
                d.recall};
    for (std::size_t c = 0; c < q.values.size(); ++c) result.all[c] += q.values[c];
    result.queries.push_back(std::move(q));
  }
  addQrelsRepeatErrors(qrels, result);
  result.numQueries = result.queries.size();
  // Sums stay sums (counts); measures become plain means in qid order, as evaluate() does.
  for (std::size_t c = 0; c < result.columns.size(); ++c)
    if (result.columns[c].aggregate == Aggregate::Mean && result.numQueries)
      result.all[c] /= static_cast<double>(result.numQueries);
  if (result.numQueries == 0)
    result.diagnostics.push_back({Severity::Error, run.source.empty() ? "run" : run.source, 0, "",
                                  "no queries with both results and relevance judgments"});
  return result;
}

Qrels goldDocumentQrels(const std::vector<Query>& queries) {
  Qrels qrels;
  qrels.source = "gold documents";
  for (const Query& q : queries) {
    const std::vector<std::string> gold = q.goldDocIds();
    if (gold.empty()) continue;
    auto& judgments = qrels.byQuery[q.id];
    for (const auto& doc : gold) judgments.push_back({doc, 1, q.line});
  }
  return qrels;
}

Loaded<Qrels> readDocumentQrels(const std::filesystem::path& path, const LoadOptions& options) {
  const std::optional<Format> format = detectFormat(path);
  if (!format || *format == Format::TrecQrels) return readTrecQrels(path, options);
  Loaded<Dataset> dataset = loadDataset({{path, format}}, options);
  Loaded<Qrels> out;
  out.report = std::move(dataset.report);
  out.value = goldDocumentQrels(dataset.value.queries);
  out.value.source = path.string();
  if (out.value.byQuery.empty() && out.report.ok())
    out.report.add({Severity::Error, path.string(), 0, "qrels",
                    "neither TREC qrels nor a dataset whose queries name gold documents"},
                   options.maxStoredDiagnostics);
  return out;
}

std::vector<std::string> docLevelConventionsText() {
  return {
      "Document level: a chunk id file#page#n counts as its document file; only the first "
      "occurrence of each document in the ranking counts, later chunks of it are dropped.",
      "P = relevant documents / distinct documents retrieved; recall = relevant retrieved / "
      "gold documents.",
      "AP (trec_eval) divides the precisions at relevant ranks by all gold documents; AP over "
      "retrieved relevant divides them by the relevant documents retrieved (the claim-level "
      "notebook's \"MAP\")."};
}

}  // namespace ragscope::core
