#include "ui/retrievertrust.h"

#include <QApplication>
#include <QGuiApplication>
#include <QMessageBox>
#include <QStringList>
#include <vector>

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
  // Every endpoint the retriever calls: a dense retriever's embeddings endpoint, an es kNN
  // search's index and query embedder, each member of a hybrid. Those not yet configured or
  // confirmed here are asked about together; bm25 and offline embeddings call nothing.
  const core::llm::TrustedEndpoints registry;
  std::vector<core::llm::EndpointConfig> unknown;
  for (const auto& endpoint : core::retrieverTrustEndpoints(spec))
    if (!registry.isTrusted(endpoint)) unknown.push_back(endpoint);
  if (unknown.empty()) return true;
  // "http://host/x with the key from $VAR" (or "... of keychain entry "e"", or "(no key)").
  QStringList where;
  bool keyed = false;
  for (const auto& endpoint : unknown) {
    where << QString::fromStdString(core::llm::describeEndpointTrust(endpoint));
    keyed = keyed || !endpoint.apiKeyEnv.empty() || !endpoint.keychainEntry.empty();
  }
  const QString what = keyed ? QObject::tr("the dataset's queries and the key")
                             : QObject::tr("the dataset's queries");
  const QString name =
      QString::fromStdString(spec.name.empty() ? core::retrieverKindName(spec.kind) : spec.name);
  if (canAsk() &&
      QMessageBox::question(
          parent, QObject::tr("Send queries to this retriever?"),
          QObject::tr("The retriever \"%1\" would call\n\n%2\n\nIt was read from a project "
                      "file, not configured on this computer. Send %3 there?")
              .arg(name, where.join(QLatin1Char('\n')), what),
          QMessageBox::Yes | QMessageBox::No, QMessageBox::No) == QMessageBox::Yes) {
    std::string error;
    for (const auto& endpoint : unknown) registry.add(endpoint, "confirmed", &error);
    return true;
  }
  if (why)
    *why = QObject::tr(
               "Not sent: %1 is called only once you confirm that retriever (save it on the "
               "Retrievers page).")
               .arg(where.join(QStringLiteral(", ")));
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
  const core::llm::TrustedEndpoints registry;
  for (const auto& endpoint : core::retrieverTrustEndpoints(spec)) {  // keyed or not
    std::string error;
    registry.add(endpoint, "retrievers page", &error);
  }
}

}  // namespace ragscope::ui
