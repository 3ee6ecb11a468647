#pragma once
// A cpp-httplib server on 127.0.0.1:<ephemeral port>, listening on its own thread for one test,
// that remembers the paths and request targets (path with query string) it was asked for. Tests
// add their routes to `server` before start().
//
//   test::LocalServer s;
//   s.server.Post("/search", [](const httplib::Request&, httplib::Response& res) { ... });
//   QVERIFY(s.start());
//   retriever.url = s.url("/search");

#include <httplib.h>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ragscope::test {

class LocalServer {
 public:
  httplib::Server server;
  int port = -1;

  bool start() {
    server.set_logger([this](const httplib::Request& req, const httplib::Response&) {
      std::lock_guard lock(m_mutex);
      m_paths.push_back(req.path);
      m_targets.push_back(req.target);
    });
    port = server.bind_to_any_port("127.0.0.1");
    if (port <= 0) return false;
    m_thread = std::thread([this] { server.listen_after_bind(); });
    for (int i = 0; i < 2000 && !server.is_running(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return server.is_running();
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port) + path;
  }
  std::vector<std::string> seenPaths() {
    std::lock_guard lock(m_mutex);
    return m_paths;
  }
  std::vector<std::string> seenTargets() {
    std::lock_guard lock(m_mutex);
    return m_targets;
  }
  // Stops listening and waits for the thread: the port then refuses connections.
  void stop() {
    server.stop();
    if (m_thread.joinable()) m_thread.join();
  }
  ~LocalServer() { stop(); }

 private:
  std::thread m_thread;
  std::mutex m_mutex;
  std::vector<std::string> m_paths;
  std::vector<std::string> m_targets;
};

}  // namespace ragscope::test
