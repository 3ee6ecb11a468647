#include "core/eval/kilt/kilteval.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <sstream>
#include <unordered_map>

#include "core/data/jsonfields.h"
#include "core/data/jsonlines.h"
#include "core/metrics/kiltdownstream.h"
#include "core/metrics/kiltretrieval.h"
#include "core/metrics/normalize.h"
#include "core/stats/bootstrap.h"

namespace ragscope::core::eval {

namespace {

using nlohmann::json;

// Python's str() of a JSON scalar, stripped: how KILT turns ids into keys (1 and "1" agree).
std::string kiltEvalPyStr(const json& v) {
  std::string s;
  if (v.is_string())
    s = v.get<std::string>();
  else if (v.is_boolean())
    s = v.get<bool>() ? "True" : "False";
  else if (v.is_null())
    s = "None";
  else
    s = v.dump();
  return std::string(stripPythonWhitespace(s));
}

std::string kiltEvalRecordId(const json& record) {
  auto it = record.find("id");
  return it == record.end() ? std::string() : kiltEvalPyStr(*it);
}

int kiltEvalParagraph(const json& p, const char* key) {
  auto it = p.find(key);
  if (it == p.end()) return -1;
  auto v = jsonInteger(*it);
  return v && *v >= 0 && *v < (1 << 30) ? static_cast<int>(*v) : -1;
}

std::vector<KiltPageRef> kiltEvalPages(const json& output) {
  std::vector<KiltPageRef> out;
  if (!output.is_object()) return out;
  auto it = output.find("provenance");
  if (it == output.end() || !it->is_array()) return out;
  for (const auto& p : *it) {
    if (!p.is_object()) continue;
    KiltPageRef ref;
    if (auto w = p.find("wikipedia_id"); w != p.end()) ref.wikipediaId = kiltEvalPyStr(*w);
    if (auto t = p.find("title"); t != p.end() && t->is_string()) ref.title = t->get<std::string>();
    if (auto s = p.find("section"); s != p.end() && !s->is_null()) ref.section = kiltEvalPyStr(*s);
    ref.startParagraph = kiltEvalParagraph(p, "start_paragraph_id");
    ref.endParagraph = kiltEvalParagraph(p, "end_paragraph_id");
    out.push_back(std::move(ref));
  }
  return out;
}

// A guess for a gold id the predictions file does not answer: scores 0 everywhere, as an empty
// answer with no provenance does in KILT.
const json& kiltEvalEmptyGuess() {
  static const json empty = json::parse(R"({"output": [{"answer": "", "provenance": []}]})");
  return empty;
}

std::string kiltEvalIdList(const std::vector<std::string>& ids, std::size_t max = 20) {
  std::string out;
  for (std::size_t i = 0; i < ids.size() && i < max; ++i) out += (i ? ", '" : "'") + ids[i] + "'";
  if (ids.size() > max) out += ", ... (" + std::to_string(ids.size() - max) + " more)";
  return out;
}

std::string kiltEvalNumber(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

int KiltEvaluation::metricIndex(std::string_view name) const {
  for (std::size_t i = 0; i < metrics.size(); ++i)
    if (metrics[i].name == name) return static_cast<int>(i);
  return -1;
}

std::vector<KiltMetricSummary> kiltMetricLayout(const std::vector<int>& ks) {
  std::vector<KiltMetricSummary> m;
  auto add = [&m](const char* group, std::string name) {
    KiltMetricSummary s;
    s.group = group;
    s.name = std::move(name);
    m.push_back(std::move(s));
  };
  for (const char* name : {"accuracy", "em", "f1", "rougel"}) add("downstream", name);
  add("retrieval", "Rprec");
  for (int k : ks) add("retrieval", "precision@" + std::to_string(k));
  for (int k : ks) add("retrieval", "recall@" + std::to_string(k));
  for (int k : ks) add("retrieval", "success_rate@" + std::to_string(k));
  for (const char* name : {"KILT-accuracy", "KILT-em", "KILT-f1", "KILT-rougel"}) add("kilt", name);
  return m;
}

std::string parseKiltKs(const std::string& text, std::vector<int>& out) {
  out.clear();
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    int k = 0;
    const auto r = std::from_chars(part.data(), part.data() + part.size(), k);
    if (part.empty() || r.ec != std::errc() || r.ptr != part.data() + part.size() || k <= 0 ||
        k > 1000000)
      return "'" + part + "' is not a positive integer (expected a list such as 1,5,10)";
    if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
  }
  if (out.empty()) return "expected a list of positive integers such as 1,5";
  std::sort(out.begin(), out.end());  // KILT sorts its ks
  return {};
}

std::string parseKiltRankKeys(const std::string& text, std::vector<std::string>& out) {
  out.clear();
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (part.empty()) return "an empty key in '" + text + "'";
    out.push_back(part);
  }
  if (out.empty()) return "expected provenance keys such as wikipedia_id,section";
  return {};
}

LoadReport readKiltPredictions(const std::filesystem::path& path, const LoadOptions& options,
                               std::vector<json>& records, std::vector<std::uint64_t>& lines) {
  return readJsonRecords(
      path, options, [&](json& record, const JsonRecordPlace& place, RecordProblems& problems) {
        if (!record.is_object()) {
          problems.error("record", "expected a JSON object, got " + jsonTypeName(record));
          return;
        }
        if (!record.contains("id")) {
          problems.error("id", "missing (KILT matches predictions to gold by id)");
          return;
        }
        records.push_back(std::move(record));
        lines.push_back(place.line);
      });
}

KiltEvaluation evaluateKiltRecords(const std::vector<json>& gold, const std::vector<json>& guess,
                                   const std::vector<std::uint64_t>& guessLines,
                                   const KiltEvalOptions& options, LoadReport& report,
                                   const std::string& goldPath, const std::string& guessPath) {
  KiltEvaluation e;
  e.goldPath = goldPath;
  e.guessPath = guessPath;
  e.ks = options.ks;
  std::sort(e.ks.begin(), e.ks.end());
  e.ks.erase(std::unique(e.ks.begin(), e.ks.end()), e.ks.end());
  e.ks.erase(std::remove_if(e.ks.begin(), e.ks.end(), [](int k) { return k <= 0; }), e.ks.end());
  e.rankKeys =
      options.rankKeys.empty() ? std::vector<std::string>{"wikipedia_id"} : options.rankKeys;
  e.metrics = kiltMetricLayout(e.ks);
  e.resamples = options.resamples;
  e.level = options.level;
  const std::size_t maxStored = options.load.maxStoredDiagnostics;
  auto lineOf = [&](std::size_t i) -> std::uint64_t {
    return i < guessLines.size() ? guessLines[i] : 0;
  };
  auto fail = [&](std::string file, std::uint64_t line, std::string field, std::string problem) {
    report.add(
        Diagnostic{Severity::Error, std::move(file), line, std::move(field), std::move(problem)},
        maxStored);
    report.stopped = true;
    return e;
  };

  // KILT's validate_input: unique gold ids, unique guess ids, guesses aligned to gold order.
  std::unordered_map<std::string, std::size_t> goldIndex;
  goldIndex.reserve(gold.size());
  for (std::size_t i = 0; i < gold.size(); ++i) {
    if (!gold[i].is_object() || !gold[i].contains("id"))
      return fail(goldPath, 0, "id", "gold record " + std::to_string(i + 1) + " has no id");
    if (!goldIndex.emplace(kiltEvalRecordId(gold[i]), i).second)
      return fail(goldPath, 0, "id",
                  "duplicate id '" + kiltEvalRecordId(gold[i]) + "' (KILT: gold IDs should be " +
                      "unique)");
  }
  std::vector<std::size_t> guessOf(gold.size(), SIZE_MAX);
  for (std::size_t i = 0; i < guess.size(); ++i) {
    const std::string id = kiltEvalRecordId(guess[i]);
    const auto it = goldIndex.find(id);
    if (it == goldIndex.end()) {
      e.extraIds.push_back(id);
      continue;
    }
    if (guessOf[it->second] != SIZE_MAX)
      return fail(guessPath, lineOf(i), "id",
                  "duplicate id '" + id + "' (first at line " +
                      std::to_string(lineOf(guessOf[it->second])) +
                      "; KILT: prediction IDs should be unique)");
    // KILT asserts one output per guess (eval_downstream and eval_retrieval alike).
    const auto out = guess[i].find("output");
    if (out == guess[i].end() || !out->is_array() || out->size() != 1 || !(*out)[0].is_object())
      return fail(guessPath, lineOf(i), "output",
                  "id '" + id + "': KILT needs exactly one output object per prediction, got " +
                      (out == guess[i].end() ? std::string("none")
                       : out->is_array()     ? std::to_string(out->size()) + " outputs"
                                             : jsonTypeName(*out)));
    guessOf[it->second] = i;
  }
  for (std::size_t g = 0; g < gold.size(); ++g)
    if (guessOf[g] == SIZE_MAX) e.missingIds.push_back(kiltEvalRecordId(gold[g]));
  if (!e.missingIds.empty()) {
    const std::string what = std::to_string(e.missingIds.size()) + " gold id(s) without a " +
                             "prediction: " + kiltEvalIdList(e.missingIds);
    if (options.strictIds)
      return fail(guessPath, 0, "id", what + " (KILT: no prediction provided for id)");
    report.add(Diagnostic{Severity::Warning, guessPath, 0, "id",
                          what + "; scored 0 as empty predictions (KILT itself stops here)"},
               maxStored);
    ++report.warnings;
  }
  if (!e.extraIds.empty()) {
    report.add(Diagnostic{Severity::Warning, guessPath, 0, "id",
                          std::to_string(e.extraIds.size()) + " prediction id(s) not in the gold " +
                              "file, ignored as KILT does: " + kiltEvalIdList(e.extraIds)},
               maxStored);
    ++report.warnings;
  }

  // Per item: downstream and the KILT gate (kiltdownstream.h), retrieval (kiltretrieval.h).
  const std::size_t nm = e.metrics.size();
  e.items.resize(gold.size());
  for (std::size_t g = 0; g < gold.size(); ++g) {
    if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
      report.cancelled = true;
      return e;
    }
    const json& goldRecord = gold[g];
    const bool has = guessOf[g] != SIZE_MAX;
    const json& guessRecord = has ? guess[guessOf[g]] : kiltEvalEmptyGuess();
    KiltEvalItem& item = e.items[g];
    item.id = kiltEvalRecordId(goldRecord);
    if (auto in = goldRecord.find("input"); in != goldRecord.end() && in->is_string())
      item.input = in->get<std::string>();
    item.goldAnswers = kiltGoldAnswers(goldRecord);
    if (auto outs = goldRecord.find("output"); outs != goldRecord.end() && outs->is_array())
      for (const auto& o : *outs)
        if (o.is_object() && o.contains("provenance"))
          item.goldProvenance.push_back(kiltEvalPages(o));
    item.hasGuess = has;
    item.guessLine = has ? lineOf(guessOf[g]) : 0;
    item.guessProvenance = kiltEvalPages(guessRecord["output"][0]);

    const auto down = kiltDownstreamItem(goldRecord, guessRecord);
    item.guessAnswer = down.guessAnswer;
    if (has && down.guessAnswer.empty()) ++e.emptyAnswers;
    const auto ret = kiltItemScores(guessRecord, goldRecord, e.ks, e.rankKeys);
    item.values.assign(nm, 0.0);
    std::size_t c = 0;
    for (double v : {down.accuracy, down.em, down.f1, down.rougel}) item.values[c++] = v;
    item.values[c++] = ret.rprec;
    for (int k : e.ks) item.values[c++] = ret.precision.at(k);
    for (int k : e.ks) item.values[c++] = ret.recall.at(k);
    for (int k : e.ks) item.values[c++] = ret.successRate.at(k);
    const double gate = down.kiltGate ? 1.0 : 0.0;
    for (double v : {down.accuracy, down.em, down.f1, down.rougel}) item.values[c++] = gate * v;
  }
  if (e.emptyAnswers) {
    report.add(Diagnostic{Severity::Warning, guessPath, 0, "output[0].answer",
                          std::to_string(e.emptyAnswers) + " prediction(s) with no or an empty " +
                              "answer: downstream and KILT scores 0 for them, as in KILT"},
               maxStored);
    ++report.warnings;
  }

