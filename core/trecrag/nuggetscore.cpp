#include "core/trecrag/nuggetscore.h"

#include <cstdio>

namespace ragscope::core::trecrag {

namespace {

nlohmann::ordered_json scoresJson(const NuggetScores& s) {
  return {{"strict_vital", s.strictVital},
          {"strict_all", s.strictAll},
          {"vital", s.vital},
          {"all", s.all}};
}

void appendLines(std::string& out, const NuggetScores& s) {
  const std::pair<const char*, double> rows[] = {{"strict_vital", s.strictVital},
                                                 {"strict_all", s.strictAll},
                                                 {"vital", s.vital},
                                                 {"all", s.all}};
  char buf[64];
  for (const auto& [name, value] : rows) {
    std::snprintf(buf, sizeof buf, "%-22s\t", name);
    out += buf;
    out += s.qid;
    std::snprintf(buf, sizeof buf, "\t%.4f\n", value);
    out += buf;
  }
}

}  // namespace

NuggetScores scoreNuggets(const NuggetQuery& query) {
  NuggetScores s;
  s.qid = query.qid;
  std::size_t vitalSupported = 0, allSupported = 0, vitalPartial = 0, allPartial = 0;
  for (const Nugget& n : query.nuggets) {
    const bool vital = n.importance == Importance::Vital;
    ++s.nuggets;
    if (vital) ++s.vitalNuggets;
    if (n.assignment == Assignment::Support) {
      ++allSupported;
      if (vital) ++vitalSupported;
    } else if (n.assignment == Assignment::PartialSupport) {
      ++allPartial;
      if (vital) ++vitalPartial;
    }
  }
  // nuggetizer sums 1 per support and 0.5 per partial_support, then divides.
  if (s.vitalNuggets > 0) {
    const double v = double(s.vitalNuggets);
    s.strictVital = double(vitalSupported) / v;
    s.vital = (double(vitalSupported) + 0.5 * double(vitalPartial)) / v;
  }
  if (s.nuggets > 0) {
    const double a = double(s.nuggets);
    s.strictAll = double(allSupported) / a;
    s.all = (double(allSupported) + 0.5 * double(allPartial)) / a;
  }
  return s;
}

NuggetScoreTable scoreNuggetQueries(std::span<const NuggetQuery> queries) {
  NuggetScoreTable t;
  t.mean.qid = "all";
  for (const NuggetQuery& q : queries) {
    t.queries.push_back(scoreNuggets(q));
    const NuggetScores& s = t.queries.back();
    t.mean.strictVital += s.strictVital;
    t.mean.strictAll += s.strictAll;
    t.mean.vital += s.vital;
    t.mean.all += s.all;
    t.mean.nuggets += s.nuggets;
    t.mean.vitalNuggets += s.vitalNuggets;
  }
  if (!t.queries.empty()) {
    const double n = double(t.queries.size());
    t.mean.strictVital /= n;
    t.mean.strictAll /= n;
    t.mean.vital /= n;
    t.mean.all /= n;
  }
  return t;
}

nlohmann::ordered_json nuggetScoresJson(const NuggetScoreTable& table) {
  nlohmann::ordered_json j;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& s : table.queries) {
    nlohmann::ordered_json row = {{"qid", s.qid}};
    row.update(scoresJson(s));
    rows.push_back(std::move(row));
  }
  j["queries"] = std::move(rows);
  j["mean"] = scoresJson(table.mean);
  j["n"] = table.queries.size();
  return j;
}

std::string formatNuggetScores(const NuggetScoreTable& table, bool perQuery) {
  std::string out;
  if (perQuery)
    for (const auto& s : table.queries) appendLines(out, s);
  appendLines(out, table.mean);
  return out;
}

}  // namespace ragscope::core::trecrag
