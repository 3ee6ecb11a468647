#include "core/eval/api/jobspec.h"

#include <ctime>

#include "core/eval/jobs/eragaggregate.h"
#include "core/eval/jobs/judgejob.h"
#include "core/llm/llmjson.h"
#include "core/llm/offline.h"
#include "core/llm/responsecache.h"
#include "core/util/sha256.h"

namespace ragscope::core::eval {

using nlohmann::json;

std::string_view jobKindName(JobKind kind) {
  switch (kind) {
    case JobKind::Generate:
      return "generate";
    case JobKind::Erag:
      return "erag";
    case JobKind::E2e:
      return "e2e";
    case JobKind::Judge:
      return "judge";
    case JobKind::Assess:
      return "assess";
  }
  return "erag";
}

std::optional<JobKind> jobKindFromName(std::string_view name) {
  for (JobKind k :
       {JobKind::Generate, JobKind::Erag, JobKind::E2e, JobKind::Judge, JobKind::Assess})
    if (jobKindName(k) == name) return k;
  return std::nullopt;
}

namespace {

llm::EndpointConfig offlineEndpoint(std::string name, std::string model) {
  llm::EndpointConfig c;
  c.name = std::move(name);
  c.baseUrl = "offline";
  c.model = std::move(model);
  return c;
}

}  // namespace

llm::EndpointConfig offlineReaderEndpoint() {
  return offlineEndpoint("offline reader", "heuristic-reader");
}

llm::EndpointConfig offlineJudgeEndpoint() {
  return offlineEndpoint("offline judge", "heuristic-judge");
}

llm::OfflineRole offlineRoleFor(std::string_view kind) {
  // Generation sends RAG prompts, which the reader answers; judging sends extraction and
  // assessment prompts, told apart by their sections.
  const auto k = jobKindFromName(kind);
  return k && *k != JobKind::Judge ? llm::OfflineRole::Reader : llm::OfflineRole::Auto;
}

std::string eragMeasuresOrDefault(const std::string& text, std::size_t k) {
  if (!text.empty()) return text;
  return "P_" + std::to_string(k) + ",success_" + std::to_string(k);
}

std::filesystem::path freshStorePath(const std::filesystem::path& folder, std::string_view kind) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
  const std::string stem = "ragscope-" + std::string(kind) + "-" + stamp;
  std::filesystem::path path = folder / (stem + ".db");
  std::error_code ec;
  for (int n = 2; std::filesystem::exists(path, ec); ++n)
    path = folder / (stem + "-" + std::to_string(n) + ".db");
  return path;
}

json inputFileEntry(const std::filesystem::path& path, std::string_view format) {
  json j;
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(path, ec);
  j["path"] = (ec ? path : absolute).lexically_normal().string();
  if (!format.empty()) j["format"] = std::string(format);
  const auto hash = sha256OfPath(path);
  j["sha256"] = hash ? json(*hash) : json();
  return j;
}

json recordSettings(const JobSpec& spec, JobKind kind, const Dataset& dataset, const json& run,
                    const std::string& system) {
  json s;
  s["record_version"] = kRunRecordVersion;
  s["job"] = std::string(jobKindName(kind));
  s["front_end"] = spec.frontEnd;
  s["ragscope_version"] = RAGSCOPE_VERSION_STRING;
  s["datasets"] = json::array();
  for (const auto& part : dataset.parts)
    s["datasets"].push_back(inputFileEntry(part.path, part.format ? formatName(*part.format) : ""));
  s["run"] = run;
  s["system"] = system;
  s["k"] = spec.k;
  if (kind == JobKind::Erag || kind == JobKind::E2e) s["metric"] = downstreamMetricKey(spec.metric);
  if (kind == JobKind::Erag) s["measures"] = eragMeasuresOrDefault(spec.measures, spec.k);
  s["template_source"] =
      spec.templatePath.empty() ? std::string("default") : spec.templatePath.string();
  // The output file belongs to the job that writes it: generate's answers, eRAG's labels, an
  // assessment's qrels.
  const bool writesOut =
      kind == JobKind::Generate || kind == JobKind::Erag || kind == JobKind::Assess;
  s["out"] =
      writesOut && !spec.out.empty() ? json(std::filesystem::absolute(spec.out).string()) : json();
  s["concurrency"] = spec.limits.concurrency;
  s["budget_usd"] = spec.limits.budgetUsd ? json(*spec.limits.budgetUsd) : json();
  s["cache"] = spec.limits.useCache ? json(spec.limits.cachePath.string()) : json(false);
  return s;
}

