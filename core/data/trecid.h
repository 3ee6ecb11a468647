#pragma once
// Document and query ids in TREC files.

#include <string>
#include <string_view>

namespace ragscope::core {

// TREC files are whitespace-separated, but chunk ids of PDF corpora hold spaces
// ("2023 Q3 AAPL.pdf#3#0"). Whitespace and control bytes are written percent-encoded (space %20,
// tab %09, ...); other bytes, '%' included, are left alone so ordinary ids never change.
// decodeTrecId, which the TREC run and qrels readers apply, reverses exactly those escapes (an id
// that literally holds "%20" is the one ambiguity, and no real collection we know has one).
std::string encodeTrecId(std::string_view id);
std::string decodeTrecId(std::string_view id);

// True when `id` holds an escape encodeTrecId writes (cheap test before decoding).
bool hasTrecEscape(std::string_view id);

}  // namespace ragscope::core
