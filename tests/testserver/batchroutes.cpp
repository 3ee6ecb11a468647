#include "testserver/batchroutes.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace ragscope::testserver {

namespace {

using nlohmann::json;

std::string batchErrorBody(const std::string& message, const std::string& type) {
  return json{{"error", {{"message", message}, {"type", type}}}}.dump();
}

}  // namespace

void BatchRoutes::setOptions(BatchServerOptions options) {
  std::lock_guard lock(m_mutex);
  m_options = std::move(options);
}

BatchCounters BatchRoutes::counters() const {
  std::lock_guard lock(m_mutex);
  return m_counters;
}

std::vector<std::string> BatchRoutes::uploadedFiles() const {
  std::lock_guard lock(m_mutex);
  return m_uploads;
}

void BatchRoutes::finishFiles(Batch& b, std::size_t done) {
  std::string output, errors;
  std::vector<const Line*> lines;
  for (std::size_t i = 0; i < done && i < b.lines.size(); ++i) lines.push_back(&b.lines[i]);
  if (m_options.reverseOutput) std::reverse(lines.begin(), lines.end());
  std::size_t dropped = 0;
  for (const Line* l : lines) {
    if (!l->failed && b.finalStatus == "completed" && dropped < m_options.dropOutputLines) {
      ++dropped;  // lost by the server (a scripted fault)
      continue;
    }
    (l->failed ? errors : output) += l->json + "\n";
  }
  if (b.finalStatus == "completed" && m_options.omitOutputFileId) return;
  if (!output.empty()) {
    b.outputFileId = "file-out-" + std::to_string(m_next++);
    m_files[b.outputFileId] = output;
  }
  if (!errors.empty()) {
    b.errorFileId = "file-err-" + std::to_string(m_next++);
    m_files[b.errorFileId] = errors;
  }
}

std::string BatchRoutes::batchJson(Batch& b) {
  const std::size_t total = b.lines.size();
  std::string status;
  std::size_t done = 0;
  const double elapsed =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - b.created)
          .count();
  const double progress = m_options.batchMs <= 0 ? 1.0 : std::min(1.0, elapsed / m_options.batchMs);
  if (!b.finalStatus.empty()) {
    status = b.finalStatus;
    done = status == "cancelled" ? b.doneAtCancel : total;
  } else if (!b.validationError.empty()) {
    status = b.finalStatus = "failed";
  } else if (b.cancelRequested) {
    if (!b.cancelSeen) {
      status = "cancelling";
      b.cancelSeen = true;
      done = b.doneAtCancel;
    } else {
      status = b.finalStatus = "cancelled";
      finishFiles(b, b.doneAtCancel);
      done = b.doneAtCancel;
    }
  } else if (progress < 0.1) {
    status = "validating";
  } else if (progress < 0.9) {
    status = "in_progress";
    done = static_cast<std::size_t>(static_cast<double>(total) * (progress - 0.1) / 0.8);
  } else if (progress < 1.0) {
    status = "finalizing";
    done = total;
  } else {
    status = b.finalStatus = m_options.endState;
    if (status == "expired") {
      done = std::min<std::size_t>(
          total, static_cast<std::size_t>(std::max(0, m_options.expireAfterLines)));
      b.doneAtCancel = done;
      finishFiles(b, done);
    } else if (status == "failed") {
      b.validationError = "the batch failed (scripted)";
    } else {
      done = total;
      finishFiles(b, total);
    }
  }
  if (status == "expired") done = b.doneAtCancel;
  std::size_t failed = 0;
  for (std::size_t i = 0; i < done && i < total; ++i) failed += b.lines[i].failed;
  json errors = nullptr;
  if (!b.validationError.empty())
    errors = {{"object", "list"},
              {"data", json::array({{{"code", "invalid_file"},
                                     {"message", b.validationError},
                                     {"param", nullptr},
                                     {"line", nullptr}}})}};
  json j = {
      {"id", b.id},
      {"object", "batch"},
      {"endpoint", b.endpoint},
      {"errors", errors},
      {"input_file_id", b.inputFileId},
      {"completion_window", "24h"},
      {"status", status},
      {"output_file_id", b.outputFileId.empty() ? json(nullptr) : json(b.outputFileId)},
      {"error_file_id", b.errorFileId.empty() ? json(nullptr) : json(b.errorFileId)},
      {"created_at", 1700000000},
      {"request_counts", {{"total", total}, {"completed", done - failed}, {"failed", failed}}},
      {"metadata", nullptr}};
  return j.dump();
}

