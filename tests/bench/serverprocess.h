#pragma once
// The local test server (ragscope-testserver) as a separate process for benchmarks that drive
// it, so the client's CPU time is measured alone: started with `--port 0` and the given
// arguments, its port read from the first line it prints; stopped (SIGTERM, waited for) when the
// object goes. Benchmarks that use it are given RAGSCOPE_TESTSERVER_PATH by
// tests/bench/CMakeLists.txt.
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

extern char** environ;

namespace ragscope::bench {

struct ServerProcess {
  pid_t pid = -1;
  int port = 0;

  ServerProcess() = default;
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  bool start(const char* program, const std::vector<std::string>& arguments) {
    int out[2];
    if (pipe(out) != 0) return false;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, out[0]);
    std::vector<const char*> argv = {program, "--port", "0"};
    for (const auto& a : arguments) argv.push_back(a.c_str());
    argv.push_back(nullptr);
    const int rc = posix_spawn(&pid, program, &actions, nullptr,
                               const_cast<char* const*>(argv.data()), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    if (rc != 0) {
      close(out[0]);
      pid = -1;
      return false;
    }
    char line[32] = {0};
    std::size_t got = 0;
    while (got < sizeof line - 1) {
      const ssize_t n = read(out[0], line + got, 1);
      if (n <= 0 || line[got] == '\n') break;
      ++got;
    }
    close(out[0]);
    port = std::atoi(line);
    return port > 0;
  }

  ~ServerProcess() {
    if (pid > 0) {
      kill(pid, SIGTERM);
      waitpid(pid, nullptr, 0);
    }
  }
};

}  // namespace ragscope::bench
