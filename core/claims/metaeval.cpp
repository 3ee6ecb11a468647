#include "core/claims/metaeval.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

#include "core/data/csvreader.h"
#include "core/data/jsonlines.h"
#include "core/util/nan.h"

namespace ragscope::core::claims {

namespace {

using nlohmann::json;

// RAGChecker's aspects first, in its order; others after, alphabetically.
void orderAspects(std::vector<std::string>& aspects) {
  static const std::vector<std::string> known = {"correctness", "completeness", "overall"};
  auto rank = [&](const std::string& a) {
    auto it = std::find(known.begin(), known.end(), a);
    return it == known.end() ? known.size() : std::size_t(it - known.begin());
  };
  std::sort(aspects.begin(), aspects.end(), [&](const std::string& a, const std::string& b) {
    return rank(a) != rank(b) ? rank(a) < rank(b) : a < b;
  });
}

constexpr std::string_view kLabelSuffix = "_label";

double sign(double v) { return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0; }

// np.nanmedian: the middle of the sorted non-NaN values (mean of the two middle ones).
double nanMedian(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double d) { return std::isnan(d); }), v.end());
  if (v.empty()) return kNaN;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2.0;
}

void ceilingFor(AspectAgreement& a, const std::vector<std::vector<double>>& labelsPerInstance,
                bool signs, const AgreementOptions& options) {
  AgreementInput ceiling;
  for (const auto& labels : labelsPerInstance) {
    if (labels.size() < 2) continue;
    ceiling.judge.push_back(labels[0]);
    ceiling.human.push_back(labels[1]);
  }
  if (ceiling.judge.empty()) return;
  if (signs) {
    for (double v : ceiling.judge) ceiling.judgeCategories.push_back(sign(v));
    for (double v : ceiling.human) ceiling.humanCategories.push_back(sign(v));
  } else if (isCategorical(ceiling.judge) && isCategorical(ceiling.human)) {
    ceiling.judgeCategories = ceiling.judge;
    ceiling.humanCategories = ceiling.human;
  }
  a.hasCeiling = true;
  a.ceiling = computeAgreement(ceiling, options);
}

}  // namespace

Loaded<PairwiseHuman> readPairwiseHuman(const std::filesystem::path& path,
                                        const LoadOptions& options) {
  Loaded<PairwiseHuman> out;
  auto& aspects = out.value.aspects;
  auto onRecord = [&](json& rec, const JsonRecordPlace& place, RecordProblems& problems) {
    try {
      if (!rec.is_object()) {
        problems.error({}, "must be a JSON object, not " + jsonTypeName(rec));
        return;
      }
      if (place.index == 0 || aspects.empty()) {
        aspects.clear();
        for (auto it = rec.begin(); it != rec.end(); ++it)
          if (it.key().ends_with(kLabelSuffix) && it.key().size() > kLabelSuffix.size())
            aspects.push_back(it.key().substr(0, it.key().size() - kLabelSuffix.size()));
        orderAspects(aspects);
        if (aspects.empty()) {
          problems.error({}, "no <aspect>_label field (e.g. correctness_label)");
          return;
        }
      }
      PairwiseHuman::Record r;
      r.line = place.line;
      auto id = jsonId(rec, "instance_id", problems, true);
      for (const auto& aspect : aspects) {
        const std::string key = aspect + std::string(kLabelSuffix);
        auto it = rec.find(key);
        if (it == rec.end() || it->is_null()) {
          problems.error(key, "missing");
        } else if (!it->is_number()) {
          problems.error(key, "must be a number (-2..2), not " + jsonTypeName(*it));
        } else {
          r.labels.push_back(it->get<double>());
        }
      }
      if (problems.hasErrors() || !id) return;
      r.instanceId = std::move(*id);
      out.value.records.push_back(std::move(r));
    } catch (const json::exception& e) {
      problems.error({}, std::string("unexpected JSON content: ") + e.what());
    }
  };
  out.report = readJsonRecords(path, options, onRecord, JsonLayout::TopLevelArray);
  return out;
}

