#pragma once
// The retrieval step a job page offers beside the dataset's runs (eRAG, Claims): choice 0 is the
// built-in BM25 over the dataset's corpus (default settings), choice 1 + i the project's saved
// retriever i (bm25, es, http, dense, hybrid; the Retrievers page configures them), by name. The
// job runs the chosen core::RetrieverSpec as its first step (RunSource::Type::Retriever,
// core/eval/api/README.md); JobLauncher::launchWithRetriever confirms one that calls an endpoint
// before anything is sent. Each page keeps the choice in its selector's item data, counting down
// from a base of its own (base - choice), beside the run indexes (>= 0).

#include <QString>
#include <cstddef>

#include "core/retrieval/retrieverspec.h"

namespace ragscope::core::eval {
struct RetrievedRun;
}

namespace ragscope::ui {

class Workbench;

// 1 + the project's saved retrievers.
int retrieverChoiceCount(const Workbench& workbench);
// The spec of `choice` (0: BM25 with the default settings; out of range: the same).
core::RetrieverSpec retrieverChoiceSpec(const Workbench& workbench, int choice);
// The name a retriever's runs are tagged with: its own, else its kind ("bm25").
QString retrieverName(const core::RetrieverSpec& spec);
// "dense-offline: dense (offline hashed bag of words, FAISS flat)", for a selector's item.
QString describeRetrieverChoice(const core::RetrieverSpec& spec);
// The estimate line before the step has run (its calls are counted once its run exists): what
// retrieves the top k of every query first, and what the first run costs (an index build, the
// corpus embedded, queries sent to a server).
QString retrievalStepNote(const core::RetrieverSpec& spec, std::size_t k);
// " (index built in DIR)", " (index reused from DIR; vector index built in DIR, 4 embedding
// calls sent, 0 from the cache)": where the step's indexes are and what it built, for the note
// under the form. Empty when the retriever keeps no index (es, http).
QString describeRetrievalIndexes(const core::eval::RetrievedRun& run);
// The run's tag as the job names it: "<name>-top<k>" (core::eval::resolveRun).
QString retrievedRunTag(const core::RetrieverSpec& spec, std::size_t k);

}  // namespace ragscope::ui
