// Batch files and the Batch API for a run store (core/eval/engine/batchrun.h;
// core/eval/engine/README.md, "Batch runs").

#include "core/eval/engine/batchrun.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "core/data/linereader.h"
#include "core/llm/batchclient.h"
#include "core/llm/llmjson.h"
#include "core/llm/openaiformat.h"
#include "core/llm/providerfactory.h"
#include "core/llm/responsecache.h"
#include "core/util/atomicfile.h"
#include "core/util/textescape.h"
#include "core/util/urlredact.h"

namespace ragscope::core::eval {

namespace fs = std::filesystem;
using nlohmann::json;

// ---- routes ------------------------------------------------------------------------------------

const llm::EndpointConfig& CallRoutes::endpointFor(const std::string& route) const {
  if (!route.empty())
    for (const auto& [name, endpoint] : routes)
      if (name == route) return endpoint;
  return main;
}

llm::OfflineRole CallRoutes::offlineRoleFor(const std::string& route) const {
  // As the jobs build their providers (core/eval/api/job.cpp): the generator route reads, the
  // judging job's other calls are told apart by their prompts.
  const bool routed = !route.empty() && &endpointFor(route) != &main;
  if (routed) return route == "generator" ? llm::OfflineRole::Reader : llm::OfflineRole::Auto;
  return kind == "judge" ? llm::OfflineRole::Auto : llm::OfflineRole::Reader;
}

std::vector<std::pair<std::string, llm::EndpointConfig>> recordedCallRoutes(const json& settings) {
  std::vector<std::pair<std::string, llm::EndpointConfig>> out;
  for (const char* route : {"generator", "embedder", "reranker"}) {
    const auto it = settings.find(route);
    if (it != settings.end() && it->is_object())
      out.emplace_back(route, llm::endpointFromJson(*it));
  }
  return out;
}

llm::EndpointConfig batchPriced(const llm::EndpointConfig& endpoint) {
  llm::EndpointConfig e = endpoint;
  if (e.batchPricePer1kInput) e.pricePer1kInput = *e.batchPricePer1kInput;
  if (e.batchPricePer1kOutput) e.pricePer1kOutput = *e.batchPricePer1kOutput;
  return e;
}

// ---- the state kept in the store
// ------------------------------------------------------------------

bool BatchState::hasOpenBatch() const {
  return std::any_of(batches.begin(), batches.end(),
                     [](const BatchRef& b) { return !b.imported && !b.givenUp && !b.id.empty(); });
}

std::optional<BatchOptions> continuedBatchOptions(store::RunStore& store,
                                                  const BatchOptions& asked) {
  if (asked.mode != BatchMode::Live) return asked;
  const BatchState state = readBatchState(store);
  if (state.mode != "api" && !state.hasOpenBatch()) return std::nullopt;
  BatchOptions o = asked;
  o.mode = BatchMode::Api;
  return o;
}

namespace {

std::string textOf(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::int64_t countOf(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number_integer()
             ? std::max<std::int64_t>(0, it->get<std::int64_t>())
             : 0;
}

json batchRefJson(const BatchRef& b) {
  return {
      {"id", b.id},
      {"input_file_id", b.inputFileId},
      {"route", b.route},
      {"url", b.url},
      {"status", b.status},
      {"output_file_id", b.outputFileId},
      {"error_file_id", b.errorFileId},
      {"lines", b.lines},
      {"counts",
       {{"total", b.counts.total}, {"completed", b.counts.completed}, {"failed", b.counts.failed}}},
      {"imported", b.imported},
      {"results_missing", b.resultsMissing},
      {"given_up", b.givenUp},
      {"created", b.created}};
}

}  // namespace

BatchState readBatchState(store::RunStore& store, std::string* error) {
  BatchState state;
  const auto text = store.data(kBatchStateData);
  if (!text) return state;
  const json j = json::parse(*text, nullptr, false);
  if (!j.is_object()) {
    if (error) *error = store.path().string() + ": run_data \"batch\" is not a JSON object";
    return state;
  }
  state.mode = textOf(j, "mode");
  if (const auto it = j.find("batches"); it != j.end() && it->is_array())
    for (const auto& b : *it) {
      if (!b.is_object()) continue;
      BatchRef r;
      r.id = textOf(b, "id");
      r.inputFileId = textOf(b, "input_file_id");
      r.route = textOf(b, "route");
      r.url = textOf(b, "url");
      r.status = textOf(b, "status");
      r.outputFileId = textOf(b, "output_file_id");
      r.errorFileId = textOf(b, "error_file_id");
      r.lines = static_cast<std::size_t>(countOf(b, "lines"));
      if (const auto c = b.find("counts"); c != b.end() && c->is_object()) {
        r.counts.total = countOf(*c, "total");
        r.counts.completed = countOf(*c, "completed");
        r.counts.failed = countOf(*c, "failed");
      }
      auto flag = [&b](const char* key) {
        const auto it = b.find(key);
        return it != b.end() && it->is_boolean() && it->get<bool>();
      };
      r.imported = flag("imported");
      r.resultsMissing = flag("results_missing");
      r.givenUp = flag("given_up");
      r.created = textOf(b, "created");
      state.batches.push_back(std::move(r));
    }
  if (const auto it = j.find("files"); it != j.end() && it->is_array())
    for (const auto& f : *it) {
      if (!f.is_object()) continue;
      BatchFilePart p;
      p.path = textOf(f, "path");
      p.route = textOf(f, "route");
      p.url = textOf(f, "url");
      p.baseUrl = redactUrl(textOf(f, "base_url"));  // shown: never a credential
      p.model = textOf(f, "model");
      p.lines = static_cast<std::size_t>(countOf(f, "lines"));
      p.bytes = static_cast<std::uint64_t>(countOf(f, "bytes"));
      state.files.push_back(std::move(p));
    }
  return state;
}

bool writeBatchState(store::RunStore& store, const BatchState& state, std::string* error) {
  json j = {{"mode", state.mode}, {"batches", json::array()}, {"files", json::array()}};
  for (const auto& b : state.batches) j["batches"].push_back(batchRefJson(b));
  for (const auto& f : state.files)
    j["files"].push_back({{"path", f.path.string()},
                          {"route", f.route},
                          {"url", f.url},
                          {"base_url", redactUrl(f.baseUrl)},
                          {"model", f.model},
                          {"lines", f.lines},
                          {"bytes", f.bytes}});
  return store.putData(kBatchStateData, j.dump(-1, ' ', false, json::error_handler_t::replace),
                       error);
}

// ---- calls answered here, and the rest
// ------------------------------------------------------------

namespace {

// A call still to make at its endpoint, with the exact body the live call sends.
struct PendingBatchCall {
  std::int64_t itemId = 0;
  std::string key;
  std::string route;
  const llm::EndpointConfig* endpoint = nullptr;
  std::string body;
  std::string cacheKey;           // the response cache's key of the call (and what its seal signs)
  std::int64_t promptTokens = 0;  // the estimate's count (for the budget)
};

struct LocalFill {
  std::string error;
  std::size_t heuristic = 0;
  std::size_t cached = 0;
  std::vector<PendingBatchCall> remaining;
};

bool commitInChunks(store::RunStore& store, std::vector<store::ItemResult>& results,
                    std::string* error) {
  constexpr std::size_t kChunk = 4096;
  for (std::size_t at = 0; at < results.size(); at += kChunk) {
    const std::vector<store::ItemResult> chunk(
        results.begin() + static_cast<std::ptrdiff_t>(at),
        results.begin() + static_cast<std::ptrdiff_t>(std::min(results.size(), at + kChunk)));
    if (!store.commitResults(chunk, error)) return false;
  }
  return true;
}

// Answers what needs no endpoint (offline heuristics, the response cache) and returns the rest.
LocalFill fillLocally(store::RunStore& store, const CallRoutes& routes, llm::ResponseCache* cache,
                      bool retryErrors, const std::function<void(llm::LlmResponse&)>& storedForm) {
  LocalFill fill;
  const auto items = store.itemsToRun(retryErrors);
  std::vector<store::ItemResult> results;
  std::map<std::string, std::unique_ptr<llm::Provider>> offline;
  std::mutex mutex;
  std::vector<std::pair<std::size_t, llm::LlmResponse>> offlineAnswers;
  std::vector<std::size_t> offlineEndpoint;  // item index -> whose config prices it
  std::vector<std::string> keys;
  std::vector<std::size_t> keyItem;
  std::vector<std::optional<llm::LlmRequest>> requests(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto& item = items[i];
    requests[i] = llm::requestFromJson(json::parse(item.requestJson, nullptr, false));
    if (!requests[i]) {
      llm::LlmResponse bad;
      bad.error = "malformed request in the run store";
      results.push_back(storedResultOf(item.id, bad, routes.main));
      continue;
    }
    const llm::EndpointConfig& endpoint = routes.endpointFor(requests[i]->route);
    if (llm::isOfflineEndpoint(endpoint)) {
      auto& provider = offline[requests[i]->route];
      if (!provider)
        provider = llm::makeOfflineProvider(routes.offlineRoleFor(requests[i]->route), endpoint);
      provider->submit(*requests[i], [&mutex, &offlineAnswers, i](llm::LlmResponse r) {
        std::lock_guard lock(mutex);
        offlineAnswers.emplace_back(i, std::move(r));
      });
      continue;
    }
    PendingBatchCall call;
    call.itemId = item.id;
    call.key = item.key;
    call.route = requests[i]->route;
    call.endpoint = &endpoint;
    call.body = llm::buildRequestBody(endpoint, *requests[i]);
    call.cacheKey = llm::ResponseCache::key(llm::httpCacheIdentity(endpoint), call.body);
    call.promptTokens = estimatePromptTokens(*requests[i]);
    if (cache) {
      keys.push_back(call.cacheKey);
      keyItem.push_back(fill.remaining.size());
    }
    fill.remaining.push_back(std::move(call));
  }
  for (auto& [route, provider] : offline) provider->waitIdle();
  for (auto& [i, response] : offlineAnswers) {
    if (storedForm) storedForm(response);
    results.push_back(
        storedResultOf(items[i].id, response, routes.endpointFor(requests[i]->route)));
    ++fill.heuristic;
  }
  if (cache && !keys.empty()) {
    const auto stored = cache->lookupStored(keys);
    std::vector<bool> answered(fill.remaining.size(), false);
    std::size_t hits = 0;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      if (!stored[k]) continue;
      auto response = llm::ResponseCache::fromStored(*stored[k]);
      if (!response) continue;
      const auto& call = fill.remaining[keyItem[k]];
      if (storedForm) storedForm(*response);
      results.push_back(storedResultOf(call.itemId, *response, *call.endpoint));
      answered[keyItem[k]] = true;
      ++hits;
    }
    cache->countLookups(hits, keys.size() - hits);
    fill.cached = hits;
    // A call asked twice (the same endpoint and body) goes out once, as live: its answer enters
    // the cache and the next pass answers the repeat from there.
    std::set<std::string> asked;
    std::vector<PendingBatchCall> rest;
    for (std::size_t k = 0; k < keys.size(); ++k) {
      const std::size_t i = keyItem[k];
      if (!answered[i] && asked.insert(keys[k]).second)
        rest.push_back(std::move(fill.remaining[i]));
    }
    fill.remaining = std::move(rest);
  }
  std::string err;
  if (!commitInChunks(store, results, &err)) fill.error = err;
  return fill;
}

// The seals a store keeps (kBatchRequestsData), by custom_id; none when it holds none or
// something else.
std::unordered_map<std::string, std::string> readSeals(store::RunStore& store) {
  std::unordered_map<std::string, std::string> out;
  const auto text = store.data(kBatchRequestsData);
  if (!text) return out;
  const json j = json::parse(*text, nullptr, false);
  if (!j.is_object()) return out;
  const auto seals = j.find("seals");
  if (seals == j.end() || !seals->is_object()) return out;
  for (const auto& [key, value] : seals->items())
    if (value.is_string()) out.emplace(key, value.get<std::string>());
  return out;
}

// Seals the calls about to go into batch files or batches, with this machine's secret (created
// on first use), so that their answers may enter the response cache when imported. "" or why
// not (their answers will then enter the store only).
std::string sealCalls(store::RunStore& store, const std::vector<PendingBatchCall>& calls) {
  std::string err;
  const auto seal = llm::RequestSeal::load(llm::RequestSeal::defaultPath(), true, &err);
  if (!seal) return err;
  json seals = json::object();
  for (auto& [key, value] : readSeals(store)) seals[key] = std::move(value);
  for (const auto& c : calls) seals[c.key] = seal->seal(c.cacheKey);
  const json record = {{"version", 1}, {"seals", std::move(seals)}};
  if (!store.putData(kBatchRequestsData,
                     record.dump(-1, ' ', false, json::error_handler_t::replace), &err))
    return err;
  return {};
}

// One batch's worth of calls: one endpoint, one url, within the file limits.
struct BatchPart {
  std::string route;
  const llm::EndpointConfig* endpoint = nullptr;
  std::string url;
  std::string text;
  std::size_t lines = 0;
};

std::vector<BatchPart> partitionCalls(const std::vector<PendingBatchCall>& calls,
                                      const BatchOptions& options, std::string* error) {
  // The Batch API takes one model and one url per batch: a judging run's routes go apart.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const PendingBatchCall*>> byRoute;
  for (const auto& c : calls) {
    const std::string group = c.endpoint ? c.endpoint->baseUrl + "\n" + c.route : c.route;
    if (!byRoute.count(group)) order.push_back(group);
    byRoute[group].push_back(&c);
  }
  std::vector<BatchPart> parts;
  for (const auto& group : order) {
    const auto& list = byRoute[group];
    const llm::EndpointConfig& endpoint = *list.front()->endpoint;
    const auto url = llm::batchUrl(endpoint.kind);
    if (!url) {
      if (error)
        *error = "the " +
                 (list.front()->route.empty() ? std::string("job's") : list.front()->route) +
                 " calls go to a rerank endpoint, which the Batch API does not offer (" +
                 list.front()->key + ", ...): run them live with `ragscope-cli resume`";
      return {};
    }
    BatchPart part;
    for (const PendingBatchCall* c : list) {
      std::string line = llm::batchInputLine(c->key, *url, c->body);
      line += '\n';
      if (line.size() > options.maxBytes) {
        if (error)
          *error = "the call " + c->key + " alone is larger than a batch file may be (" +
                   std::to_string(options.maxBytes) + " bytes)";
        return {};
      }
      if (part.lines > 0 && (part.lines + 1 > options.maxLines ||
                             part.text.size() + line.size() > options.maxBytes)) {
        parts.push_back(std::move(part));
        part = BatchPart{};
      }
      part.route = c->route;
      part.endpoint = c->endpoint;
      part.url = *url;
      part.text += line;
      ++part.lines;
    }
    if (part.lines > 0) parts.push_back(std::move(part));
  }
  return parts;
}

fs::path partPath(const fs::path& first, std::size_t n) {
  if (n == 1) return first;
  return first.parent_path() /
         (first.stem().string() + "-" + std::to_string(n) + first.extension().string());
}

// ---- reading output lines
// ------------------------------------------------------------------------

// Calls `onLine(where, text)` for every non-blank line of the file, read a line at a time; false
// with *error on the first problem (or when onLine returns false).
bool forEachOutputLine(const BatchOutputSource& source, std::size_t maxLineBytes,
                       const std::function<bool(const std::string&, std::string_view)>& onLine,
                       std::string* error) {
  const std::string name = source.name.empty() ? source.path.string() : source.name;
  auto blank = [](std::string_view s) {
    return s.find_first_not_of(" \t\r") == std::string_view::npos;
  };
  LineReader reader(source.path, maxLineBytes);
  if (!reader.isOpen()) {
    *error = name + ": " + reader.openError();
    return false;
  }
  std::string_view line;
  for (;;) {
    const auto status = reader.next(line);
    if (status == LineReader::Status::End) return true;
    const std::string where = name + ":" + std::to_string(reader.lineNumber());
    if (status == LineReader::Status::TooLong) {
      *error = where + ": the line is longer than " + std::to_string(maxLineBytes) +
               " bytes, more than any reply";
      return false;
    }
    if (status == LineReader::Status::IoError) {
      *error = where + ": read error";
      return false;
    }
    if (!blank(line) && !onLine(where, line)) return false;
  }
}

std::string batchQuotedId(std::string_view id) {
  std::string shown(id.substr(0, 120));
  return "\"" + escapeControlChars(shown) + (id.size() > 120 ? "...\"" : "\"");
}

// A piece of the import's transaction: results are written when this many lines or bytes of
// replies are held, so memory stays bounded whatever the file's size.
constexpr std::size_t kImportPieceResults = 1024;
constexpr std::size_t kImportPieceBytes = std::size_t{32} << 20;

// What an output line makes of its call, as the store records it (and the answer, when it is one).
struct ImportedCall {
  store::ItemResult result;
  std::optional<llm::LlmResponse> answer;  // an Ok response
};

// `where` (FILE:LINE) goes into the error of an answer refused by the stage's checks or
// malformed; `storing`: the result is wanted (else only the answer, for the response cache).
ImportedCall resultOfLine(const store::WorkItem& item, const llm::BatchOutputLine& line,
                          const CallRoutes& routes, const BatchImportOptions& options,
                          const std::string& where, bool storing) {
  const auto request = llm::requestFromJson(json::parse(item.requestJson, nullptr, false));
  const llm::EndpointConfig& endpoint =
      routes.endpointFor(request ? request->route : std::string());
  const llm::EndpointConfig priced = batchPriced(endpoint);
  llm::LlmResponse response;
  response.attempts = 1;
  response.httpStatus = line.hasResponse ? line.statusCode : 0;
  if (!request) {
    response.error = "malformed request in the run store";
  } else if (line.succeeded()) {
    const std::string body = llm::buildRequestBody(endpoint, *request);
    long expected = -1;
    if (endpoint.kind == llm::EndpointKind::Embeddings)
      expected = static_cast<long>(request->inputs.size());
    llm::ParsedReply parsed = llm::parseReply(endpoint.kind, line.body, expected);
    if (parsed.ok) {
      response = llm::responseFromReply(priced, std::move(parsed), body.size());
      response.attempts = 1;
      response.httpStatus = line.statusCode;
      if (options.checkAnswer) {
        if (std::string why = options.checkAnswer(*request, response); !why.empty()) {
          response.status = llm::CallStatus::Error;
          response.error = "batch: " + why + " (" + where + ")";
          response.embeddings.clear();
        }
      }
    } else {
      response.error = "batch: malformed reply: " + parsed.error + " (" + where + ")";
    }
  } else if (line.hasError) {
    const std::string message = llm::errorExcerpt(line.errorText, {}, 300);
    response.error = "batch: " + (line.errorCode.empty() ? std::string() : line.errorCode + ": ") +
                     (message.empty() ? "failed" : message);
  } else {
    response.error = "batch: HTTP " + std::to_string(line.statusCode) + ": " +
                     llm::errorExcerpt(line.body, {}, 300);
  }
  ImportedCall out;
  if (storing) {
    if (options.storedForm && response.status == llm::CallStatus::Ok) {
      llm::LlmResponse kept = response;  // the answer stays as it came, for the cache
      options.storedForm(kept);
      out.result = storedResultOf(item.id, kept, priced);
      if (kept.status != llm::CallStatus::Ok) return out;
    } else {
      out.result = storedResultOf(item.id, response, priced);
    }
  }
  if (response.status == llm::CallStatus::Ok) out.answer = std::move(response);
  return out;
}

// After the commit: the answers this import stored (`answeredHere`) that may enter the response
// cache (importBatchOutput's three conditions) are put there; the others are counted and the
// summary's note says why.
void cacheImportedAnswers(const std::vector<store::WorkItem>& items,
                          const std::unordered_map<std::string, std::size_t>& byKey,
                          std::vector<char>& answeredHere, store::RunStore& store,
                          const CallRoutes& routes, llm::ResponseCache& cache,
                          const std::vector<BatchOutputSource>& sources,
                          const BatchImportOptions& options, BatchImportSummary& out) {
  const std::size_t answers = out.answered;
  auto noneCached = [&](const std::string& why) {
    out.notCached = answers;
    out.cacheNote = std::to_string(answers) +
                    " answers entered this run only, not the shared response cache: " + why;
  };
  if (!options.endpointTrusted) return noneCached(options.untrustedNote);
  std::string err;
  const auto seal = llm::RequestSeal::load(options.sealPath, false, &err);
  if (!seal)
    return noneCached(
        "their calls were not exported or submitted from this machine (it holds no "
        "request seal secret: " +
        err + ")");
  const auto seals = readSeals(store);
  if (seals.empty())
    return noneCached(
        "the run's calls were not exported or submitted from this machine (no request seal)");
  std::size_t unsealed = 0, otherModel = 0;
  std::string askedModel, repliedModel;
  for (const auto& source : sources) {
    // A file that cannot be read again (or reads differently) stops here: what is not cached
    // is only not cached.
    forEachOutputLine(
        source, options.maxLineBytes,
        [&](const std::string&, std::string_view text) {
          std::string why;
          auto line = llm::parseBatchOutputLine(text, &why);
          if (!line) return false;
          const auto at = byKey.find(line->customId);
          if (at == byKey.end() || !answeredHere[at->second] || !line->succeeded()) return true;
          answeredHere[at->second] = 0;  // once, whatever the file says later
          const store::WorkItem& item = items[at->second];
          const auto request = llm::requestFromJson(json::parse(item.requestJson, nullptr, false));
          if (!request) return true;
          const llm::EndpointConfig& endpoint = routes.endpointFor(request->route);
          const std::string identity = llm::httpCacheIdentity(endpoint);
          const std::string body = llm::buildRequestBody(endpoint, *request);
          const std::string key = llm::ResponseCache::key(identity, body);
          const auto recorded = seals.find(line->customId);
          if (recorded == seals.end() || !seal->verify(key, recorded->second)) {
            ++unsealed;
            return true;
          }
          if (!llm::replyModelMatches(line->model, endpoint.model)) {
            if (otherModel++ == 0) {
              askedModel = endpoint.model;
              repliedModel = line->model;
            }
            return true;
          }
          ImportedCall call = resultOfLine(item, *line, routes, options, {}, false);
          if (call.answer && cache.store(key, identity, *call.answer)) ++out.cached;
          return true;
        },
        &err);
  }
  out.notCached = answers - std::min(answers, out.cached);
  if (out.notCached == 0) return;
  std::string why;
  if (unsealed > 0)
    why = std::to_string(unsealed) +
          " were not exported or submitted from this machine as the run holds them now (no "
          "matching request seal)";
  if (otherModel > 0)
    why += (why.empty() ? "" : "; ") + std::to_string(otherModel) +
           " replies name another model than the one asked (\"" +
           escapeControlChars(repliedModel.substr(0, 80)) + "\" for \"" +
           escapeControlChars(askedModel.substr(0, 80)) + "\"" +
           (repliedModel.empty() ? ", or none" : "") + ")";
  if (why.empty()) why = "the files changed while they were read";
  out.cacheNote = std::to_string(out.notCached) +
                  " answers entered this run only, not the shared response cache: " + why;
}

}  // namespace

BatchImportSummary importBatchOutput(store::RunStore& store, const CallRoutes& routes,
                                     llm::ResponseCache* cache,
                                     const std::vector<BatchOutputSource>& sources,
                                     const BatchImportOptions& options) {
  BatchImportSummary out;
  const std::vector<store::WorkItem> items = store.items();
  std::unordered_map<std::string, std::size_t> byKey;
  for (std::size_t i = 0; i < items.size(); ++i) byKey.emplace(items[i].key, i);

  // One transaction, written a piece at a time while the files are read; the first problem rolls
  // all of it back.
  std::string err;
  if (!store.beginResults(&err)) {
    out.error = err + "; nothing was imported";
    return out;
  }
  auto refuse = [&](const std::string& why) {
    store.rollbackBegunResults();
    BatchImportSummary refused;
    refused.error = why + "; nothing was imported";
    refused.lines = out.lines;
    return refused;
  };
  std::vector<store::ItemResult> piece;
  std::size_t pieceBytes = 0;
  auto writePiece = [&]() {
    const bool ok = store.commitResults(piece, &err);
    piece.clear();
    pieceBytes = 0;
    return ok;
  };
  std::vector<char> answeredHere(items.size(), 0);
  std::unordered_map<std::string, std::string> seenAt;  // custom_id -> where (calls of this run)
  std::string firstUnknown;
  std::size_t unknown = 0;
  for (const auto& source : sources) {
    const bool read = forEachOutputLine(
        source, options.maxLineBytes,
        [&](const std::string& where, std::string_view text) {
          std::string why;
          auto parsed = llm::parseBatchOutputLine(text, &why);
          if (!parsed) {
            err = where + ": not a batch output line: " + why;
            return false;
          }
          ++out.lines;
          const auto it = byKey.find(parsed->customId);
          if (it == byKey.end()) {
            // Refused in the end; read on only to say how many lines name no call.
            if (unknown++ == 0)
              firstUnknown = where + ": custom_id " + batchQuotedId(parsed->customId);
            return true;
          }
          if (const auto seen = seenAt.find(parsed->customId); seen != seenAt.end()) {
            err = where + ": custom_id " + batchQuotedId(parsed->customId) +
                  " was already given at " + seen->second;
            return false;
          }
          seenAt.emplace(parsed->customId, where);
          if (unknown > 0) return true;  // nothing more is written: the import is refused
          const store::WorkItem& item = items[it->second];
          if (item.status == store::ItemStatus::Done) {
            ++out.alreadyAnswered;
            return true;
          }
          ImportedCall call = resultOfLine(item, *parsed, routes, options, where, true);
          if (!call.answer && item.status == store::ItemStatus::Error) {
            ++out.unchanged;  // recorded as failed already: a second import changes nothing
            return true;
          }
          (call.answer ? out.answered : out.failed) += 1;
          if (!call.answer && out.firstFailure.empty()) {
            const std::string& e = call.result.error;
            const std::string named = " (" + where + ")";  // refused or malformed: named there
            out.firstFailure = e.size() > named.size() && e.ends_with(named)
                                   ? where + ": " + e.substr(0, e.size() - named.size())
                                   : where + ": " + e;
          }
          if (call.answer) answeredHere[it->second] = 1;
          pieceBytes += text.size();
          piece.push_back(std::move(call.result));
          if (piece.size() >= kImportPieceResults || pieceBytes >= kImportPieceBytes)
            return writePiece();
          return true;
        },
        &err);
    if (!read) return refuse(err);
  }
  if (unknown > 0)
    return refuse(firstUnknown + " is not a call of this run (" + store.path().string() + ")" +
                  (unknown > 1
                       ? "; " + std::to_string(unknown - 1) + " more lines name no call of it"
                       : std::string()));
  if (!writePiece() || !store.commitBegunResults(&err)) return refuse(err);

  if (cache && out.answered > 0)
    cacheImportedAnswers(items, byKey, answeredHere, store, routes, *cache, sources, options, out);
  const auto counts = store.counts();
  out.stillPending = counts.pending + counts.cancelled;
  out.stillFailed = counts.errors;
  return out;
}

// ---- the Batch API
// ---------------------------------------------------------------------------------

namespace {

llm::BatchClient clientFor(const llm::EndpointConfig& endpoint,
                           const llm::TransportOptions& transport) {
  llm::EndpointConfig call = endpoint;
  // The front end's key callback (the GUI's keychain secret) wins over the recorded variable.
  if (transport.apiKey) call.apiKeyEnv.clear();
  return llm::BatchClient(call, transport);
}

// Sleeps up to `seconds`; false when a stop was requested first.
bool waitOrStop(double seconds, std::stop_token stop) {
  std::mutex m;
  std::condition_variable_any cv;
  std::unique_lock lock(m);
  // The predicate never holds: the wait ends at the timeout or at the stop request.
  cv.wait_for(lock, stop,
              std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                  std::chrono::duration<double>(seconds)),
              [] { return false; });
  return !stop.stop_requested();
}

void reportProgress(store::RunStore& store, ProgressListener* listener, std::size_t thisSession,
                    std::size_t fromCache) {
  if (!listener) return;
  const auto c = store.counts();
  Progress p;
  p.total = c.total;
  p.done = c.done + c.errors;
  p.errors = c.errors;
  p.fromCache = fromCache;
  p.callsThisSession = thisSession;
  p.promptTokens = c.promptTokens;
  p.completionTokens = c.completionTokens;
  p.costUsd = c.costUsd;
  listener->onProgress(p);
}

enum class PollEnd { Imported, Stopped, Failed };

struct BatchSession {
  store::RunStore& store;
  const CallRoutes& routes;
  llm::ResponseCache* cache;
  const BatchOptions& options;
  const llm::TransportOptions& transport;
  ProgressListener* listener;
  std::stop_token stop;
  BatchState state;
  BatchPassResult& out;
  std::size_t answeredThisPass = 0;
  std::string error;

