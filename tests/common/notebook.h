#pragma once
// The claim-level evaluation notebook's worked example (core/claims/README.md, "Notebook metrics"):
// Apple's net sales, the claims its judge extracted from the response and from the gold answer, and
// that judge's verdicts scripted as a test server's answer function, so that a judging run through
// the real engine (CLI, core job or the GUI's Claims page) reproduces faithfulness 1.0 (0.5 after
// the 2022 -> 1922 change), correctness 0.5 and coverage 2/6.

#include <string>
#include <vector>

#include "core/llm/offline.h"

namespace ragscope::test::notebook {

// The notebook's example: the claims as its judge extracted them.
inline const std::vector<std::string> kResponseClaims = {
    "Apple's total net sales experienced a decline over the last year.",
    "The three-month period ended July 1, 2023, saw a total net sale of $81,797 million.",
    "This was a 1% decrease from the same period in 2022.",
    "The nine-month period ended July 1, 2023, had a 3% decrease in net sales compared to the "
    "first nine months of 2022.",
    "The downward trend continued into the three and six-month periods ending April 1, 2023.",
    "Apple's total net sales decreased by 3% and 4% respectively, compared to the same periods in "
    "2022."};
inline const std::vector<std::string> kGoldClaims = {
    "For the quarterly period ended June 25, 2022, the total net sales were $82,959 million.",
    "For the quarterly period ended December 31, 2022, the total net sales were $117,154 million.",
    "For the quarterly period ended April 1, 2023, the total net sales were $94,836 million.",
    "For the quarterly period ended July 1, 2023, the total net sales were $81,797 million.",
    "There was an increase in total net sales from the quarter ended June 25, 2022, to the quarter "
    "ended December 31, 2022.",
    "There was a decrease in total net sales in the quarters ended April 1, 2023, and July 1, "
    "2023."};

inline std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

inline std::string replace2022(std::string s) {
  for (auto at = s.find("2022"); at != std::string::npos; at = s.find("2022", at + 4))
    s.replace(at, 4, "1922");
  return s;
}

inline std::vector<std::string> claimsOfPrompt(const std::string& prompt) {
  return core::llm::parsePromptSections(prompt).claims;
}

// The notebook's judge, scripted: the claims it extracted and the labels it printed.
inline std::string notebookJudge(const std::string& prompt) {
  if (prompt.rfind("Break the text", 0) == 0) {
    std::vector<std::string> claims =
        prompt.find("82,959") != std::string::npos ? kGoldClaims : kResponseClaims;
    if (prompt.find("1922") != std::string::npos)
      for (auto& c : claims) c = replace2022(c);
    std::string out;
    for (const auto& c : claims) out += "- " + c + "\n";
    return out;
  }
  const auto sections = core::llm::parsePromptSections(prompt);
  std::string docs;
  for (const auto& p : sections.passages) docs += p;
  const bool vsChunks = docs.find("Total net sales") != std::string::npos;  // the 10-Q passages
  const bool vsGold = docs.find("SOURCE(S)") != std::string::npos;
  std::string out;
  for (const auto& c : sections.claims) {
    bool supported;
    if (vsChunks) {
      supported = c.find("1922") == std::string::npos;  // Faithfulness 1.0, then R3, R4, R6 fail
    } else if (vsGold) {
      supported = c != kResponseClaims[2] && c != kResponseClaims[3] && c != kResponseClaims[5];
    } else {
      supported = c == kGoldClaims[3] || c == kGoldClaims[5];  // Coverage 2/6
    }
    out += "- " + c + (supported ? " SUPPORTED=1\n" : " SUPPORTED=0\n");
  }
  return out;
}

// The question, gold answer (with its sources line) and the two 10-Q passages of the example.
inline const char* kQuestion = "How has Apple's total net sales changed over time?";
inline std::string gold() {
  return joined(kGoldClaims) +
         "\nSOURCE(S): 2022 Q3 AAPL.pdf, 2022 Q4 AAPL.pdf, 2023 Q1 AAPL.pdf, 2023 Q2 AAPL.pdf, "
         "2023 Q3 AAPL.pdf";
}
inline const std::vector<std::pair<std::string, std::string>> kChunks = {
    {"2023 Q2 AAPL.pdf#16",
     "Total net sales for the three months ended April 1, 2023 were $94,836 million and $117,154 "
     "million for the quarter before."},
    {"2023 Q3 AAPL.pdf#16",
     "Total net sales for the three months ended July 1, 2023 were $81,797 million."}};

}  // namespace ragscope::test::notebook
