#include "testserver/testserver.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

namespace ragscope::testserver {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// httplib's compiled-in listen backlog is 5; a burst of 100 connects would overflow it and cost
// the dropped ones a 1 s SYN retransmit. Re-listening on the bound socket raises it.
class LoopbackServer : public httplib::Server {
 public:
  void widenBacklog(int backlog) {
    const auto sock = svr_sock_.load();
    if (sock != INVALID_SOCKET) ::listen(sock, backlog);
  }
};

// Aborts the TCP connection (local port `localPort`, peer port `peerPort`) with a RST by
// disconnecting its socket (connect with AF_UNSPEC); httplib then finds the socket dead and
// closes it. httplib does not hand the socket to handlers, so it is found by its ports.
bool resetConnection(int localPort, int peerPort) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    int fd = -1;
    try {
      fd = std::stoi(entry.path().filename().string());
    } catch (...) {
      continue;
    }
    sockaddr_in local{}, peer{};
    socklen_t len = sizeof local;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0 ||
        local.sin_family != AF_INET)
      continue;
    len = sizeof peer;
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0) continue;
    if (ntohs(local.sin_port) != localPort || ntohs(peer.sin_port) != peerPort) continue;
    sockaddr unspec{};
    unspec.sa_family = AF_UNSPEC;
    return ::connect(fd, &unspec, sizeof unspec) == 0;
  }
  return false;
}

std::vector<std::string> words(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) || (static_cast<unsigned char>(c) & 0x80)) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!cur.empty()) {
      out.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

std::int64_t wordCount(std::string_view s) { return static_cast<std::int64_t>(words(s).size()); }

std::string errorBody(const std::string& message, const std::string& type) {
  return json{{"error", {{"message", message}, {"type", type}}}}.dump();
}

// Structured replies (ResponseFormatMode): the scripted text's lines without their list markers.
std::vector<std::string> scriptedLines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto nl = text.find('\n', start);
    std::string line = text.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    start = nl == std::string::npos ? text.size() + 1 : nl + 1;
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
    if (line.rfind("- ", 0) == 0 || line.rfind("* ", 0) == 0) {
      line = line.substr(2);
    } else {
      std::size_t d = 0;
      while (d < line.size() && std::isdigit(static_cast<unsigned char>(line[d]))) ++d;
      if (d > 0 && d + 1 < line.size() && (line[d] == '.' || line[d] == ')') && line[d + 1] == ' ')
        line = line.substr(d + 2);
    }
    out.push_back(line);
  }
  return out;
}

