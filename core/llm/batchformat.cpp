#include "core/llm/batchformat.h"

#include <nlohmann/json.hpp>

#include "core/data/jsonguard.h"

namespace ragscope::core::llm {

namespace {

using nlohmann::json;

// Output lines and batch objects come from a server or a file from elsewhere.
constexpr int kMaxBatchJsonDepth = 64;

std::optional<json> parseBatchJson(std::string_view text, std::string* error) {
  if (auto deep = checkJsonDepth(text, kMaxBatchJsonDepth)) {
    if (error) *error = *deep;
    return std::nullopt;
  }
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) {
    if (error) *error = "not valid JSON";
    return std::nullopt;
  }
  if (!j.is_object()) {
    if (error) *error = "not a JSON object";
    return std::nullopt;
  }
  return j;
}

bool failField(std::string* error, const std::string& text) {
  if (error) *error = text;
  return false;
}

// An optional string field: absent or null reads as empty; another type is an error.
bool optionalString(const json& j, const char* key, const std::string& where, std::string& out,
                    std::string* error) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_string()) return failField(error, where + key + " is not a string");
  out = it->get<std::string>();
  return true;
}

bool optionalCount(const json& j, const char* key, const std::string& where, std::int64_t& out,
                   std::string* error) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_number_integer() || it->get<std::int64_t>() < 0)
    return failField(error, where + key + " is not a count");
  out = it->get<std::int64_t>();
  return true;
}

}  // namespace

std::optional<std::string> batchUrl(EndpointKind kind) {
  switch (kind) {
    case EndpointKind::Chat:
      return std::string("/v1/chat/completions");
    case EndpointKind::Embeddings:
      return std::string("/v1/embeddings");
    case EndpointKind::Rerank:
      return std::nullopt;
  }
  return std::nullopt;
}

std::string batchInputLine(std::string_view customId, std::string_view url, std::string_view body) {
  // Built around the body's own bytes: a re-serialised body could differ from the live one
  // (number formatting, escapes), and the response cache's key hashes those bytes.
  std::string line;
  line.reserve(body.size() + customId.size() + url.size() + 64);
  line += "{\"body\":";
  line += body;
  line += ",\"custom_id\":";
  line += json(std::string(customId)).dump(-1, ' ', false, json::error_handler_t::replace);
  line += ",\"method\":\"POST\",\"url\":";
  line += json(std::string(url)).dump();
  line += '}';
  return line;
}

std::optional<BatchOutputLine> parseBatchOutputLine(std::string_view line, std::string* error) {
  auto j = parseBatchJson(line, error);
  if (!j) return std::nullopt;
  BatchOutputLine out;
  const auto id = j->find("custom_id");
  if (id == j->end() || !id->is_string() || id->get_ref<const std::string&>().empty()) {
    failField(error,
              id == j->end() ? "custom_id is missing" : "custom_id is not a non-empty string");
    return std::nullopt;
  }
  out.customId = id->get<std::string>();
  if (out.customId.size() > kBatchMaxCustomIdBytes) {
    failField(error,
              "custom_id is longer than " + std::to_string(kBatchMaxCustomIdBytes) + " bytes");
    return std::nullopt;
  }
  if (const auto r = j->find("response"); r != j->end() && !r->is_null()) {
    if (!r->is_object()) {
      failField(error, "response is not an object");
      return std::nullopt;
    }
    const auto status = r->find("status_code");
    if (status == r->end() || !status->is_number_integer() || status->get<std::int64_t>() < 100 ||
        status->get<std::int64_t>() > 599) {
      failField(error, status == r->end() ? "response.status_code is missing"
                                          : "response.status_code is not an HTTP status");
      return std::nullopt;
    }
    out.hasResponse = true;
    out.statusCode = static_cast<int>(status->get<std::int64_t>());
    if (const auto b = r->find("body"); b != r->end() && !b->is_null()) {
      if (b->is_string()) {
        out.body = b->get<std::string>();
      } else if (b->is_object() || b->is_array()) {
        out.body = b->dump(-1, ' ', false, json::error_handler_t::replace);
        if (b->is_object())
          if (const auto m = b->find("model"); m != b->end() && m->is_string())
            out.model = m->get<std::string>();
      } else {
        failField(error, "response.body is not an object");
        return std::nullopt;
      }
    }
  }
  if (const auto e = j->find("error"); e != j->end() && !e->is_null()) {
    out.hasError = true;
    if (e->is_string()) {
      out.errorText = e->get<std::string>();
    } else if (e->is_object()) {
      if (!optionalString(*e, "message", "error.", out.errorText, error) ||
          !optionalString(*e, "code", "error.", out.errorCode, error))
        return std::nullopt;
    } else {
      failField(error, "error is not an object");
      return std::nullopt;
    }
  }
  if (!out.hasResponse && !out.hasError) {
    failField(error, "neither response nor error is given");
    return std::nullopt;
  }
  return out;
}