  // Means over all gold items (KILT divides by the gold count), then the CIs.
  const std::size_t n = e.items.size();
  std::vector<double> column(n);
  for (std::size_t m = 0; m < nm; ++m) {
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) sum += (column[i] = e.items[i].values[m]);
    e.metrics[m].mean = n ? sum / static_cast<double>(n) : 0.0;
    if (options.resamples > 0 && n > 0) {
      stats::BootstrapOptions b;
      b.resamples = options.resamples;
      b.seed = options.seed;
      b.level = options.level;
      b.threads = options.threads;
      b.keepDistribution = false;
      b.cancel = options.cancel;
      const auto r = stats::bootstrap(column, b);
      if (r.cancelled) {
        report.cancelled = true;
        return e;
      }
      if (r.ok()) {
        e.metrics[m].ciLow = r.ci.low;
        e.metrics[m].ciHigh = r.ci.high;
      }
    }
  }
  return e;
}

Loaded<KiltEvaluation> evaluateKiltFiles(const std::filesystem::path& goldPath,
                                         const std::filesystem::path& guessPath,
                                         const KiltEvalOptions& options) {
  Loaded<KiltEvaluation> result;
  std::vector<json> gold, guess;
  std::vector<std::uint64_t> goldLines, guessLines;
  auto goldReport = readKiltPredictions(goldPath, options.load, gold, goldLines);
  result.report.merge(goldReport, options.load.maxStoredDiagnostics);
  if (!goldReport.ok()) {
    result.report.stopped = goldReport.stopped;
    result.report.cancelled = goldReport.cancelled;
    return result;
  }
  auto guessReport = readKiltPredictions(guessPath, options.load, guess, guessLines);
  result.report.merge(guessReport, options.load.maxStoredDiagnostics);
  if (!guessReport.ok()) {
    result.report.stopped = guessReport.stopped;
    result.report.cancelled = guessReport.cancelled;
    return result;
  }
  if (goldReport.hasErrors() || guessReport.hasErrors()) {
    // Skipped records would shift what KILT averages over: refuse rather than score a subset.
    result.report.stopped = true;
    return result;
  }
  result.value = evaluateKiltRecords(gold, guess, guessLines, options, result.report,
                                     goldPath.string(), guessPath.string());
  return result;
}

