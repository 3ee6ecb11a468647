#pragma once
// "Test connection" for the endpoints page, off the GUI thread: GET {base}/models once, timed;
// when the server has no /models (404/405), one chat call capped at a single token instead, so
// servers without a model listing can still be checked. A chat endpoint that answered is then
// probed for structured outputs (core/llm/structuredprobe.h): does it honour a JSON schema?
// Failures are explained for people (auth, DNS, TLS, refused, timeout, malformed reply) with the
// transport's own text beneath.

#include <QFutureWatcher>
#include <QMetaType>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QThreadPool>

#include "core/llm/httpprovider.h"
#include "core/llm/provider.h"

namespace ragscope::ui {

struct ConnectionOutcome {
  bool ok = false;
  double latencyMs = 0.0;
  int httpStatus = 0;
  bool modelsListed = false;  // the server answered /models
  QStringList models;
  bool modelFound = false;  // the configured model is among them
  QString headline;         // one line: "Connected in 12 ms, 3 models" / "Connection refused: ..."
  QString detail;           // the transport's error text, or a note
  // The structured-outputs probe (core/llm/structuredprobe.h) of a chat endpoint that answered:
  // "yes", "no" or "unknown"; empty when not probed.
  QString honoursSchema;
  QString schemaDetail;
};

// "auth: HTTP 401: bad key" -> "Authentication failed (HTTP 401): the server refused the API
// key. ..." — one sentence naming the likely cause; `raw` stays available as the detail.
QString explainCallError(const QString& raw, const core::llm::EndpointConfig& config);

// Blocking; call on a worker thread.
ConnectionOutcome runConnectionTest(const core::llm::EndpointConfig& config,
                                    const core::llm::TransportOptions& transport);

class ConnectionTestJob : public QObject {
  Q_OBJECT
 public:
  explicit ConnectionTestJob(QObject* parent = nullptr);
  ~ConnectionTestJob() override;
  void start(core::llm::EndpointConfig config, core::llm::TransportOptions transport);
  bool isRunning() const { return m_running; }

 signals:
  void finished(const ragscope::ui::ConnectionOutcome& outcome);

 private:
  QThreadPool m_pool;
  bool m_running = false;
};

}  // namespace ragscope::ui

Q_DECLARE_METATYPE(ragscope::ui::ConnectionOutcome)
