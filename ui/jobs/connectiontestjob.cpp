#include "ui/jobs/connectiontestjob.h"

#include <QUrl>
#include <QtConcurrent/QtConcurrentRun>
#include <chrono>
#include <future>
#include <memory>

#include "core/llm/providerfactory.h"
#include "core/llm/structuredprobe.h"
#include "core/util/urlredact.h"

namespace ragscope::ui {

namespace {

QString hostPort(const core::llm::EndpointConfig& config) {
  const QUrl url(QString::fromStdString(config.baseUrl));
  if (!url.isValid() || url.host().isEmpty())
    return QString::fromStdString(core::shownUrl(config.baseUrl));
  const int port = url.port(url.scheme() == QLatin1String("https") ? 443 : 80);
  return QStringLiteral("%1:%2").arg(url.host()).arg(port);
}

}  // namespace

QString explainCallError(const QString& raw, const core::llm::EndpointConfig& config) {
  const QString host = hostPort(config);
  if (raw.startsWith(QLatin1String("auth: environment variable")))
    return QObject::tr("No API key: the environment variable $%1 is not set in this session.")
        .arg(QString::fromStdString(config.apiKeyEnv));
  if (raw.startsWith(QLatin1String("auth")))
    return QObject::tr(
               "Authentication failed: %1 refused the API key (HTTP 401/403). Check the key "
               "the endpoint refers to.")
        .arg(host);
  if (raw.startsWith(QLatin1String("keychain")))
    return QObject::tr("The API key could not be read from the keychain.");
  if (raw.startsWith(QLatin1String("dns")))
    return QObject::tr("Host not found (DNS): \"%1\" does not resolve. Check the base URL.")
        .arg(QUrl(QString::fromStdString(config.baseUrl)).host());
  if (raw.startsWith(QLatin1String("tls")))
    return QObject::tr(
               "TLS/SSL failure talking to %1: the certificate is not trusted or the server "
               "does not speak HTTPS on that port.")
        .arg(host);
  if (raw.startsWith(QLatin1String("timeout")))
    return QObject::tr("Timed out: %1 did not answer within %2 s.")
        .arg(host)
        .arg(std::min(config.timeoutSeconds, 30.0), 0, 'g', 3);
  if (raw.startsWith(QLatin1String("connection refused")))
    return QObject::tr("Connection refused: nothing is listening at %1. Is the server running?")
        .arg(host);
  if (raw.startsWith(QLatin1String("connection reset")))
    return QObject::tr("The connection to %1 was reset before a reply arrived.").arg(host);
  if (raw.startsWith(QLatin1String("malformed reply")))
    return QObject::tr(
               "Malformed reply: %1 answered, but not the way an OpenAI-compatible API does.")
        .arg(host);
  if (raw.startsWith(QLatin1String("http ")))
    return QObject::tr("The server answered with an HTTP error (%1).")
        .arg(raw.section(QLatin1Char(':'), 0, 0));
  return QObject::tr("The request failed.");
}

namespace {

// Asks a chat endpoint that answered whether it honours response_format's JSON schema.
void probeSchemaSupport(const core::llm::EndpointConfig& config,
                        const core::llm::TransportOptions& transport, ConnectionOutcome& out) {
  if (!out.ok || config.kind != core::llm::EndpointKind::Chat ||
      core::llm::isOfflineEndpoint(config))
    return;
  const core::llm::StructuredProbe p = core::llm::probeStructuredOutputs(config, transport);
  out.honoursSchema = QString::fromUtf8(core::llm::structuredSupportName(p.support).data());
  out.schemaDetail = QString::fromStdString(p.detail);
}

ConnectionOutcome connectionTestOnly(const core::llm::EndpointConfig& config,
                                     const core::llm::TransportOptions& transport);

}  // namespace

ConnectionOutcome runConnectionTest(const core::llm::EndpointConfig& config,
                                    const core::llm::TransportOptions& transport) {
  ConnectionOutcome out = connectionTestOnly(config, transport);
  probeSchemaSupport(config, transport, out);
  return out;
}

namespace {

ConnectionOutcome connectionTestOnly(const core::llm::EndpointConfig& config,
                                     const core::llm::TransportOptions& transport) {
  ConnectionOutcome out;
  if (core::llm::isOfflineEndpoint(config)) {
    out.ok = true;
    out.headline = QObject::tr("Offline heuristic provider: no server involved, always available.");
    out.detail = QObject::tr(
        "Its answers are labelled \"heuristic\" everywhere; they are baselines, not an LLM.");
    return out;
  }
  const core::llm::ConnectionTest t = core::llm::testConnection(config, transport);
  out.httpStatus = t.httpStatus;
  out.latencyMs = t.latencyMs;
  if (t.ok) {
    out.ok = true;
    out.modelsListed = true;
    for (const auto& m : t.modelIds) out.models << QString::fromStdString(m);
    out.modelFound = t.modelFound;
    out.headline =
        QObject::tr("Connected in %1 ms; the server lists %n model(s).", "", int(out.models.size()))
            .arg(out.latencyMs, 0, 'f', 0);
    if (!config.model.empty() && !t.modelFound)
      out.detail = QObject::tr("The configured model \"%1\" is not among them.")
                       .arg(QString::fromStdString(config.model));
    return out;
  }
  if (t.httpStatus != 404 && t.httpStatus != 405) {
    out.headline = explainCallError(QString::fromStdString(t.error), config);
    out.detail = QString::fromStdString(t.error);
    return out;
  }
  // No model listing: one chat call capped at a single token shows the endpoint answers.
  core::llm::EndpointConfig probe = config;
  probe.maxTokens = 1;
  probe.maxRetries = 0;
  probe.concurrency = 1;
  probe.timeoutSeconds = std::min(config.timeoutSeconds, 30.0);
  auto provider = core::llm::makeProvider(probe, core::llm::OfflineRole::Auto, nullptr, transport);
  core::llm::LlmRequest request;
  request.kind = core::llm::EndpointKind::Chat;
  request.messages = {{"user", "ping"}};
  auto promise = std::make_shared<std::promise<core::llm::LlmResponse>>();
  auto future = promise->get_future();
  provider->submit(request,
                   [promise](core::llm::LlmResponse r) { promise->set_value(std::move(r)); });
  const core::llm::LlmResponse r = future.get();
  provider->waitIdle();
  out.httpStatus = r.httpStatus;
  out.latencyMs = r.latencyMs;
  if (r.status == core::llm::CallStatus::Ok) {
    out.ok = true;
    out.headline = QObject::tr("Connected in %1 ms (a one-token chat call answered).")
                       .arg(out.latencyMs, 0, 'f', 0);
    out.detail =
        QObject::tr("This server has no /models listing (HTTP %1), so no model list is shown.")
            .arg(t.httpStatus);
  } else {
    out.headline = explainCallError(QString::fromStdString(r.error), config);
    out.detail = QString::fromStdString(r.error);
  }
  return out;
}

}  // namespace

ConnectionTestJob::ConnectionTestJob(QObject* parent) : QObject(parent) {
  m_pool.setMaxThreadCount(1);
  qRegisterMetaType<ConnectionOutcome>();
}

ConnectionTestJob::~ConnectionTestJob() {
  // A test is bounded by its timeout (at most 30 s); the page waits for it rather than leave a
  // thread touching freed memory.
  m_pool.waitForDone();
}

void ConnectionTestJob::start(core::llm::EndpointConfig config,
                              core::llm::TransportOptions transport) {
  if (m_running) return;
  m_running = true;
  auto* watcher = new QFutureWatcher<ConnectionOutcome>(this);
  connect(watcher, &QFutureWatcher<ConnectionOutcome>::finished, this, [this, watcher] {
    m_running = false;
    const ConnectionOutcome outcome = watcher->result();
    watcher->deleteLater();
    emit finished(outcome);
  });
  watcher->setFuture(
      QtConcurrent::run(&m_pool, [config = std::move(config), transport = std::move(transport)] {
        return runConnectionTest(config, transport);
      }));
}

}  // namespace ragscope::ui
