#pragma once
// API keys for LLM endpoints. An endpoint names where its key lives, never the key: an environment
// variable (EndpointConfig::apiKeyEnv) or an OS keychain entry (EndpointConfig::keychainEntry,
// read here through QtKeychain). Keys are held in memory only for the job that needs them, and
// the keychain is never allowed to fall back to an unencrypted settings file.
//
//   Secrets::readKey("openai-work", this, [](const KeyLookup& r) { ... r.key or r.message ... });
//
// Without a keychain service (a bare X session, the offscreen tests) the read fails with a
// message that says so; resolveEndpointKey() then falls back to the environment variable when
// the endpoint names one as well.

#include <QObject>
#include <QString>
#include <functional>
#include <string>

#include "core/llm/httpprovider.h"
#include "core/llm/provider.h"

namespace ragscope::ui {

struct KeyLookup {
  bool ok = false;
  QString key;      // the secret (ok only); callers copy it into the job and drop it
  QString message;  // for people: why it failed, or which source was used
};

// An endpoint ready to talk to a server: the config to hand to core (apiKeyEnv cleared when the
// keychain answered) and transport options whose apiKey callback returns the keychain secret.
struct ResolvedEndpoint {
  core::llm::EndpointConfig config;
  core::llm::TransportOptions transport;
  bool ok = true;
  QString message;  // non-empty: a note (fallback used) or, when !ok, the reason
};

class Secrets {
 public:
  // The keychain service name every entry is filed under.
  static QString service();
  // Asynchronous (QtKeychain jobs run on the event loop); `done` is called exactly once on
  // `context`'s thread, also when the keychain service is missing or does not answer in time.
  static void readKey(const QString& entry, QObject* context,
                      std::function<void(const KeyLookup&)> done);
  static void writeKey(const QString& entry, const QString& key, QObject* context,
                       std::function<void(bool ok, const QString& message)> done);

  // Reads the keychain entry when the endpoint names one; falls back to its environment
  // variable (with a note) when the keychain cannot be read. Offline endpoints and endpoints
  // with only an environment variable resolve at once.
  static void resolveEndpointKey(const core::llm::EndpointConfig& config, QObject* context,
                                 std::function<void(const ResolvedEndpoint&)> done);

  // How long a keychain call may take before it is reported as unavailable.
  static int timeoutMs();
  static void setTimeoutMs(int ms);
};

}  // namespace ragscope::ui
