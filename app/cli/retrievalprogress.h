#pragma once
// How ragscope-cli shows a retrieval while it runs and once it is done, the same for `retrieve`
// and for the retrieval step of the job commands (erag, e2e, judge: core/eval/api/job.h's
// JobCallbacks): a one-line progress on a terminal ("embedding... 42%"), and what was built or
// reused (the BM25 index, the dense index with the embedding requests it sent).

#include <memory>
#include <string>

#include "core/data/diagnostic.h"
#include "core/eval/api/job.h"
#include "core/retrieval/retrieverspec.h"

namespace ragscope::cli {

// A progress line on stderr, redrawn in place when the percentage changes; shown only when
// stderr is a terminal (a log gets no carriage returns) and not `quiet`.
class TerminalProgress {
 public:
  explicit TerminalProgress(bool quiet = false);
  // A callback drawing "WHAT... N%"; it never asks to stop.
  core::ProgressFn line(std::string what);
  // Erases the line drawn, if any.
  void clear();

 private:
  struct State;
  std::shared_ptr<State> m_state;  // shared with the callbacks handed out
};

// "DIR: reused (nothing embedded), N documents, D dimensions" or "DIR: built: C embedding
// requests sent, ...": a dense index as `retrieve` reports it after "dense index: ".
std::string describeDenseIndex(const core::DenseIndexResult& dense);

// The job commands' retrieval step: its index, embedding and retrieval progress on `progress`,
// and, unless quiet, a line per index built or reused when the run is made ("erag: bm25 index
// DIR (built), 145 documents retrieved"; "erag: dense index DIR: built: ...").
void reportRetrievalStep(core::eval::JobCallbacks& callbacks, const std::string& job, bool quiet,
                         TerminalProgress& progress);

}  // namespace ragscope::cli
