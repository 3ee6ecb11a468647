// The judging job's definition (see judgejob.h and core/eval/jobs/README.md): its metric names and
// modes, the settings and inputs as its store records them, and the check of a stored record. The
// walker is in judgewalk.cpp, the metrics in judgemetrics.cpp, the report in judgereport.cpp, the
// job's planning in core/eval/api/judgeplan.cpp.

#include "core/eval/jobs/judgejob.h"

#include <algorithm>

#include "core/claims/ragchecker.h"
#include "core/llm/prompts.h"

namespace ragscope::core::eval {

using nlohmann::json;

namespace {

const std::vector<std::string>& judgeNotebookMetrics() {
  static const std::vector<std::string> names = {"faithfulness", "correctness", "coverage"};
  return names;
}

}  // namespace

bool isRagCheckerMetric(std::string_view m) { return m.rfind("ragchecker.", 0) == 0; }

std::string_view judgeModeName(JudgeMode m) {
  switch (m) {
    case JudgeMode::RagScope:
      return "ragscope";
    case JudgeMode::RagChecker:
      return "ragchecker";
    case JudgeMode::Ragas:
      return "ragas";
  }
  return "ragscope";
}

std::optional<JudgeMode> judgeModeFromName(std::string_view name) {
  for (JudgeMode m : {JudgeMode::RagScope, JudgeMode::RagChecker, JudgeMode::Ragas})
    if (judgeModeName(m) == name) return m;
  return std::nullopt;
}

const std::vector<std::string>& judgeMetricNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = judgeNotebookMetrics();
    for (claims::Metric m : claims::allMetrics()) n.push_back(claims::metricName(m));
    n.push_back("ragas.faithfulness");
    n.push_back("ragas.answer_relevancy");
    n.push_back("ragas.context_precision");
    n.push_back("ragas.context_recall");
    n.push_back("ragas.context_relevance_paper");
    n.push_back("vera.consolidated");
    return n;
  }();
  return names;
}

std::optional<std::vector<std::string>> parseJudgeMetrics(std::string_view list,
                                                          std::string* error) {
  std::vector<std::string> out;
  auto add = [&](const std::string& m) {
    if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  };
  std::size_t start = 0;
  while (start <= list.size()) {
    const auto comma = list.find(',', start);
    std::string name(list.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (!name.empty()) {
      const auto& known = judgeMetricNames();
      if (name == "notebook") {
        for (const auto& m : judgeNotebookMetrics()) add(m);
      } else if (name == "ragchecker") {
        for (claims::Metric m : claims::allMetrics()) add(claims::metricName(m));
      } else if (std::find(known.begin(), known.end(), name) != known.end()) {
        add(name);
      } else {
        *error = "unknown metric '" + name + "' (known: notebook, ragchecker, and each of";
        for (const auto& k : known) *error += " " + k;
        *error += ")";
        return std::nullopt;
      }
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (out.empty()) {
    *error = "no metric named";
    return std::nullopt;
  }
  return out;
}

json judgeSettingsJson(const JudgeSettings& s) {
  json j;
  j["metrics"] = s.metrics;
  j["mode"] = std::string(judgeModeName(s.mode));
  j["repeats"] = s.repeats;
  j["matrices"] = s.matrices;
  j["extract_template"] = s.extractTemplate;
  j["extract_template_sha256"] = llm::templateHash(s.extractTemplate);
  j["question_template"] = s.questionTemplate;
  j["question_template_sha256"] = llm::templateHash(s.questionTemplate);
  j["context_relevance_template"] = s.contextRelevanceTemplate;
  j["context_relevance_template_sha256"] = llm::templateHash(s.contextRelevanceTemplate);
  j["seed"] = s.seed ? json(*s.seed) : json();
  if (s.structured) j["structured_outputs"] = true;  // absent: text, as before the setting
  return j;
}

JudgeSettings judgeSettingsFromJson(const json& j) {
  JudgeSettings s;
  s.metrics = j.at("metrics").get<std::vector<std::string>>();
  const auto mode = judgeModeFromName(j.at("mode").get<std::string>());
  if (!mode) throw json::other_error::create(501, "\"judge.mode\" is not a known mode", &j);
  s.mode = *mode;
  s.repeats = std::max<std::size_t>(1, j.at("repeats").get<std::size_t>());
  s.matrices = j.value("matrices", false);
  s.extractTemplate = j.at("extract_template").get<std::string>();
  s.questionTemplate = j.value("question_template", llm::defaultQuestionGenerationTemplate());
  s.contextRelevanceTemplate =
      j.value("context_relevance_template", llm::defaultContextRelevanceTemplate());
  if (j.contains("seed") && j["seed"].is_number_integer()) s.seed = j["seed"].get<std::int64_t>();
  s.structured = j.value("structured_outputs", false);  // not true/false: a json type error
  return s;
}

json judgeInputsJson(const std::vector<JudgeInput>& inputs) {
  json a = json::array();
  for (const auto& in : inputs) {
    json chunks = json::array();
    for (const auto& c : in.chunks) chunks.push_back({{"id", c.id}, {"text", c.text}});
    json j = {{"qid", in.qid},
              {"question", in.question},
              {"gold", in.gold},
              {"chunks", std::move(chunks)}};
    j["response"] = in.response ? json(*in.response) : json();
    if (!in.response) j["generate_prompt"] = in.generatePrompt;
    a.push_back(std::move(j));
  }
  return a;
}

std::vector<JudgeInput> judgeInputsFromJson(const json& a) {
  std::vector<JudgeInput> out;
  for (const auto& j : a) {
    JudgeInput in;
    in.qid = j.at("qid").get<std::string>();
    in.question = j.at("question").get<std::string>();
    in.gold = j.at("gold").get<std::string>();
    if (j.at("response").is_string())
      in.response = j["response"].get<std::string>();
    else
      in.generatePrompt = j.at("generate_prompt").get<std::string>();
    for (const auto& c : j.at("chunks"))
      in.chunks.push_back({c.at("id").get<std::string>(), c.at("text").get<std::string>()});
    out.push_back(std::move(in));
  }
  return out;
}

std::string judgeRecordProblem(const json& s) {
  if (!s.contains("judge") || !s["judge"].is_object())
    return "run.settings: \"judge\" is missing or not an object";
  try {
    const JudgeSettings js = judgeSettingsFromJson(s["judge"]);
    std::string err;
    for (const auto& m : js.metrics)
      if (std::find(judgeMetricNames().begin(), judgeMetricNames().end(), m) ==
          judgeMetricNames().end())
        return "run.settings: \"judge.metrics\": unknown metric '" + m + "'";
  } catch (const json::exception& e) {
    return std::string("run.settings: ") + e.what();
  }
  return {};
}

}  // namespace ragscope::core::eval