std::string lowered(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The label of `labels` that `line` ends with (any case, trailing punctuation aside), or "".
std::string endingLabel(const std::string& line, const std::vector<std::string>& labels) {
  std::string low = lowered(line);
  while (!low.empty() && std::string_view(".,;:!) ").find(low.back()) != std::string_view::npos)
    low.pop_back();
  for (const auto& l : labels) {
    const std::string ll = lowered(l);
    if (low.size() >= ll.size() && low.compare(low.size() - ll.size(), ll.size(), ll) == 0)
      return l;
  }
  return {};
}

// The smallest instance of a JSON Schema: the first enum value, every property, "" / 0 / true /
// [] for the scalar types and arrays.
json smallestSchemaInstance(const json& schema, int depth = 0) {
  if (!schema.is_object() || depth > 32) return nullptr;
  if (const auto e = schema.find("enum"); e != schema.end() && e->is_array() && !e->empty())
    return (*e)[0];
  json type = schema.value("type", json());
  if (type.is_array() && !type.empty()) type = type[0];
  const std::string t = type.is_string() ? type.get<std::string>() : "";
  if (t == "object") {
    json out = json::object();
    if (const auto p = schema.find("properties"); p != schema.end() && p->is_object())
      for (const auto& [k, v] : p->items()) out[k] = smallestSchemaInstance(v, depth + 1);
    return out;
  }
  if (t == "array") return json::array();
  if (t == "string") return "";
  if (t == "integer" || t == "number") return 0;
  if (t == "boolean") return true;
  return nullptr;
}

std::vector<std::string> schemaLabels(const json& schema) {
  std::vector<std::string> out;
  const json* at = &schema;
  for (const char* step : {"properties", "verdicts", "items", "properties", "label", "enum"}) {
    if (!at->is_object() || !at->contains(step)) return out;
    at = &(*at)[step];
  }
  if (at->is_array())
    for (const auto& v : *at)
      if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

// response_format's schema of a chat request body, as JSON text ("" when it has none).
std::string requestedSchema(const json& request) {
  const auto rf = request.find("response_format");
  if (rf == request.end() || !rf->is_object() || rf->value("type", json()) != "json_schema")
    return {};
  const auto spec = rf->find("json_schema");
  if (spec == rf->end() || !spec->is_object() || !spec->contains("schema")) return {};
  return (*spec)["schema"].dump();
}

// A kNN _search's vector and k, in either engine's shape; nullopt for other searches.
struct KnnRequest {
  std::vector<float> vector;
  std::size_t k = 10;
};
std::optional<KnnRequest> knnRequest(const json& in) {
  const json* knn = nullptr;
  const char* vectorKey = "query_vector";
  if (in.contains("knn") && in["knn"].is_object()) {
    knn = &in["knn"];  // Elasticsearch: {"knn": {"field", "query_vector", "k", ...}}
  } else if (in.contains("query") && in["query"].is_object() && in["query"].contains("knn") &&
             in["query"]["knn"].is_object() && !in["query"]["knn"].empty()) {
    knn = &in["query"]["knn"].begin().value();  // OpenSearch: {"query": {"knn": {F: {...}}}}
    vectorKey = "vector";
  }
  if (!knn || !knn->is_object() || !knn->contains(vectorKey) || !(*knn)[vectorKey].is_array())
    return std::nullopt;
  KnnRequest r;
  for (const auto& x : (*knn)[vectorKey]) r.vector.push_back(x.is_number() ? x.get<float>() : 0.f);
  r.k = knn->value("k", r.k);
  return r;
}

// GET / of a search server, as the engines answer it (their documented root replies, trimmed).
std::string rootReply(const std::string& flavour) {
  if (flavour == "elasticsearch")
    return json{{"name", "node-1"},
                {"cluster_name", "ragscope-test"},
                {"version",
                 {{"number", "8.15.0"}, {"build_flavor", "default"}, {"lucene_version", "9.11.1"}}},
                {"tagline", "You Know, for Search"}}
        .dump();
  if (flavour == "opensearch")
    return json{
        {"name", "node-1"},
        {"cluster_name", "ragscope-test"},
        {"version",
         {{"distribution", "opensearch"}, {"number", "2.17.0"}, {"lucene_version", "9.11.1"}}},
        {"tagline", "The OpenSearch Project: https://opensearch.org/"}}
        .dump();
  return flavour.empty() ? errorBody("no root here", "not_found") : flavour;
}

}  // namespace

const char* behaviourName(Behaviour b) {
  switch (b) {
    case Behaviour::Normal:
      return "normal";
    case Behaviour::Status:
      return "status";
    case Behaviour::RateLimit:
      return "rate_limit";
    case Behaviour::Slow:
      return "slow";
    case Behaviour::Truncate:
      return "truncate";
    case Behaviour::Reset:
      return "reset";
    case Behaviour::InvalidJson:
      return "invalid_json";
    case Behaviour::TruncatedJson:
      return "truncated_json";
    case Behaviour::MissingContent:
      return "missing_content";
    case Behaviour::Custom:
      return "custom";
  }
  return "normal";
}

struct TestServer::Impl {
  TestServer& owner;
  Options options;
  LoopbackServer server;
  std::thread thread;
  Clock::time_point started = Clock::now();

  mutable std::mutex mutex;  // rules, log, rng, file
  std::vector<Rule> rules;
  std::vector<LogEntry> entries;
  std::mt19937_64 rng;
  std::ofstream file;
  int latencyMs;
  double failRate;
  std::atomic<std::size_t> embeddingRequests{0};
  std::atomic<std::size_t> embeddingInputs{0};

  std::mutex stopMutex;
  std::condition_variable stopCv;
  bool stopping = false;
  // Batch lines are answered by runBatchLine: the same rules and replies as live calls.
  BatchRoutes batches{
      [this](const std::string& url, const std::string& body) { return runBatchLine(url, body); }};

  Impl(TestServer& o, Options opts)
      : owner(o),
        options(std::move(opts)),
        rng(options.seed),
        latencyMs(options.latencyMs),
        failRate(options.failRate) {
    if (!options.logPath.empty()) file.open(options.logPath, std::ios::app);
  }

  double sinceStart() const {
    return std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  }

  // Sleeps `ms` unless the server stops first; false when interrupted.
  bool pause(int ms) {
    if (ms <= 0) return true;
    std::unique_lock lock(stopMutex);
    return !stopCv.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stopping; });
  }

  struct Decision {
    Rule rule;
    bool scripted = false;
  };

  Decision decide(const httplib::Request& req) {
    std::lock_guard lock(mutex);
    for (auto& r : rules) {
      if (r.times == 0) continue;
      if (!r.pathSuffix.empty() && (req.path.size() < r.pathSuffix.size() ||
                                    req.path.compare(req.path.size() - r.pathSuffix.size(),
                                                     r.pathSuffix.size(), r.pathSuffix) != 0))
        continue;
      if (!r.bodyContains.empty() && req.body.find(r.bodyContains) == std::string::npos) continue;
      if (r.times > 0) --r.times;
      return {r, true};
    }
    Decision d;
    if (failRate > 0 && std::uniform_real_distribution<double>(0.0, 1.0)(rng) < failRate) {
      d.rule.behaviour = Behaviour::Status;
      d.rule.status = 500;
      d.rule.body = "random failure";
      d.scripted = true;
      return d;
    }
    // Broken 200s only where a reply has a body to break (not the model list).
    if (req.method == "POST" && (options.truncatedJsonRate > 0 || options.invalidJsonRate > 0)) {
      const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
      if (u < options.truncatedJsonRate) {
        d.rule.behaviour = Behaviour::TruncatedJson;
        d.scripted = true;
      } else if (u < options.truncatedJsonRate + options.invalidJsonRate) {
        d.rule.behaviour = Behaviour::InvalidJson;
        d.scripted = true;
      }
    }
    return d;
  }

  void record(LogEntry entry) {
    std::lock_guard lock(mutex);
    if (file.is_open()) {
      json line = {{"t_ms", entry.unixMs},
                   {"start_ms", entry.startMs},
                   {"end_ms", entry.endMs},
                   {"method", entry.method},
                   {"path", entry.path},
                   {"body_hash", entry.bodyHash},
                   {"status", entry.status},
                   {"behaviour", behaviourName(entry.behaviour)},
                   {"in_flight", entry.inFlightAtArrival}};
      file << line.dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
      file.flush();
    }
    entries.push_back(std::move(entry));
  }

  // The proper reply for the endpoint; false with a 400 body when the request is unusable.
  bool normalReply(const httplib::Request& req, int& status, std::string& body) {
    json in = json::parse(req.body, nullptr, false);
    const std::string& p = req.path;
    auto endsWith = [&](std::string_view s) {
      return p.size() >= s.size() && p.compare(p.size() - s.size(), s.size(), s) == 0;
    };
    if (req.method == "GET" && endsWith("/models")) {
      json data = json::array();
      for (const auto& m : options.models)
        data.push_back({{"id", m}, {"object", "model"}, {"owned_by", "ragscope-test"}});
      body = json{{"object", "list"}, {"data", data}}.dump();
      status = 200;
      return true;
    }
    if (req.method == "GET" && !p.empty() && p.back() == '/') {
      status = options.searchRoot.empty() ? 404 : 200;
      body = rootReply(options.searchRoot);
      return !options.searchRoot.empty();
    }
    if (in.is_discarded() || !in.is_object()) {
      status = 400;
      body = errorBody("request body is not a JSON object", "invalid_request_error");
      return false;
    }
    const std::string model = in.value("model", std::string("test-model"));
    if (endsWith("/chat/completions")) {
      auto msgs = in.find("messages");
      if (msgs == in.end() || !msgs->is_array() || msgs->empty()) {
        status = 400;
        body = errorBody("messages must be a non-empty array", "invalid_request_error");
        return false;
      }
      std::string lastUser;
      std::int64_t promptTokens = 0;
      for (const auto& m : *msgs) {
        if (!m.is_object()) continue;
        const std::string content = m.value("content", std::string());
        promptTokens += wordCount(content);
        if (m.value("role", std::string()) == "user") lastUser = content;
      }
      std::string answer = options.answer ? options.answer(lastUser) : defaultAnswer(lastUser);
      if (options.responseFormat == ResponseFormatMode::Honour) {
        if (const std::string schema = requestedSchema(in); !schema.empty())
          answer = structuredReplyFromText(schema, answer, lastUser);
      } else if (options.responseFormat == ResponseFormatMode::ProseJson) {
        answer = "Sure! Here is the result as JSON:\n```json\n" +
                 structuredReplyFromText(requestedSchema(in), answer, lastUser) +
                 "\n```\nLet me know if you need anything else.";
      }
      const std::int64_t completionTokens = wordCount(answer);
      body =
          json{{"id", "chatcmpl-" + hashBody(req.body)},
               {"object", "chat.completion"},
               {"created", 1700000000},
               {"model", model},
               {"choices", json::array({{{"index", 0},
                                         {"message", {{"role", "assistant"}, {"content", answer}}},
                                         {"finish_reason", "stop"}}})},
               {"usage",
                {{"prompt_tokens", promptTokens},
                 {"completion_tokens", completionTokens},
                 {"total_tokens", promptTokens + completionTokens}}}}
              .dump();
      status = 200;
      return true;
    }
    if (endsWith("/embeddings")) {
      std::vector<std::string> inputs;
      auto input = in.find("input");
      if (input != in.end() && input->is_string())
        inputs.push_back(input->get<std::string>());
      else if (input != in.end() && input->is_array())
        for (const auto& s : *input)
          inputs.push_back(s.is_string() ? s.get<std::string>() : s.dump());
      EmbeddingFault fault = EmbeddingFault::None;
      {
        // setEmbeddingFault() may change the fault while requests are being answered.
        std::lock_guard lock(mutex);
        const std::size_t served = embeddingRequests++;
        if (served >= static_cast<std::size_t>(std::max(0, options.embeddingFaultAfter)))
          fault = options.embeddingFault;
      }
      embeddingInputs += inputs.size();
      const int dim = options.embeddingDim + (fault == EmbeddingFault::Dimension ? 1 : 0);
      const std::size_t vectors =
          fault == EmbeddingFault::Count && !inputs.empty() ? inputs.size() - 1 : inputs.size();
      json data = json::array();
      std::int64_t tokens = 0;
      for (std::size_t i = 0; i < vectors; ++i) {
        json vector = embed(inputs[i], dim);
        if (i == 0 && !vector.empty() && fault == EmbeddingFault::Overflow) vector[0] = 1e300;
        if (i == 0 && !vector.empty() && fault == EmbeddingFault::Null) vector[0] = nullptr;
        data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", std::move(vector)}});
      }
      for (const auto& input : inputs) tokens += wordCount(input);
      body = json{{"object", "list"},
                  {"data", data},
                  {"model", fault == EmbeddingFault::Model ? options.faultModel : model},
                  {"usage", {{"prompt_tokens", tokens}, {"total_tokens", tokens}}}}
                 .dump();
      status = 200;
      return true;
    }
    if (endsWith("/rerank")) {
      const std::string query = in.value("query", std::string());
      std::vector<std::string> docs;
      auto d = in.find("documents");
      if (d == in.end()) d = in.find("texts");  // TEI's name
      if (d != in.end() && d->is_array())
        for (const auto& s : *d)
          docs.push_back(s.is_string() ? s.get<std::string>() : s.value("text", std::string()));
      std::vector<std::pair<std::size_t, double>> scored;
      for (std::size_t i = 0; i < docs.size(); ++i)
        scored.emplace_back(i, overlapScore(query, docs[i]));
      std::stable_sort(scored.begin(), scored.end(),
                       [](const auto& a, const auto& b) { return a.second > b.second; });
      json results = json::array();
      for (const auto& [i, s] : scored) results.push_back({{"index", i}, {"relevance_score", s}});
      body = json{{"model", model},
                  {"results", results},
                  {"usage",
                   {{"total_tokens", wordCount(query) * static_cast<std::int64_t>(docs.size())}}}}
                 .dump();
      status = 200;
      return true;
    }
    if (endsWith("/_search") && knnRequest(in)) {
      const KnnRequest knn = *knnRequest(in);
      const std::size_t k = std::min(knn.k, in.value("size", knn.k));
      json hits = json::array();
      for (const auto& [i, score] :
           knnSearch(options.documents, knn.vector, static_cast<int>(knn.vector.size()), k))
        hits.push_back({{"_index", "docs"},
                        {"_id", options.documents[i].first},
                        {"_score", score},
                        {"_source", {{"text", options.documents[i].second}}}});
      body =
          json{{"took", 1}, {"hits", {{"total", {{"value", hits.size()}}}, {"hits", hits}}}}.dump();
      status = 200;
      return true;
    }
    if (endsWith("/_search")) {
      // The query text of a match or multi_match query.
      std::string query;
      const json q = in.value("query", json::object());
      if (q.contains("multi_match")) {
        query = q["multi_match"].value("query", std::string());
      } else if (q.contains("match") && q["match"].is_object() && !q["match"].empty()) {
        const json& field = q["match"].begin().value();
        query = field.is_object()   ? field.value("query", std::string())
                : field.is_string() ? field.get<std::string>()
                                    : "";
      }
      const std::size_t k = in.value("size", std::size_t{10});
      json hits = json::array();
      for (const auto& [i, score] : search(options.documents, query, k))
        hits.push_back({{"_index", "docs"},
                        {"_id", options.documents[i].first},
                        {"_score", score},
                        {"_source", {{"text", options.documents[i].second}}}});
      body =
          json{{"took", 1}, {"hits", {{"total", {{"value", hits.size()}}}, {"hits", hits}}}}.dump();
      status = 200;
      return true;
    }
    if (endsWith("/retrieve")) {
      const std::string query = in.value("query", std::string());
      const std::size_t k = in.value("k", std::size_t{10});
      json hits = json::array();
      for (const auto& [i, score] : search(options.documents, query, k))
        hits.push_back({{"id", options.documents[i].first},
                        {"score", score},
                        {"text", options.documents[i].second}});
      body = hits.dump();
      status = 200;
      return true;
    }
    status = 404;
    body = errorBody("no such endpoint: " + p, "not_found");
    return false;
  }

  // One line of a batch, answered as a live POST to `url` would be (rules and scripted answers
  // included); behaviours that only make sense on a socket give the reply they would complete.
  std::pair<int, std::string> runBatchLine(const std::string& url, const std::string& body) {
    httplib::Request req;
    req.method = "POST";
    req.path = url;
    req.body = body;
    Decision d = decide(req);
    if (d.rule.behaviour == Behaviour::Slow || d.rule.behaviour == Behaviour::Truncate)
      d.rule.behaviour = Behaviour::Normal;
    if (d.rule.behaviour == Behaviour::Reset) {
      d.rule.behaviour = Behaviour::Status;
      d.rule.status = 500;
    }
    httplib::Response res;
    LogEntry ignored;
    respond(req, res, d.rule, ignored);
    return {res.status, res.body};
  }

  // A request's log entry as it arrives: when, what, and the key it carried.
  LogEntry arrival(const httplib::Request& req) {
    LogEntry entry;
    entry.unixMs = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
    entry.startMs = sinceStart();
    entry.method = req.method;
    entry.path = req.path;
    entry.bodyHash = hashBody(req.body);
    entry.authorization = req.get_header_value("Authorization");
    return entry;
  }

  // The Batch API's routes: the key checked as for every route, logged, no rules or latency.
  void handleBatch(const httplib::Request& req, httplib::Response& res) {
    LogEntry entry = arrival(req);
    const bool authorised =
        options.requiredApiKey.empty() || entry.authorization == "Bearer " + options.requiredApiKey;
    int status = 404;
    std::string body;
    if (!authorised) {
      status = 401;
      body = errorBody("invalid api key", "invalid_request_error");
    } else {
      std::string file;
      const bool hasFile = req.has_file("file");
      if (hasFile) file = req.get_file_value("file").content;
      const std::string purpose =
          req.has_file("purpose") ? req.get_file_value("purpose").content : std::string();
      if (!batches.handle(req.method, req.path, req.body, hasFile ? &file : nullptr, purpose,
                          status, body)) {
        status = 404;
        body = errorBody("no such endpoint: " + req.path, "not_found");
      }
    }
    res.status = status;
    res.set_content(body, status == 200 && req.path.find("/content") != std::string::npos
                              ? "application/jsonl"
                              : "application/json");
    entry.status = status;
    entry.endMs = sinceStart();
    record(std::move(entry));
  }

  void handle(const httplib::Request& req, httplib::Response& res) {
    const int now = ++owner.m_inFlight;
    int prev = owner.m_maxInFlight.load();
    while (now > prev && !owner.m_maxInFlight.compare_exchange_weak(prev, now)) {
    }
    LogEntry entry = arrival(req);
    entry.body = req.body;
    entry.inFlightAtArrival = now;

    Decision d = decide(req);
    Rule& rule = d.rule;
    entry.behaviour = rule.behaviour;

    int latency;
    {
      std::lock_guard lock(mutex);
      latency = rule.latencyMs >= 0 ? rule.latencyMs : latencyMs;
    }
    const bool completed = pause(latency);

    const bool authorised =
        options.requiredApiKey.empty() || entry.authorization == "Bearer " + options.requiredApiKey;
    if (!completed) {
      res.status = 503;
      res.set_content(errorBody("server stopping", "unavailable"), "application/json");
    } else if (!authorised && rule.behaviour != Behaviour::Reset) {
      res.status = 401;
      res.set_content(errorBody("invalid api key", "invalid_request_error"), "application/json");
    } else {
      respond(req, res, rule, entry);
    }
    const bool reset = rule.behaviour == Behaviour::Reset && completed && authorised;
    entry.status = reset ? 0 : res.status;
    entry.endMs = sinceStart();
    --owner.m_inFlight;
    // Logged before the reset: the client retries the moment it sees the RST, and a test that
    // reads the log after its last callback must find this attempt there.
    record(std::move(entry));
    if (reset) resetConnection(req.local_port, req.remote_port);
  }

  void respond(const httplib::Request& req, httplib::Response& res, const Rule& rule,
               LogEntry& entry) {
    switch (rule.behaviour) {
      case Behaviour::Normal: {
        int status = 200;
        std::string body;
        normalReply(req, status, body);
        res.status = status;
        // cpp-httplib compresses only the content types it lists, "application/json" exactly.
        res.set_content(
            body, options.compressReplies ? "application/json" : "application/json; charset=utf-8");
        return;
      }
      case Behaviour::Status: {
        res.status = rule.status;
        std::string msg =
            rule.body.empty() ? "scripted HTTP " + std::to_string(rule.status) : rule.body;
        if (rule.echoAuthorization) msg += " (you sent: " + entry.authorization + ")";
        res.set_content(errorBody(msg, "server_error"), "application/json");
        if (!rule.retryAfter.empty()) res.set_header("Retry-After", rule.retryAfter);
        return;
      }
      case Behaviour::RateLimit:
        res.status = 429;
        res.set_header("Retry-After", rule.retryAfter.empty() ? std::string("1") : rule.retryAfter);
        res.set_content(errorBody("rate limit reached, slow down", "rate_limit_exceeded"),
                        "application/json");
        return;
      case Behaviour::Custom:
        res.status = rule.status;
        res.set_content(rule.body, "application/json");
        return;
      case Behaviour::InvalidJson:
        res.status = 200;
        res.set_content("{\"choices\": [{\"message\": {\"content\": \"cut here",
                        "application/json");
        return;
      case Behaviour::TruncatedJson: {
        int status = 200;
        std::string body;
        normalReply(req, status, body);
        res.status = status;
        res.set_content(body.substr(0, std::max<std::size_t>(1, body.size() / 2)),
                        "application/json");
        return;
      }
      case Behaviour::MissingContent:
        res.status = 200;
        res.set_content(
            R"({"id":"x","choices":[{"index":0,"message":{"role":"assistant"},"finish_reason":"stop"}]})",
            "application/json");
        return;
      case Behaviour::Reset:
        // handle() resets the connection after logging; httplib then fails to write this.
        res.status = 500;
        return;
      case Behaviour::Slow:
      case Behaviour::Truncate: {
        int status = 200;
        auto body = std::make_shared<std::string>();
        normalReply(req, status, *body);
        res.status = status;
        const bool truncate = rule.behaviour == Behaviour::Truncate;
        const int stall = rule.stallMs;
        res.set_content_provider(
            body->size(), "application/json",
            [this, body, truncate, stall](std::size_t offset, std::size_t length,
                                          httplib::DataSink& sink) {
              if (truncate) {
                // Half the body, then fail: httplib closes the connection mid-body.
                if (offset == 0)
                  sink.write(body->data(), std::max<std::size_t>(1, body->size() / 2));
                return false;
              }
              if (offset == 0) {
                const std::size_t first = std::min<std::size_t>(8, body->size());
                sink.write(body->data(), first);
                return true;
              }
              if (!pause(stall)) return false;
              sink.write(body->data() + offset, length);
              return true;
            });
        return;
      }
    }
  }
};

