#pragma once
// One short task off the GUI thread (reading a store, writing a run file, a dry-run estimate):
// `work` runs on `pool`, then `done(result)` on `context`'s thread; when `context` is destroyed
// first, `done` is never called. The pool's owner waits for it before the task's inputs go.
//
//   runInBackground(this, m_pool, [path] { return readReport(path); },
//                   [this](core::eval::JudgeReport report) { show(report); });

#include <QFutureWatcher>
#include <QObject>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>
#include <type_traits>
#include <utility>

namespace ragscope::ui {

template <typename Work, typename Done>
void runInBackground(QObject* context, QThreadPool* pool, Work work, Done done) {
  using Result = std::invoke_result_t<Work>;
  auto* watcher = new QFutureWatcher<Result>(context);
  QObject::connect(watcher, &QFutureWatcherBase::finished, context,
                   [watcher, done = std::move(done)]() mutable {
                     Result result = watcher->result();
                     watcher->deleteLater();
                     done(std::move(result));
                   });
  watcher->setFuture(QtConcurrent::run(pool, std::move(work)));
}

}  // namespace ragscope::ui
