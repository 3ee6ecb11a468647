#pragma once
// Resuming a retrieval over a remote service: every query a retriever answered is appended (and
// flushed) to a checkpoint file beside the run being made, so a job that was cancelled, crashed
// or killed asks the service again only for the queries it had not answered. A checkpoint holds
// no URL or key: its first line names the settings by a hash, and one made with other settings
// (another URL, index, field, k) is set aside, never reused.
//
//   RetrieveCheckpoint cp(runPath.string() + ".partial", settingsKey, &note);
//   CheckpointedRetriever resumable(*inner, cp);
//   Loaded<Run> run = retrieveAll(resumable, queries, options);
//   if (!run.report.hasErrors() && !run.report.cancelled) cp.remove();

#include <cstddef>
#include <filesystem>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/retrieval/retriever.h"

namespace ragscope::core {

class RetrieveCheckpoint {
 public:
  // Opens (or starts) the checkpoint at `path` for the settings named by `settingsKey`. Answers
  // recorded under the same key are kept; a file under another key, or one that cannot be read,
  // is replaced, and *note says why. A last line cut short by a crash is dropped (its query is
  // asked again). When the file cannot be written, now or later, ok() turns false and error()
  // says why; the answers still flow, only the resume is lost.
  // A symlink or special file at `path` is refused untouched (ok() false).
  RetrieveCheckpoint(std::filesystem::path path, const std::string& settingsKey,
                     std::string* note = nullptr);
  ~RetrieveCheckpoint();
  RetrieveCheckpoint(const RetrieveCheckpoint&) = delete;
  RetrieveCheckpoint& operator=(const RetrieveCheckpoint&) = delete;

  bool ok() const { return m_error.empty(); }
  const std::string& error() const { return m_error; }
  const std::filesystem::path& path() const { return m_path; }

  // Queries answered before this job started.
  std::size_t resumed() const { return m_answers.size(); }
  // The answer recorded for `queryId`, or null.
  const std::vector<ScoredDoc>* answer(const std::string& queryId) const;
  // Appends an answer (thread-safe) and flushes it to the file; false (and error()) on failure.
  bool record(const std::string& queryId, const std::vector<ScoredDoc>& docs, std::string* error);
  // Deletes the file: the run it served is complete.
  void remove();

 private:
  std::filesystem::path m_path;
  std::string m_error;
  std::unordered_map<std::string, std::vector<ScoredDoc>> m_answers;
  std::mutex m_mutex;
  int m_fd = -1;  // appended to, opened without following links
};

// A retriever that answers from the checkpoint when it can and records what `inner` answers.
// A failed query is not recorded, so it is asked again next time.
class CheckpointedRetriever : public Retriever {
 public:
  CheckpointedRetriever(Retriever& inner, RetrieveCheckpoint& checkpoint)
      : m_inner(inner), m_checkpoint(checkpoint) {}
  std::string name() const override { return m_inner.name(); }
  std::vector<ScoredDoc> search(const Query& query, std::size_t k, std::string* error) override;

 private:
  Retriever& m_inner;
  RetrieveCheckpoint& m_checkpoint;
};

}  // namespace ragscope::core
