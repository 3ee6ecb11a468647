#include "core/labels/label.h"

#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <ctime>

#include "core/util/textescape.h"

namespace ragscope::core::labels {

namespace {

// Longest target field (scope, qid, item), comment and context a label may hold: far past any
// real id or note, small enough that a store or an import file cannot balloon through one label.
constexpr std::size_t kMaxFieldBytes = 4096;
constexpr std::size_t kMaxAnnotatorBytes = 200;
constexpr std::size_t kMaxCommentBytes = 16384;

std::string_view trimLabelText(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() &&
         (text.back() == ' ' || text.back() == '\t' || text.back() == '\r' || text.back() == '\n'))
    text.remove_suffix(1);
  return text;
}

// Lower case, with spaces and hyphens folded into '_': "Cannot tell" -> "cannot_tell".
std::string foldLabelWord(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == ' ' || c == '-') c = '_';
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

// A finite decimal number, whole text ("0.75", "1", ".5"); nullopt for anything else.
std::optional<double> parseLabelNumber(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::string copy(text);
  if (copy.front() == '.') copy.insert(copy.begin(), '0');
  double value = 0;
  const char* begin = copy.data();
  const char* end = copy.data() + copy.size();
  if (*begin == '+') ++begin;
  auto [ptr, ec] = std::from_chars(begin, end, value, std::chars_format::fixed);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value;
}

// The shortest spelling that reads back as the same double ("0.75", "1", "0").
std::string spellLabelNumber(double value) {
  if (value == 0) value = 0;  // no "-0"
  char buf[64];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return ec == std::errc() ? std::string(buf, ptr) : std::string("0");
}

std::optional<std::string> unitIntervalValue(std::string_view text, std::string_view what,
                                             std::string* why) {
  const auto number = parseLabelNumber(text);
  if (!number) {
    if (why)
      *why = "\"" + escapeControlChars(text.substr(0, 80)) + "\" is not " + std::string(what);
    return std::nullopt;
  }
  if (*number < 0 || *number > 1) {
    if (why)
      *why = "\"" + escapeControlChars(text.substr(0, 80)) + "\" is out of range (a number in " +
             "[0, 1])";
    return std::nullopt;
  }
  return spellLabelNumber(*number);
}

// True when every byte of `text` is printable, allowing the line breaks and tabs `allowBreaks`.
bool printableExcept(std::string_view text, bool allowBreaks) {
  if (!allowBreaks) return isPrintableText(text);
  std::string copy(text);
  for (char& c : copy)
    if (c == '\n' || c == '\t') c = ' ';
  return isPrintableText(copy);
}

// The longest time a label holds: seconds with up to nanoseconds ("2026-11-27T10:00:00.123456789Z",
// 30 bytes). A longer one is refused before it is read (a 50 MB "time" was stored once).
constexpr std::size_t kMaxTimeBytes = 30;

// "2026-11-27T10:00:00Z", optionally with fractional seconds ("...:00.123Z", 1 to 9 digits).
bool isIsoUtcTime(std::string_view t) {
  if (t.size() > kMaxTimeBytes) return false;
  auto digits = [&](std::size_t at, std::size_t n) {
    if (at + n > t.size()) return false;
    for (std::size_t i = at; i < at + n; ++i)
      if (t[i] < '0' || t[i] > '9') return false;
    return true;
  };
  if (t.size() < 20 || !digits(0, 4) || t[4] != '-' || !digits(5, 2) || t[7] != '-' ||
      !digits(8, 2) || t[10] != 'T' || !digits(11, 2) || t[13] != ':' || !digits(14, 2) ||
      t[16] != ':' || !digits(17, 2))
    return false;
  std::size_t at = 19;
  if (t[at] == '.') {
    ++at;
    const std::size_t start = at;
    while (at < t.size() && t[at] >= '0' && t[at] <= '9') ++at;
    if (at == start) return false;
  }
  if (at + 1 != t.size() || t[at] != 'Z') return false;
  auto number = [&](std::size_t at2, std::size_t n) {
    int v = 0;
    for (std::size_t i = at2; i < at2 + n; ++i) v = v * 10 + (t[i] - '0');
    return v;
  };
  const int month = number(5, 2), day = number(8, 2);
  return month >= 1 && month <= 12 && day >= 1 && day <= 31 && number(11, 2) <= 23 &&
         number(14, 2) <= 59 && number(17, 2) <= 60;
}

std::string quotedLabelText(std::string_view text) {
  std::string out(1, '"');
  out += escapeControlChars(text.substr(0, 80));
  out += text.size() > 80 ? "...\"" : "\"";
  return out;
}

// A target field: present (when `required`), printable, bounded.
std::optional<std::string> targetFieldProblem(std::string_view field, std::string_view text,
                                              bool required) {
  if (required && text.empty()) return std::string(field) + " is empty";
  if (text.size() > kMaxFieldBytes)
    return std::string(field) + " is longer than " + std::to_string(kMaxFieldBytes) + " bytes";
  if (!isPrintableText(text))
    return std::string(field) + " " + quotedLabelText(text) +
           " has control characters or invalid UTF-8";
  if (trimLabelText(text).size() != text.size())
    return std::string(field) + " " + quotedLabelText(text) + " has leading or trailing spaces";
  return std::nullopt;
}

// "response:<i>" or "gold:<i>" with a decimal index.
bool isClaimItem(std::string_view item) {
  std::string_view rest;
  if (item.rfind("response:", 0) == 0) {
    rest = item.substr(9);
  } else if (item.rfind("gold:", 0) == 0) {
    rest = item.substr(5);
  } else {
    return false;
  }
  if (rest.empty() || rest.size() > 9) return false;
  if (rest.size() > 1 && rest.front() == '0') return false;
  for (char c : rest)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

std::string_view targetKindName(TargetKind kind) {
  switch (kind) {
    case TargetKind::Claim:
      return "claim";
    case TargetKind::Answer:
      return "answer";
    case TargetKind::Relevance:
      return "relevance";
    case TargetKind::EragDoc:
      return "erag";
  }
  return "claim";
}

std::optional<TargetKind> targetKindFromName(std::string_view name) {
  if (name == "claim") return TargetKind::Claim;
  if (name == "answer") return TargetKind::Answer;
  if (name == "relevance") return TargetKind::Relevance;
  if (name == "erag") return TargetKind::EragDoc;
  return std::nullopt;
}

std::string_view claimPremiseName(ClaimPremise premise) {
  switch (premise) {
    case ClaimPremise::Chunks:
      return "chunks";
    case ClaimPremise::GoldAnswer:
      return "gold_answer";
    case ClaimPremise::Response:
      return "response";
  }
  return "chunks";
}

std::optional<ClaimPremise> claimPremiseFromName(std::string_view name) {
  if (name == "chunks") return ClaimPremise::Chunks;
  if (name == "gold_answer") return ClaimPremise::GoldAnswer;
  if (name == "response") return ClaimPremise::Response;
  return std::nullopt;
}

std::string_view claimPremiseText(ClaimPremise premise) {
  switch (premise) {
    case ClaimPremise::Chunks:
      return "the retrieved chunks";
    case ClaimPremise::GoldAnswer:
      return "the gold answer";
    case ClaimPremise::Response:
      return "the response";
  }
  return "the retrieved chunks";
}

ClaimPremise defaultClaimPremise(std::string_view item) {
  return item.rfind("gold:", 0) == 0 ? ClaimPremise::Response : ClaimPremise::Chunks;
}

bool claimPremiseFits(ClaimPremise premise, std::string_view item) {
  if (item.rfind("gold:", 0) == 0)
    return premise == ClaimPremise::Response || premise == ClaimPremise::Chunks;
  return premise == ClaimPremise::Chunks || premise == ClaimPremise::GoldAnswer;
}

std::optional<ClaimPremise> Target::claimPremise() const {
  if (kind != TargetKind::Claim) return std::nullopt;
  return premise ? *premise : defaultClaimPremise(item);
}

std::string Target::key() const {
  std::string out(targetKindName(kind));
  out += '\t';
  out += scope;
  out += '\t';
  out += qid;
  out += '\t';
  out += item;
  if (const auto p = claimPremise()) {
    out += '\t';
    out += claimPremiseName(*p);
  }
  return out;
}

bool operator==(const Target& a, const Target& b) {
  return a.kind == b.kind && a.scope == b.scope && a.qid == b.qid && a.item == b.item &&
         a.claimPremise() == b.claimPremise() &&
         (a.kind == TargetKind::Claim || a.premise == b.premise);
}

std::string describeTarget(const Target& target) {
  const std::string scope = quotedLabelText(target.scope);
  const std::string qid = quotedLabelText(target.qid);
  const std::string item = quotedLabelText(target.item);
  switch (target.kind) {
    case TargetKind::Claim:
      return "claim " + item + " of query " + qid + " in " + scope + " against " +
             std::string(claimPremiseText(*target.claimPremise()));
    case TargetKind::Answer:
      return "answer of query " + qid + " in " + scope;
    case TargetKind::Relevance:
      return "relevance of document " + item + " for query " + qid + " in dataset " + scope;
    case TargetKind::EragDoc:
      return "eRAG label of document " + item + " for query " + qid + " in " + scope;
  }
  return {};
}

std::optional<std::string> canonicalValue(TargetKind kind, std::string_view value,
                                          std::string* why) {
  const std::string_view text = trimLabelText(value);
  switch (kind) {
    case TargetKind::Claim: {
      const std::string word = foldLabelWord(text);
      for (const char* v : {"supported", "unsupported", "contradiction", "neutral", "cannot_tell"})
        if (word == v) return word;
      if (word == "contradicted") return std::string("contradiction");
      if (word == "cannot_say" || word == "cant_tell") return std::string("cannot_tell");
      if (why)
        *why = quotedLabelText(value) +
               " is not a claim verdict (supported, unsupported, contradiction, neutral, "
               "cannot_tell)";
      return std::nullopt;
    }
    case TargetKind::Relevance: {
      if (text.size() == 1 && text[0] >= '0' && text[0] <= '3') return std::string(text);
      if (why) {
        const auto number = parseLabelNumber(text);
        *why = quotedLabelText(value) + (number ? " is out of range" : " is not a grade") +
               " (relevance grades are 0, 1, 2, 3)";
      }
      return std::nullopt;
    }
    case TargetKind::Answer: {
      const std::string word = foldLabelWord(text);
      for (const char* v : {"correct", "partially", "incorrect"})
        if (word == v) return word;
      if (word == "partial" || word == "partially_correct") return std::string("partially");
      if (parseLabelNumber(text)) return unitIntervalValue(text, "", why);
      if (why)
        *why = quotedLabelText(value) +
               " is not an answer label (correct, partially, incorrect, or a number in [0, 1])";
      return std::nullopt;
    }
    case TargetKind::EragDoc:
      return unitIntervalValue(text, "a number in [0, 1]", why);
  }
  return std::nullopt;
}

std::optional<double> numericValue(TargetKind kind, std::string_view canonical) {
  switch (kind) {
    case TargetKind::Claim:
      if (canonical == "supported") return 1.0;
      if (canonical == "unsupported" || canonical == "contradiction" || canonical == "neutral")
        return 0.0;
      return std::nullopt;
    case TargetKind::Relevance:
      if (canonical.size() == 1 && canonical[0] >= '0' && canonical[0] <= '3')
        return static_cast<double>(canonical[0] - '0');
      return std::nullopt;
    case TargetKind::Answer:
      if (canonical == "correct") return 1.0;
      if (canonical == "partially") return 0.5;
      if (canonical == "incorrect") return 0.0;
      return parseLabelNumber(canonical);
    case TargetKind::EragDoc:
      return parseLabelNumber(canonical);
  }
  return std::nullopt;
}

std::optional<std::string> labelProblem(const Label& label) {
  const Target& t = label.target;
  if (auto p = targetFieldProblem("scope", t.scope, true)) return p;
  if (auto p = targetFieldProblem("qid", t.qid, true)) return p;
  if (t.kind != TargetKind::Claim && t.premise)
    return std::string("premise applies to claim labels only");
  switch (t.kind) {
    case TargetKind::Claim:
      if (!isClaimItem(t.item))
        return "item " + quotedLabelText(t.item) +
               " is not a claim key (\"response:<i>\" or \"gold:<i>\", i from 0)";
      if (t.premise && !claimPremiseFits(*t.premise, t.item))
        return "premise \"" + std::string(claimPremiseName(*t.premise)) + "\" is not a question " +
               (t.item.rfind("gold:", 0) == 0 ? "about a gold claim (response or chunks)"
                                              : "about a response claim (chunks or gold_answer)");
      break;
    case TargetKind::Answer:
      if (!t.item.empty())
        return "item " + quotedLabelText(t.item) + " must be empty for an answer label";
      break;
    case TargetKind::Relevance:
    case TargetKind::EragDoc:
      if (auto p = targetFieldProblem("item (document id)", t.item, true)) return p;
      break;
    default:
      return std::string("target kind is unknown");
  }
  std::string why;
  const auto canonical = canonicalValue(t.kind, label.value, &why);
  if (!canonical) return "value " + why;
  if (*canonical != label.value)
    return "value " + quotedLabelText(label.value) + " is not in its canonical spelling \"" +
           *canonical + "\"";
  if (label.annotator.empty()) return std::string("annotator is empty");
  if (label.annotator.size() > kMaxAnnotatorBytes)
    return "annotator is longer than " + std::to_string(kMaxAnnotatorBytes) + " bytes";
  if (!isPrintableText(label.annotator))
    return "annotator " + quotedLabelText(label.annotator) +
           " has control characters or invalid UTF-8";
  if (trimLabelText(label.annotator).size() != label.annotator.size())
    return "annotator " + quotedLabelText(label.annotator) + " has leading or trailing spaces";
  if (label.time.size() > kMaxTimeBytes)
    return "time is longer than " + std::to_string(kMaxTimeBytes) +
           " bytes (an ISO 8601 UTC time, \"2026-11-27T10:00:00Z\")";
  if (!isIsoUtcTime(label.time))
    return "time " + quotedLabelText(label.time) +
           " is not an ISO 8601 UTC time (\"2026-11-27T10:00:00Z\")";
  if (label.comment.size() > kMaxCommentBytes)
    return "comment is longer than " + std::to_string(kMaxCommentBytes) + " bytes";
  if (!printableExcept(label.comment, true))
    return "comment has control characters (other than line breaks and tabs) or invalid UTF-8";
  if (label.context.size() > kMaxCommentBytes)
    return "context is longer than " + std::to_string(kMaxCommentBytes) + " bytes";
  if (!printableExcept(label.context, true))
    return "context has control characters (other than line breaks and tabs) or invalid UTF-8";
  return std::nullopt;
}

std::string nowIso8601() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace ragscope::core::labels