  bool save() {
    std::string err;
    if (writeBatchState(store, state, &err)) return true;
    error = err;
    return false;
  }

  // A completed batch whose results are not all there: paid for, so its calls are never sent
  // again on their own. The batch stays open and every resume names it, until its results come
  // or the user gives it up.
  PollEnd resultsMissing(BatchRef& ref, const std::string& what) {
    ref.resultsMissing = true;
    if (!save()) return PollEnd::Failed;
    const std::string path = store.path().string();
    error = "batch " + ref.id + " is completed but its results are missing: " + what +
            ". Its calls are not sent again. If the provider has its output file, `ragscope-cli "
            "batch cancel " +
            path + "` gives the batch up and `ragscope-cli batch import " + path +
            " FILE` reads it; or, after `batch cancel`, `ragscope-cli resume " + path +
            "` sends the calls in a new batch (paid again)";
    return PollEnd::Failed;
  }

  // Polls batch `index` of the state until it ends, then downloads and imports what it holds.
  PollEnd pollAndImport(std::size_t index) {
    const BatchRef initial = state.batches[index];
    const auto client = clientFor(routes.endpointFor(initial.route), transport);
    double delay = std::max(0.01, options.pollInitialSeconds);
    int failures = 0;
    for (;;) {
      std::string err;
      const auto batch = client.getBatch(initial.id, &err);
      if (!batch) {
        // A lost poll costs nothing: ask again, a few times, before giving up.
        if (client.lastFailureTransient() && ++failures < 10) {
          if (!waitOrStop(delay, stop)) return PollEnd::Stopped;
          continue;
        }
        error = "batch " + initial.id + ": " + err;
        return PollEnd::Failed;
      }
      failures = 0;
      BatchRef& ref = state.batches[index];
      const bool changed = ref.status != batch->status ||
                           ref.counts.completed != batch->counts.completed ||
                           ref.counts.failed != batch->counts.failed;
      ref.status = batch->status;
      ref.counts = batch->counts;
      ref.outputFileId = batch->outputFileId;
      ref.errorFileId = batch->errorFileId;
      if (changed && !save()) return PollEnd::Failed;
      const bool done = llm::isTerminalBatchStatus(batch->status);
      if (options.onStatus) options.onStatus({ref.id, ref.status, ref.counts, done ? 0.0 : delay});
      if (done) {
        if (!batch->errors.empty()) {
          std::string list;
          for (const auto& e : batch->errors)
            list += (list.empty() ? "" : "; ") + escapeControlChars(e);
          out.note += "batch " + ref.id + " " + batch->status + ": " + list + "\n";
        }
        break;
      }
      if (!waitOrStop(delay, stop)) return PollEnd::Stopped;
      delay = std::min(delay * 1.5, std::max(options.pollMaxSeconds, options.pollInitialSeconds));
    }
    // Download what the batch holds, a file beside the store each, and import it.
    BatchRef& ref = state.batches[index];
    const std::string storePath = store.path().string();
    if (ref.status == "completed" && ref.lines > 0 && ref.outputFileId.empty() &&
        ref.errorFileId.empty())
      return resultsMissing(ref, "it names no output or error file (no output_file_id)");
    std::vector<BatchOutputSource> sources;
    for (const auto& [fileId, what] :
         {std::pair{ref.outputFileId, "output"}, std::pair{ref.errorFileId, "errors"}}) {
      if (fileId.empty()) continue;
      const fs::path to = storePath + "." + ref.id + "-" + what + ".jsonl";
      std::string err;
      if (!client.downloadFile(fileId, to, options.maxDownloadBytes, &err)) {
        error = "batch " + ref.id + ": its " + std::string(what) + " file " + fileId + ": " + err +
                "; nothing was imported (`ragscope-cli resume " + storePath +
                "` downloads it again)";
        return PollEnd::Failed;
      }
      sources.push_back({to.string(), to});
    }
    // The pass runs only for an endpoint the user chose or confirmed (runJob, resumeJob).
    BatchImportOptions importOptions;
    importOptions.endpointTrusted = true;
    importOptions.checkAnswer = options.checkAnswer;
    importOptions.storedForm = options.storedForm;
    const auto imported = importBatchOutput(store, routes, cache, sources, importOptions);
    if (!imported.ok()) {
      error = "batch " + ref.id + ": " + imported.error;  // the files stay, named, to be looked at
      return PollEnd::Failed;
    }
    for (const auto& s : sources) {
      std::error_code ec;
      fs::remove(s.path, ec);
    }
    answeredThisPass += imported.answered + imported.failed;
    if (!imported.cacheNote.empty()) out.note += imported.cacheNote + "\n";
    reportProgress(store, listener, answeredThisPass, out.answeredLocally);
    if (ref.status == "completed" && imported.lines < ref.lines)
      return resultsMissing(ref, "its output and error files hold " +
                                     std::to_string(imported.lines) + " lines for its " +
                                     std::to_string(ref.lines) + " calls");
    ref.imported = true;
    ref.resultsMissing = false;
    if (!save()) return PollEnd::Failed;
    out.batches.push_back(ref);
    reportProgress(store, listener, answeredThisPass, out.answeredLocally);
    return PollEnd::Imported;
  }
};

}  // namespace

