#include "core/retrieval/retrieverspec.h"

#include <sstream>

#include "core/retrieval/esretriever.h"
#include "core/retrieval/httppost.h"
#include "core/retrieval/httpretriever.h"
#include "core/retrieval/indexdir.h"
#include "core/retrieval/requesttemplate.h"
#include "core/util/httpsafety.h"

namespace ragscope::core {

namespace {

// es and http retrievers reach their service over http or https only: a file:// or gopher://
// URL is refused where it is configured, before any request (core/util/httpsafety.h).
bool checkServiceUrl(const RetrieverSpec& spec, std::string* error) {
  if (spec.kind == RetrieverSpec::Kind::Bm25) return true;
  const auto problem = httpUrlProblem(spec.url);
  if (problem && error)
    *error = std::string(retrieverKindName(spec.kind)) + " retriever: " + *problem;
  return !problem;
}

}  // namespace

const char* retrieverKindName(RetrieverSpec::Kind k) {
  switch (k) {
    case RetrieverSpec::Kind::Bm25:
      return "bm25";
    case RetrieverSpec::Kind::Elasticsearch:
      return "es";
    case RetrieverSpec::Kind::Http:
      return "http";
  }
  return "bm25";
}

std::optional<RetrieverSpec> parseRetrieverArg(std::string_view arg, std::string* error) {
  RetrieverSpec spec;
  if (arg == "bm25") return spec;
  if (arg.rfind("es:", 0) == 0 && arg.size() > 3) {
    spec.kind = RetrieverSpec::Kind::Elasticsearch;
    spec.url = std::string(arg.substr(3));
    if (!checkServiceUrl(spec, error)) return std::nullopt;
    return spec;
  }
  if (arg.rfind("http:", 0) == 0 && arg.size() > 5) {
    spec.kind = RetrieverSpec::Kind::Http;
    spec.url = std::string(arg.substr(5));
    // "http:http://host/x" is the documented form; "http://host/x" is shorthand for it.
    if (spec.url.rfind("//", 0) == 0) spec.url = "http:" + spec.url;
    if (!checkServiceUrl(spec, error)) return std::nullopt;
    return spec;
  }
  if (error)
    *error = "unknown retriever '" + std::string(arg) + "' (expected bm25, es:URL or http:URL)";
  return std::nullopt;
}

nlohmann::json retrieverSpecToJson(const RetrieverSpec& spec) {
  nlohmann::json j;
  j["kind"] = retrieverKindName(spec.kind);
  if (!spec.name.empty()) j["name"] = spec.name;
  if (spec.kind == RetrieverSpec::Kind::Bm25) {
    j["k1"] = spec.bm25.k1;
    j["b"] = spec.bm25.b;
    j["stemming"] = spec.stemming;
    if (!spec.indexDir.empty()) j["index_dir"] = spec.indexDir.string();
    if (spec.rebuild) j["rebuild"] = true;
    return j;
  }
  j["url"] = spec.url;
  if (!spec.apiKeyEnv.empty()) j["api_key_env"] = spec.apiKeyEnv;
  if (!spec.keychainEntry.empty()) j["keychain_entry"] = spec.keychainEntry;
  j["timeout_ms"] = spec.timeoutMs;
  if (!spec.requestTemplate.empty()) j["request_template"] = spec.requestTemplate;
  if (spec.kind == RetrieverSpec::Kind::Elasticsearch) {
    j["fields"] = spec.fields;
    if (!spec.idField.empty()) j["id_field"] = spec.idField;
    if (!spec.textField.empty()) j["text_field"] = spec.textField;
  } else {
    const HttpReplyPaths defaults;
    if (spec.reply.results != defaults.results) j["results_path"] = spec.reply.results;
    if (spec.reply.id != defaults.id) j["id_path"] = spec.reply.id;
    if (spec.reply.score != defaults.score) j["score_path"] = spec.reply.score;
    if (spec.reply.text != defaults.text) j["text_path"] = spec.reply.text;
  }
  return j;
}

std::optional<RetrieverSpec> retrieverSpecFromJson(const nlohmann::json& j, std::string* error) {
  auto fail = [&](const std::string& why) -> std::optional<RetrieverSpec> {
    if (error) *error = "retriever: " + why;
    return std::nullopt;
  };
  if (!j.is_object()) return fail("expected an object");
  RetrieverSpec spec;
  try {
    const auto kind = j.value("kind", std::string());
    if (kind == "bm25")
      spec.kind = RetrieverSpec::Kind::Bm25;
    else if (kind == "es")
      spec.kind = RetrieverSpec::Kind::Elasticsearch;
    else if (kind == "http")
      spec.kind = RetrieverSpec::Kind::Http;
    else
      return fail("field 'kind': '" + kind + "' is not bm25, es or http");
    spec.name = j.value("name", std::string());
    if (spec.kind == RetrieverSpec::Kind::Bm25) {
      spec.bm25.k1 = j.value("k1", spec.bm25.k1);
      spec.bm25.b = j.value("b", spec.bm25.b);
      if (spec.bm25.k1 < 0) return fail("field 'k1': must be >= 0");
      if (spec.bm25.b < 0 || spec.bm25.b > 1) return fail("field 'b': must be in [0, 1]");
      spec.stemming = j.value("stemming", true);
      spec.indexDir = j.value("index_dir", std::string());
      spec.rebuild = j.value("rebuild", false);
      return spec;
    }
    spec.url = j.value("url", std::string());
    if (spec.url.empty()) return fail("field 'url': missing");
    if (std::string why; !checkServiceUrl(spec, &why)) return fail("field 'url': " + why);
    spec.apiKeyEnv = j.value("api_key_env", std::string());
    spec.keychainEntry = j.value("keychain_entry", std::string());
    spec.timeoutMs = j.value("timeout_ms", spec.timeoutMs);
    if (spec.timeoutMs <= 0) return fail("field 'timeout_ms': must be > 0");
    spec.requestTemplate = j.value("request_template", std::string());
    if (std::string why;
        !spec.requestTemplate.empty() && !checkRequestTemplate(spec.requestTemplate, &why))
      return fail("field 'request_template': " + why);
    if (spec.kind == RetrieverSpec::Kind::Http) {
      spec.reply.results = j.value("results_path", spec.reply.results);
      spec.reply.id = j.value("id_path", spec.reply.id);
      spec.reply.score = j.value("score_path", spec.reply.score);
      spec.reply.text = j.value("text_path", spec.reply.text);
    }
    if (spec.kind == RetrieverSpec::Kind::Elasticsearch) {
      if (j.contains("fields")) spec.fields = j.at("fields").get<std::vector<std::string>>();
      if (spec.fields.empty()) return fail("field 'fields': at least one field");
      spec.idField = j.value("id_field", std::string());
      spec.textField = j.value("text_field", std::string());
    }
  } catch (const nlohmann::json::exception& e) {
    return fail(std::string("wrong type: ") + e.what());
  }
  return spec;
}

std::optional<llm::EndpointConfig> retrieverTrustEndpoint(const RetrieverSpec& spec) {
  if (spec.kind == RetrieverSpec::Kind::Bm25) return std::nullopt;
  llm::EndpointConfig endpoint;
  endpoint.name = spec.name.empty() ? retrieverKindName(spec.kind) : spec.name;
  endpoint.baseUrl = spec.url;
  endpoint.apiKeyEnv = spec.apiKeyEnv;
  endpoint.keychainEntry = spec.keychainEntry;
  return endpoint;
}

std::string describeRetriever(const RetrieverSpec& spec) {
  std::ostringstream out;
  switch (spec.kind) {
    case RetrieverSpec::Kind::Bm25:
      out << "bm25 (Xapian BM25Weight k1=" << spec.bm25.k1 << " b=" << spec.bm25.b
          << (spec.stemming ? "" : ", no stemming") << ")";
      break;
    case RetrieverSpec::Kind::Elasticsearch:
      out << "es (" << shownUrl(spec.url) << ")";
      break;
    case RetrieverSpec::Kind::Http:
      out << "http (" << shownUrl(spec.url) << ")";
      break;
  }
  return out.str();
}

OpenedRetriever openRetriever(const RetrieverSpec& spec, const Dataset& dataset,
                              const std::filesystem::path& firstPath,
                              const IndexBuildOptions& indexOptions,
                              std::function<std::string()> apiKey) {
  OpenedRetriever out;
  // Specs the workbench builds itself never pass the parsers above: checked here as well.
  if (!checkServiceUrl(spec, &out.error)) return out;
  switch (spec.kind) {
    case RetrieverSpec::Kind::Bm25: {
      if (dataset.corpus.empty()) {
        out.error = "bm25 needs a corpus, and the dataset has no documents";
        return out;
      }
      auto dir = spec.indexDir;
      if (dir.empty()) {
        dir = chooseIndexDir(firstPath, dataset.corpus);
        // Each analysis its own default folder, so switching back and forth rebuilds nothing.
        if (!spec.stemming) dir += "-nostem";
      }
      IndexBuildOptions options = indexOptions;
      options.forceRebuild = options.forceRebuild || spec.rebuild;
      options.stemming = spec.stemming;
      out.index = openOrBuildIndex(dataset.corpus, dir, options);
      if (!out.index.ok) {
        out.cancelled = out.index.cancelled;
        out.error = out.index.error;
        return out;
      }
      out.retriever = XapianRetriever::open(out.index.dir, spec.bm25, &out.error);
      return out;
    }
    case RetrieverSpec::Kind::Elasticsearch: {
      EsOptions o;
      o.url = spec.url;
      o.fields = spec.fields;
      o.idField = spec.idField;
      o.textField = spec.textField;
      o.apiKeyEnv = spec.apiKeyEnv;
      o.timeoutMs = spec.timeoutMs;
      o.queryTemplate = spec.requestTemplate;
      o.apiKey = apiKey;
      out.retriever = std::make_unique<EsRetriever>(o);
      return out;
    }
    case RetrieverSpec::Kind::Http: {
      HttpRetrieverOptions o;
      o.url = spec.url;
      o.apiKeyEnv = spec.apiKeyEnv;
      o.timeoutMs = spec.timeoutMs;
      o.requestTemplate = spec.requestTemplate;
      o.reply = spec.reply;
      o.apiKey = apiKey;
      out.retriever = std::make_unique<HttpRetriever>(o);
      return out;
    }
  }
  return out;
}

}  // namespace ragscope::core