Loaded<PairwiseJudge> readPairwiseJudge(const std::filesystem::path& path, const std::string& name,
                                        const LoadOptions& options) {
  Loaded<PairwiseJudge> out;
  out.value.name = name;
  auto& metrics = out.value.metrics;
  std::unordered_map<std::string, std::uint64_t> seen;
  auto onRecord = [&](json& rec, const JsonRecordPlace& place, RecordProblems& problems) {
    try {
      if (!rec.is_object()) {
        problems.error({}, "must be a JSON object, not " + jsonTypeName(rec));
        return;
      }
      PairwiseJudge::Instance inst;
      inst.line = place.line;
      auto id = jsonId(rec, "instance_id", problems, true);
      for (const char* model : {"model1", "model2"}) {
        const std::string field = std::string(model) + "." + name;
        auto m = rec.find(model);
        if (m == rec.end() || !m->is_object()) {
          problems.error(model,
                         m == rec.end() ? "missing" : "must be an object, not " + jsonTypeName(*m));
          continue;
        }
        auto scores = m->find(name);
        if (scores == m->end() || !scores->is_object()) {
          problems.error(field, scores == m->end()
                                    ? "missing (is --name right?)"
                                    : "must be an object of scores, not " + jsonTypeName(*scores));
          continue;
        }
        if (metrics.empty()) {
          for (auto it = scores->begin(); it != scores->end(); ++it) metrics.push_back(it.key());
          if (metrics.empty()) problems.error(field, "has no scores");
        }
        auto& into = std::string_view(model) == "model1" ? inst.model1 : inst.model2;
        for (const auto& metric : metrics) {
          auto v = scores->find(metric);
          if (v == scores->end()) {
            problems.error(field + "." + metric, "missing");
          } else if (v->is_null()) {
            into.push_back(kNaN);
          } else if (!v->is_number()) {
            problems.error(field + "." + metric,
                           "must be a number or null, not " + jsonTypeName(*v));
          } else {
            into.push_back(v->get<double>());
          }
        }
      }
      if (problems.hasErrors() || !id) return;
      inst.instanceId = std::move(*id);
      if (auto [it, fresh] = seen.emplace(inst.instanceId, place.line); !fresh) {
        problems.error("instance_id", "repeats the instance at line " + std::to_string(it->second));
        return;
      }
      out.value.instances.push_back(std::move(inst));
    } catch (const json::exception& e) {
      problems.error({}, std::string("unexpected JSON content: ") + e.what());
    }
  };
  out.report = readJsonRecords(path, options, onRecord, JsonLayout::TopLevelArray);
  return out;
}

