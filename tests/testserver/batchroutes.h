#pragma once
// The test server's Batch API (core/llm/README.md, "Batch calls"): POST /v1/files (multipart,
// purpose "batch"), GET /v1/files/ID/content, POST /v1/batches, GET /v1/batches/ID and
// POST /v1/batches/ID/cancel. A batch's lines are answered when it is created, by the same code
// as live calls (the server's rules and scripted answers: TestServer passes its line runner), so
// a batch and a live run give the same replies. Its states then follow the clock: validating for
// the first 10% of BatchServerOptions::batchMs, in_progress (request_counts growing), finalizing
// for the last 10%, then its end state (completed, expired, failed), or cancelling -> cancelled
// after a cancel. Lines answered with a status >= 400 go to the error file; lines not done when a
// batch expired or was cancelled are in neither file.

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace ragscope::testserver {

struct BatchServerOptions {
  int batchMs = 0;                     // how long a batch runs
  std::string endState = "completed";  // completed | expired | failed
  int expireAfterLines = 0;            // expired: the lines done before it expired
  bool reverseOutput = true;           // output lines in reverse order (the order is free)
  // Faults of a server that loses what was paid for:
  int downloadStatus = 200;         // GET /files/ID/content answers with this (302: an empty
                                    // redirect to elsewhere; 204: no content)
  bool omitOutputFileId = false;    // a completed batch names no output_file_id (nor error file)
  std::size_t dropOutputLines = 0;  // this many lines left out of a completed batch's output file
};

struct BatchCounters {
  std::size_t filesUploaded = 0;
  std::size_t batchesCreated = 0;
  std::size_t batchesCancelled = 0;
  std::size_t batchPolls = 0;  // GET /batches/ID
  std::size_t linesRun = 0;    // lines answered inside batches
  std::size_t downloads = 0;   // GET /files/ID/content
};

class BatchRoutes {
 public:
  // Answers one line as a live call to `url` with `body` would be: (HTTP status, reply body).
  using LineRunner =
      std::function<std::pair<int, std::string>(const std::string& url, const std::string& body)>;
  explicit BatchRoutes(LineRunner run) : m_run(std::move(run)) {}

  void setOptions(BatchServerOptions options);
  // Handles the routes above; false when `path` is none of them. `file` is the uploaded file's
  // content (multipart field "file"), `purpose` the field "purpose".
  bool handle(const std::string& method, const std::string& path, const std::string& body,
              const std::string* file, const std::string& purpose, int& status, std::string& reply);
  BatchCounters counters() const;
  std::vector<std::string> uploadedFiles() const;  // input files, in upload order

 private:
  struct Line {
    std::string customId;
    bool failed = false;  // goes to the error file
    std::string json;     // the output line
  };
  struct Batch {
    std::string id;
    std::string endpoint;
    std::string inputFileId;
    std::chrono::steady_clock::time_point created;
    std::vector<Line> lines;
    std::string validationError;  // the input was refused: status failed
    bool cancelRequested = false;
    std::size_t doneAtCancel = 0;
    bool cancelSeen = false;  // one poll saw "cancelling"
    std::string outputFileId, errorFileId;
    std::string finalStatus;  // set once terminal
  };
  std::string batchJson(Batch& b);  // under m_mutex
  void finishFiles(Batch& b, std::size_t done);

  LineRunner m_run;
  mutable std::mutex m_mutex;
  BatchServerOptions m_options;
  std::map<std::string, std::string> m_files;  // id -> content
  std::vector<std::string> m_uploads;
  std::map<std::string, Batch> m_batches;
  BatchCounters m_counters;
  int m_next = 1;
};

}  // namespace ragscope::testserver