bool BatchRoutes::handle(const std::string& method, const std::string& path,
                         const std::string& body, const std::string* file,
                         const std::string& purpose, int& status, std::string& reply) {
  // Paths under the base URL's /v1 (or any prefix): .../files, .../files/ID/content,
  // .../batches, .../batches/ID, .../batches/ID/cancel.
  const auto at = std::min(path.rfind("/files"), path.rfind("/batches"));
  if (at == std::string::npos) return false;
  std::vector<std::string> parts;
  for (std::size_t i = at + 1; i <= path.size();) {
    const auto slash = path.find('/', i);
    parts.push_back(path.substr(i, slash == std::string::npos ? std::string::npos : slash - i));
    if (slash == std::string::npos) break;
    i = slash + 1;
  }
  std::lock_guard lock(m_mutex);
  auto fail = [&](int code, const std::string& message) {
    status = code;
    reply = batchErrorBody(message, code == 404 ? "not_found" : "invalid_request_error");
    return true;
  };
  if (parts[0] == "files") {
    if (parts.size() == 1 && method == "POST") {
      if (!file) return fail(400, "multipart field \"file\" is missing");
      if (purpose != "batch") return fail(400, "purpose must be \"batch\"");
      const std::string id = "file-in-" + std::to_string(m_next++);
      m_files[id] = *file;
      m_uploads.push_back(*file);
      ++m_counters.filesUploaded;
      status = 200;
      reply = json{{"id", id},
                   {"object", "file"},
                   {"bytes", file->size()},
                   {"created_at", 1700000000},
                   {"filename", "input.jsonl"},
                   {"purpose", "batch"}}
                  .dump();
      return true;
    }
    if (parts.size() == 3 && parts[2] == "content" && method == "GET") {
      const auto it = m_files.find(parts[1]);
      if (it == m_files.end()) return fail(404, "no such file: " + parts[1]);
      ++m_counters.downloads;
      status = m_options.downloadStatus;
      reply = status >= 200 && status < 300 && status != 204 ? it->second : std::string();
      return true;
    }
    return fail(404, "no such files route");
  }
  if (parts[0] != "batches") return false;
  if (parts.size() == 1 && method == "POST") {
    const json in = json::parse(body, nullptr, false);
    if (!in.is_object() || !in.value("input_file_id", json()).is_string())
      return fail(400, "input_file_id is missing");
    const std::string inputId = in["input_file_id"].get<std::string>();
    const auto input = m_files.find(inputId);
    if (input == m_files.end()) return fail(404, "no such file: " + inputId);
    if (in.value("completion_window", std::string()) != "24h")
      return fail(400, "completion_window must be 24h");
    Batch b;
    b.id = "batch_" + std::to_string(m_next++);
    b.endpoint = in.value("endpoint", std::string());
    b.inputFileId = inputId;
    b.created = std::chrono::steady_clock::now();
    // Every line answered now, as a live call would be; the states then follow the clock.
    const std::string content = input->second;
    std::size_t lineNo = 0;
    for (std::size_t i = 0; i < content.size();) {
      auto nl = content.find('\n', i);
      if (nl == std::string::npos) nl = content.size();
      const std::string text = content.substr(i, nl - i);
      i = nl + 1;
      ++lineNo;
      if (text.empty()) continue;
      const json line = json::parse(text, nullptr, false);
      if (!line.is_object() || !line.value("custom_id", json()).is_string() ||
          !line.value("body", json()).is_object() ||
          line.value("url", std::string()) != b.endpoint) {
        b.validationError =
            "line " + std::to_string(lineNo) + ": not a request line of this batch's endpoint";
        break;
      }
      Line out;
      out.customId = line["custom_id"].get<std::string>();
      // The body as sent, re-serialised (the replies do not depend on its bytes).
      auto [code, replyBody] = m_run(b.endpoint, line["body"].dump());
      ++m_counters.linesRun;
      json parsed = json::parse(replyBody, nullptr, false);
      out.failed = code >= 400;
      out.json = json{
          {"id", "batch_req_" + std::to_string(m_next++)},
          {"custom_id", out.customId},
          {"response",
           {{"status_code", code},
            {"request_id", "req_" + std::to_string(lineNo)},
            {"body", parsed.is_discarded() ? json(replyBody) : parsed}}},
          {"error",
           nullptr}}.dump();
      b.lines.push_back(std::move(out));
    }
    ++m_counters.batchesCreated;
    const std::string id = b.id;
    auto& stored = m_batches[id] = std::move(b);
    status = 200;
    reply = batchJson(stored);
    return true;
  }
  if (parts.size() < 2) return fail(404, "no such batches route");
  const auto it = m_batches.find(parts[1]);
  if (it == m_batches.end()) return fail(404, "no such batch: " + parts[1]);
  Batch& b = it->second;
  if (parts.size() == 2 && method == "GET") {
    ++m_counters.batchPolls;
    status = 200;
    reply = batchJson(b);
    return true;
  }
  if (parts.size() == 3 && parts[2] == "cancel" && method == "POST") {
    if (b.finalStatus.empty() && !b.cancelRequested) {
      // What was done so far stays done.
      const double elapsed =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - b.created)
              .count();
      const double progress =
          m_options.batchMs <= 0 ? 1.0 : std::min(1.0, elapsed / m_options.batchMs);
      b.doneAtCancel =
          progress < 0.1
              ? 0
              : std::min(b.lines.size(),
                         static_cast<std::size_t>(static_cast<double>(b.lines.size()) *
                                                  std::min(1.0, (progress - 0.1) / 0.8)));
      b.cancelRequested = true;
      ++m_counters.batchesCancelled;
    }
    status = 200;
    reply = batchJson(b);
    return true;
  }
  return fail(404, "no such batches route");
}

}  // namespace ragscope::testserver
