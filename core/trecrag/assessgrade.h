#pragma once
// The strict reading of an assessor's reply (core/trecrag/README.md, "Assessment: replies"): a
// grade 0..3, or "unparsed" with the reason. An unparsed reply is a state that is counted and
// shown; it is never read as a grade (not 0, not the nearest valid number).
//
// Accepted, and nothing else:
//  - exactly one line "##final score: N" (case and spaces around the words and the colon free;
//    markdown bold around the line and a final '.' tolerated), N a whole number;
//  - the whole reply a JSON object (optionally in a ```json fence) with an integer member
//    "grade" (other members ignored; a repeated member name refused);
//  - the whole reply a whole number alone ("2").
// N must lie on the scale 0..3. Two final-score lines (even agreeing ones), a value like "2.5",
// "two", "2/3", an empty value, or a grade outside 0..3 are unparsed.
//
//   GradeReading r = readGrade(reply);
//   if (r.grade) use(*r.grade); else show(r.problem);

#include <optional>
#include <string>
#include <string_view>

namespace ragscope::core::trecrag {

inline constexpr int kMaxGrade = 3;

struct GradeReading {
  std::optional<int> grade;  // 0..3; nullopt: unparsed
  std::string problem;       // why not (empty when graded)
};

GradeReading readGrade(std::string_view reply);

}  // namespace ragscope::core::trecrag
