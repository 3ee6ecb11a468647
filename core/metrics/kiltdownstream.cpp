#include "core/metrics/kiltdownstream.h"

#include <algorithm>
#include <map>
#include <unordered_set>

#include "core/data/jsonlines.h"
#include "core/metrics/downstream.h"
#include "core/metrics/kiltretrieval.h"
#include "core/metrics/normalize.h"

namespace ragscope::core {

namespace {

// Python's str(value), as KILT applies it to ids and answers.
std::string pythonStr(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_null()) return "None";
  return v.dump();
}

std::string recordId(const nlohmann::json& record) {
  return record.is_object() && record.contains("id")
             ? std::string(stripPythonWhitespace(pythonStr(record["id"])))
             : std::string();
}

std::string guessAnswer(const nlohmann::json& guess) {
  if (!guess.is_object() || !guess.contains("output") || !guess["output"].is_array() ||
      guess["output"].empty())
    return {};
  const auto& first = guess["output"][0];
  if (!first.is_object() || !first.contains("answer")) return {};
  return std::string(stripPythonWhitespace(pythonStr(first["answer"])));
}

double maxOver(const std::vector<std::string>& golds,
               double (*fn)(std::string_view, std::string_view), const std::string& output) {
  double best = 0.0;
  for (const auto& g : golds) best = std::max(best, fn(output, g));
  return best;
}

}  // namespace

std::vector<std::string> kiltGoldAnswers(const nlohmann::json& gold) {
  std::vector<std::string> out;
  if (!gold.is_object() || !gold.contains("output") || !gold["output"].is_array()) return out;
  std::unordered_set<std::string> seen;  // distinct in one pass (a gold of many outputs)
  for (const auto& o : gold["output"]) {
    if (!o.is_object() || !o.contains("answer") || !o["answer"].is_string()) continue;
    std::string a(stripPythonWhitespace(o["answer"].get<std::string>()));
    if (!a.empty() && seen.insert(a).second) out.push_back(std::move(a));
  }
  return out;
}

KiltDownstreamItem kiltDownstreamItem(const nlohmann::json& gold, const nlohmann::json& guess) {
  KiltDownstreamItem item;
  item.id = recordId(gold);
  item.guessAnswer = guessAnswer(guess);
  if (item.guessAnswer.empty()) return item;  // KILT skips empty answers: 0 for every score
  const auto candidates = kiltGoldAnswers(gold);
  item.accuracy =
      std::find(candidates.begin(), candidates.end(), item.guessAnswer) != candidates.end() ? 1.0
                                                                                            : 0.0;
  item.em = maxOver(candidates, exactMatch, item.guessAnswer);
  item.f1 = maxOver(candidates, tokenF1, item.guessAnswer);
  item.rougel = maxOver(candidates, rougeLKilt, item.guessAnswer);
  item.rougeLStemmed = maxOver(candidates, rougeL, item.guessAnswer);
  item.rprec = kiltItemScores(guess, gold, {}, {"wikipedia_id"}).rprec;
  item.kiltGate = item.rprec == 1.0;
  return item;
}

bool kiltDownstreamScores(const std::vector<nlohmann::json>& gold,
                          const std::vector<nlohmann::json>& guess, KiltDownstreamScores& out,
                          std::string* error) {
  out = {};
  auto fail = [&](std::string message) {
    if (error) *error = std::move(message);
    return false;
  };
  std::map<std::string, std::size_t> goldIndex;
  for (std::size_t i = 0; i < gold.size(); ++i)
    if (!goldIndex.emplace(recordId(gold[i]), i).second)
      return fail("gold record " + std::to_string(i + 1) + ": duplicate id '" + recordId(gold[i]) +
                  "'");
  std::vector<const nlohmann::json*> aligned(gold.size(), nullptr);
  for (std::size_t i = 0; i < guess.size(); ++i) {
    const std::string id = recordId(guess[i]);
    const auto it = goldIndex.find(id);
    if (it == goldIndex.end())
      return fail("guess record " + std::to_string(i + 1) + ": id '" + id + "' is not in gold");
    if (aligned[it->second])
      return fail("guess record " + std::to_string(i + 1) + ": duplicate id '" + id + "'");
    aligned[it->second] = &guess[i];
  }
  for (std::size_t i = 0; i < gold.size(); ++i)
    if (!aligned[i]) return fail("no guess for gold id '" + recordId(gold[i]) + "'");

  for (std::size_t i = 0; i < gold.size(); ++i) {
    auto item = kiltDownstreamItem(gold[i], *aligned[i]);
    out.accuracy += item.accuracy;
    out.em += item.em;
    out.f1 += item.f1;
    out.rougel += item.rougel;
    out.rougeLStemmed += item.rougeLStemmed;
    if (item.kiltGate) {
      out.kiltAccuracy += item.accuracy;
      out.kiltEm += item.em;
      out.kiltF1 += item.f1;
      out.kiltRougel += item.rougel;
    }
    out.items.push_back(std::move(item));
  }
  out.count = gold.size();
  if (out.count) {
    const double n = static_cast<double>(out.count);
    for (double* v : {&out.accuracy, &out.em, &out.f1, &out.rougel, &out.rougeLStemmed,
                      &out.kiltAccuracy, &out.kiltEm, &out.kiltF1, &out.kiltRougel})
      *v /= n;
  }
  return true;
}

Loaded<KiltDownstreamScores> evaluateKiltDownstream(const std::filesystem::path& goldPath,
                                                    const std::filesystem::path& guessPath,
                                                    const LoadOptions& options) {
  Loaded<KiltDownstreamScores> result;
  auto read = [&](const std::filesystem::path& path, std::vector<nlohmann::json>& records) {
    auto report = readJsonRecords(
        path, options,
        [&](nlohmann::json& record, const JsonRecordPlace&, RecordProblems& problems) {
          if (!record.is_object()) {
            problems.error("record", "expected a JSON object, got " + jsonTypeName(record));
            return;
          }
          records.push_back(std::move(record));
        });
    result.report.merge(report, options.maxStoredDiagnostics);
    result.report.cancelled = result.report.cancelled || report.cancelled;
    return report.ok();
  };
  std::vector<nlohmann::json> gold, guess;
  if (!read(goldPath, gold) || !read(guessPath, guess)) return result;
  std::string error;
  if (!kiltDownstreamScores(gold, guess, result.value, &error)) {
    result.report.add(Diagnostic{Severity::Error, guessPath.string(), 0, "id", error},
                      options.maxStoredDiagnostics);
    result.report.stopped = true;
  }
  return result;
}

}  // namespace ragscope::core