RecordedDatasets recordedDatasets(const json& settings) {
  RecordedDatasets out;
  if (!settings.is_object()) return out;
  const auto list = settings.find("datasets");
  if (list != settings.end() && list->is_array()) {
    for (const auto& entry : *list)
      if (entry.is_object() && entry.contains("path") && entry["path"].is_string())
        out.files.emplace_back(entry["path"].get<std::string>());
    return out;
  }
  const auto name = settings.find("dataset");
  if (name != settings.end() && name->is_string()) out.legacyName = name->get<std::string>();
  return out;
}

std::string runRecordProblem(const store::RunRecord& record) {
  if (const std::string p = llm::endpointJsonProblem(record.endpoint); !p.empty())
    return "run.endpoint: " + p;
  const json& s = record.settings;
  if (!s.is_object()) return "run.settings is not a JSON object";
  auto missing = [](const char* key) {
    return std::string("run.settings: \"") + key + "\" is missing";
  };
  auto wrong = [](const char* key, const char* what) {
    return std::string("run.settings: \"") + key + "\" is not " + what;
  };
  // Optional fields, when present, have the type their readers expect.
  struct Typed {
    const char* key;
    bool (*ok)(const json&);
    const char* what;
  };
  static const Typed typed[] = {
      {"system", [](const json& v) { return v.is_string(); }, "a string"},
      {"job", [](const json& v) { return v.is_string(); }, "a string"},
      {"record_version", [](const json& v) { return v.is_number_integer(); }, "an integer"},
      {"concurrency", [](const json& v) { return v.is_number_unsigned() || v.is_null(); },
       "a count"},
      {"k", [](const json& v) { return v.is_number_unsigned(); }, "a count"},
      {"budget_usd", [](const json& v) { return v.is_number() || v.is_null(); }, "a number"},
      {"cache", [](const json& v) { return v.is_boolean() || v.is_string(); }, "false or a path"},
      {"out", [](const json& v) { return v.is_string() || v.is_null(); }, "a path"},
      {"datasets", [](const json& v) { return v.is_array(); }, "a list"},
      {"dataset", [](const json& v) { return v.is_string(); }, "a string"},
      {"plan", [](const json& v) { return v.is_array(); }, "a list"},
      {"metric", [](const json& v) { return v.is_string(); }, "a string"},
      {"measures", [](const json& v) { return v.is_string(); }, "a string"},
      {"repeats", [](const json& v) { return v.is_number_unsigned(); }, "a count"},
      {"merge_qrels", [](const json& v) { return v.is_boolean(); }, "true or false"},
  };
  for (const auto& t : typed) {
    const auto it = s.find(t.key);
    if (it != s.end() && !t.ok(*it)) return wrong(t.key, t.what);
  }
  const bool erag = record.kind == "erag", e2e = record.kind == "e2e";
  if (erag || e2e) {
    for (const char* key : {"plan", "metric"})
      if (!s.contains(key)) return missing(key);
    if (!parseDownstreamMetric(s["metric"].get<std::string>()))
      return "run.settings: \"metric\" is not a known metric ('" + s["metric"].get<std::string>() +
             "')";
  }
  if (record.kind == "judge")
    if (std::string p = judgeRecordProblem(s); !p.empty()) return p;
  if (record.kind == kAssessJobKind)
    for (const char* key : {"plan", "repeats"})
      if (!s.contains(key)) return missing(key);
  if (erag) {
    if (!s.contains("measures")) return missing("measures");
    const auto parsed = parseEragMeasures(s["measures"].get<std::string>());
    if (!parsed.ok()) return "run.settings: \"measures\": " + parsed.error;
  }
  return {};
}