TestServer::TestServer(Options options)
    : m_impl(std::make_unique<Impl>(*this, std::move(options))) {}

TestServer::~TestServer() { stop(); }

bool TestServer::start() {
  if (m_impl->thread.joinable()) return true;
  // A client that disconnects mid-reply must not kill the process with SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  auto& svr = m_impl->server;
  const int threads = std::max(4, m_impl->options.threads);
  svr.new_task_queue = [threads] {
    return new httplib::ThreadPool(static_cast<std::size_t>(threads));
  };
  svr.set_keep_alive_max_count(100000);
  svr.set_keep_alive_timeout(2);
  svr.set_tcp_nodelay(true);
  auto handler = [this](const httplib::Request& req, httplib::Response& res) {
    m_impl->handle(req, res);
  };
  svr.Post(R"(.*/chat/completions)", handler);
  svr.Post(R"(.*/embeddings)", handler);
  svr.Post(R"(.*/rerank)", handler);
  svr.Get(R"(.*/models)", handler);
  svr.Post(R"(.*/_search)", handler);
  svr.Post(R"(.*/retrieve)", handler);
  auto batchHandler = [this](const httplib::Request& req, httplib::Response& res) {
    m_impl->handleBatch(req, res);
  };
  svr.Post(R"(.*/files)", batchHandler);
  svr.Get(R"(.*/files/[^/]+/content)", batchHandler);
  svr.Post(R"(.*/batches)", batchHandler);
  svr.Get(R"(.*/batches/[^/]+)", batchHandler);
  svr.Post(R"(.*/batches/[^/]+/cancel)", batchHandler);
  // A search server's root (Options::searchRoot), last so that it shadows no route above.
  svr.Get(R"((/[^/]+)*/)", handler);
  svr.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.body.empty()) res.set_content(errorBody("not found", "not_found"), "application/json");
  });
  const std::string host = "127.0.0.1";  // loopback only, by design
  if (m_impl->options.port > 0) {
    if (!svr.bind_to_port(host, m_impl->options.port)) return false;
    m_port = m_impl->options.port;
  } else {
    m_port = svr.bind_to_any_port(host);
    if (m_port <= 0) return false;
  }
  svr.widenBacklog(1024);
  m_impl->started = Clock::now();
  m_impl->thread = std::thread([this] { m_impl->server.listen_after_bind(); });
  // httplib's stop() does nothing until the accept loop runs; wait for it so that an immediate
  // stop() cannot leave the thread blocked in accept().
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (!svr.is_running() && Clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  if (!svr.is_running()) {
    svr.stop();
    m_impl->thread.join();
    return false;
  }
  return true;
}

