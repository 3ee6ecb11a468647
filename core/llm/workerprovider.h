#pragma once
// A Provider that answers its calls one at a time on one worker thread it owns: the queue,
// cancelAll() and waitIdle() of the offline heuristics, shared with in-process stand-ins such as
// the tests' fake provider, so each only says how it answers one request.
//
//   class Echo final : public WorkerProvider {
//    public:
//     Echo() { start(); }
//     ~Echo() override { stop(); }
//     ...
//    private:
//     LlmResponse answer(const LlmRequest& request) override { ... }
//   };

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "core/llm/provider.h"

namespace ragscope::core::llm {

class WorkerProvider : public Provider {
 public:
  ~WorkerProvider() override;

  void submit(LlmRequest request, ResponseCallback done) override;
  // Answers every queued call with cancelledResponse(); a call being answered finishes.
  void cancelAll() override;
  void waitIdle() override;

 protected:
  WorkerProvider() = default;

  // The worker calls answer(), which a derived class defines: start() ends its constructor and
  // stop() begins its destructor, so the worker never sees a half-built or half-destroyed object.
  void start();
  // Cancels what is queued and joins the worker; safe to call twice.
  void stop();

  // Called on the worker thread, one request at a time.
  virtual LlmResponse answer(const LlmRequest& request) = 0;
  // What a cancelled queued call is answered with.
  virtual LlmResponse cancelledResponse() const;

 private:
  struct Job {
    LlmRequest request;
    ResponseCallback done;
  };
  void work();

  std::mutex m_mutex;
  std::condition_variable m_wake;
  std::condition_variable m_idle;
  std::deque<Job> m_queue;
  bool m_busy = false;
  bool m_quit = false;
  std::thread m_thread;
};

}  // namespace ragscope::core::llm
