#include "core/util/httpsafety.h"

#include "core/util/curlapi.h"
#include "core/util/textescape.h"

namespace ragscope::core {

namespace {

bool hasSchemePrefix(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != prefix[i]) return false;
  }
  return true;
}

}  // namespace

bool applyTransportPolicy(CURL* easy) {
  // A handle exists only once libcurl is loaded, so the table is there whenever easy is.
  const CurlApi* curl = easy ? curlApi() : nullptr;
  if (!curl) return false;
  bool ok = true;
  auto set = [&](CURLcode rc) { ok = ok && rc == CURLE_OK; };
  // The allow-list, for the first request and (should following ever be switched on) redirects.
  set(curl->easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https"));
  set(curl->easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"));
  // A redirect could carry the request, its key included, to another host: never followed.
  set(curl->easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 0L));
  set(curl->easy_setopt(easy, CURLOPT_MAXREDIRS, 0L));
  set(curl->easy_setopt(easy, CURLOPT_UNRESTRICTED_AUTH, 0L));
  set(curl->easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 1L));
  set(curl->easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 2L));
  // Requests run on worker threads: timeouts must not use SIGALRM.
  set(curl->easy_setopt(easy, CURLOPT_NOSIGNAL, 1L));
  // ~/.netrc could add credentials the user never gave ragscope for this URL.
  set(curl->easy_setopt(easy, CURLOPT_NETRC, static_cast<long>(CURL_NETRC_IGNORED)));
  return ok;
}

std::optional<std::string> httpUrlProblem(std::string_view url) {
  std::size_t rest = 0;
  if (hasSchemePrefix(url, "http://"))
    rest = 7;
  else if (hasSchemePrefix(url, "https://"))
    rest = 8;
  if (rest == 0) {
    // Only the scheme is quoted: the rest may hold a password or a private path.
    const std::size_t colon = url.find(':');
    if (colon == std::string_view::npos || colon > 32)
      return "the URL does not start with http:// or https://";
    return "the URL's scheme '" + escapeControlChars(url.substr(0, colon)) +
           "' is not http or https (only http:// and https:// URLs are used)";
  }
  if (rest >= url.size() || url[rest] == '/' || url[rest] == '?' || url[rest] == '#')
    return "the URL names no host";
  return std::nullopt;
}

}  // namespace ragscope::core
