#include "core/retrieval/runfileretriever.h"

#include <algorithm>

#include "core/metrics/retrievalevaluator.h"

namespace ragscope::core {

RunFileRetriever::RunFileRetriever(std::shared_ptr<const Run> run, const Corpus* corpus)
    : m_run(std::move(run)), m_corpus(corpus) {}

std::string RunFileRetriever::name() const {
  if (!m_run) return "run";
  return m_run->tag.empty() ? std::string("run") : m_run->tag;
}

std::vector<ScoredDoc> RunFileRetriever::search(const Query& query, std::size_t k,
                                                std::string* error) {
  if (!m_run) {
    if (error) *error = "no run loaded";
    return {};
  }
  const Ranking* ranking = m_run->find(query.id);
  if (!ranking) return {};
  // The file's order is not the ranking: trec_eval's sort is (see retrievalevaluator.h).
  std::vector<RunEntry> entries(ranking->entries.begin(), ranking->entries.end());
  const std::size_t n = std::min(k, entries.size());
  std::partial_sort(entries.begin(), entries.begin() + static_cast<std::ptrdiff_t>(n),
                    entries.end(), trecRanksBefore);
  std::vector<ScoredDoc> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    ScoredDoc d;
    // Runs we wrote carry escaped blanks and '%' (encodeTrecId); other ids pass unchanged.
    d.id = std::string(entries[i].docId());  // the reader already decoded trecid.h escapes
    d.score = entries[i].score;
    if (m_corpus) {
      if (const auto doc = m_corpus->find(d.id)) d.text = doc->fullText();
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace ragscope::core
