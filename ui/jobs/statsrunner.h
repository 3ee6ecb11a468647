#pragma once
// The latest statistics request of a page or panel (Compare, Contrastive, the statistics panel,
// the retrieval summary's intervals), handled once: a StatsJob runs it off the GUI thread, a
// ticket makes sure only the latest request is delivered (a new one cancels the one running),
// the result lives in a block the task fills, and while it runs the compute button is disabled,
// Cancel enabled and a busy bar shown.
//
//   m_stats = new StatsRunner({m_compute, m_cancel, m_busy}, this);
//   m_stats->start<core::stats::BootstrapResult>(
//       [values, o](core::stats::BootstrapResult& out, const std::atomic<bool>* cancel) mutable {
//         o.cancel = cancel;
//         out = core::stats::bootstrap(values, o);
//       },
//       [this](core::stats::BootstrapResult result, bool cancelled) { show(result, cancelled); });

#include <QObject>
#include <QPointer>
#include <QWidget>
#include <atomic>
#include <functional>
#include <memory>
#include <utility>

#include "ui/jobs/statsjob.h"

namespace ragscope::ui {

class StatsRunner : public QObject {
  Q_OBJECT
 public:
  // The widgets that show a request running (any may be null).
  struct Busy {
    QWidget* compute = nullptr;    // disabled while running
    QWidget* cancel = nullptr;     // enabled while running
    QWidget* indicator = nullptr;  // shown while running
  };

  StatsRunner(Busy busy, QObject* parent);

  // Runs `compute` on the worker, filling a default-constructed Result and polling the cancel
  // flag; then `done(result, cancelled)` on the GUI thread, unless a later start() or forget()
  // came first.
  template <typename Result>
  void start(std::function<void(Result&, const std::atomic<bool>*)> compute,
             std::function<void(Result, bool cancelled)> done) {
    auto out = std::make_shared<Result>();
    m_deliver = [out, done = std::move(done)](bool cancelled) { done(std::move(*out), cancelled); };
    setBusy(true);
    m_ticket = m_job->start([out, compute = std::move(compute)](const std::atomic<bool>* cancel) {
      compute(*out, cancel);
    });
  }
  void cancel() { m_job->cancel(); }
  // Cancels the latest request and drops its delivery (the page shows something else now).
  void forget();
  bool isRunning() const { return m_job->isRunning(); }
  bool isPending() const { return bool(m_deliver); }  // a request whose delivery is still due
  void wait() { m_job->wait(); }

 private:
  void setBusy(bool busy);
  void onFinished(int ticket, bool cancelled);

  StatsJob* m_job;
  QPointer<QWidget> m_compute, m_cancel, m_indicator;
  int m_ticket = 0;
  std::function<void(bool cancelled)> m_deliver;
};

}  // namespace ragscope::ui