void TestServer::stop() {
  if (!m_impl || !m_impl->thread.joinable()) return;
  {
    std::lock_guard lock(m_impl->stopMutex);
    m_impl->stopping = true;
  }
  m_impl->stopCv.notify_all();
  m_impl->server.stop();
  m_impl->thread.join();
}

std::string TestServer::baseUrl() const {
  return "http://127.0.0.1:" + std::to_string(m_port) + "/v1";
}

void TestServer::addRule(Rule rule) {
  std::lock_guard lock(m_impl->mutex);
  m_impl->rules.push_back(std::move(rule));
}

void TestServer::clearRules() {
  std::lock_guard lock(m_impl->mutex);
  m_impl->rules.clear();
}

void TestServer::setLatencyMs(int ms) {
  std::lock_guard lock(m_impl->mutex);
  m_impl->latencyMs = ms;
}

void TestServer::setFailRate(double p) {
  std::lock_guard lock(m_impl->mutex);
  m_impl->failRate = p;
}

std::vector<LogEntry> TestServer::log() const {
  std::lock_guard lock(m_impl->mutex);
  auto copy = m_impl->entries;
  // Entries are recorded when replies finish; tests reason in arrival order.
  std::stable_sort(copy.begin(), copy.end(),
                   [](const LogEntry& a, const LogEntry& b) { return a.startMs < b.startMs; });
  return copy;
}

