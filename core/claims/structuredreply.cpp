#include "core/claims/structuredreply.h"

#include <climits>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/util/jsonkeep.h"
#include "core/util/textescape.h"

namespace ragscope::core::claims {

namespace {

using nlohmann::json;

// The schema's labels, spelt as the text verdicts are (judgeparse.h).
struct ScaleLabel {
  const char* name;
  Label label;
};
const std::vector<ScaleLabel>& scaleLabels(VerdictScale scale) {
  static const std::vector<ScaleLabel> binary = {{"SUPPORTED=1", Label::Supported},
                                                 {"SUPPORTED=0", Label::Unsupported}};
  static const std::vector<ScaleLabel> threeWay = {{"Entailment", Label::Entailment},
                                                   {"Neutral", Label::Neutral},
                                                   {"Contradiction", Label::Contradiction}};
  return scale == VerdictScale::Binary ? binary : threeWay;
}

json objectSchema(const char* member, json items) {
  return {{"type", "object"},
          {"properties", {{member, {{"type", "array"}, {"items", std::move(items)}}}}},
          {"required", {member}},
          {"additionalProperties", false}};
}

std::string makeVerdictSchema(VerdictScale scale) {
  json labels = json::array();
  for (const auto& l : scaleLabels(scale)) labels.push_back(l.name);
  const json entry = {
      {"type", "object"},
      {"properties",
       {{"claim",
         {{"type", "integer"},
          {"description", "the claim's number: 1 for the first claim listed, 2 for the next"}}},
        {"label", {{"type", "string"}, {"enum", std::move(labels)}}}}},
      {"required", {"claim", "label"}},
      {"additionalProperties", false}};
  return objectSchema("verdicts", entry).dump();
}

// The parser's message without nlohmann's "[json.exception.parse_error.101] " prefix.
std::string structuredParseError(const std::string& why) {
  const auto close = why.find("] ");
  std::string text = close != std::string::npos && !why.empty() && why.front() == '['
                         ? why.substr(close + 2)
                         : why;
  if (text.size() > 160) text = text.substr(0, 160) + "...";
  return "the reply is not JSON (" + escapeControlChars(text) + ")";
}

// Reads `reply` keeping `keep`; the top-level value must be an object with `member`. Sets
// *problem and returns nullptr otherwise.
const json* structuredMember(std::string_view reply, const JsonKeep& keep, const char* member,
                             json& doc, std::string* problem) {
  JsonStrictError why;
  if (!parseJsonKeeping(reply, keep, &doc, &why)) {
    // A repeated member would let one list hide behind another (json::parse keeps the last):
    // refused like any reply that is not the schema's JSON.
    *problem = why.repeated || why.tooDeep
                   ? "the reply is not strict JSON: " +
                         escapeControlChars(describeJsonStrictError(why).substr(0, 200))
                   : structuredParseError(why.problem);
    return nullptr;
  }
  if (!doc.is_object()) {
    *problem = "the reply is not a JSON object";
    return nullptr;
  }
  const auto it = doc.find(member);
  if (it == doc.end()) {
    *problem = std::string("the reply has no \"") + member + "\" member";
    return nullptr;
  }
  if (!it->is_array()) {
    *problem = std::string("\"") + member + "\" is not an array";
    return nullptr;
  }
  return &*it;
}

std::string claimText(const std::string& raw) {
  std::string s = raw;
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  const auto first = s.find_first_not_of(' ');
  if (first == std::string::npos) return {};
  return s.substr(first, s.find_last_not_of(' ') - first + 1);
}

std::optional<long long> claimNumber(const json& v) {
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(LLONG_MAX))
      return LLONG_MAX;
    return v.get<long long>();
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9e15)
      return static_cast<long long>(d);
  }
  return std::nullopt;
}

}  // namespace

const std::string& claimListSchema() {
  static const std::string text = objectSchema("claims", {{"type", "string"}}).dump();
  return text;
}

const std::string& verdictListSchema(VerdictScale scale) {
  static const std::string binary = makeVerdictSchema(VerdictScale::Binary);
  static const std::string threeWay = makeVerdictSchema(VerdictScale::ThreeWay);
  return scale == VerdictScale::Binary ? binary : threeWay;
}

const char* verdictSchemaName(VerdictScale scale) {
  return scale == VerdictScale::Binary ? kBinaryVerdictsSchemaName : kThreeWayVerdictsSchemaName;
}

