#include "ui/jobs/retrievejob.h"

#include <QElapsedTimer>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <chrono>

#include "core/retrieval/bm25run.h"
#include "core/retrieval/indexdir.h"

namespace ragscope::ui {

RetrieveJob::RetrieveJob(QObject* parent) : QObject(parent) {
  m_pool.setMaxThreadCount(1);  // the retrieval itself spreads queries over its own threads
  qRegisterMetaType<RetrieveOutcome>();
}

RetrieveJob::~RetrieveJob() {
  m_stop.request_stop();
  if (m_watcher) m_watcher->disconnect(this);
  m_pool.waitForDone();
}

QString RetrieveJob::bm25Tag(int k) { return QStringLiteral("bm25-top%1").arg(k); }

void RetrieveJob::cancel() { m_stop.request_stop(); }

bool RetrieveJob::start(std::shared_ptr<const core::Dataset> dataset, int k) {
  if (m_watcher || !dataset || dataset->corpus.empty() || dataset->queries.empty() || k < 1) return false;
  m_stop = std::stop_source();

  // Progress callbacks run on the worker: they only post to this object, throttled.
  using Clock = std::chrono::steady_clock;
  QPointer<RetrieveJob> self(this);
  auto reporter = [self](Phase phase) {
    return [self, phase, last = Clock::time_point{}](std::uint64_t done, std::uint64_t total) mutable {
      const auto now = Clock::now();
      if (now - last >= std::chrono::milliseconds(100) || done >= total) {
        last = now;
        QMetaObject::invokeMethod(
            self.data(), [self, phase, done, total] { if (self) emit self->progress(phase, done, total); },
            Qt::QueuedConnection);
      }
      return true;  // cancel goes through the stop token
    };
  };
  core::Bm25RunOptions options;
  options.k = std::size_t(k);
  options.threads = 2;
  options.indexProgress = reporter(Phase::Index);
  options.retrieveProgress = reporter(Phase::Retrieve);
  options.stop = m_stop.get_token();

  auto work = [dataset, options, tag = bm25Tag(k)]() mutable {
    QElapsedTimer timer;
    timer.start();
    RetrieveOutcome out;
    out.basis = dataset;
    out.tag = tag;
    // On the worker: choosing the folder checks the file system and may fingerprint the corpus.
    options.indexDir = core::chooseIndexDir(
        dataset->parts.empty() ? std::filesystem::path(dataset->name) : dataset->parts.front().path, dataset->corpus);
    core::Bm25RunResult r = core::retrieveWithBm25(*dataset, options);
    out.indexDir = QString::fromStdString(r.index.dir.string());
    out.indexReused = r.index.reused;
    out.cancelled = r.cancelled;
    out.error = QString::fromStdString(r.error);
    if (r.ok) {
      core::Run run = std::move(r.run.value);
      run.tag = tag.toStdString();
      run.source = "bm25 (Xapian) index " + r.index.dir.string();  // no file: say how it was made
      out.queriesFailed = r.run.report.skipped;
      auto copy = std::make_shared<core::Dataset>(*dataset);
      // A second retrieval at the same depth replaces the first, so indexes of other runs hold.
      auto same = std::find_if(copy->runs.begin(), copy->runs.end(), [&](const core::Run& x) { return x.tag == run.tag; });
      if (same != copy->runs.end()) {
        *same = std::move(run);
        out.runIndex = int(same - copy->runs.begin());
      } else {
        copy->runs.push_back(std::move(run));
        out.runIndex = int(copy->runs.size()) - 1;
      }
      out.dataset = std::move(copy);
      out.ok = true;
    }
    out.seconds = double(timer.elapsed()) / 1000.0;
    return out;
  };

  m_watcher = new QFutureWatcher<RetrieveOutcome>(this);
  auto* watcher = m_watcher;
  connect(watcher, &QFutureWatcher<RetrieveOutcome>::finished, this, [this, watcher] {
    m_watcher = nullptr;
    const RetrieveOutcome outcome = watcher->result();
    watcher->deleteLater();
    emit finished(outcome);
  });
  watcher->setFuture(QtConcurrent::run(&m_pool, std::move(work)));
  return true;
}

}  // namespace ragscope::ui
