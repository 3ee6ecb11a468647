#include "core/llm/trustedendpoints.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "core/llm/providerfactory.h"
#include "core/util/atomicfile.h"
#include "core/util/inputfile.h"
#include "core/util/urlredact.h"

namespace ragscope::core::llm {

using nlohmann::json;

namespace {

constexpr int kRegistryVersion = 1;
constexpr std::uintmax_t kMaxRegistryBytes = 4u << 20;

void setError(std::string* error, std::string text) {
  if (error) *error = std::move(text);
}

std::string nowUtc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string stringField(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Reads the registry file. false (with *error) when it exists but is not a registry.
bool readRegistry(const std::filesystem::path& path, std::vector<TrustedEndpoint>& out,
                  std::string* error) {
  out.clear();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return true;
  std::string why;
  const auto text = readBoundedFile(path, kMaxRegistryBytes, "a trusted-endpoints file", why);
  if (!text) {
    setError(error, path.string() + ": " + why);
    return false;
  }
  const json j = json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains("endpoints") || !j["endpoints"].is_array()) {
    setError(error, path.string() + ": not a ragscope trusted-endpoints file (fix or remove it)");
    return false;
  }
  for (const auto& e : j["endpoints"]) {
    if (!e.is_object()) continue;
    TrustedEndpoint t;
    t.baseUrl = normalizeBaseUrl(stringField(e, "base_url"));
    if (t.baseUrl.empty()) continue;
    t.apiKeyEnv = stringField(e, "api_key_env");
    t.keychainEntry = stringField(e, "keychain_entry");
    t.how = stringField(e, "how");
    t.added = stringField(e, "added");
    out.push_back(std::move(t));
  }
  return true;
}

// An exclusive lock on "<registry>.lock" for a read-modify-write (held while alive).
class RegistryLock {
 public:
  explicit RegistryLock(const std::filesystem::path& registry) {
    const std::string lockPath = registry.string() + ".lock";
    m_fd = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
    if (m_fd >= 0 && ::flock(m_fd, LOCK_EX) != 0) {
      ::close(m_fd);
      m_fd = -1;
    }
  }
  ~RegistryLock() {
    if (m_fd >= 0) {
      ::flock(m_fd, LOCK_UN);
      ::close(m_fd);
    }
  }
  RegistryLock(const RegistryLock&) = delete;
  RegistryLock& operator=(const RegistryLock&) = delete;
  bool locked() const { return m_fd >= 0; }

 private:
  int m_fd = -1;
};

bool covers(const std::vector<TrustedEndpoint>& entries, const std::string& url,
            const std::string& keyEnv, const std::string& keychain) {
  auto listed = [&](auto match) {
    for (const auto& e : entries)
      if (e.baseUrl == url && match(e)) return true;
    return false;
  };
  if (!keyEnv.empty() && !listed([&](const TrustedEndpoint& e) { return e.apiKeyEnv == keyEnv; }))
    return false;
  if (!keychain.empty() &&
      !listed([&](const TrustedEndpoint& e) { return e.keychainEntry == keychain; }))
    return false;
  if (keyEnv.empty() && keychain.empty())
    return listed([](const TrustedEndpoint&) { return true; });
  return true;
}

}  // namespace

std::string normalizeBaseUrl(std::string_view url) {
  while (!url.empty() && std::isspace(static_cast<unsigned char>(url.front())))
    url.remove_prefix(1);
  while (!url.empty() && std::isspace(static_cast<unsigned char>(url.back()))) url.remove_suffix(1);
  while (!url.empty() && url.back() == '/') url.remove_suffix(1);
  std::string out(url);
  // Scheme and host (up to the first '/' after "://") are case-insensitive; user-info before an
  // '@' is not (a password).
  const auto scheme = out.find("://");
  const std::size_t authorityEnd =
      scheme == std::string::npos ? 0 : std::min(out.size(), out.find('/', scheme + 3));
  const auto at = scheme == std::string::npos ? std::string::npos : out.rfind('@', authorityEnd);
  const std::size_t hostBegin = at != std::string::npos && at > scheme ? at + 1 : scheme + 3;
  for (std::size_t i = 0; i < authorityEnd; ++i)
    if (i < scheme || i >= hostBegin)
      out[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(out[i])));
  return out;
}

bool needsTrust(const EndpointConfig& endpoint) { return !isOfflineEndpoint(endpoint); }

