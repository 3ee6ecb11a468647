#pragma once
// One human label (core/labels/README.md): what an annotator said about one target, when, and
// why. Targets and values are checked here, once, for every way a label enters (the GUI, an
// import, the CLI): a label that fails a check is refused whole, never stored in part.
//
//   Label l;
//   l.target = {TargetKind::Claim, "runs/claims.db", "q7", "response:2", ClaimPremise::Chunks};
//   l.value = "supported"; l.annotator = "ana"; l.time = nowIso8601();
//   if (auto problem = labelProblem(l)) ...   // "value \"maybe\" is not a claim verdict (...)"
//   numericValue(l) == 1.0

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ragscope::core::labels {

// What is labelled.
//   Claim:     a claim of an answer in a judging run. scope = the run store (its path as the
//              project lists it, core/labels/labelscope.h), qid, item = "response:<i>" or
//              "gold:<i>" (the claim's index among the answer's claims, from 0), premise = what
//              it was judged against. `context` keeps the claim's text so a label whose claim
//              changed is shown as such.
//   Answer:    an answer of a run (generate, end-to-end, judging). scope = the run store, qid,
//              item empty.
//   Relevance: a query-document pair. scope = the dataset's name, qid, item = the document id.
//   EragDoc:   an eRAG per-document label. scope = the run store, qid, item = the document id.
enum class TargetKind { Claim, Answer, Relevance, EragDoc };
std::string_view targetKindName(TargetKind kind);  // "claim", "answer", "relevance", "erag"
std::optional<TargetKind> targetKindFromName(std::string_view name);

// What a claim label judged the claim against (core/labels/README.md, "Claim premises"). Each
// premise is its own question, answered by its own label and used by its own metric only:
//   Chunks      a response claim against the retrieved chunks   (faithfulness)
//   GoldAnswer  a response claim against the gold answer        (correctness)
//   Response    a gold-answer claim against the response        (coverage)
//   Chunks      a gold-answer claim against the retrieved chunks (claim recall)
// A claim supported by the chunks may be wrong by the gold answer: a verdict given while
// reading the chunks says nothing about correctness.
enum class ClaimPremise { Chunks, GoldAnswer, Response };
std::string_view claimPremiseName(ClaimPremise premise);  // "chunks", "gold_answer", "response"
std::optional<ClaimPremise> claimPremiseFromName(std::string_view name);
// For people: "the retrieved chunks", "the gold answer", "the response".
std::string_view claimPremiseText(ClaimPremise premise);
// The premise of a claim label that does not say (an import without the field, a store of
// schema 1): what the labelling queue showed before labels recorded it, the retrieved chunks
// for a response claim, the response for a gold claim.
ClaimPremise defaultClaimPremise(std::string_view item);
// Whether `premise` is a question about the claim `item`: a response claim against the chunks
// or the gold answer, a gold claim against the response or the chunks.
bool claimPremiseFits(ClaimPremise premise, std::string_view item);

struct Target {
  TargetKind kind = TargetKind::Claim;
  std::string scope;
  std::string qid;
  std::string item;
  // Claims only: what the claim was judged against; nullopt = defaultClaimPremise(item).
  std::optional<ClaimPremise> premise = std::nullopt;
  // The premise a claim target stands for (its own, else the default); nullopt for other kinds.
  std::optional<ClaimPremise> claimPremise() const;
  // One string per target, used as the store's key and in exports:
  // "<kind>\t<scope>\t<qid>\t<item>", and for a claim "\t<premise>" (claimPremise(): a label
  // against the chunks and one against the gold answer are two targets).
  std::string key() const;
  // Equal when the keys are (a claim without a premise equals one with the default premise).
  friend bool operator==(const Target& a, const Target& b);
};

// The target in words for messages, its fields quoted and escaped:
// "claim \"response:2\" of query \"q7\" in \"claims.db\" against the retrieved chunks".
std::string describeTarget(const Target& target);

// Values, by target kind (canonical spelling, lower case):
//   Claim:     "supported", "unsupported", "contradiction", "neutral", "cannot_tell"
//   Relevance: "0", "1", "2", "3" (graded relevance)
//   Answer:    "correct", "partially", "incorrect", or a number in [0, 1] ("0.75")
//   EragDoc:   a number in [0, 1]
// canonicalValue() accepts the spellings a person types ("Supported", "cannot tell", " 2 ") and
// returns the canonical one, or nullopt with `why` filled in.
std::optional<std::string> canonicalValue(TargetKind kind, std::string_view value,
                                          std::string* why = nullptr);

// The value as a number for agreement and PPI: supported 1, unsupported / contradiction /
// neutral 0, cannot_tell none (the annotator abstained); grades 0..3; correct 1, partially 0.5,
// incorrect 0; numbers as they are. nullopt for an abstention.
std::optional<double> numericValue(TargetKind kind, std::string_view canonical);

struct Label {
  Target target;
  std::string value;      // canonical (canonicalValue)
  std::string annotator;  // a name: printable, no control characters, 1..200 bytes
  std::string time;       // ISO 8601 UTC, "2026-11-27T10:00:00Z"
  std::string comment;    // optional, free text without control characters other than \n \t
  std::string context;    // optional: what the annotator saw (the claim's text, a doc title)
  std::int64_t id = 0;    // the store's row id (0 before it is stored); the latest wins
};

// The first problem of a label (target fields, value, annotator, time, comment), or nullopt.
// Does not know which targets exist: see LabelCatalog for that.
std::optional<std::string> labelProblem(const Label& label);

// The current time as ISO 8601 UTC with seconds.
std::string nowIso8601();

}  // namespace ragscope::core::labels
