#include "ui/retrievertrust.h"

#include <QApplication>
#include <QGuiApplication>
#include <QMessageBox>

#include "core/llm/trustedendpoints.h"
#include "ui/secrets.h"

namespace ragscope::ui {

namespace {

// Somebody can answer a question: a widget application on a real display.
bool canAsk() {
  const QString platform = QGuiApplication::platformName();
  return qobject_cast<QApplication*>(QCoreApplication::instance()) &&
         platform != QLatin1String("offscreen") && platform != QLatin1String("minimal");
}

}  // namespace

bool confirmRetriever(QWidget* parent, const core::RetrieverSpec& spec, QString* why) {
  const auto endpoint = core::retrieverTrustEndpoint(spec);
  if (!endpoint) return true;  // bm25: nothing leaves this machine
  const core::llm::TrustedEndpoints registry;
  if (registry.isTrusted(*endpoint)) return true;
  // "http://host/x with the key from $VAR" (or "... of keychain entry "e"", or "(no key)").
  const QString where = QString::fromStdString(core::llm::describeEndpointTrust(*endpoint));
  const bool keyed = !endpoint->apiKeyEnv.empty() || !endpoint->keychainEntry.empty();
  const QString what = keyed ? QObject::tr("the dataset's queries and the key")
                             : QObject::tr("the dataset's queries");
  if (canAsk() &&
      QMessageBox::question(
          parent, QObject::tr("Send queries to this retriever?"),
          QObject::tr("The retriever \"%1\" would call\n\n%2\n\nIt was read from a project "
                      "file, not configured on this computer. Send %3 there?")
              .arg(QString::fromStdString(endpoint->name), where, what),
          QMessageBox::Yes | QMessageBox::No, QMessageBox::No) == QMessageBox::Yes) {
    std::string error;
    registry.add(*endpoint, "confirmed", &error);
    return true;
  }
  if (why)
    *why = QObject::tr(
               "Not sent: %1 is called only once you confirm that retriever (save it on the "
               "Retrievers page).")
               .arg(where);
  return false;
}

void resolveRetrieverKey(
    const core::RetrieverSpec& spec, QObject* context,
    std::function<void(bool ok, std::function<std::string()> key, const QString& message)> done) {
  const auto endpoint = core::retrieverTrustEndpoint(spec);
  if (!endpoint || (endpoint->apiKeyEnv.empty() && endpoint->keychainEntry.empty())) {  // no key
    done(true, {}, {});
    return;
  }
  Secrets::resolveEndpointKey(*endpoint, context, [done](const ResolvedEndpoint& resolved) {
    done(resolved.ok, resolved.transport.apiKey, resolved.message);
  });
}

void trustRetriever(const core::RetrieverSpec& spec) {
  if (const auto endpoint = core::retrieverTrustEndpoint(spec)) {  // keyed or not
    std::string error;
    core::llm::TrustedEndpoints().add(*endpoint, "retrievers page", &error);
  }
}

}  // namespace ragscope::ui
