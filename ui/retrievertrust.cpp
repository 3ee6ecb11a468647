#include "ui/retrievertrust.h"

#include <QApplication>
#include <QGuiApplication>
#include <QMessageBox>

#include "core/llm/trustedendpoints.h"

namespace ragscope::ui {

namespace {

// Somebody can answer a question: a widget application on a real display.
bool canAsk() {
  const QString platform = QGuiApplication::platformName();
  return qobject_cast<QApplication*>(QCoreApplication::instance()) && platform != QLatin1String("offscreen") &&
         platform != QLatin1String("minimal");
}

}  // namespace

bool confirmRetrieverKey(QWidget* parent, const core::RetrieverSpec& spec, QString* why) {
  const auto endpoint = core::retrieverKeyEndpoint(spec);
  if (!endpoint) return true;
  const core::llm::TrustedEndpoints registry;
  if (registry.isTrusted(*endpoint)) return true;
  const QString url = QString::fromStdString(spec.url);
  const QString var = QString::fromStdString(spec.apiKeyEnv);
  if (canAsk() &&
      QMessageBox::question(parent, QObject::tr("Send a key to this retriever?"),
                            QObject::tr("The retriever \"%1\" sends the key held in $%2 to\n\n%3\n\nIt was "
                                        "read from a project file, not configured on this computer. "
                                        "Send the key there?")
                                .arg(QString::fromStdString(endpoint->name), var, url),
                            QMessageBox::Yes | QMessageBox::No, QMessageBox::No) == QMessageBox::Yes) {
    std::string error;
    registry.add(*endpoint, "confirmed", &error);
    return true;
  }
  if (why)
    *why = QObject::tr("Not sent: the key in $%1 goes to %2 only once you confirm that retriever "
                       "(save it on the Retrievers page).")
               .arg(var, url);
  return false;
}

void trustRetriever(const core::RetrieverSpec& spec) {
  if (const auto endpoint = core::retrieverKeyEndpoint(spec)) {
    std::string error;
    core::llm::TrustedEndpoints().add(*endpoint, "retrievers page", &error);
  }
}

}  // namespace ragscope::ui