std::string describeEndpointTrust(const EndpointConfig& endpoint) {
  // Shown to people: the URL's credentials (user-info, a key in the query) never are.
  std::string s = shownUrl(normalizeBaseUrl(endpoint.baseUrl));
  if (!endpoint.apiKeyEnv.empty() && !endpoint.keychainEntry.empty())
    return s + " with the key of keychain entry \"" + endpoint.keychainEntry + "\" or from $" +
           endpoint.apiKeyEnv;
  if (!endpoint.apiKeyEnv.empty()) return s + " with the key from $" + endpoint.apiKeyEnv;
  if (!endpoint.keychainEntry.empty())
    return s + " with the key of keychain entry \"" + endpoint.keychainEntry + "\"";
  return s + " (no key)";
}

std::filesystem::path TrustedEndpoints::defaultPath() {
  std::filesystem::path base;
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) {
    base = xdg;
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    base = std::filesystem::path(home) / ".config";
  } else {
    base = std::filesystem::temp_directory_path();
  }
  return base / "ragscope" / "trusted-endpoints.json";
}

TrustedEndpoints::TrustedEndpoints(std::filesystem::path path) : m_path(std::move(path)) {}

std::vector<TrustedEndpoint> TrustedEndpoints::entries(std::string* error) const {
  std::vector<TrustedEndpoint> out;
  if (!readRegistry(m_path, out, error)) out.clear();
  return out;
}

std::optional<std::string> TrustedEndpoints::fullUrlOf(const EndpointConfig& endpoint) const {
  const std::string recorded = normalizeBaseUrl(endpoint.baseUrl);
  if (!isRedactedUrl(recorded)) return std::nullopt;
  const auto list = entries();
  std::optional<std::string> found;
  for (const auto& e : list) {
    if (normalizeBaseUrl(redactUrl(e.baseUrl)) != recorded ||
        !covers(list, e.baseUrl, endpoint.apiKeyEnv, endpoint.keychainEntry))
      continue;
    if (found && *found != e.baseUrl) return std::nullopt;  // two candidates: neither is chosen
    found = e.baseUrl;
  }
  return found;
}

bool TrustedEndpoints::isTrusted(const EndpointConfig& endpoint, std::string* error) const {
  if (!needsTrust(endpoint)) return true;
  return covers(entries(error), normalizeBaseUrl(endpoint.baseUrl), endpoint.apiKeyEnv,
                endpoint.keychainEntry);
}

bool TrustedEndpoints::add(const EndpointConfig& endpoint, std::string_view how,
                           std::string* error) const {
  if (!needsTrust(endpoint)) return true;
  const std::string url = normalizeBaseUrl(endpoint.baseUrl);
  if (isRedactedUrl(url)) {
    setError(error, shownUrl(url) +
                        ": the URL's credentials were removed when it was recorded (run stores do "
                        "not keep them), and no endpoint on this machine has them");
    return false;
  }
  std::error_code ec;
  std::filesystem::create_directories(m_path.parent_path(), ec);
  RegistryLock lock(m_path);
  if (!lock.locked()) {
    setError(error, m_path.string() + ": cannot lock it to record " + url);
    return false;
  }
  std::vector<TrustedEndpoint> list;
  if (!readRegistry(m_path, list, error)) return false;  // never overwrite what we cannot read
  if (covers(list, url, endpoint.apiKeyEnv, endpoint.keychainEntry)) return true;
  list.push_back({url, endpoint.apiKeyEnv, endpoint.keychainEntry, std::string(how), nowUtc()});
  json j;
  j["version"] = kRegistryVersion;
  j["about"] =
      "Endpoints this user started jobs with, saved or confirmed: ragscope sends API keys and "
      "prompts named by a run store only to these (base URL with the key's variable or keychain "
      "entry).";
  j["endpoints"] = json::array();
  for (const auto& e : list)
    j["endpoints"].push_back({{"base_url", e.baseUrl},
                              {"api_key_env", e.apiKeyEnv},
                              {"keychain_entry", e.keychainEntry},
                              {"how", e.how},
                              {"added", e.added}});
  return writeFileAtomically(
      m_path,
      [&](std::ostream& out) {
        out << j.dump(2, ' ', false, json::error_handler_t::replace) << '\n';
        return static_cast<bool>(out);
      },
      error, /*fsyncFile=*/true, FileAccess::Private);
}

}  // namespace ragscope::core::llm
