#include "core/retrieval/httppost.h"

#include <algorithm>
#include <cstdlib>

#include "core/util/curlapi.h"
#include "core/util/httpsafety.h"
#include "core/util/textescape.h"

namespace ragscope::core {

namespace {

struct Sink {
  std::string* body;
  std::size_t max;
  bool overflow = false;
};

std::size_t onData(char* data, std::size_t size, std::size_t n, void* user) {
  auto* sink = static_cast<Sink*>(user);
  const std::size_t bytes = size * n;
  if (sink->body->size() + bytes > sink->max) {
    sink->overflow = true;
    return 0;  // makes curl fail the transfer with CURLE_WRITE_ERROR
  }
  sink->body->append(data, bytes);
  return bytes;
}

}  // namespace

std::string snippet(std::string_view body, std::size_t n) {
  std::size_t cut = std::min(n, body.size());
  // Cut before a UTF-8 sequence the limit would split: its first bytes would show as escapes.
  for (int back = 0; back < 3 && cut > 0 && cut < body.size() &&
                     (static_cast<unsigned char>(body[cut]) & 0xC0) == 0x80;
       ++back)
    --cut;
  // The body is the server's text: a terminal must not act on its escape sequences.
  std::string s = escapeControlChars(body.substr(0, cut));
  if (body.size() > cut) s += "...";
  return s;
}

std::string authorizationHeader(std::string_view value, std::string_view scheme) {
  for (std::string_view known : {"Bearer ", "Basic ", "ApiKey "})
    if (value.substr(0, known.size()) == known) return "Authorization: " + std::string(value);
  return "Authorization: " + std::string(scheme) + " " + std::string(value);
}

namespace {

// One request: POST with `body`, or GET when `body` is null. `verb` names it in messages.
bool transfer(const char* verb, const std::string& url, const std::string* body,
              const HttpPostOptions& options, HttpReply* reply, std::string* error) {
  reply->status = 0;
  reply->body.clear();
  const std::string where = std::string(verb) + " " + shownUrl(url);
  std::string missing;
  const CurlApi* api = curlApi(&missing);  // libcurl is loaded on the first request
  if (!api) {
    if (error) *error = where + ": " + missing;
    return false;
  }
  CURL* curl = api->easy_init();
  if (!curl || !applyTransportPolicy(curl)) {
    if (curl) api->easy_cleanup(curl);
    if (error) *error = where + ": cannot initialise libcurl";
    return false;
  }
  curl_slist* headers = nullptr;
  if (body) headers = api->slist_append(headers, "Content-Type: application/json");
  headers = api->slist_append(headers, "Accept: application/json");
  for (const auto& h : options.headers) headers = api->slist_append(headers, h.c_str());

  Sink sink{&reply->body, options.maxReplyBytes};
  char curlError[CURL_ERROR_SIZE] = {0};
  api->easy_setopt(curl, CURLOPT_URL, url.c_str());
  if (body) {
    api->easy_setopt(curl, CURLOPT_POST, 1L);
    api->easy_setopt(curl, CURLOPT_POSTFIELDS, body->data());
    api->easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body->size()));
  } else {
    api->easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  }
  api->easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  api->easy_setopt(curl, CURLOPT_WRITEFUNCTION, onData);
  api->easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  api->easy_setopt(curl, CURLOPT_TIMEOUT_MS, options.timeoutMs);
  api->easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, options.connectTimeoutMs);
  api->easy_setopt(curl, CURLOPT_ERRORBUFFER, curlError);
  api->easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
  const CURLcode rc = api->easy_perform(curl);
  if (rc == CURLE_OK) api->easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply->status);
  api->slist_free_all(headers);
  api->easy_cleanup(curl);
  if (rc != CURLE_OK) {
    if (error) {
      if (sink.overflow)
        *error = where + ": reply larger than " + std::to_string(options.maxReplyBytes) + " bytes";
      else
        *error =
            where + ": " + escapeControlChars(curlError[0] ? curlError : api->easy_strerror(rc));
    }
    return false;
  }
  return true;
}

}  // namespace

bool httpPostJson(const std::string& url, const std::string& body, const HttpPostOptions& options,
                  HttpReply* reply, std::string* error) {
  return transfer("POST", url, &body, options, reply, error);
}

bool httpGetJson(const std::string& url, const HttpPostOptions& options, HttpReply* reply,
                 std::string* error) {
  return transfer("GET", url, nullptr, options, reply, error);
}

bool addAuthorization(const KeySource& source, std::string_view scheme, HttpPostOptions& options,
                      std::string* problem) {
  std::string key;
  if (source.provide) {
    key = source.provide();
    if (key.empty()) {
      if (problem) *problem = "the key handed over is empty";
      return false;
    }
  } else if (!source.env.empty()) {
    const char* value = std::getenv(source.env.c_str());
    if (!value || !*value) {
      if (problem) *problem = "environment variable " + source.env + " is not set";
      return false;
    }
    key = value;
  } else {
    return true;
  }
  options.headers.push_back(authorizationHeader(key, scheme));
  return true;
}

}  // namespace ragscope::core
