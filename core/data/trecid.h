#pragma once
// Document and query ids in TREC files.

#include <string>
#include <string_view>

namespace ragscope::core {

// TREC files are whitespace-separated, but chunk ids of PDF corpora hold spaces
// ("2023 Q3 AAPL.pdf#3#0"). So whitespace, control bytes and '%' itself are written
// percent-encoded (space %20, tab %09, '%' %25: two upper-case hex digits); every other byte is
// left alone, so ordinary ids never change. decodeTrecId, which the TREC run and qrels readers
// apply to qids and docnos, reverses exactly those escapes (either hex case) and keeps any other
// '%' as it is ("50%", "%zz", "%41" read as written), so decodeTrecId(encodeTrecId(s)) == s for
// every byte string. The one ambiguity is a file from elsewhere whose id literally holds "%20" or
// "%25": it reads as " " or "%" (core/data/README.md, "TREC ids").
std::string encodeTrecId(std::string_view id);
std::string decodeTrecId(std::string_view id);

// True when `id` holds an escape decodeTrecId reverses (a cheap test before decoding).
bool hasTrecEscape(std::string_view id);

}  // namespace ragscope::core