BatchPassResult runBatchPass(store::RunStore& store, const CallRoutes& routes,
                             llm::ResponseCache* cache, const BatchOptions& options,
                             bool retryErrors, std::optional<double> budgetUsd,
                             const llm::TransportOptions& transport, ProgressListener* listener,
                             std::stop_token stop) {
  BatchPassResult out;
  const auto before = store.counts();
  out.summary.skipped = before.done + (retryErrors ? 0 : before.errors);
  std::string stateError;
  BatchSession session{store,     routes,   cache, options,
                       transport, listener, stop,  readBatchState(store, &stateError),
                       out,       0,        {}};
  auto finish = [&](RunOutcome outcome, std::string error = {}) {
    out.summary.outcome = outcome;
    out.summary.error = error;
    const auto c = store.counts();
    auto& p = out.summary.progress;
    p.total = c.total;
    p.done = c.done + c.errors;
    p.errors = c.errors;
    p.fromCache = out.answeredLocally;
    p.callsThisSession = session.answeredThisPass + out.answeredLocally;
    p.promptTokens = c.promptTokens;
    p.completionTokens = c.completionTokens;
    p.costUsd = c.costUsd;
    store.setStatus(outcome == RunOutcome::Failed ? "failed: " + error
                                                  : std::string(outcomeStatus(outcome)));
    return out;
  };
  if (!stateError.empty()) return finish(RunOutcome::Failed, stateError);
  if (!store.setStatus("running", &stateError)) return finish(RunOutcome::Failed, stateError);

  if (options.mode == BatchMode::File && session.state.hasOpenBatch()) {
    // Their calls are at the server already: written to a file too, they would be paid twice.
    for (const auto& b : session.state.batches)
      if (!b.imported && !b.givenUp && !b.id.empty())
        return finish(RunOutcome::Failed,
                      "batch " + b.id + " (" + b.status +
                          ") holds calls of this run and is not imported yet: `ragscope-cli "
                          "resume " +
                          store.path().string() +
                          "` imports it (or `ragscope-cli "
                          "batch cancel` it first)");
  }
  // Batches submitted before (a killed or stopped process): polled and imported, never sent again.
  bool endedShort = false;
  for (std::size_t i = 0; i < session.state.batches.size(); ++i) {
    const BatchRef& b = session.state.batches[i];
    if (b.imported || b.givenUp || b.id.empty()) continue;
    switch (session.pollAndImport(i)) {
      case PollEnd::Stopped:
        out.note += "batch " + b.id + " keeps running at the server; `ragscope-cli resume " +
                    store.path().string() + "` polls it again\n";
        return finish(RunOutcome::Cancelled);
      case PollEnd::Failed:
        return finish(RunOutcome::Failed, session.error);
      case PollEnd::Imported:
        break;
    }
    if (session.state.batches[i].status != "completed") endedShort = true;
  }
  bool submitted = false;
  std::set<std::string> sentKeys;  // the calls in this pass's batches
  for (;;) {
    LocalFill fill =
        fillLocally(store, routes, cache, retryErrors && !submitted, options.storedForm);
    if (!fill.error.empty()) return finish(RunOutcome::Failed, fill.error);
    out.answeredLocally += fill.heuristic + fill.cached;
    reportProgress(store, listener, session.answeredThisPass, out.answeredLocally);
    if (options.planMore) {
      std::string planError;
      const bool more = options.planMore(&planError);
      if (!planError.empty()) return finish(RunOutcome::Failed, planError);
      if (more) continue;  // answered here, planned further: ask for those too
    }
    if (fill.remaining.empty()) break;
    // Calls a batch of this pass held and did not answer (left out of its output) are not sent
    // again here; calls planned since (the next phase) are.
    std::size_t leftOut = 0;
    if (submitted) {
      std::vector<PendingBatchCall> fresh;
      for (auto& c : fill.remaining)
        if (sentKeys.count(c.key))
          ++leftOut;
        else
          fresh.push_back(std::move(c));
      fill.remaining = std::move(fresh);
    }
    if (endedShort || fill.remaining.empty()) {
      // A batch that expired, was cancelled or left lines out: the rest stays pending.
      out.note += std::to_string(leftOut + fill.remaining.size()) +
                  " calls are left pending; `ragscope-cli resume " + store.path().string() +
                  "` sends them again\n";
      return finish(RunOutcome::Cancelled);
    }
    std::string err;
    auto parts = partitionCalls(fill.remaining, options, &err);
    if (parts.empty()) return finish(RunOutcome::Failed, err);
    // Sealed before they leave: their answers may then enter the response cache on import.
    if (const std::string why = sealCalls(store, fill.remaining); !why.empty())
      out.note += "the calls are not sealed (" + why +
                  "): their answers will enter this run only, not the response cache\n";
    if (options.mode == BatchMode::File) {
      session.state.mode = "file";
      session.state.files.clear();
      for (std::size_t n = 0; n < parts.size(); ++n) {
        BatchFilePart file;
        file.path = partPath(options.file, n + 1);
        file.route = parts[n].route;
        file.url = parts[n].url;
        file.baseUrl = redactUrl(parts[n].endpoint->baseUrl);
        file.model = parts[n].endpoint->model;
        file.lines = parts[n].lines;
        file.bytes = parts[n].text.size();
        // The prompts are in it: private, as the run store is.
        if (!writeBytesAtomically(file.path, parts[n].text, &err, FileAccess::Private))
          return finish(RunOutcome::Failed, err);
        session.state.files.push_back(file);
        out.files.push_back(std::move(file));
      }
      if (!session.save()) return finish(RunOutcome::Failed, session.error);
      return finish(RunOutcome::PausedBatch);
    }
    // The budget: the batch is paid whole once submitted, so it is checked before.
    if (budgetUsd) {
      double cost = store.counts().costUsd;
      for (const auto& c : fill.remaining) {
        const auto priced = batchPriced(*c.endpoint);
        cost += llm::costUsd(priced, c.promptTokens,
                             priced.kind == llm::EndpointKind::Chat ? priced.maxTokens : 0);
      }
      if (cost > *budgetUsd + 1e-12) {
        out.note += "the batch would cost up to $" + std::to_string(cost) +
                    " in all, more than the $" + std::to_string(*budgetUsd) +
                    " budget; nothing was submitted\n";
        return finish(RunOutcome::PausedBudget);
      }
    }
    session.state.mode = "api";
    for (const auto& c : fill.remaining) sentKeys.insert(c.key);
    const std::size_t firstNew = session.state.batches.size();
    for (auto& part : parts) {
      const auto client = clientFor(*part.endpoint, transport);
      const std::string name = "ragscope-" + store.path().stem().string() + "-" +
                               std::to_string(session.state.batches.size() + 1) + ".jsonl";
      auto fileId = client.uploadFile(part.text, name, &err);
      if (!fileId) return finish(RunOutcome::Failed, err);
      BatchRef ref;
      ref.inputFileId = *fileId;
      ref.route = part.route;
      ref.url = part.url;
      ref.lines = part.lines;
      ref.created = store::isoNowUtc();
      auto batch = client.createBatch(*fileId, part.url, &err);
      if (!batch) return finish(RunOutcome::Failed, err);
      // Recorded at once: a process killed from here on polls this batch again.
      ref.id = batch->id;
      ref.status = batch->status;
      ref.counts = batch->counts;
      session.state.batches.push_back(ref);
      if (!session.save()) return finish(RunOutcome::Failed, session.error);
      if (options.onStatus) options.onStatus({ref.id, ref.status, ref.counts, 0.0});
    }
    submitted = true;
    if (options.submitOnly) {
      for (std::size_t i = firstNew; i < session.state.batches.size(); ++i)
        out.batches.push_back(session.state.batches[i]);
      return finish(RunOutcome::PausedBatch);
    }
    for (std::size_t i = firstNew; i < session.state.batches.size(); ++i) {
      switch (session.pollAndImport(i)) {
        case PollEnd::Stopped:
          out.note += "batch " + session.state.batches[i].id +
                      " keeps running at the server; `ragscope-cli resume " +
                      store.path().string() + "` polls it again\n";
          return finish(RunOutcome::Cancelled);
        case PollEnd::Failed:
          return finish(RunOutcome::Failed, session.error);
        case PollEnd::Imported:
          break;
      }
      if (session.state.batches[i].status != "completed") endedShort = true;
    }
  }
  const auto after = store.counts();
  return finish(after.errors > 0 ? RunOutcome::DoneWithErrors : RunOutcome::Done);
}