nlohmann::ordered_json kiltEvaluationJson(const KiltEvaluation& e, bool perItem) {
  nlohmann::ordered_json out;
  for (const char* group : {"downstream", "retrieval", "kilt"}) {
    nlohmann::ordered_json g = nlohmann::ordered_json::object();
    for (const auto& m : e.metrics)
      if (m.group == group) g[m.name] = m.mean;
    out[group] = g;
  }
  out["n"] = e.n();
  out["settings"] = {{"ks", e.ks}, {"rank_keys", e.rankKeys}};
  if (e.resamples > 0) {
    nlohmann::ordered_json ci;
    for (const char* group : {"downstream", "retrieval", "kilt"}) {
      nlohmann::ordered_json g = nlohmann::ordered_json::object();
      for (const auto& m : e.metrics)
        if (m.group == group && m.ciLow && m.ciHigh) g[m.name] = {*m.ciLow, *m.ciHigh};
      ci[group] = g;
    }
    out["ci"] = ci;
    out["resamples"] = e.resamples;
    out["level"] = e.level;
  }
  if (!e.missingIds.empty()) out["missing_ids"] = e.missingIds;
  if (!e.extraIds.empty()) out["extra_ids"] = e.extraIds;
  if (perItem) {
    nlohmann::ordered_json items = nlohmann::ordered_json::object();
    for (const auto& item : e.items) {
      nlohmann::ordered_json v;
      for (std::size_t m = 0; m < e.metrics.size(); ++m) v[e.metrics[m].name] = item.values[m];
      items[item.id] = v;
    }
    out["per_item"] = items;
  }
  return out;
}

