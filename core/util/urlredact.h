#pragma once
// URLs as they may be shown or kept: credentials written into an endpoint's URL (user-info
// `user:password@`, a key in the query such as `?api-key=`, `key=`, `token=`, `code=`) are
// replaced by `***` in every message, report, log line, GUI label and stored record. The one
// place that keeps a URL whole is this user's own configuration (the trust registry, the GUI's
// saved endpoints), which a resume consults to call a recorded endpoint again
// (core/llm/README.md, "Trusted endpoints").
//
//   redactUrl("https://me:pw@host/v1?api-key=abc&v=2")  // "https://***@host/v1?api-key=***&v=2"

#include <string>
#include <string_view>

namespace ragscope::core {

// What stands for a removed credential.
inline constexpr std::string_view kRedacted = "***";

// The URL with its user-info and the values of credential-like query parameters replaced by
// kRedacted; everything else (scheme, host, port, path, other parameters, fragment) as given.
// A URL without credentials comes back unchanged.
std::string redactUrl(std::string_view url);

// redactUrl with control characters escaped (core/util/textescape.h): a URL fit for a message or
// a label, wherever it came from.
std::string shownUrl(std::string_view url);

// True when redactUrl changes `url` (it carries credentials).
bool urlHasCredentials(std::string_view url);

// True when `url` went through redactUrl with something removed (its user-info or a credential
// parameter reads kRedacted): it can be shown, but not called.
bool isRedactedUrl(std::string_view url);

// True for a query parameter's name that holds a credential: one containing key, token, secret,
// pass, pwd, auth, sig, credential, session, jwt or bearer, or named code (compared without case,
// '-' and '_').
bool isCredentialParameter(std::string_view name);

}  // namespace ragscope::core
