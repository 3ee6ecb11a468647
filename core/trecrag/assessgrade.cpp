#include "core/trecrag/assessgrade.h"

#include <cctype>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/util/jsonstrict.h"

namespace ragscope::core::trecrag {

namespace {

bool space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// Consumes `word` (case-insensitive) at the start of `s`.
bool eat(std::string_view& s, std::string_view word) {
  if (s.size() < word.size()) return false;
  for (std::size_t i = 0; i < word.size(); ++i)
    if (lower(s[i]) != word[i]) return false;
  s.remove_prefix(word.size());
  return true;
}

void eatSpaces(std::string_view& s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
}

// A whole number of at most 9 digits with an optional sign; nullopt otherwise.
std::optional<long> wholeNumber(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool negative = false;
  if (s.front() == '-' || s.front() == '+') {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || s.size() > 9) return std::nullopt;
  long v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return negative ? -v : v;
}

GradeReading graded(long v) {
  GradeReading r;
  if (v < 0 || v > kMaxGrade) {
    r.problem = "grade " + std::to_string(v) + " is outside the scale 0..3";
    return r;
  }
  r.grade = static_cast<int>(v);
  return r;
}

GradeReading unparsed(std::string why) {
  GradeReading r;
  r.problem = std::move(why);
  return r;
}

// The value of a "##final score: N" line, or nullopt when the line is not one.
std::optional<std::string_view> finalScoreValue(std::string_view line) {
  line = trim(line);
  while (!line.empty() && line.front() == '*') line.remove_prefix(1);  // **##final score: 2**
  while (!line.empty() && line.back() == '*') line.remove_suffix(1);
  line = trim(line);
  if (!eat(line, "##")) return std::nullopt;
  eatSpaces(line);
  if (!eat(line, "final")) return std::nullopt;
  eatSpaces(line);
  if (!eat(line, "score")) return std::nullopt;
  eatSpaces(line);
  if (!eat(line, ":")) return std::nullopt;
  line = trim(line);
  if (!line.empty() && line.back() == '.') line.remove_suffix(1);
  return trim(line);
}

std::string_view withoutFence(std::string_view s) {
  if (s.substr(0, 3) != "```") return s;
  const auto firstLine = s.find('\n');
  if (firstLine == std::string_view::npos || s.size() < 6 || s.substr(s.size() - 3) != "```")
    return s;
  const std::string_view tag = trim(s.substr(3, firstLine - 3));
  if (!tag.empty() && tag != "json" && tag != "JSON") return s;
  return trim(s.substr(firstLine + 1, s.size() - 3 - firstLine - 1));
}

}  // namespace

GradeReading readGrade(std::string_view reply) {
  const std::string_view text = trim(reply);
  if (text.empty()) return unparsed("the reply is empty");

  const std::string_view body = withoutFence(text);
  if (!body.empty() && body.front() == '{') {
    nlohmann::json doc;
    JsonStrictError why;
    if (!parseJsonStrict(body, doc, &why))
      return unparsed("the reply is not valid JSON: " + describeJsonStrictError(why));
    if (!doc.is_object()) return unparsed("the JSON reply is not an object");
    const auto it = doc.find("grade");
    if (it == doc.end()) return unparsed("the JSON reply has no \"grade\"");
    if (!it->is_number_integer()) return unparsed("\"grade\" is not a whole number");
    if (it->is_number_unsigned()) {
      const auto u = it->get<std::uint64_t>();
      return graded(u > 1000 ? 1000 : static_cast<long>(u));
    }
    const auto v = it->get<std::int64_t>();
    return graded(v < -1000 ? -1000 : v > 1000 ? 1000 : static_cast<long>(v));
  }

  if (const auto bare = wholeNumber(text)) return graded(*bare);

  std::vector<std::string_view> values;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    if (const auto v = finalScoreValue(text.substr(pos, end - pos))) values.push_back(*v);
    pos = end + 1;
  }
  if (values.empty()) return unparsed("no '##final score: N' line");
  if (values.size() > 1)
    return unparsed(std::to_string(values.size()) + " '##final score' lines (one grade needed)");
  const auto v = wholeNumber(values.front());
  if (!v) {
    std::string shown(values.front().substr(0, 40));
    return unparsed("final score '" + shown + "' is not a whole number");
  }
  return graded(*v);
}

}  // namespace ragscope::core::trecrag
