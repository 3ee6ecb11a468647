#include "core/eval/jobs/assessjob.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/eval/jobs/jobplanning.h"
#include "core/export/json.h"
#include "core/labels/labelstore.h"
#include "core/llm/llmjson.h"
#include "core/trecrag/assessgrade.h"
#include "core/trecrag/assessprompt.h"
#include "core/util/atomicfile.h"
#include "core/util/jsonstrict.h"

namespace ragscope::core::eval {

using nlohmann::json;
using trecrag::AssessReply;
using trecrag::PairGrades;
using trecrag::ReplyState;

std::string assessItemKey(std::string_view qid, std::string_view docId, std::size_t repeat) {
  return std::string(kAssessKeyPrefix) + escapeItemKeyPart(qid) + ":" + escapeItemKeyPart(docId) +
         ":" + std::to_string(repeat);
}

AssessPlan planAssess(const Dataset& dataset, const Run& run, const Qrels& qrels,
                      const AssessJobOptions& o, std::string_view templateText) {
  AssessPlan plan;
  plan.plan = json::array();
  auto warn = [&](std::string text) { addPlanWarning(plan.warnings, std::move(text)); };
  const auto selection = trecrag::selectAssessPairs(run, qrels, o.depth, o.all);
  plan.judgedLeftOut = selection.judgedLeftOut;
  plan.judgedRegraded = selection.judgedRegraded;
  std::set<std::string> queries, textless;
  for (const auto& pair : selection.pairs) {
    const Query* q = dataset.findQuery(pair.qid);
    if (!q) {
      if (textless.insert(pair.qid).second)
        warn("query " + pair.qid + ": not in the dataset (its pairs are not graded)");
      continue;
    }
    const auto doc = dataset.corpus.find(pair.docId);
    if (!doc) {
      ++plan.missingDocuments;
      warn("query " + pair.qid + ": document " + pair.docId + " is not in the corpus (not graded)");
      continue;
    }
    const std::string prompt =
        trecrag::renderAssessPrompt(templateText, q->text, passageText(*doc));
    for (std::size_t r = 0; r < o.repeats; ++r) {
      llm::LlmRequest request = chatRequest(prompt);
      // Each repeat is its own call (and its own cache entry): a seed of its own.
      if (o.repeats > 1) request.seed = static_cast<std::int64_t>(r);
      plan.items.push_back({assessItemKey(pair.qid, pair.docId, r), std::string(kAssessJobKind),
                            exporting::jsonText(llm::toJson(request))});
    }
    json entry = {{"qid", pair.qid}, {"doc", pair.docId}, {"rank", pair.rank}};
    if (pair.judged) entry["judged"] = *pair.judged;
    plan.plan.push_back(std::move(entry));
    plan.pairs.push_back(pair);
    queries.insert(pair.qid);
  }
  plan.queries = queries.size();
  plan.queriesWithoutText = textless.size();
  return plan;
}

json qrelsJson(const Qrels& qrels) {
  json out = json::object();
  for (const auto& [qid, judgments] : qrels.byQuery) {
    json docs = json::object();
    for (const auto& j : judgments)
      if (!docs.contains(j.docId)) docs[j.docId] = j.rel;
    out[qid] = std::move(docs);
  }
  return out;
}

std::optional<Qrels> qrelsFromJson(const json& j, std::string* error) {
  if (!j.is_object()) {
    if (error) *error = "human_qrels: not a JSON object";
    return std::nullopt;
  }
  Qrels out;
  for (const auto& [qid, docs] : j.items()) {
    if (!docs.is_object()) {
      if (error) *error = "human_qrels." + qid + ": not a JSON object";
      return std::nullopt;
    }
    auto& list = out.byQuery[qid];
    for (const auto& [doc, grade] : docs.items()) {
      if (!grade.is_number_integer()) {
        if (error) *error = "human_qrels." + qid + "." + doc + ": not a whole number";
        return std::nullopt;
      }
      list.push_back({doc, grade.get<int>(), 0});
    }
  }
  return out;
}

AssessReport computeAssessReport(store::RunStore& store) {
  AssessReport report;
  const store::RunRecord record = store.run();
  if (record.kind != kAssessJobKind) {
    report.error = store.path().string() + ": a '" + record.kind + "' run, not an assessment";
    return report;
  }
  const json& s = record.settings;
  try {
    report.repeats = std::max<std::size_t>(1, s.at("repeats").get<std::size_t>());
    report.mergeQrels = s.value("merge_qrels", false);
    for (const auto& p : s.at("plan")) {
      PairGrades g;
      g.qid = p.at("qid").get<std::string>();
      g.docId = p.at("doc").get<std::string>();
      g.rank = p.at("rank").get<std::size_t>();
      if (p.contains("judged")) g.judged = p.at("judged").get<int>();
      g.replies.assign(report.repeats, AssessReply{});
      report.pairs.push_back(std::move(g));
    }
  } catch (const json::exception& e) {
    report.error =
        store.path().string() + ": run.settings: the assessment plan is malformed: " + e.what();
    return report;
  }
  if (report.mergeQrels) {
    const auto text = store.data("human_qrels");
    std::string err;
    std::optional<Qrels> human;
    if (text) human = qrelsFromJson(parseJsonStrictOrDiscarded(*text), &err);
    if (!human) {
      report.error = store.path().string() + ": " +
                     (text ? err : std::string("the people's qrels to merge with are missing"));
      return report;
    }
    report.human = std::move(human);
  }
  std::map<std::string, std::pair<std::size_t, std::size_t>> cell;  // key -> (pair, repeat)
  for (std::size_t i = 0; i < report.pairs.size(); ++i)
    for (std::size_t r = 0; r < report.repeats; ++r)
      cell.emplace(assessItemKey(report.pairs[i].qid, report.pairs[i].docId, r), std::pair{i, r});
  store.forEachResult([&](store::StoredResult&& res) {
    const auto it = cell.find(res.key);
    if (it == cell.end()) return true;
    auto& pair = report.pairs[it->second.first];
    AssessReply& reply = pair.replies[it->second.second];
    if (res.result.status == store::ItemStatus::Done) {
      if (res.result.heuristic) ++report.heuristicReplies;
      const auto reading = trecrag::readGrade(res.result.text);
      if (reading.grade) {
        reply = {ReplyState::Graded, reading.grade, {}};
      } else {
        reply = {ReplyState::Unparsed, std::nullopt, reading.problem};
        if (report.unparsedExamples.size() < 5)
          report.unparsedExamples.push_back("query " + pair.qid + ", document " + pair.docId +
                                            ", repeat " + std::to_string(it->second.second + 1) +
                                            ": " + reading.problem);
      }
    } else if (res.result.status == store::ItemStatus::Error) {
      reply = {ReplyState::Failed, std::nullopt, res.result.error};
    }
    return true;
  });
  for (auto& p : report.pairs) trecrag::combineReplies(p);
  report.counts = trecrag::countAssessment(report.pairs);
  return report;
}

bool writeAssessQrels(const AssessReport& report, const std::filesystem::path& out,
                      trecrag::MergedQrels* merged, std::string* error) {
  std::string text;
  if (report.mergeQrels && report.human) {
    trecrag::MergedQrels m = trecrag::mergeAssessQrels(*report.human, report.pairs);
    text = m.text;
    if (merged) *merged = std::move(m);
  } else {
    text = trecrag::assessQrelsText(report.pairs);
  }
  return writeBytesAtomically(out, text, error);
}

json assessSummaryJson(const AssessReport& report) {
  const auto& c = report.counts;
  json out;
  out["pairs"] = c.pairs;
  out["graded"] = c.graded;
  out["ungraded"] = c.ungraded;
  out["repeats"] = report.repeats;
  out["replies"] = {{"graded", c.repliesGraded},
                    {"unparsed", c.repliesUnparsed},
                    {"failed", c.repliesFailed},
                    {"pending", c.repliesPending}};
  out["grades"] = {
      {"0", c.byGrade[0]}, {"1", c.byGrade[1]}, {"2", c.byGrade[2]}, {"3", c.byGrade[3]}};
  out["spread"] = {{"pairs_disagreeing", c.spreadPairs},
                   {"pairs_repeated", c.multiParsed},
                   {"mean", c.meanSpread}};
  std::size_t judged = 0, exact = 0;
  for (const auto& p : report.pairs)
    if (p.judged && p.grade) {
      ++judged;
      if (*p.judged == *p.grade) ++exact;
    }
  out["regraded_judged"] = {{"pairs", judged}, {"same_grade", exact}};
  out["unparsed_examples"] = report.unparsedExamples;
  return out;
}

bool writeAssessLabels(const AssessReport& report, const std::filesystem::path& labelsPath,
                       const std::string& scope, const std::string& annotator,
                       const std::filesystem::path& storePath, AssessLabelsResult* result,
                       std::string* error) {
  AssessLabelsResult r;
  std::vector<labels::Label> list;
  const std::string time = labels::nowIso8601();
  for (const auto& p : report.pairs) {
    if (!p.grade) continue;
    labels::Label l;
    l.target = {labels::TargetKind::Relevance, scope, p.qid, p.docId};
    l.value = std::to_string(*p.grade);
    l.annotator = annotator;
    l.time = time;
    std::string grades;
    for (const auto& reply : p.replies) {
      if (!grades.empty()) grades += ",";
      grades += reply.grade ? std::to_string(*reply.grade) : std::string("-");
    }
    l.comment = "ragscope-cli assess " + storePath.filename().string() + ": grades " + grades;
    if (labels::labelProblem(l)) {
      ++r.skipped;
      continue;
    }
    list.push_back(std::move(l));
  }
  labels::LabelStore store;
  if (!store.openProjectOrStore(labelsPath, false, error)) return false;
  if (!list.empty() && !store.add(list, error)) return false;
  r.written = list.size();
  if (result) *result = r;
  return true;
}

}  // namespace ragscope::core::eval