std::size_t TestServer::requestCount() const {
  std::lock_guard lock(m_impl->mutex);
  return m_impl->entries.size();
}

void TestServer::setBatchOptions(BatchServerOptions options) {
  m_impl->batches.setOptions(std::move(options));
}

BatchCounters TestServer::batchCounters() const { return m_impl->batches.counters(); }

std::vector<std::string> TestServer::uploadedBatchFiles() const {
  return m_impl->batches.uploadedFiles();
}

std::size_t TestServer::chatRequests() const {
  std::lock_guard lock(m_impl->mutex);
  std::size_t n = 0;
  const std::string chat = "/chat/completions";
  for (const auto& e : m_impl->entries)
    n += e.path.size() >= chat.size() &&
         e.path.compare(e.path.size() - chat.size(), chat.size(), chat) == 0;
  return n;
}

std::size_t TestServer::embeddingRequests() const { return m_impl->embeddingRequests.load(); }

std::size_t TestServer::embeddingInputs() const { return m_impl->embeddingInputs.load(); }

void TestServer::setEmbeddingFault(EmbeddingFault fault, int after) {
  std::lock_guard lock(m_impl->mutex);
  m_impl->options.embeddingFault = fault;
  m_impl->options.embeddingFaultAfter =
      static_cast<int>(m_impl->embeddingRequests.load()) + std::max(0, after);
}