ClaimListParse parseClaimListJson(std::string_view reply) {
  ClaimListParse out;
  JsonKeep keep;
  JsonKeep& claims = keep.step("claims");
  claims.firstElements = kMaxJsonClaims + 1;  // one more tells a runaway list
  json doc;
  const json* list = structuredMember(reply, keep, "claims", doc, &out.problem);
  if (!list) return out;
  if (list->size() > kMaxJsonClaims) {
    out.problem = "the reply lists more than " + std::to_string(kMaxJsonClaims) + " claims";
    return out;
  }
  for (std::size_t i = 0; i < list->size(); ++i) {
    const json& c = (*list)[i];
    if (!c.is_string()) {
      out.claims.clear();
      out.problem = "claims[" + std::to_string(i) + "] is not a string";
      return out;
    }
    std::string text = claimText(c.get<std::string>());
    if (!text.empty()) out.claims.push_back(std::move(text));
  }
  return out;
}

VerdictParse parseVerdictsJson(std::string_view reply, std::size_t claimCount, VerdictScale scale) {
  VerdictParse out;
  out.labels.assign(claimCount, Label::Unparsed);
  if (claimCount == 0) return out;
  JsonKeep keep;
  JsonKeep& verdicts = keep.step("verdicts");
  // Each claim has one entry; a list more than twice as long is a runaway reply, read no further.
  const std::size_t maxEntries = 2 * claimCount + 10;
  verdicts.firstElements = maxEntries + 1;
  auto entry = std::make_shared<JsonKeep>();
  entry->step("claim");
  entry->step("label");
  verdicts.elements = entry;
  json doc;
  std::string problem;
  const json* list = structuredMember(reply, keep, "verdicts", doc, &problem);
  if (list && list->size() > maxEntries)
    problem = "the reply lists more than " + std::to_string(maxEntries) + " verdicts for " +
              std::to_string(claimCount) + " claims";
  // The whole list is checked against the schema before any label is taken from it.
  const auto& labels = scaleLabels(scale);
  std::vector<std::pair<long long, Label>> entries;
  for (std::size_t i = 0; problem.empty() && i < list->size(); ++i) {
    const json& e = (*list)[i];
    const std::string where = "verdicts[" + std::to_string(i) + "]";
    if (!e.is_object()) {
      problem = where + " is not an object";
      break;
    }
    const auto number = e.find("claim");
    const auto label = e.find("label");
    std::optional<long long> k;
    if (number != e.end()) k = claimNumber(*number);
    if (!k) {
      problem = where + ".claim is " + (number == e.end() ? "missing" : "not an integer");
      break;
    }
    if (label == e.end() || !label->is_string()) {
      problem = where + ".label is " + (label == e.end() ? "missing" : "not a string");
      break;
    }
    const std::string name = label->get<std::string>();
    const ScaleLabel* found = nullptr;
    for (const auto& l : labels)
      if (name == l.name) found = &l;
    if (!found) {
      std::string allowed;
      for (const auto& l : labels) allowed += std::string(allowed.empty() ? "" : ", ") + l.name;
      problem = where + ".label \"" + escapeControlChars(name.substr(0, 40)) + "\" is not one of " +
                allowed;
      break;
    }
    entries.emplace_back(*k, found->label);
  }
  if (!problem.empty()) {
    out.problems.push_back(std::move(problem));
    return out;
  }
  std::vector<std::size_t> seen(claimCount, 0);
  std::vector<Label> label(claimCount, Label::Unparsed);
  std::vector<std::string> strays;
  for (const auto& [k, l] : entries) {
    if (k < 1 || static_cast<unsigned long long>(k) > claimCount) {
      strays.push_back("an entry numbers no claim (" + std::to_string(k) + ")");
      continue;
    }
    const auto i = static_cast<std::size_t>(k - 1);
    ++seen[i];
    label[i] = l;
  }
  for (std::size_t i = 0; i < claimCount; ++i) {
    const std::string name = "claim " + std::to_string(i + 1);
    if (seen[i] == 0)
      out.problems.push_back(name + ": no entry");
    else if (seen[i] > 1)
      out.problems.push_back(name + ": on " + std::to_string(seen[i]) + " entries");
    else
      out.labels[i] = label[i];
  }
  for (auto& s : strays) out.problems.push_back(std::move(s));
  return out;
}

std::string structuredRepairInstruction(const std::vector<std::string>& problems) {
  std::string s = "Your reply could not be read:";
  for (std::size_t i = 0; i < problems.size() && i < 10; ++i) s += (i ? "; " : " ") + problems[i];
  if (problems.size() > 10) s += "; and " + std::to_string(problems.size() - 10) + " more";
  s += ".\nReply again with one JSON object that follows the response schema and nothing else; "
       "for verdicts, one entry per claim, numbered 1 for the first claim listed.";
  return s;
}

}  // namespace ragscope::core::claims
