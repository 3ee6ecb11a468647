#include "core/retrieval/esretriever.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/retrieval/requesttemplate.h"
#include "core/util/jsonkeep.h"
#include "core/util/textescape.h"

namespace ragscope::core {

namespace {

// Ids may be numbers in the source document; ids are always strings (core/data/README.md, "Data
// model and loading").
bool idOf(const nlohmann::json& v, std::string* out) {
  if (v.is_string()) {
    *out = v.get<std::string>();
    return true;
  }
  if (v.is_number_integer()) {
    *out = v.dump();
    return true;
  }
  return false;
}

// What search() reads of an error reply: error.reason, error.type, or error as a string.
JsonKeep errorKeep() {
  JsonKeep keep;
  JsonKeep& error = keep.step("error");
  error.step("reason");
  error.step("type");
  return keep;
}

// What parseHits() reads: the first k hits and, in each, _id, _score and the two _source fields,
// so a reply of millions of hits costs O(k) memory (core/util/jsonkeep.h).
JsonKeep hitsKeep(std::size_t k, const std::string& idField, const std::string& textField) {
  auto hit = std::make_shared<JsonKeep>();
  hit->step("_id");
  hit->step("_score");
  JsonKeep& source = hit->step("_source");
  if (!idField.empty()) source.step(idField);  // field names are keys, never dot paths here
  source.step(textField);
  JsonKeep keep;
  JsonKeep& hits = keep.path("hits.hits");
  hits.firstElements = k;
  hits.elements = hit;
  return keep;
}

// What esFlavourFromRootReply() reads of a root reply: the version and the tagline, nothing else.
JsonKeep rootKeep() {
  JsonKeep keep;
  JsonKeep& version = keep.step("version");
  version.step("number");
  version.step("distribution");
  keep.step("tagline");
  return keep;
}

// "HTTP 404: <the server's reason or the start of the body>" for a reply outside 2xx.
std::string statusProblem(const HttpReply& reply) {
  // ES explains itself in error.reason; show that, else the start of the body.
  std::string reason;
  nlohmann::json j;
  if (parseJsonKeeping(reply.body, errorKeep(), &j, nullptr)) {
    try {
      if (j.contains("error") && j["error"].is_object())
        reason = j["error"].value("reason", j["error"].value("type", ""));
      else if (j.contains("error") && j["error"].is_string())
        reason = j["error"].get<std::string>();
    } catch (const nlohmann::json::exception&) {
    }
  }
  return "HTTP " + std::to_string(reply.status) + ": " +
         (reason.empty() ? snippet(reply.body) : snippet(reason));
}

// JSON text of a string from the user (a field name): bad UTF-8 replaced rather than thrown.
std::string jsonString(const std::string& s) {
  return nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// "[0.1,-2.5e-07,...]": each component as the shortest text that reads back as the same float,
// half the bytes of printing the widened double. false when a component is NaN or infinite,
// which JSON cannot hold.
bool appendVector(const std::vector<float>& vector, std::string* out) {
  out->push_back('[');
  char buf[32];
  for (std::size_t i = 0; i < vector.size(); ++i) {
    if (!std::isfinite(vector[i])) return false;
    if (i > 0) out->push_back(',');
    const auto r = std::to_chars(buf, buf + sizeof buf, vector[i]);
    out->append(buf, r.ptr);
  }
  out->push_back(']');
  return true;
}

// "8.11.3" -> (8, 11); nullopt when it does not start with MAJOR.MINOR.
std::optional<std::pair<int, int>> majorMinor(const std::string& version) {
  int major = 0, minor = 0;
  const char* end = version.data() + version.size();
  auto r = std::from_chars(version.data(), end, major);
  if (r.ec != std::errc() || r.ptr == end || *r.ptr != '.') return std::nullopt;
  r = std::from_chars(r.ptr + 1, end, minor);
  if (r.ec != std::errc()) return std::nullopt;
  return std::make_pair(major, minor);
}

}  // namespace

const char* esFlavourName(EsFlavour flavour) {
  return flavour == EsFlavour::OpenSearch ? "opensearch" : "elasticsearch";
}

std::optional<EsFlavour> esFlavourFromName(std::string_view name) {
  if (name == "elasticsearch") return EsFlavour::Elasticsearch;
  if (name == "opensearch") return EsFlavour::OpenSearch;
  return std::nullopt;
}

std::optional<std::size_t> esNumCandidates(std::size_t k, std::size_t requested,
                                           std::string* problem) {
  const std::string max = std::to_string(kEsMaxKnn);
  if (k > kEsMaxKnn) {
    if (problem)
      *problem = "k=" + std::to_string(k) + ": a kNN search returns at most " + max + " hits";
    return std::nullopt;
  }
  if (requested == 0) return std::min(kEsMaxKnn, std::max<std::size_t>(100, 2 * k));
  if (requested > kEsMaxKnn || requested < k) {
    if (problem)
      *problem = "num_candidates " + std::to_string(requested) +
                 " is out of Elasticsearch's range: k (" + std::to_string(k) + ") to " + max;
    return std::nullopt;
  }
  return requested;
}

std::string esRootUrl(std::string_view indexUrl) {
  std::string_view url = indexUrl.substr(0, std::min(indexUrl.find('#'), indexUrl.size()));
  url = url.substr(0, std::min(url.find('?'), url.size()));
  const std::size_t scheme = url.find("://");
  const std::size_t hostStart = scheme == std::string_view::npos ? 0 : scheme + 3;
  const std::size_t pathStart = std::min(url.find('/', hostStart), url.size());
  std::string path(url.substr(pathStart));
  auto trimSlashes = [&path] {
    while (!path.empty() && path.back() == '/') path.pop_back();
  };
  trimSlashes();
  constexpr std::string_view kSearch = "/_search";
  if (path.size() >= kSearch.size() &&
      path.compare(path.size() - kSearch.size(), kSearch.size(), kSearch) == 0)
    path.resize(path.size() - kSearch.size());
  trimSlashes();
  // The last segment is the index (or indices, "a,b"); what is before it is the server's root,
  // which a reverse proxy may put under a path of its own.
  path.resize(path.empty() ? 0 : path.rfind('/'));
  return std::string(url.substr(0, pathStart)) + path + "/";
}

std::optional<EsFlavour> esFlavourFromRootReply(const std::string& body, std::string* problem) {
  auto fail = [&](const std::string& why) -> std::optional<EsFlavour> {
    if (problem) *problem = why;
    return std::nullopt;
  };
  nlohmann::json j;
  if (std::string why; !parseJsonKeeping(body, rootKeep(), &j, &why))
    return fail("reply is not JSON (" + escapeControlChars(why) + "): " + snippet(body));
  if (!j.is_object() || !j.contains("version") || !j["version"].is_object())
    return fail("reply has no version object: " + snippet(body));
  const nlohmann::json& version = j["version"];
  if (!version.contains("number") || !version["number"].is_string())
    return fail("reply has no version.number string: " + snippet(body));
  const std::string number = version["number"].get<std::string>();
  if (version.contains("distribution")) {
    if (!version["distribution"].is_string())
      return fail("version.distribution is not a string: " + snippet(body));
    const std::string distribution = version["distribution"].get<std::string>();
    if (distribution == "opensearch") return EsFlavour::OpenSearch;
    return fail("version.distribution '" + snippet(distribution, 60) +
                "' is neither Elasticsearch nor OpenSearch");
  }
  const bool tagline = j.contains("tagline") && j["tagline"].is_string() &&
                       j["tagline"].get<std::string>() == "You Know, for Search";
  if (!tagline)
    return fail(
        "reply is neither Elasticsearch's (tagline \"You Know, for Search\") nor OpenSearch's "
        "(version.distribution \"opensearch\"): " +
        snippet(body));
  const auto mm = majorMinor(number);
  if (!mm) return fail("version.number '" + snippet(number, 60) + "' is not MAJOR.MINOR...");
  if (mm->first < 8 || (mm->first == 8 && mm->second < 4))
    return fail("Elasticsearch " + snippet(number, 60) +
                ": the knn option of _search needs Elasticsearch 8.4 or later");
  return EsFlavour::Elasticsearch;
}

std::string esSearchUrl(std::string_view indexUrl) {
  // The fragment never reaches the server; the query (routing=..., preference=...) must stay
  // after the path, not be glued in front of "/_search".
  std::string_view url = indexUrl;
  const std::size_t hash = url.find('#');
  if (hash != std::string_view::npos) url = url.substr(0, hash);
  const std::size_t question = url.find('?');
  std::string_view query =
      question == std::string_view::npos ? std::string_view() : url.substr(question);
  std::string path(url.substr(0, std::min(question, url.size())));
  while (!path.empty() && path.back() == '/') path.pop_back();
  constexpr std::string_view kSearch = "/_search";
  const bool hasSearch = path.size() >= kSearch.size() &&
                         path.compare(path.size() - kSearch.size(), kSearch.size(), kSearch) == 0;
  if (!hasSearch) path += kSearch;
  return path + std::string(query);
}

EsRetriever::EsRetriever(EsOptions options) : m_options(std::move(options)) {
  if (m_options.fields.empty()) m_options.fields = {"text"};
  if (m_options.textField.empty()) m_options.textField = m_options.fields.front();
  m_searchUrl = esSearchUrl(m_options.url);
  if (m_options.knn) m_flavour = m_options.knn->flavour;
}

bool EsRetriever::httpOptions(HttpPostOptions* http, std::string* problem) const {
  http->timeoutMs = m_options.timeoutMs;
  return addAuthorization({m_options.apiKeyEnv, m_options.apiKey}, "ApiKey", *http, problem);
}

bool EsRetriever::detectFlavour(EsFlavour* flavour, std::string* error) {
  std::lock_guard lock(m_flavourMutex);
  if (m_flavour) {
    *flavour = *m_flavour;
    return true;
  }
  const std::string root = esRootUrl(m_options.url);
  const std::string where = "GET " + shownUrl(root);
  auto fail = [&](const std::string& problem) {
    if (error)
      *error = where + ": " + problem + " (or give the flavour: elasticsearch, opensearch)";
    return false;
  };
  HttpPostOptions http;
  http.maxReplyBytes = std::size_t{1} << 20;  // a root reply is a few hundred bytes
  if (std::string problem; !httpOptions(&http, &problem)) return fail(problem);
  HttpReply reply;
  if (!httpGetJson(root, http, &reply, error)) return false;
  if (reply.status < 200 || reply.status >= 300) return fail(statusProblem(reply));
  std::string problem;
  const auto found = esFlavourFromRootReply(reply.body, &problem);
  if (!found) return fail(problem);
  m_flavour = *found;
  *flavour = *found;
  return true;
}

std::string EsRetriever::knnRequestBody(const std::vector<float>& vector, std::size_t k,
                                        EsFlavour flavour, std::string* error) const {
  auto fail = [&](const std::string& problem) {
    if (error) *error = problem;
    return std::string();
  };
  const EsKnnOptions& knn = *m_options.knn;
  nlohmann::json source = nlohmann::json::array({m_options.textField});
  if (!m_options.idField.empty()) source.push_back(m_options.idField);
  const std::string sourceText =
      source.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string values;
  values.reserve(vector.size() * 12 + 2);
  if (!appendVector(vector, &values))
    return fail("the query vector has a NaN or infinite component");
  const std::string kText = std::to_string(k);
  std::string body;
  body.reserve(values.size() + 200);
  if (flavour == EsFlavour::Elasticsearch) {
    std::string problem;
    const auto candidates = esNumCandidates(k, knn.numCandidates, &problem);
    if (!candidates) return fail(problem);
    body = R"({"knn":{"field":)" + jsonString(knn.field) + R"(,"query_vector":)" + values +
           R"(,"k":)" + kText + R"(,"num_candidates":)" + std::to_string(*candidates) +
           R"(},"size":)" + kText + R"(,"_source":)" + sourceText + "}";
  } else {
    if (k > kEsMaxKnn)
      return fail("k=" + kText + ": OpenSearch's k-NN query returns at most " +
                  std::to_string(kEsMaxKnn) + " hits");
    body = R"({"size":)" + kText + R"(,"query":{"knn":{)" + jsonString(knn.field) +
           R"(:{"vector":)" + values + R"(,"k":)" + kText + R"(}}},"_source":)" + sourceText + "}";
  }
  return body;
}

std::string EsRetriever::requestBody(const Query& query, std::size_t k, std::string* error) const {
  if (!m_options.queryTemplate.empty())
    return fillRequestTemplate(m_options.queryTemplate, query, k, error).value_or("");
  const std::string& text = query.text;
  nlohmann::json body;
  body["size"] = k;
  if (m_options.fields.size() == 1)
    body["query"]["match"][m_options.fields.front()] = {{"query", text}};
  else
    body["query"]["multi_match"] = {{"query", text}, {"fields", m_options.fields}};
  nlohmann::json source = nlohmann::json::array({m_options.textField});
  if (!m_options.idField.empty()) source.push_back(m_options.idField);
  body["_source"] = source;
  // Replace bad UTF-8 rather than throw: a query is text the user gave us.
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<ScoredDoc> EsRetriever::search(const Query& query, std::size_t k, std::string* error) {
  const std::string where = "POST " + shownUrl(m_searchUrl);
  auto fail = [&](const std::string& problem) {
    if (error) *error = where + ": " + problem;
    return std::vector<ScoredDoc>{};
  };
  if (k == 0) return {};
  HttpPostOptions http;
  if (std::string problem; !httpOptions(&http, &problem)) return fail(problem);
  std::string why;
  std::string body;
  if (m_options.knn) {
    EsFlavour flavour = EsFlavour::Elasticsearch;
    if (!detectFlavour(&flavour, error)) return {};
    if (!m_options.knn->embed) return fail("kNN search without a query embedder");
    std::vector<float> vector;
    // The embedder's message names its endpoint; it is not the search server's fault.
    if (!m_options.knn->embed(query.text, &vector, &why)) {
      if (error) *error = "embedding the query: " + why;
      return {};
    }
    if (vector.empty()) return fail("the embedder returned an empty query vector");
    std::size_t expected = 0;
    if (!m_dimensions.compare_exchange_strong(expected, vector.size()) && expected != vector.size())
      return fail("the embedder returned " + std::to_string(vector.size()) +
                  " dimensions for this query and " + std::to_string(expected) +
                  " for an earlier one");
    body = knnRequestBody(vector, k, flavour, &why);
  } else {
    body = requestBody(query, k, &why);
  }
  if (body.empty()) return fail(why);
  HttpReply reply;
  if (!httpPostJson(m_searchUrl, body, http, &reply, error)) return {};
  if (reply.status < 200 || reply.status >= 300) return fail(statusProblem(reply));
  std::vector<ScoredDoc> out;
  std::string problem;
  if (!parseHits(reply.body, k, m_options.idField, m_options.textField, &out, &problem))
    return fail(problem);
  return out;
}

bool EsRetriever::parseHits(const std::string& body, std::size_t k, const std::string& idField,
                            const std::string& textField, std::vector<ScoredDoc>* out,
                            std::string* problem) {
  out->clear();
  auto fail = [&](const std::string& why) {
    *problem = why;
    out->clear();
    return false;
  };
  nlohmann::json j;
  if (std::string why; !parseJsonKeeping(body, hitsKeep(k, idField, textField), &j, &why))
    return fail("reply is not JSON (" + escapeControlChars(why) + "): " + snippet(body));
  if (!j.is_object() || !j.contains("hits") || !j["hits"].is_object() ||
      !j["hits"].contains("hits") || !j["hits"]["hits"].is_array())
    return fail("reply has no hits.hits array: " + snippet(body));
  const auto& hits = j["hits"]["hits"];
  for (std::size_t i = 0; i < hits.size() && out->size() < k; ++i) {
    const auto& h = hits[i];
    const std::string at = "hits.hits[" + std::to_string(i) + "]";
    if (!h.is_object()) return fail(at + " is not an object");
    ScoredDoc d;
    const nlohmann::json* src =
        h.contains("_source") && h["_source"].is_object() ? &h["_source"] : nullptr;
    if (!idField.empty()) {
      if (!src || !src->contains(idField) || !idOf((*src)[idField], &d.id))
        return fail(at + "._source." + idField + " is missing or not a string/integer");
    } else if (!h.contains("_id") || !idOf(h["_id"], &d.id)) {
      return fail(at + "._id is missing or not a string");
    }
    if (!h.contains("_score") || !h["_score"].is_number())
      return fail(at + "._score is missing or not a number (sorted queries have none)");
    d.score = h["_score"].get<double>();
    if (src && src->contains(textField) && (*src)[textField].is_string())
      d.text = (*src)[textField].get<std::string>();
    out->push_back(std::move(d));
  }
  return true;
}

}  // namespace ragscope::core