const char* embeddingFaultName(EmbeddingFault fault) {
  switch (fault) {
    case EmbeddingFault::None:
      return "none";
    case EmbeddingFault::Count:
      return "count";
    case EmbeddingFault::Dimension:
      return "dimension";
    case EmbeddingFault::Overflow:
      return "overflow";
    case EmbeddingFault::Null:
      return "null";
    case EmbeddingFault::Model:
      return "model";
  }
  return "none";
}

void TestServer::clearLog() {
  std::lock_guard lock(m_impl->mutex);
  m_impl->entries.clear();
}

std::string structuredReplyFromText(const std::string& schemaText, const std::string& text,
                                    const std::string& prompt) {
  const std::vector<std::string> lines = scriptedLines(text);
  // The prompt's claims: the "- " lines after its "Claims:" line, up to the next blank line.
  std::vector<std::string> promptClaims;
  if (const auto at = prompt.find("Claims:\n"); at != std::string::npos) {
    std::size_t pos = at + 8;
    while (pos < prompt.size() && prompt.compare(pos, 2, "- ") == 0) {
      const auto nl = prompt.find('\n', pos);
      promptClaims.push_back(
          prompt.substr(pos + 2, nl == std::string::npos ? std::string::npos : nl - pos - 2));
      pos = nl == std::string::npos ? prompt.size() : nl + 1;
    }
  }
  std::vector<bool> claimUsed(promptClaims.size(), false);
  json schema = schemaText.empty() ? json() : json::parse(schemaText, nullptr, false);
  std::vector<std::string> labels;
  bool claims = false;
  if (schemaText.empty()) {
    // Guessed: verdict lines when the text has any, else a claim list.
    for (const auto& set : {std::vector<std::string>{"SUPPORTED=1", "SUPPORTED=0"},
                            std::vector<std::string>{"Entailment", "Neutral", "Contradiction"}})
      for (const auto& line : lines)
        if (labels.empty() && !endingLabel(line, set).empty()) labels = set;
    claims = labels.empty();
  } else if (schema.is_object()) {
    const json props = schema.value("properties", json::object());
    claims = props.is_object() && props.contains("claims");
    labels = schemaLabels(schema);
  }
  if (claims) return json{{"claims", lines}}.dump();
  if (!labels.empty()) {
    json verdicts = json::array();
    std::size_t position = 0;
    for (const auto& line : lines) {
      const std::string l = endingLabel(line, labels);
      if (l.empty()) continue;
      ++position;
      // The line's claim text: what precedes the label, without its separators.
      std::string claim = line.substr(0, lowered(line).rfind(lowered(l)));
      while (!claim.empty() && std::string_view(" :-|,;").find(claim.back()) != std::string::npos)
        claim.pop_back();
      std::size_t k = position;
      for (std::size_t i = 0; i < promptClaims.size(); ++i)
        if (!claimUsed[i] && promptClaims[i] == claim) {
          claimUsed[i] = true;
          k = i + 1;
          break;
        }
      verdicts.push_back({{"claim", k}, {"label", l}});
    }
    return json{{"verdicts", verdicts}}.dump();
  }
  return smallestSchemaInstance(schema).dump();
}

