#include "core/metrics/doclevel.h"

#include <unordered_set>

namespace ragscope::core {

namespace {
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
                                const std::vector<std::string>& goldDocIds, const ChunkToDoc& toDoc) {
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
      precisionSum += static_cast<double>(r.relevantRetrieved) / static_cast<double>(r.rankedDocs.size());
    }
  }
  if (!r.rankedDocs.empty())
    r.precision = static_cast<double>(r.relevantRetrieved) / static_cast<double>(r.rankedDocs.size());
  if (r.goldCount) {
    r.recall = static_cast<double>(r.relevantRetrieved) / static_cast<double>(r.goldCount);
    r.apTrecEval = precisionSum / static_cast<double>(r.goldCount);
  }
  if (r.relevantRetrieved) r.apRetrievedRelevant = precisionSum / static_cast<double>(r.relevantRetrieved);
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

}  // namespace ragscope::core
