#pragma once
// A retriever's key goes only where this machine's user said it may (DESIGN: secrets are never
// sent to a server a file names unless the user confirmed that endpoint). A retriever saved on the
// Retrievers page is recorded as configured; one read from a project file is asked about before
// its first request, and the answer is recorded in the same registry as LLM endpoints
// (core/llm/trustedendpoints.h).

#include <QString>

#include <functional>
#include <string>

#include "core/retrieval/retrieverspec.h"

class QWidget;

namespace ragscope::ui {

// True when the retriever sends no key, when the registry lists its URL with its key variable, or
// when the user confirms it now (recorded). Where nobody can answer (offscreen) it declines, and
// *why says what to do.
bool confirmRetrieverKey(QWidget* parent, const core::RetrieverSpec& spec, QString* why);

// The retriever's key for a job: from its keychain entry when it names one (read asynchronously,
// falling back to its environment variable with a note), else from the variable at each request.
// `done` runs once on `context`'s thread: ok, the key in memory (empty function: use the variable)
// and a note or the reason it failed.
void resolveRetrieverKey(const core::RetrieverSpec& spec, QObject* context,
                         std::function<void(bool ok, std::function<std::string()> key, const QString& message)> done);

// The user configured this retriever (the Retrievers page's "Save changes"): recorded as trusted.
void trustRetriever(const core::RetrieverSpec& spec);

}  // namespace ragscope::ui
