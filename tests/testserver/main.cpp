// ragscope-testserver: the local OpenAI-compatible test server as a process, for demos, the
// crash test and benchmarks that must not share a CPU budget with the client. Prints the port it
// listens on (127.0.0.1 only) as the first line of stdout, then serves until SIGINT/SIGTERM or
// until stdin reaches end of file when --stdin-eof is given.
//
//   ragscope-testserver --port 0 --latency-ms 50 --log /tmp/requests.jsonl --fail-rate 0.05

#include <pthread.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>

#include "core/llm/offline.h"
#include "testserver/testserver.h"

using ragscope::testserver::Behaviour;
using ragscope::testserver::Options;
using ragscope::testserver::Rule;
using ragscope::testserver::TestServer;

namespace {

void usage() {
  std::fprintf(
      stderr,
      "usage: ragscope-testserver [--port N] [--latency-ms L] [--log FILE] [--fail-rate P]\n"
      "                           [--truncated-json-rate P] [--invalid-json-rate P]\n"
      "                           [--seed S] [--threads T] [--rate-limit-first N]\n"
      "                           [--retry-after S] [--require-key-env VAR] [--model ID]...\n"
      "                           [--offline-answers] [--response-format ignore|honour|prose]\n"
      "                           [--batch-ms MS] [--batch-end completed|expired|failed]\n"
      "                           [--embedding-dim D] [--no-compression]\n"
      "                           [--embedding-fault-after N]\n"
      "                           [--embedding-fault count|dimension|overflow|null|model]\n"
      "                           [--fault-model ID] [--stdin-eof]\n"
      "Serves OpenAI-compatible /v1/chat/completions, /v1/embeddings, /v1/rerank and\n"
      "/v1/models, and the Batch API's /v1/files and /v1/batches, on 127.0.0.1 and prints\n"
      "the port on stdout.\n");
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  int rateLimitFirst = 0;
  std::string retryAfter = "1";
  bool stdinEof = false;
  ragscope::testserver::BatchServerOptions batchOptions;
  bool modelsGiven = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "ragscope-testserver: %s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    try {
      if (arg == "--port")
        options.port = std::stoi(value());
      else if (arg == "--latency-ms")
        options.latencyMs = std::stoi(value());
      else if (arg == "--log")
        options.logPath = value();
      else if (arg == "--fail-rate")
        options.failRate = std::stod(value());
      else if (arg == "--truncated-json-rate")
        options.truncatedJsonRate = std::stod(value());
      else if (arg == "--invalid-json-rate")
        options.invalidJsonRate = std::stod(value());
      else if (arg == "--seed")
        options.seed = std::stoull(value());
      else if (arg == "--threads")
        options.threads = std::stoi(value());
      else if (arg == "--embedding-dim") {
        // /v1/embeddings vectors of D floats (default 8), e.g. 384 or 768 for the dense benchmark.
        options.embeddingDim = std::stoi(value());
        if (options.embeddingDim < 1 || options.embeddingDim > 65536)
          throw std::invalid_argument("embedding dimension");
      } else if (arg == "--no-compression")
        options.compressReplies = false;
      else if (arg == "--rate-limit-first")
        rateLimitFirst = std::stoi(value());
      else if (arg == "--retry-after")
        retryAfter = value();
      else if (arg == "--require-key-env") {
        // The key comes from the environment so it never shows in a process listing.
        const std::string var = value();
        const char* key = std::getenv(var.c_str());
        if (!key || !*key) {
          std::fprintf(stderr, "ragscope-testserver: environment variable %s is not set\n",
                       var.c_str());
          return 2;
        }
        options.requiredApiKey = key;
      } else if (arg == "--model") {
        if (!modelsGiven) options.models.clear();
        modelsGiven = true;
        options.models.push_back(value());
      } else if (arg == "--offline-answers") {
        // A scripted judge and reader: ragscope's own offline heuristics answer every chat call
        // (claim lists to extraction prompts, SUPPORTED lines to judge prompts), deterministically.
        options.answer = [](const std::string& lastUserMessage) {
          return ragscope::core::llm::offlineAnswer(ragscope::core::llm::OfflineRole::Auto,
                                                    lastUserMessage);
        };
      } else if (arg == "--response-format") {
        // A chat call's response_format json_schema: ignored (the scripted text), honoured
        // (schema-valid JSON built from it), or ignored by a model writing JSON in prose.
        const std::string mode = value();
        if (mode == "ignore")
          options.responseFormat = ragscope::testserver::ResponseFormatMode::Ignore;
        else if (mode == "honour" || mode == "honor")
          options.responseFormat = ragscope::testserver::ResponseFormatMode::Honour;
        else if (mode == "prose")
          options.responseFormat = ragscope::testserver::ResponseFormatMode::ProseJson;
        else
          throw std::invalid_argument(mode);
      } else if (arg == "--batch-ms") {
        // How long a batch takes (its states follow the clock: testserver/batchroutes.h).
        batchOptions.batchMs = std::stoi(value());
      } else if (arg == "--batch-end") {
        batchOptions.endState = value();
        if (batchOptions.endState != "completed" && batchOptions.endState != "expired" &&
            batchOptions.endState != "failed")
          throw std::invalid_argument(batchOptions.endState);
      } else if (arg == "--embedding-fault") {
        // Every embeddings reply after --embedding-fault-after proper ones goes wrong this way
        // (testserver/testserver.h, EmbeddingFault).
        const std::string name = value();
        using ragscope::testserver::EmbeddingFault;
        bool known = false;
        for (auto f : {EmbeddingFault::None, EmbeddingFault::Count, EmbeddingFault::Dimension,
                       EmbeddingFault::Overflow, EmbeddingFault::Null, EmbeddingFault::Model})
          if (name == ragscope::testserver::embeddingFaultName(f)) {
            options.embeddingFault = f;
            known = true;
          }
        if (!known) throw std::invalid_argument(name);
      } else if (arg == "--embedding-fault-after") {
        options.embeddingFaultAfter = std::stoi(value());
        if (options.embeddingFaultAfter < 0) throw std::invalid_argument("after");
      } else if (arg == "--fault-model") {
        options.faultModel = value();
      } else if (arg == "--stdin-eof")
        stdinEof = true;
      else if (arg == "--help" || arg == "-h") {
        usage();
        return 0;
      } else {
        std::fprintf(stderr, "ragscope-testserver: unknown option %s\n", arg.c_str());
        usage();
        return 2;
      }
    } catch (const std::exception&) {
      std::fprintf(stderr, "ragscope-testserver: bad value for %s\n", arg.c_str());
      return 2;
    }
  }

  // Block the stop signals in every thread (the server's threads inherit the mask) and wait for
  // them here, so shutdown runs in ordinary code rather than in a signal handler.
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGINT);
  sigaddset(&stopSignals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);

  TestServer server(options);
  server.setBatchOptions(batchOptions);
  if (rateLimitFirst > 0) {
    Rule r = ragscope::testserver::rule(Behaviour::RateLimit, rateLimitFirst, "/chat/completions");
    r.retryAfter = retryAfter;
    server.addRule(r);
  }
  if (!server.start()) {
    std::fprintf(stderr, "ragscope-testserver: cannot listen on 127.0.0.1:%d\n", options.port);
    return 1;
  }
  std::printf("%d\n", server.port());
  std::fflush(stdout);

  if (stdinEof) {
    std::thread([] {
      char buf[256];
      while (std::fread(buf, 1, sizeof buf, stdin) > 0) {
      }
      kill(getpid(), SIGTERM);
    }).detach();
  }
  int sig = 0;
  sigwait(&stopSignals, &sig);
  server.stop();
  std::fprintf(stderr,
               "ragscope-testserver: %zu requests served (%zu embeddings requests, %zu inputs)\n",
               server.requestCount(), server.embeddingRequests(), server.embeddingInputs());
  return 0;
}
