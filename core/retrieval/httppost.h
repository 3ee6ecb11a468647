#pragma once
// A blocking JSON POST (or GET) over libcurl's easy interface, for the HTTP retrievers. Retrieval
// runs on worker threads, so one simple call per query is enough (the LLM client has its own
// multi-handle transport). Both speak http and https only and never follow redirects
// (core/util/httpsafety.h).

#include <functional>
#include <string>
#include <string_view>
#include <vector>

// URLs in messages: shownUrl (core/util/urlredact.h), credentials redacted.
#include "core/util/urlredact.h"

namespace ragscope::core {

struct HttpReply {
  long status = 0;  // HTTP status; 0 when the request never got a reply
  std::string body;
};

struct HttpPostOptions {
  long timeoutMs = 30000;
  long connectTimeoutMs = 10000;
  std::size_t maxReplyBytes = std::size_t{64} << 20;  // a runaway reply is an error, not an OOM
  // Extra headers "Name: value". May hold secrets: never copied into messages.
  std::vector<std::string> headers;
};

// false + *error ("POST <url>: <curl problem>") when the transfer failed. Any HTTP status is a
// completed transfer: the caller judges it.
bool httpPostJson(const std::string& url, const std::string& body, const HttpPostOptions& options,
                  HttpReply* reply, std::string* error);

// The same as a GET without a body ("GET <url>: ..." in errors), e.g. a search server's root.
bool httpGetJson(const std::string& url, const HttpPostOptions& options, HttpReply* reply,
                 std::string* error);

// The first `n` bytes of a reply body (less when that would split a UTF-8 sequence), on one line
// and with control characters escaped (core/util/textescape.h), for error messages.
std::string snippet(std::string_view body, std::size_t n = 200);

// The Authorization header for a secret taken from an environment variable: a value that already
// names its scheme ("Bearer x", "Basic x", "ApiKey x") is used as is, else `scheme` + " " + value.
std::string authorizationHeader(std::string_view value, std::string_view scheme);

// Where a retriever's key comes from: a function handing it over in memory (the GUI's keychain
// lookup) first, else an environment variable, read for each request. Neither is ever logged.
struct KeySource {
  std::string env;
  std::function<std::string()> provide;
};
// Adds the Authorization header to `options` when a key is configured; false + *problem when one
// is configured but there is none (the variable unset or empty).
bool addAuthorization(const KeySource& source, std::string_view scheme, HttpPostOptions& options,
                      std::string* problem);

}  // namespace ragscope::core
