#pragma once
// Runs statistics computations (bootstraps, permutation tests) off the GUI thread. A task is a
// function that fills its own result (captured by shared_ptr) and polls the cancel flag it is
// given; finished(ticket, cancelled) is delivered on the GUI thread. Starting a new task cancels
// the one still running, so a page only ever waits for its latest request; callers drop stale
// tickets. The pool is owned and drained on destruction (tasks capture nothing of the page).
//
//   auto out = std::make_shared<core::stats::BootstrapResult>();
//   m_ticket = m_job->start([out, values, o](const std::atomic<bool>* cancel) mutable {
//     o.cancel = cancel;
//     *out = core::stats::bootstrap(values, o);
//   });

#include <QObject>
#include <QThreadPool>
#include <atomic>
#include <functional>
#include <memory>

namespace ragscope::ui {

class StatsJob : public QObject {
  Q_OBJECT
 public:
  using Task = std::function<void(const std::atomic<bool>* cancel)>;

  explicit StatsJob(QObject* parent = nullptr);
  ~StatsJob() override;

  // Cancels any running task and queues this one; returns its ticket.
  int start(Task task);
  void cancel();
  bool isRunning() const { return m_running > 0; }
  // Blocks until every queued task has finished (tests, shutdown).
  void wait();

 signals:
  void finished(int ticket, bool cancelled);

 private:
  QThreadPool m_pool;
  std::shared_ptr<std::atomic<bool>> m_cancel;
  int m_nextTicket = 0;
  int m_running = 0;
};

}  // namespace ragscope::ui
