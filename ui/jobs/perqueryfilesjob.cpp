#include "ui/jobs/perqueryfilesjob.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

namespace ragscope::ui {

PerQueryFilesJob::PerQueryFilesJob(QObject* parent) : QObject(parent) {
  m_pool.setMaxThreadCount(1);
}

PerQueryFilesJob::~PerQueryFilesJob() { m_pool.waitForDone(); }

void PerQueryFilesJob::start(const QStringList& files, const core::LoadOptions& options,
                             bool reportEmpty) {
  ++m_pending;
  auto* watcher = new QFutureWatcher<PerQueryRuns>(this);
  connect(watcher, &QFutureWatcher<PerQueryRuns>::finished, this, [this, watcher] {
    const PerQueryRuns result = watcher->result();
    watcher->deleteLater();
    --m_pending;
    emit loaded(result);
  });
  watcher->setFuture(QtConcurrent::run(&m_pool, [files, options, reportEmpty] {
    return readPerQueryRuns(files, options, reportEmpty);
  }));
}

}  // namespace ragscope::ui
