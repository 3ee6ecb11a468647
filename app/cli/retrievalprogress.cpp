// Progress and outcome lines of a retrieval (retrievalprogress.h).

#include "app/cli/retrievalprogress.h"

#include <unistd.h>

#include <iostream>
#include <mutex>
#include <sstream>

namespace ragscope::cli {

using namespace ragscope::core;

struct TerminalProgress::State {
  std::mutex mutex;  // retrievals report from their worker threads
  bool shown = false;
  int percent = -1;
  std::string what;
  bool enabled = false;
};

TerminalProgress::TerminalProgress(bool quiet) : m_state(std::make_shared<State>()) {
  m_state->enabled = !quiet && isatty(STDERR_FILENO) != 0;
}

ProgressFn TerminalProgress::line(std::string what) {
  return [state = m_state, what = std::move(what)](std::uint64_t done, std::uint64_t total) {
    if (!state->enabled) return true;
    const int pct = total > 0 ? static_cast<int>(100 * done / total) : 0;
    std::lock_guard lock(state->mutex);
    if (pct != state->percent || what != state->what) {
      state->percent = pct;
      state->what = what;
      state->shown = true;
      std::cerr << "\r" << what << "... " << pct << "%   " << std::flush;
    }
    return true;
  };
}

void TerminalProgress::clear() {
  std::lock_guard lock(m_state->mutex);
  if (m_state->shown) std::cerr << "\r                              \r" << std::flush;
  m_state->shown = false;
  m_state->percent = -1;
}

std::string describeDenseIndex(const DenseIndexResult& dense) {
  std::ostringstream s;
  s << dense.dir.string() << ": ";
  if (dense.reused)
    s << "reused (nothing embedded)";
  else
    s << "built: " << dense.calls << " embedding requests sent, " << dense.fromCache
      << " answered by the response cache, " << dense.embedSeconds << " s embedding, "
      << dense.indexSeconds << " s indexing"
      << (dense.rebuildReason.empty() ? "" : " (" + dense.rebuildReason + ")");
  s << ", " << dense.documents << " documents, " << dense.dimensions << " dimensions";
  return s.str();
}

void reportRetrievalStep(eval::JobCallbacks& callbacks, const std::string& job, bool quiet,
                         TerminalProgress& progress) {
  callbacks.indexProgress = progress.line("indexing");
  callbacks.embedProgress = progress.line("embedding");
  callbacks.retrieveProgress = progress.line("retrieving");
  callbacks.retrieved = [job, quiet, &progress](const eval::RetrievedRun& r) {
    progress.clear();
    if (quiet) return;
    if (r.index.ok)
      std::cerr << job << ": bm25 index " << r.index.dir.string()
                << (r.index.reused ? " (reused)" : " (built)") << "\n";
    if (r.dense.ok) {
      std::cerr << job << ": dense index " << describeDenseIndex(r.dense) << "\n";
      if (!r.dense.batchNote.empty()) std::cerr << r.dense.batchNote;
      if (!r.dense.trustNote.empty())
        std::cerr << "ragscope-cli: " << job << ": " << r.dense.trustNote << "\n";
    }
    std::cerr << job << ": " << r.run.entryCount() << " documents retrieved";
    if (r.queriesFailed > 0) std::cerr << ", " << r.queriesFailed << " queries failed";
    std::cerr << "\n";
  };
}

}  // namespace ragscope::cli
