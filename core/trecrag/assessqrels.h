#pragma once
// An assessment's grades per pair and as TREC qrels (core/trecrag/README.md, "Assessment:
// repeats" and "Assessment: qrels"). Each pair is asked R times (`--repeats`); each reply is
// read strictly (assessgrade.h). The pair's grade is the lower median of its parsed replies
// (the middle one of the sorted grades; of two middle ones the lower: a tie between "relevant"
// and "not" is not promoted), its spread the largest minus the smallest parsed grade. A pair
// with no parsed reply has no grade: it is counted (unparsed / failed / not yet answered) and
// left out of the qrels, never written as 0.
//
//   std::string text = assessQrelsText(pairs);             // qid 0 docid grade
//   MergedQrels m = mergeAssessQrels(dataset.qrels, pairs); // the people's grades win

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/data/model.h"

namespace ragscope::core::trecrag {

enum class ReplyState { Graded, Unparsed, Failed, Pending };

struct AssessReply {
  ReplyState state = ReplyState::Pending;
  std::optional<int> grade;  // Graded only
  std::string problem;       // Unparsed: the reader's reason; Failed: the call's error
};

struct PairGrades {
  std::string qid;
  std::string docId;
  std::size_t rank = 0;
  std::optional<int> judged;         // the qrels' grade (pairs graded again with --all)
  std::vector<AssessReply> replies;  // one per repeat
  std::optional<int> grade;          // lower median of the parsed replies; nullopt: none parsed
  int spread = 0;                    // max - min of the parsed replies (0 for one)
  std::size_t count(ReplyState s) const;
};

// Sets grade and spread from the replies.
void combineReplies(PairGrades& pair);

// The lower median of `grades` (non-empty).
int lowerMedian(std::vector<int> grades);

struct AssessCounts {
  std::size_t pairs = 0;
  std::size_t graded = 0;    // pairs with a grade
  std::size_t ungraded = 0;  // pairs without one (no reply parsed)
  std::size_t replies = 0;
  std::size_t repliesGraded = 0, repliesUnparsed = 0, repliesFailed = 0, repliesPending = 0;
  std::size_t byGrade[4] = {0, 0, 0, 0};  // pairs per grade
  std::size_t spreadPairs = 0;            // graded pairs whose repeats disagree (spread > 0)
  double meanSpread = 0.0;                // over graded pairs with two or more parsed replies
  std::size_t multiParsed = 0;            // graded pairs with two or more parsed replies
};
AssessCounts countAssessment(const std::vector<PairGrades>& pairs);

// "qid 0 docid grade" lines of every graded pair, in (qid, docid) byte order, ids with the TREC
// escapes (core/data/trecid.h).
std::string assessQrelsText(const std::vector<PairGrades>& pairs);

struct QrelsConflict {
  std::string qid, docId;
  int human = 0;
  int judge = 0;
};

struct MergedQrels {
  std::string text;  // every judgment of `human` and the judge's grades of the rest
  std::size_t rows = 0;
  std::size_t fromHuman = 0;             // judgments kept from the people's qrels
  std::size_t fromJudge = 0;             // pairs the people did not judge, graded by the judge
  std::vector<QrelsConflict> conflicts;  // pairs both grade, differently (the people's written)
};
// The people's qrels win: a pair they judge keeps their grade (the judge's differing grade is a
// conflict, listed); the judge's grades fill the pairs they do not judge. Lines in (qid, docid)
// byte order.
MergedQrels mergeAssessQrels(const Qrels& human, const std::vector<PairGrades>& pairs);

}  // namespace ragscope::core::trecrag
