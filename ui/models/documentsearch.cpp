#include "ui/models/documentsearch.h"

#include <unordered_set>

namespace ragscope::ui {

bool isBigCorpus(const core::Corpus& corpus) {
  return corpus.size() > kBigCorpusDocuments || corpus.size() > corpus.inMemorySize();
}

PrefixMatches findByPrefix(const core::Corpus& corpus, std::string_view prefix, std::size_t limit) {
  PrefixMatches out;
  while (!prefix.empty() && (prefix.front() == ' ' || prefix.front() == '\t'))
    prefix.remove_prefix(1);
  std::string_view idPrefix = prefix;
  while (!idPrefix.empty() && (idPrefix.back() == ' ' || idPrefix.back() == '\t'))
    idPrefix.remove_suffix(1);
  if (idPrefix.empty() || limit == 0) return out;
  // One more than shown of each kind tells whether there are more.
  out.positions = corpus.withPrefix(idPrefix, false, limit + 1);
  out.byId = out.positions.size();
  if (out.positions.size() <= limit) {
    const std::unordered_set<std::size_t> seen(out.positions.begin(), out.positions.end());
    for (std::size_t p : corpus.withPrefix(prefix, true, limit + 1 + seen.size())) {
      if (seen.count(p)) continue;
      out.positions.push_back(p);
      if (out.positions.size() > limit) break;
    }
  }
  out.more = out.positions.size() > limit;
  if (out.more) out.positions.resize(limit);
  out.byId = std::min(out.byId, out.positions.size());
  return out;
}

}  // namespace ragscope::ui
