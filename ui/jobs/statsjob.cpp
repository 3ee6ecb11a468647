#include "ui/jobs/statsjob.h"

#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>
#include <exception>

namespace ragscope::ui {

StatsJob::StatsJob(QObject* parent) : QObject(parent) {
  // The statistics engine spreads one computation over the cores itself; tasks queue one by one.
  m_pool.setMaxThreadCount(1);
}

StatsJob::~StatsJob() {
  cancel();
  m_pool.waitForDone();
}

void StatsJob::cancel() {
  if (m_cancel) m_cancel->store(true);
}

void StatsJob::wait() { m_pool.waitForDone(); }

int StatsJob::start(Task task) {
  cancel();
  auto flag = std::make_shared<std::atomic<bool>>(false);
  m_cancel = flag;
  const int ticket = ++m_nextTicket;
  ++m_running;
  auto* watcher = new QFutureWatcher<bool>(this);
  connect(watcher, &QFutureWatcher<bool>::finished, this, [this, watcher, ticket] {
    --m_running;
    const bool cancelled = watcher->result();
    watcher->deleteLater();
    emit finished(ticket, cancelled);
  });
  watcher->setFuture(QtConcurrent::run(&m_pool, [task = std::move(task), flag]() {
    if (!flag->load()) {
      try {
        task(flag.get());
      } catch (const std::exception&) {
        // A task reports its own errors in its result; an escaped exception counts as cancelled
        // rather than taking the application down from a worker thread.
        return true;
      }
    }
    return flag->load();
  }));
  return ticket;
}

}  // namespace ragscope::ui