std::vector<BatchRef> refreshBatches(store::RunStore& store, const CallRoutes& routes,
                                     const llm::TransportOptions& transport, bool cancel,
                                     std::string* error) {
  BatchState state = readBatchState(store, error);
  std::vector<BatchRef> out;
  bool changed = false;
  for (auto& ref : state.batches) {
    if (ref.imported || ref.givenUp || ref.id.empty()) {
      out.push_back(ref);
      continue;
    }
    if (cancel && ref.resultsMissing) {
      // Completed: nothing to cancel at the server. Given up here, so its calls may be sent again.
      ref.givenUp = true;
      changed = true;
      out.push_back(ref);
      continue;
    }
    const auto client = clientFor(routes.endpointFor(ref.route), transport);
    std::string err;
    const auto batch = cancel ? client.cancelBatch(ref.id, &err) : client.getBatch(ref.id, &err);
    if (!batch) {
      if (error && error->empty()) *error = "batch " + ref.id + ": " + err;
    } else {
      ref.status = batch->status;
      ref.counts = batch->counts;
      ref.outputFileId = batch->outputFileId;
      ref.errorFileId = batch->errorFileId;
      changed = true;
    }
    out.push_back(ref);
  }
  if (changed) {
    std::string err;
    if (!writeBatchState(store, state, &err) && error && error->empty()) *error = err;
  }
  return out;
}

}  // namespace ragscope::core::eval
