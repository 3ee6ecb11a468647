#include "core/llm/openaiformat.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/data/jsonguard.h"
#include "core/llm/llmjson.h"
#include "core/util/jsonstrict.h"
#include "core/util/textescape.h"
#include "core/util/urlredact.h"

namespace ragscope::core::llm {

namespace {

using nlohmann::json;

// Replies come from the network: never let a hostile or broken server blow the parser's stack.
constexpr int kMaxReplyDepth = 64;

std::optional<json> parseGuarded(std::string_view body, std::string& error);

std::optional<json> parseGuarded(std::string_view body, ParsedReply& out) {
  if (body.empty()) {
    out.error = "empty body";
    out.unreadable = true;
    return std::nullopt;
  }
  if (auto deep = checkJsonDepth(body, kMaxReplyDepth)) {
    out.error = *deep;
    return std::nullopt;
  }
  // Strict (core/util/jsonstrict.h): {"choices": [...], "choices": [...]} would hand ragscope
  // the last answer while a log or another client shows the first.
  json j;
  if (JsonStrictError why; !parseJsonStrict(body, j, &why, kMaxReplyDepth)) {
    out.error = why.repeated
                    ? "not strict JSON: " + escapeControlChars(describeJsonStrictError(why))
                    : std::string("invalid JSON");
    out.unreadable = !why.repeated;  // a repeat is sent on purpose: another attempt repeats it
    return std::nullopt;
  }
  return j;
}

std::optional<json> parseGuarded(std::string_view body, std::string& error) {
  ParsedReply out;
  auto j = parseGuarded(body, out);
  if (!j) error = std::move(out.error);
  return j;
}

void readUsage(const json& j, ParsedReply& out) {
  auto it = j.find("usage");
  if (it == j.end() || !it->is_object()) return;
  auto num = [&](const char* key) -> std::optional<std::int64_t> {
    auto f = it->find(key);
    if (f == it->end() || !f->is_number()) return std::nullopt;
    double v = f->get<double>();
    // A count that no int64 holds is as meaningless as a negative one (and converting it would
    // be undefined behaviour): the server's usage is ignored, as when it sends none.
    if (!std::isfinite(v) || v < 0 || v >= 0x1p63) return std::nullopt;
    return static_cast<std::int64_t>(v);
  };
  auto prompt = num("prompt_tokens");
  auto completion = num("completion_tokens");
  auto total = num("total_tokens");
  if (!prompt && !completion && !total) return;
  out.hasUsage = true;
  out.promptTokens = prompt.value_or(0);
  out.completionTokens = completion.value_or(0);
  // Embedding and rerank servers often report only total_tokens.
  if (!prompt && !completion && total) out.promptTokens = *total;
}

bool utf8Continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

}  // namespace

std::string endpointPath(EndpointKind kind) {
  switch (kind) {
    case EndpointKind::Chat:
      return "/chat/completions";
    case EndpointKind::Embeddings:
      return "/embeddings";
    case EndpointKind::Rerank:
      return "/rerank";
  }
  return "/chat/completions";
}

std::string joinUrl(std::string_view baseUrl, std::string_view path) {
  while (!baseUrl.empty() && baseUrl.back() == '/') baseUrl.remove_suffix(1);
  std::string url(baseUrl);
  if (!path.empty() && path.front() != '/') url += '/';
  url += path;
  return url;
}

std::string buildChatBody(const EndpointConfig& config, const std::vector<Message>& messages,
                          std::optional<std::int64_t> seed,
                          const std::optional<ResponseSchema>& schema) {
  json msgs = json::array();
  for (const auto& m : messages) msgs.push_back({{"role", m.role}, {"content", m.content}});
  json body = {{"model", config.model},
               {"messages", std::move(msgs)},
               {"temperature", config.temperature},
               {"max_tokens", config.maxTokens},
               {"stream", false}};
  if (seed)
    body["seed"] = *seed;
  else if (config.seed)
    body["seed"] = *config.seed;
  if (schema) body["response_format"] = responseFormatJson(*schema);
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string buildEmbeddingsBody(const EndpointConfig& config,
                                const std::vector<std::string>& inputs) {
  json body = {{"model", config.model}, {"input", inputs}};
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string buildRerankBody(const EndpointConfig& config, std::string_view query,
                            const std::vector<std::string>& documents) {
  json body = {{"model", config.model}, {"query", std::string(query)}, {"documents", documents}};
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string buildRequestBody(const EndpointConfig& config, const LlmRequest& request) {
  switch (config.kind) {
    case EndpointKind::Chat:
      return buildChatBody(config, request.messages, request.seed, request.responseSchema);
    case EndpointKind::Embeddings:
      return buildEmbeddingsBody(config, request.inputs);
    case EndpointKind::Rerank:
      return buildRerankBody(config, request.query, request.documents);
  }
  return {};
}

std::int64_t estimateTokens(std::size_t bytes) {
  return static_cast<std::int64_t>((bytes + 3) / 4);
}

std::int64_t estimateRequestTokens(const EndpointConfig& config, std::size_t bodyBytes) {
  std::int64_t t = estimateTokens(bodyBytes);
  if (config.kind == EndpointKind::Chat) t += std::max(0, config.maxTokens);
  return t;
}

ParsedReply parseChatReply(std::string_view body) {
  ParsedReply out;
  auto j = parseGuarded(body, out);
  if (!j) return out;
  if (!j->is_object()) {
    out.error = "reply is not a JSON object";
    return out;
  }
  auto choices = j->find("choices");
  if (choices == j->end() || !choices->is_array() || choices->empty()) {
    out.error = "missing choices[0]";
    return out;
  }
  const json& first = (*choices)[0];
  auto message = first.is_object() ? first.find("message") : first.end();
  if (!first.is_object() || message == first.end() || !message->is_object()) {
    out.error = "missing choices[0].message";
    return out;
  }
  auto content = message->find("content");
  if (content == message->end() || !content->is_string()) {
    out.error = "missing choices[0].message.content";
    return out;
  }
  out.text = content->get<std::string>();
  readUsage(*j, out);
  out.ok = true;
  return out;
}

ParsedReply parseEmbeddingsReply(std::string_view body, long expected) {
  ParsedReply out;
  auto j = parseGuarded(body, out);
  if (!j) return out;
  auto data = j->is_object() ? j->find("data") : j->end();
  if (!j->is_object() || data == j->end() || !data->is_array()) {
    out.error = "missing data[]";
    return out;
  }
  const std::size_t n = data->size();
  if (expected >= 0 && n != static_cast<std::size_t>(expected)) {
    out.error = "expected " + std::to_string(expected) + " embeddings, got " + std::to_string(n);
    return out;
  }
  out.embeddings.assign(n, {});
  std::vector<bool> seen(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    const json& item = (*data)[i];
    if (!item.is_object()) {
      out.error = "data[" + std::to_string(i) + "] is not an object";
      return out;
    }
    std::size_t slot = i;
    if (auto idx = item.find("index"); idx != item.end()) {
      if (!idx->is_number_unsigned() || idx->get<std::uint64_t>() >= n) {
        out.error = "data[" + std::to_string(i) + "].index out of range";
        return out;
      }
      slot = static_cast<std::size_t>(idx->get<std::uint64_t>());
    }
    if (seen[slot]) {
      out.error = "data[" + std::to_string(i) + "].index repeats " + std::to_string(slot);
      return out;
    }
    seen[slot] = true;
    auto emb = item.find("embedding");
    if (emb == item.end() || !emb->is_array()) {
      out.error = "missing data[" + std::to_string(i) + "].embedding";
      return out;
    }
    auto& vec = out.embeddings[slot];
    vec.reserve(emb->size());
    for (const auto& v : *emb) {
      if (!v.is_number()) {
        out.error = "data[" + std::to_string(i) + "].embedding has a non-number";
        return out;
      }
      vec.push_back(v.get<float>());
    }
  }
  if (const auto model = j->find("model"); model != j->end() && model->is_string())
    out.model = model->get<std::string>();
  readUsage(*j, out);
  out.ok = true;
  return out;
}

ParsedReply parseRerankReply(std::string_view body, long documentCount) {
  ParsedReply out;
  auto j = parseGuarded(body, out);
  if (!j) return out;
  const json* results = nullptr;
  if (j->is_array()) {
    results = &*j;
  } else if (j->is_object()) {
    auto it = j->find("results");
    if (it == j->end()) it = j->find("data");  // some proxies wrap in "data"
    if (it != j->end() && it->is_array()) results = &*it;
  }
  if (!results) {
    out.error = "missing results[]";
    return out;
  }
  std::vector<bool> seen(documentCount > 0 ? static_cast<std::size_t>(documentCount) : 0, false);
  for (std::size_t i = 0; i < results->size(); ++i) {
    const json& item = (*results)[i];
    const std::string where = "results[" + std::to_string(i) + "]";
    if (!item.is_object()) {
      out.error = where + " is not an object";
      return out;
    }
    auto idx = item.find("index");
    if (idx == item.end() || !idx->is_number_unsigned()) {
      out.error = "missing " + where + ".index";
      return out;
    }
    auto index = static_cast<std::size_t>(idx->get<std::uint64_t>());
    if (documentCount >= 0) {
      if (index >= static_cast<std::size_t>(documentCount)) {
        out.error = where + ".index " + std::to_string(index) + " out of range";
        return out;
      }
      if (seen[index]) {
        out.error = where + ".index repeats " + std::to_string(index);
        return out;
      }
      seen[index] = true;
    }
    auto score = item.find("relevance_score");
    if (score == item.end()) score = item.find("score");
    if (score == item.end() || !score->is_number()) {
      out.error = "missing " + where + ".relevance_score";
      return out;
    }
    out.rerank.emplace_back(index, score->get<double>());
  }
  if (j->is_object()) readUsage(*j, out);
  // Cohere reports billed units instead of usage.
  if (!out.hasUsage && j->is_object()) {
    auto meta = j->find("meta");
    if (meta != j->end() && meta->is_object()) {
      auto units = meta->find("billed_units");
      if (units != meta->end() && units->is_object()) {
        auto s = units->find("search_units");
        if (s != units->end() && s->is_number_unsigned() &&
            s->get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX)) {
          out.hasUsage = true;
          out.promptTokens = static_cast<std::int64_t>(s->get<std::uint64_t>());
        }
      }
    }
  }
  out.ok = true;
  return out;
}

ParsedReply parseReply(EndpointKind kind, std::string_view body, long expectedItems) {
  switch (kind) {
    case EndpointKind::Chat:
      return parseChatReply(body);
    case EndpointKind::Embeddings:
      return parseEmbeddingsReply(body, expectedItems);
    case EndpointKind::Rerank:
      return parseRerankReply(body, expectedItems);
  }
  return {};
}

std::vector<std::string> parseModelList(std::string_view body, std::string* error) {
  std::vector<std::string> ids;
  std::string why;
  auto j = parseGuarded(body, why);
  auto fail = [&](std::string w) {
    if (error) *error = std::move(w);
    return std::vector<std::string>{};
  };
  if (!j) return fail(why);
  const json* list = nullptr;
  if (j->is_array()) {
    list = &*j;
  } else if (j->is_object()) {
    for (const char* key : {"data", "models"}) {
      auto it = j->find(key);
      if (it != j->end() && it->is_array()) {
        list = &*it;
        break;
      }
    }
  }
  if (!list) return fail("missing data[]");
  for (const auto& item : *list) {
    if (item.is_string()) {
      ids.push_back(item.get<std::string>());
      continue;
    }
    if (!item.is_object()) continue;
    for (const char* key : {"id", "name", "model"}) {
      auto it = item.find(key);
      if (it != item.end() && it->is_string()) {
        ids.push_back(it->get<std::string>());
        break;
      }
    }
  }
  if (error) error->clear();
  return ids;
}

std::string redact(std::string text, const std::vector<std::string>& secrets) {
  for (const auto& s : secrets) {
    if (s.empty()) continue;
    std::size_t pos = 0;
    while ((pos = text.find(s, pos)) != std::string::npos) {
      text.replace(pos, s.size(), "[redacted]");
      pos += 10;
    }
  }
  return text;
}

std::string errorExcerpt(std::string_view body, const std::vector<std::string>& secrets,
                         std::size_t maxChars) {
  std::string text(body);
  std::string ignored;
  if (auto j = parseGuarded(body, ignored); j && j->is_object()) {
    auto err = j->find("error");
    if (err != j->end()) {
      if (err->is_string()) {
        text = err->get<std::string>();
      } else if (err->is_object()) {
        auto msg = err->find("message");
        if (msg != err->end() && msg->is_string()) text = msg->get<std::string>();
      }
    } else if (auto msg = j->find("message"); msg != j->end() && msg->is_string()) {
      text = msg->get<std::string>();
    } else if (auto det = j->find("detail"); det != j->end() && det->is_string()) {
      text = det->get<std::string>();
    }
  }
  // Redact before cutting so a secret straddling the cut cannot leave a usable prefix behind.
  text = redact(std::move(text), secrets);
  // Tabs and line breaks become spaces; other controls (ESC sequences that would drive the
  // terminal the error is printed on) and invalid UTF-8 become visible escapes.
  text = escapeControlChars(text);
  // Collapse runs of spaces (HTML error pages are mostly indentation).
  std::string collapsed;
  collapsed.reserve(text.size());
  for (char c : text) {
    if (c == ' ' && !collapsed.empty() && collapsed.back() == ' ') continue;
    collapsed += c;
  }
  while (!collapsed.empty() && collapsed.back() == ' ') collapsed.pop_back();
  std::size_t start = collapsed.find_first_not_of(' ');
  collapsed = start == std::string::npos ? std::string() : collapsed.substr(start);
  if (collapsed.size() > maxChars) {
    std::size_t cut = maxChars;
    while (cut > 0 && utf8Continuation(static_cast<unsigned char>(collapsed[cut]))) --cut;
    collapsed.resize(cut);
    collapsed += "...";
  }
  return collapsed;
}

double costUsd(const EndpointConfig& config, std::int64_t promptTokens,
               std::int64_t completionTokens) {
  return static_cast<double>(promptTokens) / 1000.0 * config.pricePer1kInput +
         static_cast<double>(completionTokens) / 1000.0 * config.pricePer1kOutput;
}

LlmResponse responseFromReply(const EndpointConfig& config, ParsedReply parsed,
                              std::size_t requestBodyBytes) {
  LlmResponse r;
  r.status = CallStatus::Ok;
  r.text = std::move(parsed.text);
  r.embeddings = std::move(parsed.embeddings);
  r.model = std::move(parsed.model);
  r.rerank = std::move(parsed.rerank);
  if (parsed.hasUsage) {
    r.usage.promptTokens = parsed.promptTokens;
    r.usage.completionTokens = parsed.completionTokens;
  } else {
    // No usage block (some servers omit it): estimate so budgets and cost still add up.
    r.usage.promptTokens = estimateTokens(requestBodyBytes);
    r.usage.completionTokens = estimateTokens(r.text.size());
  }
  r.usage.costUsd = costUsd(config, r.usage.promptTokens, r.usage.completionTokens);
  return r;
}

std::string httpCacheIdentity(const EndpointConfig& c) {
  // The cache keeps identities in the clear: a URL's credentials are not part of them (the same
  // server and model answer alike whoever logs in).
  std::string base = redactUrl(c.baseUrl);
  while (!base.empty() && base.back() == '/') base.pop_back();
  json id = {{"kind", c.kind == EndpointKind::Chat         ? "chat"
                      : c.kind == EndpointKind::Embeddings ? "embeddings"
                                                           : "rerank"},
             {"base_url", base},
             {"model", c.model}};
  if (c.kind == EndpointKind::Chat) {
    id["temperature"] = c.temperature;
    id["max_tokens"] = c.maxTokens;
    id["seed"] = c.seed ? json(*c.seed) : json(nullptr);
  }
  return id.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace ragscope::core::llm
