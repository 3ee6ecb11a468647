#pragma once
// The one transport setting for every HTTP request ragscope makes (retrievers, LLM endpoints,
// connection tests): http and https only, also for redirects, which are never followed; TLS
// certificates and host names verified; no signals from worker threads. A URL from a project
// file or the command line can then only ever reach an HTTP server: never a local file
// (file://), a raw socket (gopher://, dict://, telnet://) or anything else libcurl speaks.
//
//   const CurlApi* curl = curlApi(&error);      // core/util/curlapi.h: libcurl, loaded on first
//   use CURL* easy = curl->easy_init(); if (!applyTransportPolicy(easy)) { ...fail the request... }
//   curl->easy_setopt(easy, CURLOPT_URL, url.c_str());
//
// Callers set their own URL, timeouts, headers and body afterwards, never these options. A pooled
// handle that is reset (curl->easy_reset) must have the policy applied again.

#include <curl/curl.h>

#include <optional>
#include <string>
#include <string_view>

namespace ragscope::core {

// Sets the policy options on `easy`; false when libcurl refused one (the request must then not
// be made: an older libcurl might otherwise speak every protocol it knows).
bool applyTransportPolicy(CURL* easy);

// nullopt when `url` starts with http:// or https:// (any case) and names a host; otherwise why
// not, for messages: "URL 'file:///x' is not http:// or https://". Used where a URL is
// configured, so that a wrong one is refused before any request.
std::optional<std::string> httpUrlProblem(std::string_view url);

}  // namespace ragscope::core
