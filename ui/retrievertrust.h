#pragma once
// A retriever's key goes only where this machine's user said it may (DESIGN: secrets are never
// sent to a server a file names unless the user confirmed that endpoint). A retriever saved on the
// Retrievers page is recorded as configured; one read from a project file is asked about before
// its first request, and the answer is recorded in the same registry as LLM endpoints
// (core/llm/trustedendpoints.h).

#include <QString>

#include "core/retrieval/retrieverspec.h"

class QWidget;

namespace ragscope::ui {

// True when the retriever sends no key, when the registry lists its URL with its key variable, or
// when the user confirms it now (recorded). Where nobody can answer (offscreen) it declines, and
// *why says what to do.
bool confirmRetrieverKey(QWidget* parent, const core::RetrieverSpec& spec, QString* why);

// The user configured this retriever (the Retrievers page's "Save changes"): recorded as trusted.
void trustRetriever(const core::RetrieverSpec& spec);

}  // namespace ragscope::ui