std::string TestServer::defaultAnswer(const std::string& lastUserMessage) {
  std::size_t cut = std::min<std::size_t>(40, lastUserMessage.size());
  while (cut > 0 && cut < lastUserMessage.size() &&
         (static_cast<unsigned char>(lastUserMessage[cut]) & 0xC0) == 0x80)
    --cut;
  return "ANSWER: " + lastUserMessage.substr(0, cut);
}

std::string TestServer::hashBody(std::string_view body) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : body) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::vector<float> TestServer::embed(std::string_view text, int dim) {
  std::uint64_t h = std::stoull(hashBody(text), nullptr, 16);
  std::vector<float> v;
  v.reserve(static_cast<std::size_t>(std::max(0, dim)));
  for (int i = 0; i < dim; ++i) {
    // splitmix64 steps: cheap, deterministic, well spread.
    h += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = h;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    // Multiples of 1/1024 in [-1, 1): exactly representable, so tests can compare with ==.
    v.push_back(static_cast<float>(static_cast<int>(z % 2048) - 1024) / 1024.0f);
  }
  return v;
}

double TestServer::overlapScore(std::string_view query, std::string_view document) {
  const auto q = words(query);
  if (q.empty()) return 0.0;
  const auto d = words(document);
  const std::set<std::string> docWords(d.begin(), d.end());
  std::size_t hits = 0;
  for (const auto& w : q) hits += docWords.count(w);
  return static_cast<double>(hits) / static_cast<double>(q.size());
}

