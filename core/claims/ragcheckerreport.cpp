#include "core/claims/ragcheckerreport.h"

#include <charconv>
#include <cstdio>
#include <sstream>

namespace ragscope::core::claims {

namespace {

using ojson = nlohmann::ordered_json;

ojson valueOrNull(const MetricScore& s) { return s.hasValue() ? ojson(s.value) : ojson(nullptr); }

std::string shortest(double v) {
  if (v != v) return "-";
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string("?");
}

std::string fixed(double v, int decimals) {
  if (v != v) return "-";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string pad(std::string s, std::size_t width, bool left = false) {
  if (s.size() >= width) return s;
  return left ? s + std::string(width - s.size(), ' ') : std::string(width - s.size(), ' ') + s;
}

constexpr const char* kShort[kMetricCount] = {"P",     "R",     "F1",  "CR", "CP",   "CU",
                                              "NSrel", "NSirr", "Hal", "SK", "Faith"};

}  // namespace

StoredCheck checkStoredMetrics(std::span<const ClaimExample> examples, const CorpusScores& scores) {
  StoredCheck out;
  for (std::size_t e = 0; e < examples.size() && e < scores.perExample.size(); ++e) {
    for (Metric m : allMetrics()) {
      auto it = examples[e].storedMetrics.find(std::string(metricKey(m)));
      if (it == examples[e].storedMetrics.end()) continue;
      ++out.compared;
      const MetricScore& s = scores.perExample[e][m];
      if (s.hasValue() && s.value == it->second)
        ++out.equal;
      else
        out.differences.push_back({examples[e].queryId, metricName(m), it->second, s.value});
    }
  }
  return out;
}

ojson ragcheckerReportJson(std::span<const ClaimExample> examples, const CorpusScores& scores) {
  const bool own = scores.mode == Mode::RagScope;
  ojson doc;
  doc["mode"] = std::string(modeName(scores.mode));
  doc["n"] = examples.size();
  ojson perExample = ojson::object(), perStates = ojson::object();
  for (std::size_t e = 0; e < examples.size() && e < scores.perExample.size(); ++e) {
    ojson values = ojson::object(), states = ojson::object();
    for (Metric m : allMetrics()) {
      const MetricScore& s = scores.perExample[e][m];
      values[metricName(m)] = valueOrNull(s);
      if (own && (s.state != ScoreState::Scored || s.scored < s.total))
        states[metricName(m)] = {{"state", std::string(stateName(s.state))},
                                 {"n_scored", s.scored},
                                 {"n_total", s.total},
                                 {"unparsed", s.unparsed},
                                 {"error", s.errors}};
    }
    perExample[examples[e].queryId] = std::move(values);
    if (!states.empty()) perStates[examples[e].queryId] = std::move(states);
  }
  doc["per_example"] = std::move(perExample);
  ojson groups = ojson::object(), mean = ojson::object();
  for (Metric m : allMetrics()) {
    const CorpusMetric& c = scores[m];
    groups[std::string(metricGroup(m))][std::string(metricKey(m))] =
        c.scored > 0 ? ojson(c.percent) : ojson(nullptr);
    mean[metricName(m)] = c.scored > 0 ? ojson(c.mean) : ojson(nullptr);
  }
  doc["metrics"] = std::move(groups);
  doc["mean"] = std::move(mean);
  if (own) {
    ojson nScored = ojson::object(), states = ojson::object(), items = ojson::object();
    for (Metric m : allMetrics()) {
      const CorpusMetric& c = scores[m];
      nScored[metricName(m)] = c.scored;
      states[metricName(m)] = {
          {"scored", c.scored}, {"unparsed", c.unparsed}, {"error", c.errors}, {"empty", c.empty}};
      items[metricName(m)] = {{"total", c.itemsTotal},
                              {"scored", c.itemsScored},
                              {"unparsed", c.itemsUnparsed},
                              {"error", c.itemsErrors}};
    }
    doc["n_total"] = examples.size();
    doc["n_scored"] = std::move(nScored);
    doc["states"] = std::move(states);
    doc["items"] = std::move(items);
    doc["per_example_states"] = std::move(perStates);
  }
  const LabelCounts& l = scores.labels;
  doc["labels"] = {{"total", l.total()},
                   {"entailment", l.count(Label::Entailment)},
                   {"neutral", l.count(Label::Neutral)},
                   {"contradiction", l.count(Label::Contradiction)},
                   {"supported", l.count(Label::Supported)},
                   {"unsupported", l.count(Label::Unsupported)},
                   {"unparsed", l.unparsed()},
                   {"error", l.errors()}};
  const StoredCheck check = checkStoredMetrics(examples, scores);
  ojson differ = ojson::array();
  for (std::size_t i = 0; i < check.differences.size() && i < 20; ++i) {
    const auto& d = check.differences[i];
    differ.push_back({{"query_id", d.queryId},
                      {"metric", d.metric},
                      {"stored", d.stored},
                      {"recomputed", d.recomputed}});
  }
  doc["stored_check"] = {
      {"compared", check.compared}, {"equal", check.equal}, {"differ", std::move(differ)}};
  return doc;
}

std::string formatRagCheckerReport(std::span<const ClaimExample> examples,
                                   const CorpusScores& scores,
                                   const StoredCorpusMetrics& storedCorpus) {
  const bool own = scores.mode == Mode::RagScope;
  std::ostringstream out;
  out << "RAGChecker metrics recomputed from the labels, mode " << modeName(scores.mode) << ", "
      << examples.size() << " example(s)\n";
  if (own)
    out << "(ragscope's mode: unparsed and error labels are not counted as 0 or 1; each metric "
           "averages the examples that have a value)\n";
  else
    out << "(RAGChecker's conventions: only Entailment counts, unparsed labels read as Neutral, "
           "empty cases 0.0; figures = round(mean x 100, 1))\n";
  const LabelCounts& l = scores.labels;
  out << "labels: " << l.total() << " (" << l.supported() << " supported, " << l.unparsed()
      << " unparsed, " << l.errors() << " error)\n\n";

  out << pad("group", 10, true) << pad("metric", 44, true) << pad("figure", 7);
  if (!storedCorpus.empty()) out << pad("stored", 8);
  out << "  " << (own ? pad("mean", 22, true) : std::string("mean"));
  if (own) out << pad("examples", 10) << pad("items", 12) << "  unparsed  error  empty";
  out << "\n";
  for (Metric m : allMetrics()) {
    const CorpusMetric& c = scores[m];
    out << pad(std::string(metricGroup(m)), 10, true) << pad(metricName(m), 44, true)
        << pad(c.scored > 0 ? fixed(c.percent, 1) : "-", 7);
    if (!storedCorpus.empty()) {
      std::string stored = "-";
      if (auto g = storedCorpus.find(std::string(metricGroup(m))); g != storedCorpus.end())
        if (auto v = g->second.find(std::string(metricKey(m))); v != g->second.end())
          stored = fixed(v->second, 1);
      out << pad(stored, 8);
    }
    const std::string mean = c.scored > 0 ? shortest(c.mean) : "-";
    out << "  " << (own ? pad(mean, 22, true) : mean);
    if (own)
      out << pad(std::to_string(c.scored) + "/" + std::to_string(c.examples), 10)
          << pad(std::to_string(c.itemsScored) + "/" + std::to_string(c.itemsTotal), 12)
          << pad(std::to_string(c.unparsed), 10) << pad(std::to_string(c.errors), 7)
          << pad(std::to_string(c.empty), 7);
    out << "\n";
  }
  if (own)
    out << "(examples and items: scored / all; unparsed, error, empty: examples without a value, "
           "by reason)\n";
  const StoredCheck check = checkStoredMetrics(examples, scores);
  if (check.compared > 0) {
    out << "\nstored per-example metrics: " << check.compared << " compared, " << check.equal
        << " equal bit for bit";
    if (!check.differences.empty()) out << ", " << check.differences.size() << " differ";
    out << "\n";
    for (std::size_t i = 0; i < check.differences.size() && i < 10; ++i) {
      const auto& d = check.differences[i];
      out << "  " << d.queryId << " " << d.metric << ": stored " << shortest(d.stored)
          << ", recomputed " << shortest(d.recomputed) << "\n";
    }
  }

  out << "\n" << pad("query_id", 12, true);
  for (const char* s : kShort) out << pad(s, 9);
  out << "\n";
  bool partial = false;
  for (std::size_t e = 0; e < examples.size() && e < scores.perExample.size(); ++e) {
    out << pad(examples[e].queryId, 12, true);
    for (Metric m : allMetrics()) {
      const MetricScore& s = scores.perExample[e][m];
      std::string cell = s.hasValue() ? fixed(s.value, 4) : std::string(stateName(s.state));
      if (s.hasValue() && s.scored < s.total) {
        cell += "*";
        partial = true;
      }
      out << pad(cell, 9);
    }
    out << "\n";
  }
  if (partial) out << "* from some of the items only (the others unparsed or error; see --json)\n";
  return out.str();
}

}  // namespace ragscope::core::claims
