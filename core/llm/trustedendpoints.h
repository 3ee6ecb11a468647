#pragma once
// Which endpoints this machine's user has chosen to call (core/llm/README.md, "Trusted endpoints":
// a key is only ever sent to an endpoint the user configured or confirmed, never to one that a
// project or run store names by itself). A run store records its endpoint's base URL and the *name*
// of its key's environment variable or keychain entry; a store received from someone else could
// name OPENAI_API_KEY and their own URL. So calls to an endpoint named by a store go out only when
// this registry holds it.
//
// The registry is one small JSON file, $XDG_CONFIG_HOME/ragscope/trusted-endpoints.json (else
// ~/.config/ragscope/...), listing base URLs with the key sources they may receive (environment
// variable name, keychain entry name, or none). An endpoint is added when the user
//   - starts a job with it (CLI --generator URL [--api-key-env VAR], a GUI dialog): eval::runJob,
//   - saves it on the GUI's Endpoints page,
//   - confirms it for a stored run (CLI `resume --trust-endpoint`, the GUI's question).
// So a run made on this machine resumes with no extra step, and a foreign store is refused until
// its endpoint is confirmed. Offline (heuristic) endpoints send nothing and need no trust.
//
//   TrustedEndpoints registry;  // defaultPath()
//   if (!registry.isTrusted(endpoint)) refuse(describeEndpointTrust(endpoint));
//   registry.add(endpoint, "confirmed", &error);

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/llm/provider.h"

namespace ragscope::core::llm {

// The form URLs are compared in: surrounding spaces and trailing '/' removed, scheme and host
// lower-cased. Nothing else is folded (a different port, path or user-info is another endpoint;
// user-info keeps its case, as a password does).
std::string normalizeBaseUrl(std::string_view url);

// Every endpoint but the offline heuristic ones sends requests somewhere and needs trust.
bool needsTrust(const EndpointConfig& endpoint);

// For people: `http://host/v1 with the key from $OPENAI_API_KEY`, `... with the key of keychain
// entry "work"`, `http://host/v1 (no key)`.
std::string describeEndpointTrust(const EndpointConfig& endpoint);

struct TrustedEndpoint {
  std::string baseUrl;        // normalised
  std::string apiKeyEnv;      // may be empty
  std::string keychainEntry;  // may be empty
  std::string how;            // "run", "endpoints page", "confirmed"
  std::string added;          // ISO 8601 UTC
};

class TrustedEndpoints {
 public:
  // $XDG_CONFIG_HOME/ragscope/trusted-endpoints.json, else $HOME/.config/ragscope/...
  static std::filesystem::path defaultPath();

  explicit TrustedEndpoints(std::filesystem::path path = defaultPath());
  const std::filesystem::path& path() const { return m_path; }

  // The entries on disk (none when the file does not exist). A file that cannot be read or is
  // not a registry gives none and sets *error: nothing is trusted from a damaged file.
  std::vector<TrustedEndpoint> entries(std::string* error = nullptr) const;

  // True for endpoints that need no trust, and for those whose base URL is listed with each key
  // source the endpoint names (its variable and its keychain entry); a URL listed with any key
  // source may also be called with none.
  bool isTrusted(const EndpointConfig& endpoint, std::string* error = nullptr) const;

  // Records the endpoint's URL with its key sources (no-op when already listed or not needed).
  // The file is rewritten atomically under a lock, so concurrent jobs do not lose entries. A URL
  // whose credentials were redacted (core/util/urlredact.h) is refused: it cannot be called.
  bool add(const EndpointConfig& endpoint, std::string_view how,
           std::string* error = nullptr) const;

  // For an endpoint recorded with its URL's credentials redacted (llm::recordedEndpointJson): the
  // listed URL it is the redaction of, when exactly one such URL is listed with the endpoint's
  // key sources. This user's own registry is the one place such a URL is kept whole.
  std::optional<std::string> fullUrlOf(const EndpointConfig& endpoint) const;

 private:
  std::filesystem::path m_path;
};

}  // namespace ragscope::core::llm
