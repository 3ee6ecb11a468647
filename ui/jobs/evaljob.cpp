#include "ui/jobs/evaljob.h"

#include <QElapsedTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <exception>

#include "core/data/loaders.h"
#include "core/metrics/doclevel.h"

namespace ragscope::ui {

EvalJob::EvalJob(QObject* parent) : QObject(parent) {
  // The evaluator spreads queries over two threads itself; one job at a time is enough.
  m_pool.setMaxThreadCount(1);
  qRegisterMetaType<EvalOutcome>();
}

EvalJob::~EvalJob() {
  cancel();
  if (m_watcher) m_watcher->disconnect(this);
  m_pool.waitForDone();
}

void EvalJob::cancel() {
  if (m_cancel) m_cancel->store(true);
}

void EvalJob::start(EvalRequest request) {
  if (m_running) return;
  auto cancelFlag = std::make_shared<std::atomic<bool>>(false);
  m_cancel = cancelFlag;
  m_running = true;

  const int total = 1 + request.runFiles.size() + static_cast<int>(request.datasetRuns.size());
  auto step = std::make_shared<std::atomic<int>>(0);
  auto report = [this, step, total] {
    const int done = ++*step;
    QMetaObject::invokeMethod(
        this, [this, done, total] { emit progress(done, total); }, Qt::QueuedConnection);
  };

  auto work = [request = std::move(request), cancelFlag, report]() {
    QElapsedTimer timer;
    timer.start();
    EvalOutcome out;
    out.docLevel = request.docLevel;
    core::LoadOptions options;
    options.progress = [cancelFlag](std::uint64_t, std::uint64_t) { return !cancelFlag->load(); };
    try {
      if (request.goldDocumentQrels && request.dataset) {
        out.qrels =
            std::make_shared<const core::Qrels>(core::goldDocumentQrels(request.dataset->queries));
      } else if (!request.qrelsFile.isEmpty()) {
        auto loaded = core::readTrecQrels(request.qrelsFile.toStdString(), options);
        out.report.merge(loaded.report, options.maxStoredDiagnostics);
        if (loaded.report.ok())
          out.qrels = std::make_shared<const core::Qrels>(std::move(loaded.value));
      } else if (request.dataset) {
        // Aliasing pointer: shares ownership of the dataset, points at its qrels.
        out.qrels = std::shared_ptr<const core::Qrels>(request.dataset, &request.dataset->qrels);
      }
      report();
      for (std::size_t i : request.datasetRuns) {
        if (request.dataset && i < request.dataset->runs.size())
          out.runs.push_back(
              std::shared_ptr<const core::Run>(request.dataset, &request.dataset->runs[i]));
      }
      for (const QString& file : request.runFiles) {
        if (cancelFlag->load()) break;
        auto loaded = core::readTrecRun(file.toStdString(), options);
        out.report.merge(loaded.report, options.maxStoredDiagnostics);
        if (loaded.report.ok())
          out.runs.push_back(std::make_shared<const core::Run>(std::move(loaded.value)));
        report();
      }
      if (out.qrels) {
        for (const auto& run : out.runs) {
          if (cancelFlag->load()) break;
          core::EvalResult result =
              request.docLevel
                  ? core::evaluateRunDocLevel(*out.qrels, *run, request.settings, options.progress)
                  : core::evaluate(*out.qrels, *run, request.settings, options.progress);
          for (const auto& d : result.diagnostics) out.report.add(d, options.maxStoredDiagnostics);
          out.results.push_back(std::move(result));
          report();
        }
      } else {
        out.report.add({core::Severity::Error, request.qrelsFile.toStdString(), 0, "qrels",
                        "no qrels to evaluate against"},
                       options.maxStoredDiagnostics);
      }
    } catch (const std::exception& e) {
      out.report.add(
          {core::Severity::Error, {}, 0, "evaluation", std::string("internal error: ") + e.what()},
          options.maxStoredDiagnostics);
    }
    out.cancelled = cancelFlag->load();
    out.runs.resize(out.results.size());  // a run without a result (cancelled) is not shown
    out.elapsedMs = timer.elapsed();
    return out;
  };

  m_watcher = new QFutureWatcher<EvalOutcome>(this);
  auto* watcher = m_watcher;
  connect(watcher, &QFutureWatcher<EvalOutcome>::finished, this, [this, watcher] {
    m_running = false;
    EvalOutcome outcome = watcher->result();
    m_watcher = nullptr;
    watcher->deleteLater();
    emit finished(outcome);
  });
  watcher->setFuture(QtConcurrent::run(&m_pool, std::move(work)));
}

}  // namespace ragscope::ui
