#include "core/llm/workerprovider.h"

namespace ragscope::core::llm {

WorkerProvider::~WorkerProvider() { stop(); }

void WorkerProvider::start() {
  m_thread = std::thread([this] { work(); });
}

void WorkerProvider::stop() {
  if (!m_thread.joinable()) return;
  cancelAll();
  {
    std::lock_guard lock(m_mutex);
    m_quit = true;
  }
  m_wake.notify_all();
  m_thread.join();
}

void WorkerProvider::submit(LlmRequest request, ResponseCallback done) {
  {
    std::lock_guard lock(m_mutex);
    m_queue.push_back({std::move(request), std::move(done)});
  }
  m_wake.notify_one();
}

void WorkerProvider::cancelAll() {
  std::deque<Job> dropped;
  {
    std::lock_guard lock(m_mutex);
    dropped.swap(m_queue);
  }
  for (auto& job : dropped) job.done(cancelledResponse());
  m_idle.notify_all();
}

void WorkerProvider::waitIdle() {
  std::unique_lock lock(m_mutex);
  m_idle.wait(lock, [this] { return m_queue.empty() && !m_busy; });
}

LlmResponse WorkerProvider::cancelledResponse() const {
  LlmResponse r;
  r.status = CallStatus::Cancelled;
  return r;
}

void WorkerProvider::work() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(m_mutex);
      m_wake.wait(lock, [this] { return m_quit || !m_queue.empty(); });
      if (m_queue.empty()) return;
      job = std::move(m_queue.front());
      m_queue.pop_front();
      m_busy = true;
    }
    job.done(answer(job.request));
    {
      std::lock_guard lock(m_mutex);
      m_busy = false;
    }
    m_idle.notify_all();
  }
}

}  // namespace ragscope::core::llm