std::vector<SuggestedOutput> storedOutputs(const json& settings) {
  std::vector<SuggestedOutput> out;
  auto named = [&](const char* key, const char* option, const char* what) {
    const auto it = settings.find(key);
    if (it != settings.end() && it->is_string() && !it->get<std::string>().empty())
      out.push_back({option, what, it->get<std::string>()});
  };
  if (!settings.is_object()) return out;
  named("out", "--out", "the output file");
  named("claims_out", "--claims-out", "the claims file");
  return out;
}

ResumeSettings resumeSettings(const json& endpoint, const json& settings,
                              const ResumeOverrides& o) {
  ResumeSettings r;
  r.endpoint = llm::endpointFromJson(endpoint);
  const json s = settings.is_object() ? settings : json::object();
  if (o.apiKeyEnv) r.endpoint.apiKeyEnv = *o.apiKeyEnv;
  r.limits.concurrency =
      o.concurrency.value_or(s.contains("concurrency") && s["concurrency"].is_number_unsigned() &&
                                     s["concurrency"].get<std::size_t>() > 0
                                 ? s["concurrency"].get<std::size_t>()
                                 : static_cast<std::size_t>(std::max(1, r.endpoint.concurrency)));
  r.endpoint.concurrency = static_cast<int>(r.limits.concurrency);
  if (o.requestsPerMinute) r.endpoint.requestsPerMinute = *o.requestsPerMinute;
  if (o.timeoutSeconds) r.endpoint.timeoutSeconds = *o.timeoutSeconds;
  if (o.maxTokens) r.endpoint.maxTokens = *o.maxTokens;
  if (o.pricePer1kInput) r.endpoint.pricePer1kInput = *o.pricePer1kInput;
  if (o.pricePer1kOutput) r.endpoint.pricePer1kOutput = *o.pricePer1kOutput;
  if (o.budgetUsd)
    r.limits.budgetUsd = *o.budgetUsd;
  else if (s.contains("budget_usd") && s["budget_usd"].is_number())
    r.limits.budgetUsd = s["budget_usd"].get<double>();
  // Paths in the settings are suggestions: the store may come from someone else, and a path it
  // names could be any file of the user's (a shell start-up file, say). Outputs are written only
  // where the overrides say.
  if (s.contains("cache") && s["cache"].is_boolean()) r.limits.useCache = s["cache"].get<bool>();
  if (s.contains("cache") && s["cache"].is_string()) {
    r.limits.useCache = true;
    // An existing response cache is used (it was this run's, or is one anyway); a path that is
    // anything else is only suggested: the store never makes ragscope create or write a file.
    const std::filesystem::path named = s["cache"].get<std::string>();
    if (!o.cachePath && llm::ResponseCache::isCacheFile(named))
      r.limits.cachePath = named;
    else if (!o.cachePath && !named.empty())
      r.suggested.push_back({"--cache", "the response cache", named});
  }
  if (o.useCache) r.limits.useCache = *o.useCache;
  if (o.cachePath) {
    r.limits.cachePath = *o.cachePath;
    r.limits.useCache = true;
  }
  if (o.out) r.out = *o.out;
  if (o.claimsOut) r.claimsOut = *o.claimsOut;
  if (o.labels) r.assessLabels.labels = *o.labels;
  r.assessLabels.labelsScope = o.labelsScope;
  r.assessLabels.annotator = o.annotator;
  for (auto& named : storedOutputs(s))
    if ((named.option == "--out" && !o.out) || (named.option == "--claims-out" && !o.claimsOut))
      r.suggested.push_back(std::move(named));
  return r;
}

}  // namespace ragscope::core::eval
