#include "core/export/kiltpredictions.h"

#include <nlohmann/json.hpp>
#include <unordered_set>

#include "core/export/json.h"
#include "core/metrics/doclevel.h"
#include "core/util/atomicfile.h"

namespace ragscope::core::exporting {

KiltPredictionPage kiltPageOf(std::string_view docId, const Corpus* corpus) {
  KiltPredictionPage page;
  std::optional<Document> doc;
  if (corpus) doc = corpus->find(docId);
  if (doc && !doc->parentId.empty()) {
    page.wikipediaId = doc->parentId;
    if (auto parent = corpus->find(doc->parentId)) page.title = parent->title;
  } else {
    page.wikipediaId = chunkDocumentId(docId);
    if (page.wikipediaId != docId && corpus) {
      if (auto parent = corpus->find(page.wikipediaId)) page.title = parent->title;
    } else if (doc) {
      page.title = doc->title;
    }
  }
  return page;
}

std::vector<KiltPredictionPage> kiltPagesOfRanking(const std::vector<std::string>& docIds,
                                                   const Corpus* corpus, std::size_t k) {
  std::vector<KiltPredictionPage> pages;
  std::unordered_set<std::string> seen;
  const std::size_t n = k ? std::min(k, docIds.size()) : docIds.size();
  for (std::size_t i = 0; i < n; ++i) {
    auto page = kiltPageOf(docIds[i], corpus);
    if (seen.insert(page.wikipediaId).second) pages.push_back(std::move(page));
  }
  return pages;
}

std::string kiltPredictionLine(const KiltPrediction& prediction) {
  nlohmann::ordered_json provenance = nlohmann::ordered_json::array();
  std::unordered_set<std::string> seen;
  for (const auto& p : prediction.pages) {
    if (!seen.insert(p.wikipediaId).second) continue;
    nlohmann::ordered_json entry;
    entry["wikipedia_id"] = p.wikipediaId;
    if (!p.title.empty()) entry["title"] = p.title;
    provenance.push_back(std::move(entry));
  }
  nlohmann::ordered_json output;
  if (prediction.hasAnswer) output["answer"] = prediction.answer;
  output["provenance"] = std::move(provenance);
  nlohmann::ordered_json record;
  record["id"] = prediction.id;
  record["output"] = nlohmann::ordered_json::array({std::move(output)});
  return jsonText(record);
}

bool writeKiltPredictions(const std::filesystem::path& path,
                          const std::vector<KiltPrediction>& predictions, std::string* error) {
  return writeFileAtomically(
      path,
      [&](std::ostream& out) {
        for (const auto& p : predictions) out << kiltPredictionLine(p) << '\n';
        return static_cast<bool>(out);
      },
      error);
}

}  // namespace ragscope::core::exporting