std::string kiltPerItemText(const KiltEvaluation& e) {
  std::string out;
  for (const auto& item : e.items)
    for (std::size_t m = 0; m < e.metrics.size(); ++m)
      out += e.metrics[m].name + "\t" + item.id + "\t" + kiltEvalNumber(item.values[m]) + "\n";
  for (const auto& m : e.metrics) out += m.name + "\tall\t" + kiltEvalNumber(m.mean) + "\n";
  return out;
}

std::string kiltEvaluationText(const KiltEvaluation& e) {
  std::string out = "KILT evaluation of " + e.guessPath + " against " + e.goldPath + "\n";
  out += "n " + std::to_string(e.n()) + ", rank keys ";
  for (std::size_t i = 0; i < e.rankKeys.size(); ++i) out += (i ? "," : "") + e.rankKeys[i];
  out += " (KILT-* gated on wikipedia_id R-precision = 1)";
  if (e.resamples > 0) {
    char buf[96];
    std::snprintf(buf, sizeof buf, ", %g%% bootstrap CIs (B = %zu)", e.level * 100.0, e.resamples);
    out += buf;
  }
  out += "\n";
  for (const char* group : {"downstream", "retrieval", "kilt"}) {
    out += std::string("\n") + group + "\n";
    for (const auto& m : e.metrics) {
      if (m.group != group) continue;
      char buf[160];
      if (m.ciLow && m.ciHigh)
        std::snprintf(buf, sizeof buf, "  %-18s %.6f  [%.6f, %.6f]\n", m.name.c_str(), m.mean,
                      *m.ciLow, *m.ciHigh);
      else
        std::snprintf(buf, sizeof buf, "  %-18s %.6f\n", m.name.c_str(), m.mean);
      out += buf;
    }
  }
  return out;
}

}  // namespace ragscope::core::eval