std::vector<std::pair<std::size_t, double>> TestServer::knnSearch(
    const std::vector<std::pair<std::string, std::string>>& documents,
    const std::vector<float>& query, int dim, std::size_t k) {
  std::vector<std::pair<std::size_t, double>> scored;
  for (std::size_t i = 0; i < documents.size(); ++i) {
    const std::vector<float> v = embed(documents[i].second, dim);
    double dot = 0, norm = 0;
    for (std::size_t d = 0; d < v.size() && d < query.size(); ++d) {
      dot += static_cast<double>(v[d]) * query[d];
      norm += static_cast<double>(v[d]) * v[d];
    }
    scored.emplace_back(i, norm > 0 ? dot / std::sqrt(norm) : 0.0);
  }
  std::sort(scored.begin(), scored.end(), [&](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second
                                : documents[a.first].first < documents[b.first].first;
  });
  if (scored.size() > k) scored.resize(k);
  return scored;
}

std::vector<std::pair<std::size_t, double>> TestServer::search(
    const std::vector<std::pair<std::string, std::string>>& documents, std::string_view query,
    std::size_t k) {
  std::vector<std::pair<std::size_t, double>> scored;
  for (std::size_t i = 0; i < documents.size(); ++i) {
    const double s = overlapScore(query, documents[i].second);
    if (s > 0) scored.emplace_back(i, s);
  }
  std::sort(scored.begin(), scored.end(), [&](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second
                                : documents[a.first].first < documents[b.first].first;
  });
  if (scored.size() > k) scored.resize(k);
  return scored;
}

}  // namespace ragscope::testserver
