#include "ui/secrets.h"

#include <qt6keychain/keychain.h>

#include <QPointer>
#include <QTimer>
#include <atomic>
#include <cstdlib>
#include <memory>

#include "core/llm/providerfactory.h"

namespace ragscope::ui {

namespace {

std::atomic<int> g_timeoutMs{5000};

QString describeKeychainError(QKeychain::Error error, const QString& detail, const QString& entry) {
  QString what;
  switch (error) {
    case QKeychain::EntryNotFound:
      what = QObject::tr("the keychain has no entry \"%1\"").arg(entry);
      break;
    case QKeychain::AccessDeniedByUser:
    case QKeychain::AccessDenied:
      what = QObject::tr("access to keychain entry \"%1\" was denied").arg(entry);
      break;
    case QKeychain::NoBackendAvailable:
    case QKeychain::NotImplemented:
      what =
          QObject::tr("no OS keychain service is available (no Secret Service / KWallet running)");
      break;
    default:
      what = QObject::tr("the keychain could not be read");
      break;
  }
  // QtKeychain's own text (D-Bus errors and the like) helps when the reason is unusual; it never
  // contains the secret.
  if (!detail.isEmpty() && error != QKeychain::EntryNotFound)
    what += QStringLiteral(" (%1)").arg(detail);
  return QObject::tr("keychain: %1").arg(what);
}

// Calls `finish` once: from the job's finished signal or from the timeout, whichever comes first.
template <class Job, class Finish, class Timeout>
void runWithTimeout(Job* job, QObject* context, Finish finish, Timeout onTimeout) {
  auto called = std::make_shared<bool>(false);
  QObject::connect(job, &QKeychain::Job::finished, context, [called, finish](QKeychain::Job* j) {
    if (*called) return;
    *called = true;
    finish(j);
  });
  QTimer::singleShot(g_timeoutMs.load(), context, [called, onTimeout] {
    if (*called) return;
    *called = true;
    onTimeout();
  });
  job->start();
}

}  // namespace

QString Secrets::service() { return QStringLiteral("ragscope"); }
int Secrets::timeoutMs() { return g_timeoutMs.load(); }
void Secrets::setTimeoutMs(int ms) { g_timeoutMs.store(ms); }

void Secrets::readKey(const QString& entry, QObject* context,
                      std::function<void(const KeyLookup&)> done) {
  auto* job = new QKeychain::ReadPasswordJob(service());
  job->setAutoDelete(true);
  job->setInsecureFallback(false);  // a key must never land in a plain settings file
  job->setKey(entry);
  runWithTimeout(
      job, context,
      [done, entry](QKeychain::Job* j) {
        KeyLookup r;
        if (j->error() == QKeychain::NoError) {
          r.key = static_cast<QKeychain::ReadPasswordJob*>(j)->textData();
          r.ok = !r.key.isEmpty();
          r.message = r.ok ? QObject::tr("key read from keychain entry \"%1\"").arg(entry)
                           : QObject::tr("keychain: entry \"%1\" is empty").arg(entry);
        } else {
          r.message = describeKeychainError(j->error(), j->errorString(), entry);
        }
        done(r);
      },
      [done] {
        KeyLookup r;
        r.message = QObject::tr("keychain: no answer from the OS keychain service within %1 s")
                        .arg(g_timeoutMs.load() / 1000.0, 0, 'g', 3);
        done(r);
      });
}

void Secrets::writeKey(const QString& entry, const QString& key, QObject* context,
                       std::function<void(bool, const QString&)> done) {
  auto* job = new QKeychain::WritePasswordJob(service());
  job->setAutoDelete(true);
  job->setInsecureFallback(false);
  job->setKey(entry);
  job->setTextData(key);
  runWithTimeout(
      job, context,
      [done, entry](QKeychain::Job* j) {
        if (j->error() == QKeychain::NoError)
          done(true, QObject::tr("key stored in keychain entry \"%1\"").arg(entry));
        else
          done(false, describeKeychainError(j->error(), j->errorString(), entry));
      },
      [done] { done(false, QObject::tr("keychain: no answer from the OS keychain service")); });
}

void Secrets::resolveEndpointKey(const core::llm::EndpointConfig& config, QObject* context,
                                 std::function<void(const ResolvedEndpoint&)> done) {
  ResolvedEndpoint base;
  base.config = config;
  if (core::llm::isOfflineEndpoint(config) || config.keychainEntry.empty()) {
    if (!config.apiKeyEnv.empty()) {
      const char* v = std::getenv(config.apiKeyEnv.c_str());
      if (!v || !*v)
        base.message = QObject::tr("environment variable %1 is not set")
                           .arg(QString::fromStdString(config.apiKeyEnv));
    }
    done(base);
    return;
  }
  const QString entry = QString::fromStdString(config.keychainEntry);
  readKey(entry, context, [base, done](const KeyLookup& r) mutable {
    ResolvedEndpoint out = base;
    if (r.ok) {
      // The transport prefers apiKeyEnv; clearing it makes it use the keychain secret.
      out.config.apiKeyEnv.clear();
      auto secret = std::make_shared<const std::string>(r.key.toStdString());
      out.transport.apiKey = [secret] { return *secret; };
      out.message = r.message;
    } else if (!base.config.apiKeyEnv.empty()) {
      out.message = QObject::tr("%1; using environment variable %2 instead")
                        .arg(r.message, QString::fromStdString(base.config.apiKeyEnv));
    } else {
      out.ok = false;
      out.message = r.message;
    }
    done(out);
  });
}

}  // namespace ragscope::ui