Loaded<PointwiseTable> readPointwiseCsv(const std::filesystem::path& path,
                                        const LoadOptions& options) {
  Loaded<PointwiseTable> out;
  auto& report = out.report;
  const auto problem = [&](std::uint64_t line, std::string field, std::string text) {
    report.add({Severity::Error, path.string(), line, std::move(field), std::move(text)},
               options.maxStoredDiagnostics);
  };
  CsvReader csv(path, options.maxLineBytes);
  if (!csv.isOpen()) {
    problem(0, {}, "cannot open: " + csv.openError());
    report.stopped = true;
    return out;
  }
  std::vector<std::string> header, fields;
  if (csv.readHeader(header) != CsvReader::Status::Record) {
    problem(csv.error().line, "header",
            csv.error().problem.empty() ? "empty file" : csv.error().problem);
    report.stopped = true;
    return out;
  }
  std::size_t qidColumn = header.size();
  for (std::size_t c = 0; c < header.size(); ++c) {
    if (header[c] == "qid" || header[c] == "query_id")
      qidColumn = c;
    else
      out.value.columns.push_back(header[c]);
  }
  if (qidColumn == header.size() || out.value.columns.empty()) {
    problem(1, "header", "needs a qid (or query_id) column and at least one value column");
    report.stopped = true;
    return out;
  }
  for (;;) {
    const auto status = csv.next(fields);
    if (status == CsvReader::Status::End) break;
    if (status == CsvReader::Status::Error) {
      problem(csv.error().line, csv.error().field, csv.error().problem);
      if (options.onError == OnError::Stop || !csv.canContinue()) {
        report.stopped = true;
        break;
      }
      ++report.skipped;
      continue;
    }
    PointwiseTable::Row row;
    row.line = csv.recordLine();
    row.qid = fields[qidColumn];
    bool bad = row.qid.empty();
    if (bad) problem(row.line, header[qidColumn], "empty");
    for (std::size_t c = 0; c < fields.size() && !bad; ++c) {
      if (c == qidColumn) continue;
      const std::string& f = fields[c];
      if (f.empty()) {
        row.values.push_back(kNaN);
        continue;
      }
      char* end = nullptr;
      const double v = std::strtod(f.c_str(), &end);
      if (end == f.c_str() || *end != '\0' || !std::isfinite(v)) {
        problem(row.line, header[c], "'" + f.substr(0, 40) + "' is not a number");
        bad = true;
      } else {
        row.values.push_back(v);
      }
    }
    if (bad) {
      if (options.onError == OnError::Stop) {
        report.stopped = true;
        break;
      }
      ++report.skipped;
      continue;
    }
    ++report.records;
    out.value.rows.push_back(std::move(row));
  }
  return out;
}

MetaEvalResult comparePairwise(const PairwiseHuman& human, const PairwiseJudge& judge,
                               const AgreementOptions& options) {
  MetaEvalResult out;
  out.layout = "ragchecker-pairwise";
  out.kappaOn = "preference direction (sign of the label and of the score difference: -1, 0, +1)";
  // Instances in the human file's order, with their annotators' records.
  std::map<std::string, std::size_t> judgeIndex;
  for (std::size_t i = 0; i < judge.instances.size(); ++i)
    judgeIndex[judge.instances[i].instanceId] = i;
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::size_t>> recordsOf;
  for (std::size_t r = 0; r < human.records.size(); ++r) {
    const auto& id = human.records[r].instanceId;
    if (!judgeIndex.contains(id)) {
      out.error = "instance_id " + id + " (human record at line " +
                  std::to_string(human.records[r].line) + ") has no judge record";
      return out;
    }
    auto& list = recordsOf[id];
    if (list.empty()) order.push_back(id);
    list.push_back(r);
  }
  if (order.empty()) {
    out.error = "no human records";
    return out;
  }
  // Same-name pairing when the judge scores every aspect under its name, else all pairs.
  std::vector<std::pair<std::size_t, std::size_t>> pairs;  // (judge metric, human aspect)
  for (std::size_t a = 0; a < human.aspects.size(); ++a) {
    const std::string wanted = human.aspects[a] + std::string(kLabelSuffix);
    for (std::size_t m = 0; m < judge.metrics.size(); ++m)
      if (judge.metrics[m] == wanted || judge.metrics[m] == human.aspects[a])
        pairs.emplace_back(m, a);
  }
  if (pairs.size() != human.aspects.size()) {
    pairs.clear();
    for (std::size_t m = 0; m < judge.metrics.size(); ++m)
      for (std::size_t a = 0; a < human.aspects.size(); ++a) pairs.emplace_back(m, a);
  }
  for (auto [m, a] : pairs) {
    AspectAgreement result;
    result.aspect = human.aspects[a];
    result.judgeMetric = judge.metrics[m];
    result.instances = order.size();
    // meta_eval.py: delta over the whole judge file, NaN -> median, then min-max to [-2, 2].
    std::vector<double> delta(judge.instances.size());
    for (std::size_t i = 0; i < delta.size(); ++i)
      delta[i] = judge.instances[i].model2[m] - judge.instances[i].model1[m];
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (double d : delta)
      if (!std::isnan(d)) lo = std::min(lo, d), hi = std::max(hi, d);
    const double median = nanMedian(delta);
    for (double& d : delta)
      if (std::isnan(d)) d = median, ++result.nanReplaced;
    std::vector<double> norm = delta;
    if (hi - lo != 0 && std::isfinite(hi - lo))
      for (double& d : norm) d = ((d - lo) / (hi - lo) - 0.5) * 4;

    AgreementInput in;
    std::vector<std::vector<double>> labelsPerInstance;
    for (std::size_t inst = 0; inst < order.size(); ++inst) {
      const std::size_t j = judgeIndex[order[inst]];
      labelsPerInstance.emplace_back();
      for (std::size_t r : recordsOf[order[inst]]) {
        const double label = human.records[r].labels[a];
        in.judge.push_back(norm[j]);
        in.human.push_back(label);
        in.cluster.push_back(static_cast<std::uint32_t>(inst));
        in.judgeCategories.push_back(sign(delta[j]));
        in.humanCategories.push_back(sign(label));
        labelsPerInstance.back().push_back(label);
      }
    }
    result.judge = computeAgreement(in, options);
    result.judgeValues = in.judge;
    result.humanValues = in.human;
    ceilingFor(result, labelsPerInstance, /*signs=*/true, options);
    out.aspects.push_back(std::move(result));
  }
  return out;
}