bool replyModelMatches(std::string_view replied, std::string_view asked) {
  if (replied.empty() || asked.empty()) return false;
  if (replied == asked) return true;
  if (replied.size() <= asked.size() + 1 || replied.substr(0, asked.size()) != asked ||
      replied[asked.size()] != '-')
    return false;
  for (char c : replied.substr(asked.size() + 1))
    if (!(c >= '0' && c <= '9') && c != '-') return false;
  return true;
}

bool isKnownBatchStatus(std::string_view s) {
  return s == "validating" || s == "in_progress" || s == "finalizing" || s == "completed" ||
         s == "expired" || s == "cancelling" || s == "cancelled" || s == "failed";
}

bool isTerminalBatchStatus(std::string_view s) {
  return s == "completed" || s == "expired" || s == "cancelled" || s == "failed";
}

std::optional<BatchObject> parseBatchObject(std::string_view body, std::string* error) {
  auto j = parseBatchJson(body, error);
  if (!j) return std::nullopt;
  BatchObject b;
  std::string err;
  if (!optionalString(*j, "id", "", b.id, &err) || b.id.empty()) {
    failField(error, err.empty() ? "id is missing" : err);
    return std::nullopt;
  }
  if (!isSafeBatchId(b.id)) {
    failField(error, "id has characters a batch id does not have");
    return std::nullopt;
  }
  if (!optionalString(*j, "status", "", b.status, error)) return std::nullopt;
  if (!isKnownBatchStatus(b.status)) {
    failField(error, b.status.empty() ? "status is missing" : "status is not a batch status");
    return std::nullopt;
  }
  if (!optionalString(*j, "endpoint", "", b.endpoint, error) ||
      !optionalString(*j, "input_file_id", "", b.inputFileId, error) ||
      !optionalString(*j, "output_file_id", "", b.outputFileId, error) ||
      !optionalString(*j, "error_file_id", "", b.errorFileId, error))
    return std::nullopt;
  for (const std::string* file : {&b.outputFileId, &b.errorFileId})
    if (!file->empty() && !isSafeBatchId(*file)) {
      failField(error, "a file id has characters a file id does not have");
      return std::nullopt;
    }
  if (const auto c = j->find("request_counts"); c != j->end() && !c->is_null()) {
    if (!c->is_object()) {
      failField(error, "request_counts is not an object");
      return std::nullopt;
    }
    if (!optionalCount(*c, "total", "request_counts.", b.counts.total, error) ||
        !optionalCount(*c, "completed", "request_counts.", b.counts.completed, error) ||
        !optionalCount(*c, "failed", "request_counts.", b.counts.failed, error))
      return std::nullopt;
  }
  if (const auto e = j->find("errors"); e != j->end() && !e->is_null()) {
    const json* data = e->is_object() && e->contains("data") ? &(*e)["data"] : nullptr;
    if (!e->is_object() || (data && !data->is_null() && !data->is_array())) {
      failField(error, "errors is not an object with a data list");
      return std::nullopt;
    }
    if (data && data->is_array())
      for (const auto& d : *data) {
        if (!d.is_object()) continue;
        std::string message, code;
        optionalString(d, "message", "", message, nullptr);
        optionalString(d, "code", "", code, nullptr);
        std::string text = code.empty() ? message : code + ": " + message;
        if (const auto line = d.find("line"); line != d.end() && line->is_number_integer())
          text = "line " + std::to_string(line->get<std::int64_t>()) + ": " + text;
        if (b.errors.size() < 20) b.errors.push_back(std::move(text));
      }
  }
  return b;
}

std::optional<std::string> parseFileId(std::string_view body, std::string* error) {
  auto j = parseBatchJson(body, error);
  if (!j) return std::nullopt;
  std::string id;
  if (!optionalString(*j, "id", "", id, error)) return std::nullopt;
  if (id.empty() || !isSafeBatchId(id)) {
    failField(error, id.empty() ? "the file object has no id" : "the file id is not a plain id");
    return std::nullopt;
  }
  return id;
}

bool isSafeBatchId(std::string_view id) {
  if (id.empty() || id.size() > 256 || id == "." || id == "..") return false;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

}  // namespace ragscope::core::llm
