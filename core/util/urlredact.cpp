// Credentials taken out of URLs before they are shown or stored (core/util/urlredact.h).

#include "core/util/urlredact.h"

#include <array>
#include <cctype>

#include "core/util/textescape.h"

namespace ragscope::core {

namespace {

// Where a URL's parts are: [0, authorityBegin) scheme and "://", then the authority up to the
// first '/', '?' or '#', the path, the query after '?' up to '#', the fragment.
struct UrlParts {
  std::size_t authorityBegin = 0;
  std::size_t authorityEnd = 0;
  std::size_t queryBegin = std::string_view::npos;  // the first byte after '?'
  std::size_t queryEnd = std::string_view::npos;
};

UrlParts splitUrlParts(std::string_view url) {
  UrlParts p;
  const auto scheme = url.find("://");
  const auto firstDelimiter = url.find_first_of("/?#");
  // "host:8000/v1" has no scheme; "http://..." has one before any delimiter.
  // (The first delimiter of "http://h" is the '/' of its "://".)
  p.authorityBegin =
      scheme != std::string_view::npos && firstDelimiter == scheme + 1 ? scheme + 3 : 0;
  p.authorityEnd = url.find_first_of("/?#", p.authorityBegin);
  if (p.authorityEnd == std::string_view::npos) p.authorityEnd = url.size();
  const auto question = url.find('?', p.authorityEnd);
  const auto hash = url.find('#', p.authorityEnd);
  if (question != std::string_view::npos && (hash == std::string_view::npos || question < hash)) {
    p.queryBegin = question + 1;
    p.queryEnd = hash == std::string_view::npos ? url.size() : hash;
  }
  return p;
}

std::string foldedName(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') continue;
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// Calls onParameter(nameBegin, nameEnd, valueBegin, valueEnd) for each "name=value" of the query
// (valueBegin == valueEnd == npos for a parameter without '=').
template <typename F>
void forEachQueryParameter(std::string_view url, const UrlParts& p, F onParameter) {
  if (p.queryBegin == std::string_view::npos) return;
  std::size_t at = p.queryBegin;
  while (at <= p.queryEnd) {
    std::size_t end = url.find_first_of("&;", at);
    if (end == std::string_view::npos || end > p.queryEnd) end = p.queryEnd;
    const auto eq = url.find('=', at);
    if (eq != std::string_view::npos && eq < end)
      onParameter(at, eq, eq + 1, end);
    else
      onParameter(at, end, std::string_view::npos, std::string_view::npos);
    if (end >= p.queryEnd) break;
    at = end + 1;
  }
}

}  // namespace

bool isCredentialParameter(std::string_view name) {
  const std::string folded = foldedName(name);
  if (folded == "code") return true;  // Azure Functions' function key
  static constexpr std::array<std::string_view, 11> kParts = {
      "key", "token",      "secret",  "pass", "pwd",   "auth",
      "sig", "credential", "session", "jwt",  "bearer"};
  for (const auto part : kParts)
    if (folded.find(part) != std::string::npos) return true;
  return false;
}

std::string redactUrl(std::string_view url) {
  const UrlParts p = splitUrlParts(url);
  std::string out;
  out.reserve(url.size());
  // User-info: everything before the authority's last '@'.
  const std::string_view authority =
      url.substr(p.authorityBegin, p.authorityEnd - p.authorityBegin);
  const auto at = authority.rfind('@');
  out.append(url.substr(0, p.authorityBegin));
  if (at != std::string_view::npos) {
    out.append(kRedacted);
    out.append(authority.substr(at));
  } else {
    out.append(authority);
  }
  if (p.queryBegin == std::string_view::npos) {
    out.append(url.substr(p.authorityEnd));
    return out;
  }
  out.append(url.substr(p.authorityEnd, p.queryBegin - p.authorityEnd));
  std::size_t copied = p.queryBegin;
  forEachQueryParameter(url, p,
                        [&](std::size_t nameBegin, std::size_t nameEnd, std::size_t valueBegin,
                            std::size_t valueEnd) {
                          if (valueBegin == std::string_view::npos ||
                              !isCredentialParameter(url.substr(nameBegin, nameEnd - nameBegin)))
                            return;
                          out.append(url.substr(copied, valueBegin - copied));
                          out.append(kRedacted);
                          copied = valueEnd;
                        });
  out.append(url.substr(copied));
  return out;
}

std::string shownUrl(std::string_view url) { return escapeControlChars(redactUrl(url)); }

bool urlHasCredentials(std::string_view url) { return redactUrl(url) != url; }

bool isRedactedUrl(std::string_view url) {
  const UrlParts p = splitUrlParts(url);
  const std::string_view authority =
      url.substr(p.authorityBegin, p.authorityEnd - p.authorityBegin);
  const auto at = authority.rfind('@');
  if (at != std::string_view::npos && authority.substr(0, at) == kRedacted) return true;
  bool redacted = false;
  forEachQueryParameter(url, p,
                        [&](std::size_t nameBegin, std::size_t nameEnd, std::size_t valueBegin,
                            std::size_t valueEnd) {
                          if (valueBegin != std::string_view::npos &&
                              url.substr(valueBegin, valueEnd - valueBegin) == kRedacted &&
                              isCredentialParameter(url.substr(nameBegin, nameEnd - nameBegin)))
                            redacted = true;
                        });
  return redacted;
}

}  // namespace ragscope::core