MetaEvalResult comparePointwise(const PointwiseTable& human, const PointwiseTable& judge,
                                const AgreementOptions& options) {
  MetaEvalResult out;
  out.layout = "pointwise";
  out.kappaOn = "the values themselves, when both sides are whole numbers";
  std::size_t labelColumn = human.columns.size();
  for (std::size_t c = 0; c < human.columns.size(); ++c)
    if (human.columns[c] == "label") labelColumn = c;
  if (labelColumn == human.columns.size()) {
    if (human.columns.size() != 1) {
      out.error = "the human CSV needs a 'label' column (or a single value column)";
      return out;
    }
    labelColumn = 0;
  }
  std::map<std::string, std::size_t> judgeRow;
  for (std::size_t r = 0; r < judge.rows.size(); ++r) {
    if (judgeRow.contains(judge.rows[r].qid)) {
      out.error = "judge qid " + judge.rows[r].qid + " appears twice (line " +
                  std::to_string(judge.rows[r].line) + ")";
      return out;
    }
    judgeRow[judge.rows[r].qid] = r;
  }
  std::vector<std::string> order;
  std::map<std::string, std::vector<double>> labelsOf;
  for (const auto& row : human.rows) {
    const double v = row.values[labelColumn];
    if (std::isnan(v)) continue;
    auto& list = labelsOf[row.qid];
    if (list.empty()) order.push_back(row.qid);
    list.push_back(v);
  }
  for (std::size_t m = 0; m < judge.columns.size(); ++m) {
    AspectAgreement result;
    result.aspect = judge.columns[m];
    result.judgeMetric = judge.columns[m];
    AgreementInput in;
    std::vector<std::vector<double>> labelsPerInstance;
    for (const auto& qid : order) {
      auto it = judgeRow.find(qid);
      const double x = it == judgeRow.end() ? kNaN : judge.rows[it->second].values[m];
      if (std::isnan(x)) {
        result.unpaired += labelsOf[qid].size();
        continue;
      }
      const auto cluster = static_cast<std::uint32_t>(result.instances++);
      for (double label : labelsOf[qid]) {
        in.judge.push_back(x);
        in.human.push_back(label);
        in.cluster.push_back(cluster);
      }
      labelsPerInstance.push_back(labelsOf[qid]);
    }
    if (isCategorical(in.judge) && isCategorical(in.human)) {
      in.judgeCategories = in.judge;
      in.humanCategories = in.human;
    }
    result.judge = computeAgreement(in, options);
    result.judgeValues = in.judge;
    result.humanValues = in.human;
    ceilingFor(result, labelsPerInstance, /*signs=*/false, options);
    out.aspects.push_back(std::move(result));
  }
  if (out.aspects.empty()) out.error = "the judge has no value columns";
  return out;
}

}  // namespace ragscope::core::claims
