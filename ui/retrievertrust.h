#pragma once
// An es, http or dense retriever (and so a hybrid with one) sends the dataset's queries (the user's
// data, as prompts are) and its key, when it has one, only where this machine's user said it may
// (core/retrieval/README.md, "Trust": nothing goes to a server a file names unless the user
// confirmed that endpoint). A retriever saved on the Retrievers page is recorded as configured; one
// read from a project file is asked about before its first request, keyed or not, and the answer is
// recorded in the same registry as LLM endpoints (core/llm/trustedendpoints.h; a URL without a key
// is an entry of its own). BM25 and offline embeddings are local and are never asked about.

#include <QString>
#include <functional>
#include <string>

#include "core/retrieval/retrieverspec.h"

class QWidget;

namespace ragscope::ui {

// True for bm25, when the registry lists each URL the retriever calls
// (core::retrieverTrustEndpoints: a dense retriever's embeddings endpoint, an es kNN query
// embedder, every member of a hybrid) with its key sources (any entry of the URL when it has no
// key), or when the user confirms them now (recorded). Where nobody can answer (offscreen) it
// declines, and *why says what to do.
bool confirmRetriever(QWidget* parent, const core::RetrieverSpec& spec, QString* why);

// The retriever's key for a job: from its keychain entry when it names one (read asynchronously,
// falling back to its environment variable with a note), else from the variable at each request.
// `done` runs once on `context`'s thread: ok, the key in memory (empty function: use the variable)
// and a note or the reason it failed.
void resolveRetrieverKey(
    const core::RetrieverSpec& spec, QObject* context,
    std::function<void(bool ok, std::function<std::string()> key, const QString& message)> done);

// The user configured this retriever (the Retrievers page's "Save changes"): every endpoint it
// calls is recorded as trusted.
void trustRetriever(const core::RetrieverSpec& spec);

}  // namespace ragscope::ui
