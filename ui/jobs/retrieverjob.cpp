#include "ui/jobs/retrieverjob.h"

#include <QLabel>
#include <QLocale>
#include <QMetaObject>
#include <QPointer>
#include <QProgressBar>
#include <QtConcurrent/QtConcurrentRun>

namespace ragscope::ui {

void showRetrieverProgress(QProgressBar* bar, QLabel* status, RetrieverJob::Phase phase,
                           quint64 done, quint64 total) {
  if (bar) {
    bar->setRange(0, total ? 1000 : 0);
    bar->setValue(total ? int(1000.0 * double(done) / double(total)) : 0);
  }
  const QLocale l;
  switch (phase) {
    case RetrieverJob::Phase::Index:
      status->setText(QObject::tr("Building the index: %1 of %2 documents")
                          .arg(l.toString(done), l.toString(total)));
      break;
    case RetrieverJob::Phase::Embed:
      status->setText(QObject::tr("Embedding the corpus: %1 of %2 calls")
                          .arg(l.toString(done), l.toString(total)));
      break;
    case RetrieverJob::Phase::Retrieve:
      status->setText(
          QObject::tr("Retrieving: %1 of %2 queries").arg(l.toString(done), l.toString(total)));
      break;
  }
}

void showRetrievalProgress(QProgressBar* bar, QLabel* status, bool indexing, quint64 done,
                           quint64 total) {
  showRetrieverProgress(bar, status,
                        indexing ? RetrieverJob::Phase::Index : RetrieverJob::Phase::Retrieve, done,
                        total);
}

RetrieverJobHub* RetrieverJobHub::instance() {
  static RetrieverJobHub* hub = new RetrieverJobHub;
  return hub;
}

RetrieverJob::RetrieverJob(QObject* parent) : QObject(parent) {
  m_pool.setMaxThreadCount(1);
  // Progress is emitted on the worker and arrives here queued, on the GUI thread: the first
  // embedding progress of a job tells the Jobs dock to follow it.
  connect(this, &RetrieverJob::progress, this, [this](Phase phase, quint64 done, quint64 total) {
    if (!m_running) return;  // a late report of a job already finished
    m_last[int(phase)] = {done, total};
    if (phase != Phase::Embed || m_announced) return;
    m_announced = true;
    emit RetrieverJobHub::instance()->embeddingStarted(this);
  });
}

void RetrieverJob::begin(const core::RetrieverSpec& spec, const QString& what) {
  m_running = true;
  m_announced = false;
  m_last = {};
  m_stop = std::stop_source();
  const QString name =
      QString::fromStdString(spec.name.empty() ? core::retrieverKindName(spec.kind) : spec.name);
  m_title = tr("%1 · %2").arg(name, what);
}

RetrieverJob::~RetrieverJob() {
  m_stop.request_stop();
  m_pool.waitForDone();
}

void RetrieverJob::cancel() { m_stop.request_stop(); }

void RetrieverJob::test(core::RetrieverSpec spec, std::shared_ptr<const core::Dataset> dataset,
                        std::filesystem::path firstPath, QString query, int k,
                        std::function<std::string()> apiKey) {
  if (m_running) return;
  begin(spec, tr("test"));
  QPointer<RetrieverJob> self(this);
  const std::stop_token stop = m_stop.get_token();
  (void)QtConcurrent::run(&m_pool, [self, stop, spec = std::move(spec),
                                    dataset = std::move(dataset), firstPath = std::move(firstPath),
                                    text = query.toStdString(), k, apiKey = std::move(apiKey)] {
    core::IndexBuildOptions io;
    io.stop = stop;
    io.progress = [self](std::uint64_t done, std::uint64_t total) {
      if (self) emit self->progress(Phase::Index, done, total);
      return true;
    };
    io.embedProgress = [self](std::uint64_t done, std::uint64_t total) {
      if (self) emit self->progress(Phase::Embed, done, total);
      return true;
    };
    auto probe = std::make_shared<const core::RetrieverProbe>(
        core::probeRetriever(spec, *dataset, firstPath, text, std::size_t(k), io, apiKey));
    QMetaObject::invokeMethod(
        self,
        [self, probe] {
          if (!self) return;
          self->m_running = false;
          emit self->tested(probe);
        },
        Qt::QueuedConnection);
  });
}

void RetrieverJob::run(core::RetrieverSpec spec, std::shared_ptr<const core::Dataset> dataset,
                       std::filesystem::path firstPath, core::RetrieveJobOptions options) {
  if (m_running) return;
  begin(spec, tr("retrieve"));
  QPointer<RetrieverJob> self(this);
  options.stop = m_stop.get_token();
  // Progress crosses to the GUI thread as queued signals (emit from the worker is queued, since
  // the receivers live on the GUI thread).
  options.indexProgress = [self](std::uint64_t done, std::uint64_t total) {
    if (self) emit self->progress(Phase::Index, done, total);
    return true;
  };
  options.retrieveProgress = [self](std::uint64_t done, std::uint64_t total) {
    if (self) emit self->progress(Phase::Retrieve, done, total);
    return true;
  };
  options.embedProgress = [self](std::uint64_t done, std::uint64_t total) {
    if (self) emit self->progress(Phase::Embed, done, total);
    return true;
  };
  (void)QtConcurrent::run(&m_pool,
                          [self, spec = std::move(spec), dataset = std::move(dataset),
                           firstPath = std::move(firstPath), options = std::move(options)] {
                            auto result = std::make_shared<const core::RetrieveJobResult>(
                                core::runRetrieveJob(spec, *dataset, firstPath, options));
                            QMetaObject::invokeMethod(
                                self,
                                [self, result] {
                                  if (!self) return;
                                  self->m_running = false;
                                  emit self->finished(result);
                                },
                                Qt::QueuedConnection);
                          });
}

}  // namespace ragscope::ui
