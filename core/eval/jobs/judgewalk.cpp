// The judging job's walker (see judgejob.h and core/eval/jobs/README.md): the inputs read against
// the store's replies, giving what is known of each query and the items that can be planned now
// (answers, claims, verdicts, repairs, questions, embeddings, reranks). Planning the next items
// and reporting the metrics walk alike, so both read the replies the same way.

#include <algorithm>
#include <cmath>
#include <iterator>
#include <unordered_map>
#include <unordered_set>

#include "core/claims/judgeparse.h"
#include "core/claims/notebook.h"
#include "core/claims/ragas.h"
#include "core/claims/structuredreply.h"
#include "core/eval/jobs/jobplanning.h"
#include "core/eval/jobs/judgejob.h"
#include "core/export/json.h"
#include "core/llm/llmjson.h"
#include "core/llm/offline.h"
#include "core/llm/prompts.h"
#include "core/llm/providerfactory.h"
#include "core/stats/parallel.h"
#include "core/util/jsonstrict.h"

namespace ragscope::core::eval {

using claims::Label;
using claims::ScoreState;
using nlohmann::json;

namespace {

// Which premises the metrics need.
struct Needs {
  bool faith = false, correct = false, cover = false, recall = false, respChunks = false,
       goldChunks = false;
  bool useful = false;  // ragas.context_precision: each chunk alone vs the gold answer
  bool questions = false, rerank = false, contextRelevance = false;
  bool responseClaims() const { return faith || correct || respChunks; }
  bool goldClaims() const { return cover || recall || goldChunks; }
};

Needs needsOf(const JudgeSettings& s) {
  Needs n;
  for (const auto& m : s.metrics) {
    if (m == "faithfulness" || m == "ragas.faithfulness") n.faith = true;
    if (m == "correctness") n.correct = true;
    if (m == "coverage") n.cover = true;
    if (m == "ragas.context_recall") n.recall = true;
    if (m == "ragas.context_precision") n.useful = true;
    if (m == "ragas.answer_relevancy") n.questions = true;
    if (m == "vera.consolidated") n.rerank = true;
    if (m == "ragas.context_relevance_paper") n.contextRelevance = true;
    if (isRagCheckerMetric(m)) n.correct = n.cover = n.respChunks = n.goldChunks = true;
  }
  if (s.matrices) n.correct = n.cover = n.respChunks = n.goldChunks = true;
  return n;
}

std::string requestText(const llm::LlmRequest& r) { return exporting::jsonText(llm::toJson(r)); }

// The store's results (done and failed) by key, its item keys, and how many are not finished.
struct Stored {
  std::unordered_map<std::string, store::ItemResult> byKey;
  std::unordered_set<std::string> keys;  // every planned item
  std::size_t pending = 0;
  bool heuristic = false;
};

Stored readStored(store::RunStore& store) {
  Stored s;
  for (auto& r : store.results()) {
    if (r.result.heuristic) s.heuristic = true;
    s.byKey.emplace(r.key, std::move(r.result));
  }
  for (auto& [key, status] : store.itemKeys()) {
    if (status == store::ItemStatus::Pending || status == store::ItemStatus::Cancelled) ++s.pending;
    s.keys.insert(std::move(key));
  }
  return s;
}

struct GeneratedQuestionParse {
  std::string question;
  bool noncommittal = false;
  std::string problem;
};

// {"question": "...", "noncommittal": 0|1|true|false}, possibly with text around the object.
GeneratedQuestionParse parseGeneratedQuestion(const std::string& reply) {
  GeneratedQuestionParse out;
  const auto open = reply.find('{'), close = reply.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) {
    out.problem = "the reply holds no JSON object";
    return out;
  }
  // Strict (core/util/jsonstrict.h): a repeated "noncommittal" must not pick the score.
  json j;
  if (JsonStrictError why;
      !parseJsonStrict(std::string_view(reply).substr(open, close - open + 1), j, &why)) {
    if (why.repeated) {
      out.problem = "the JSON object is not strict: " + describeJsonStrictError(why);
      return out;
    }
  }
  if (!j.is_object() || !j.contains("question") || !j["question"].is_string()) {
    out.problem = "the JSON object has no \"question\" string";
    return out;
  }
  out.question = j["question"].get<std::string>();
  const auto nc = j.find("noncommittal");
  if (nc == j.end() || !(nc->is_boolean() || (nc->is_number_integer() && (*nc == 0 || *nc == 1)))) {
    out.problem = "\"noncommittal\" is not 0 or 1";
    return out;
  }
  out.noncommittal = nc->is_boolean() ? nc->get<bool>() : nc->get<int>() == 1;
  return out;
}

std::vector<std::vector<double>> embeddingsOf(const json& extra) {
  std::vector<std::vector<double>> out;
  const auto it = extra.find("embeddings");
  if (it == extra.end() || !it->is_array()) return out;
  for (const auto& v : *it) {
    if (!v.is_array()) return {};
    std::vector<double> row;
    for (const auto& x : v) {
      if (!x.is_number()) return {};
      row.push_back(x.get<double>());
    }
    out.push_back(std::move(row));
  }
  return out;
}

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto nl = text.find('\n', start);
    out.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return out;
}

// Walks the inputs against the stored results: what is known of each query, and the items that
// can be planned now. One function for planning and reporting, so both read the replies alike.
class Walker {
 public:
  Walker(const JudgeSettings& settings, const Stored& stored, std::vector<store::NewItem>* items)
      : m_s(settings), m_stored(stored), m_items(items), m_needs(needsOf(settings)) {}

  JudgedQuery walk(const JudgeInput& in) {
    JudgedQuery q;
    q.qid = in.qid;
    q.question = in.question;
    q.gold = in.gold;
    q.chunks = in.chunks;
    if (in.response) {
      q.response = *in.response;
    } else {
      const std::string key = "gen:" + in.qid;
      plan(key, "generate", [&] {
        llm::LlmRequest r = chatRequest(in.generatePrompt);
        r.route = "generator";
        return r;
      });
      const store::ItemResult* res = result(key);
      if (!res) {
        q.responseFailed = ScoreState::Error;  // not answered yet
        q.responseClaims.problem = "the answer is not generated yet";
      } else if (res->status != store::ItemStatus::Done) {
        q.responseFailed = ScoreState::Error;
        q.responseClaims.problem = "generating the answer failed: " + res->error;
      } else {
        q.response = res->text;
      }
    }
    if (m_needs.responseClaims()) {
      if (q.responseFailed)
        q.responseClaims.failed = q.responseFailed;
      else
        q.responseClaims = extract("response", in.qid, q.response);
    }
    if (m_needs.goldClaims()) {
      q.goldClaims = extract("gold", in.qid, q.gold);
    }
    std::vector<std::string> chunkTexts;
    for (const auto& c : in.chunks) chunkTexts.push_back(c.text);
    if (m_needs.faith)
      q.verdicts.push_back(
          assess("faith", in.qid, q.responseClaims, chunkTexts, !chunkTexts.empty()));
    if (m_needs.correct)
      q.verdicts.push_back(assess("correct", in.qid, q.responseClaims, {q.gold}, true));
    if (m_needs.cover) {
      JudgedClaims gold = q.goldClaims;
      if (q.responseFailed && !gold.failed && !gold.claims.empty()) gold.failed = q.responseFailed;
      q.verdicts.push_back(assess("cover", in.qid, gold, {q.response}, true));
    }
    if (m_needs.recall)
      q.verdicts.push_back(assess("recall", in.qid, q.goldClaims, chunkTexts, !chunkTexts.empty()));
    // ragas.context_precision: the gold answer, as one claim, against each chunk alone (RAGAS
    // asks whether the chunk was useful in arriving at the reference answer).
    JudgedClaims reference;
    if (m_needs.useful && q.gold.find_first_not_of(" \t\r\n") != std::string::npos) {
      std::string line = q.gold;
      std::replace(line.begin(), line.end(), '\n', ' ');
      std::replace(line.begin(), line.end(), '\r', ' ');
      reference.claims.push_back(std::move(line));
    }
    for (std::size_t k = 0; k < chunkTexts.size(); ++k) {
      if (m_needs.useful)
        q.verdicts.push_back(
            assess("useful." + std::to_string(k), in.qid, reference, {chunkTexts[k]}, true));
      if (m_needs.respChunks)
        q.verdicts.push_back(assess("respchunk." + std::to_string(k), in.qid, q.responseClaims,
                                    {chunkTexts[k]}, true));
      if (m_needs.goldChunks)
        q.verdicts.push_back(
            assess("goldchunk." + std::to_string(k), in.qid, q.goldClaims, {chunkTexts[k]}, true));
    }
    if (m_needs.questions) answerRelevancy(in, q);
    if (m_needs.rerank) consolidated(in, q);
    if (m_needs.contextRelevance) contextRelevance(in, q, chunkTexts);
    return q;
  }

 private:
  const store::ItemResult* result(const std::string& key) const {
    const auto it = m_stored.byKey.find(key);
    return it == m_stored.byKey.end() ? nullptr : &it->second;
  }
  // Plans an item unless the store has it (its request is only built for a new item).
  template <typename MakeRequest>
  void plan(const std::string& key, const char* kind, const MakeRequest& make) {
    if (m_items && !m_stored.keys.count(key)) m_items->push_back({key, kind, requestText(make())});
  }
  // The repair turn keeps the request's response schema, so a structured call is repaired on
  // the structured path.
  static llm::LlmRequest repairRequest(llm::LlmRequest r, const std::string& reply,
                                       const std::vector<std::string>& problems) {
    r.messages.push_back({"assistant", reply});
    r.messages.push_back({"user", r.responseSchema ? claims::structuredRepairInstruction(problems)
                                                   : claims::repairInstruction(problems)});
    return r;
  }
  // The two reply paths (core/claims/README.md, "Structured replies"): with structured outputs
  // on, claim lists and verdicts are asked for and read as schema-bound JSON, else as text.
  claims::VerdictScale verdictScale() const {
    return m_s.mode == JudgeMode::RagChecker ? claims::VerdictScale::ThreeWay
                                             : claims::VerdictScale::Binary;
  }
  claims::ClaimListParse readClaimList(const std::string& reply) const {
    return m_s.structured ? claims::parseClaimListJson(reply) : claims::parseClaimList(reply);
  }
  claims::VerdictParse readVerdicts(const std::string& reply,
                                    const std::vector<std::string>& asked) const {
    return m_s.structured ? claims::parseVerdictsJson(reply, asked.size(), verdictScale())
                          : claims::parseVerdicts(reply, asked);
  }

  JudgedClaims extract(const std::string& which, const std::string& qid, const std::string& text) {
    JudgedClaims c;
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) return c;  // nothing to claim
    const std::string key = "extract:" + which + ":" + qid;
    c.structured = m_s.structured;
    auto request = [&] {
      llm::LlmRequest r = chatRequest(llm::renderTemplate(m_s.extractTemplate, {{"text", text}}));
      if (m_s.structured)
        r.responseSchema =
            llm::ResponseSchema{claims::kClaimListSchemaName, claims::claimListSchema()};
      return r;
    };
    plan(key, "extract", request);
    const store::ItemResult* res = result(key);
    if (!res || res->status != store::ItemStatus::Done) {
      c.failed = ScoreState::Error;
      c.problem = res ? "extraction failed: " + res->error : "not extracted yet";
      return c;
    }
    c.read = true;
    auto parsed = readClaimList(res->text);
    if (!parsed.problem.empty()) {
      const std::string repairKey = "repair:" + key;
      plan(repairKey, "repair",
           [&] { return repairRequest(request(), res->text, {parsed.problem}); });
      const store::ItemResult* rep = result(repairKey);
      c.repaired = true;
      if (!rep || rep->status != store::ItemStatus::Done) {
        c.failed = rep ? ScoreState::Error : ScoreState::Unparsed;
        c.problem =
            parsed.problem + (rep ? "; the repair failed: " + rep->error : "; not repaired yet");
        return c;
      }
      parsed = readClaimList(rep->text);
      if (!parsed.problem.empty()) {
        c.failed = ScoreState::Unparsed;
        c.problem = parsed.problem + " (after the repair)";
        return c;
      }
    }
    c.claims = std::move(parsed.claims);
    // Every claim is kept (shown, counted in n_total); those past the cap are not judged.
    c.problem = claims::claimsOverCapProblem(c.claims.size());
    return c;
  }

  PremiseVerdicts assess(const std::string& premise, const std::string& qid,
                         const JudgedClaims& claimsOf, const std::vector<std::string>& documents,
                         bool hasPremise) {
    PremiseVerdicts v;
    v.premise = premise;
    v.structured = m_s.structured;
    const std::size_t n = claimsOf.claims.size();
    // The judge is asked about the first kMaxClaimsPerAnswer claims; the others stay Unparsed.
    const std::size_t judged = std::min(n, claims::kMaxClaimsPerAnswer);
    std::vector<std::string> capped;
    if (judged < n)
      capped.assign(claimsOf.claims.begin(),
                    claimsOf.claims.begin() + static_cast<std::ptrdiff_t>(judged));
    const std::vector<std::string>& asked = judged < n ? capped : claimsOf.claims;
    const std::size_t repeats = std::max<std::size_t>(1, m_s.repeats);
    v.repeats.assign(repeats, std::vector<Label>(n, Label::Unparsed));
    if (claimsOf.failed || n == 0) {
      v.labels.assign(n, Label::Unparsed);
      return v;
    }
    const bool emptyPremise =
        !hasPremise || std::all_of(documents.begin(), documents.end(), [](const std::string& d) {
          return d.find_first_not_of(" \t\r\n") == std::string::npos;
        });
    if (emptyPremise) {
      // Nothing to support a claim (no chunk, no gold answer): not supported, and no call made.
      for (auto& row : v.repeats) row.assign(n, Label::Unsupported);
      v.labels.assign(n, Label::Unsupported);
      v.problems.push_back("no premise: nothing supports the claims");
      return v;
    }
    if (judged < n) v.problems.push_back(claims::claimsOverCapProblem(n));
    for (std::size_t rep = 0; rep < repeats; ++rep) {
      const std::string key = "assess:" + premise + ":" + std::to_string(rep) + ":" + qid;
      auto request = [&] {
        llm::LlmRequest r = chatRequest(llm::renderTemplate(
            m_s.judgeTemplate,
            {{"documents", llm::formatPassages(documents)}, {"claims", llm::formatClaims(asked)}}));
        if (repeats > 1) r.seed = m_s.seed.value_or(0) + static_cast<std::int64_t>(rep);
        if (m_s.structured)
          r.responseSchema = llm::ResponseSchema{claims::verdictSchemaName(verdictScale()),
                                                 claims::verdictListSchema(verdictScale())};
        return r;
      };
      plan(key, "assess", request);
      const store::ItemResult* res = result(key);
      auto& row = v.repeats[rep];
      if (!res || res->status != store::ItemStatus::Done) {
        row.assign(judged, Label::Error);
        row.resize(n, Label::Unparsed);
        v.problems.push_back(res ? "the judge call failed: " + res->error : "not judged yet");
        continue;
      }
      v.replies.push_back(res->text);
      auto parsed = readVerdicts(res->text, asked);
      if (parsed.unparsed() > 0) {
        const std::string repairKey = "repair:" + key;
        plan(repairKey, "repair",
             [&] { return repairRequest(request(), res->text, parsed.problems); });
        ++v.repairs;
        const store::ItemResult* rep2 = result(repairKey);
        if (rep2 && rep2->status == store::ItemStatus::Done) {
          v.replies.push_back(rep2->text);
          const auto again = readVerdicts(rep2->text, asked);
          // The claims read the first time keep their verdict; the repair decides the others.
          for (std::size_t i = 0; i < judged; ++i)
            if (!claims::isResolved(parsed.labels[i])) parsed.labels[i] = again.labels[i];
          parsed.problems = again.problems;
        } else {
          parsed.problems.push_back(rep2 ? "the repair failed: " + rep2->error
                                         : "not repaired yet");
        }
      }
      ++v.repliesRead;
      v.verdictsRead += judged;
      v.verdictsUnparsed += static_cast<std::uint64_t>(
          std::count(parsed.labels.begin(), parsed.labels.end(), Label::Unparsed));
      row = std::move(parsed.labels);
      row.resize(n, Label::Unparsed);
      for (auto& p : parsed.problems) v.problems.push_back(std::move(p));
    }
    v.labels.assign(n, Label::Unparsed);
    for (std::size_t i = 0; i < n; ++i) {
      std::unordered_map<int, std::size_t> counts;
      bool anyError = false;
      for (const auto& row : v.repeats) {
        if (claims::isResolved(row[i]))
          ++counts[static_cast<int>(row[i])];
        else if (row[i] == Label::Error)
          anyError = true;
      }
      std::size_t best = 0, ties = 0;
      Label bestLabel = anyError ? Label::Error : Label::Unparsed;
      for (const auto& [l, c] : counts) {
        if (c > best) {
          best = c;
          ties = 1;
          bestLabel = static_cast<Label>(l);
        } else if (c == best) {
          ++ties;
        }
      }
      v.labels[i] = ties > 1 ? Label::Unparsed : bestLabel;  // a tie decides nothing
    }
    return v;
  }

  // A finished result of `key`, or the state its metric takes (error: failed or not run yet).
  const store::ItemResult* doneOr(const std::string& key, MetricValue& m, const char* what) {
    const store::ItemResult* res = result(key);
    if (res && res->status == store::ItemStatus::Done) return res;
    m.state = ScoreState::Error;
    m.problem =
        res ? std::string(what) + " failed: " + res->error : std::string(what) + " not made yet";
    return nullptr;
  }

  // RAGAS's answer relevancy: kRagasQuestions questions generated from the answer (each with its
  // noncommittal flag), embedded with the question; mean cosine, 0 when all are noncommittal.
  void answerRelevancy(const JudgeInput& in, JudgedQuery& q) {
    MetricValue& m = q.answerRelevancy;
    m.total = kRagasQuestions;
    if (q.responseFailed) {
      m.state = *q.responseFailed;
      return;
    }
    if (q.response.find_first_not_of(" \t\r\n") == std::string::npos) {
      m.state = ScoreState::Empty;
      return;
    }
    std::vector<claims::GeneratedQuestion> generated;
    std::vector<std::string> texts;
    bool failed = false, unparsed = false;
    for (std::size_t g = 0; g < kRagasQuestions; ++g) {
      const std::string key = "question:" + std::to_string(g) + ":" + in.qid;
      auto request = [&] {
        llm::LlmRequest r =
            chatRequest(llm::renderTemplate(m_s.questionTemplate, {{"text", q.response}}));
        r.seed = m_s.seed.value_or(0) + static_cast<std::int64_t>(g);
        return r;
      };
      plan(key, "question", request);
      const store::ItemResult* res = doneOr(key, m, "question generation");
      if (!res) {
        failed = true;
        continue;
      }
      auto parsed = parseGeneratedQuestion(res->text);
      if (!parsed.problem.empty()) {
        const std::string repairKey = "repair:" + key;
        plan(repairKey, "repair",
             [&] { return repairRequest(request(), res->text, {parsed.problem}); });
        const store::ItemResult* rep = result(repairKey);
        if (rep && rep->status == store::ItemStatus::Done)
          parsed = parseGeneratedQuestion(rep->text);
        if (!rep || rep->status != store::ItemStatus::Done || !parsed.problem.empty()) {
          unparsed = unparsed || (rep && rep->status == store::ItemStatus::Done);
          failed = failed || !rep || rep->status != store::ItemStatus::Done;
          m.problem = parsed.problem;
          continue;
        }
      }
      q.generatedQuestions.push_back(parsed.question);
      texts.push_back(parsed.question);
      generated.push_back({{}, parsed.noncommittal, parsed.question.empty()});
    }
    if (failed || unparsed) {
      m.state = failed ? ScoreState::Error : ScoreState::Unparsed;
      return;
    }
    const std::string key = "embed:" + in.qid;
    plan(key, "embed", [&] {
      llm::LlmRequest r;
      r.kind = llm::EndpointKind::Embeddings;
      r.inputs.push_back(in.question);
      for (const auto& t : texts) r.inputs.push_back(t);
      r.route = "embedder";
      return r;
    });
    const store::ItemResult* res = doneOr(key, m, "embedding");
    if (!res) return;
    const auto vectors = embeddingsOf(res->extra);
    if (vectors.size() != texts.size() + 1) {
      m.state = ScoreState::Unparsed;
      m.problem = "the embeddings reply has " + std::to_string(vectors.size()) + " vectors for " +
                  std::to_string(texts.size() + 1) + " inputs";
      return;
    }
    for (std::size_t g = 0; g < generated.size(); ++g) generated[g].embedding = vectors[g + 1];
    m.scored = generated.size();
    const double v = claims::ragasAnswerRelevancy(vectors[0], generated, claims::RagasVersion::V04);
    if (std::isnan(v)) {
      m.state = ScoreState::Unparsed;
      m.problem = "a zero or mismatched embedding";
      return;
    }
    m.state = ScoreState::Scored;
    m.value = v;
  }

  // VERA's consolidation: the rerank endpoint's score of the answer for the question.
  void consolidated(const JudgeInput& in, JudgedQuery& q) {
    MetricValue& m = q.consolidated;
    m.total = 1;
    if (q.responseFailed) {
      m.state = *q.responseFailed;
      return;
    }
    const std::string key = "rerank:" + in.qid;
    plan(key, "rerank", [&] {
      llm::LlmRequest r;
      r.kind = llm::EndpointKind::Rerank;
      r.query = in.question;
      r.documents = {q.response};
      r.route = "reranker";
      return r;
    });
    const store::ItemResult* res = doneOr(key, m, "reranking");
    if (!res) return;
    const auto it = res->extra.find("rerank");
    if (it != res->extra.end() && it->is_array())
      for (const auto& pair : *it)
        if (pair.is_array() && pair.size() == 2 && pair[0] == 0 && pair[1].is_number()) {
          m.value = pair[1].get<double>();
          m.scored = 1;
          m.state = ScoreState::Scored;
          return;
        }
    m.state = ScoreState::Unparsed;
    m.problem = "the rerank reply has no score for the answer";
  }

  // The RAGAS paper's context relevance: sentences the judge copied out of the chunks, over the
  // chunks' sentences, at most 1; "Insufficient Information." is 0.
  void contextRelevance(const JudgeInput& in, JudgedQuery& q,
                        const std::vector<std::string>& chunks) {
    MetricValue& m = q.contextRelevance;
    std::size_t total = 0;
    for (const auto& c : chunks) total += llm::splitSentences(c).size();
    m.total = total;
    if (total == 0) {
      m.state = ScoreState::Empty;
      return;
    }
    const std::string key = "relevant:" + in.qid;
    plan(key, "relevant", [&] {
      return chatRequest(llm::renderTemplate(
          m_s.contextRelevanceTemplate,
          {{"question", in.question}, {"documents", llm::formatPassages(chunks)}}));
    });
    const store::ItemResult* res = doneOr(key, m, "sentence extraction");
    if (!res) return;
    const std::string reply = claims::normalizeClaimText(res->text);
    if (reply.empty()) {
      m.state = ScoreState::Unparsed;
      m.problem = "an empty reply";
      return;
    }
    std::size_t extracted = 0;
    if (reply != "insufficient information") {
      for (const auto& line : splitLines(res->text)) extracted += llm::splitSentences(line).size();
    }
    m.scored = total;
    m.state = ScoreState::Scored;
    m.value = std::min(1.0, static_cast<double>(extracted) / static_cast<double>(total));
  }

  const JudgeSettings& m_s;
  const Stored& m_stored;
  std::vector<store::NewItem>* m_items;
  Needs m_needs;
};

JudgeRecordInputs loadRecord(store::RunStore& store) {
  JudgeRecordInputs l;
  const auto record = store.run();
  if (record.kind != kJudgeJobKind) {
    l.error = store.path().filename().string() + " is a " + record.kind + " run, not a judging run";
    return l;
  }
  if (const std::string p = judgeRecordProblem(record.settings); !p.empty()) {
    l.error = store.path().string() + ": " + p;
    return l;
  }
  const auto inputs = store.data(kJudgeInputsData);
  if (!inputs) {
    l.error = store.path().string() + ": run_data lacks \"" + std::string(kJudgeInputsData) +
              "\" (the answers judged)";
    return l;
  }
  try {
    l.settings = judgeSettingsFromJson(record.settings["judge"]);
    l.settings.judgeTemplate = record.templateText;
    // Strict (core/util/jsonstrict.h): the store may come from elsewhere, and what is judged
    // must be what a reader of it sees.
    json parsedInputs;
    if (JsonStrictError why; !parseJsonStrict(*inputs, parsedInputs, &why)) {
      l.error = store.path().string() + ": run_data \"" + std::string(kJudgeInputsData) +
                "\": " + describeJsonStrictError(why);
      return l;
    }
    l.inputs = judgeInputsFromJson(parsedInputs);
  } catch (const json::exception& e) {
    l.error =
        store.path().string() + ": run_data \"" + std::string(kJudgeInputsData) + "\": " + e.what();
  }
  return l;
}

// Walks every input, on all cores: each chunk of the inputs has its own Walker and item list,
// joined in input order, so the items and queries do not depend on the number of threads.
void walkAll(const JudgeSettings& settings, const Stored& stored,
             const std::vector<JudgeInput>& inputs, std::vector<store::NewItem>* items,
             std::vector<JudgedQuery>* queries) {
  // A query's walk parses a few replies and may build requests: tens of microseconds.
  const unsigned threads = stats::resolveThreads(0, inputs.size(), 500);
  std::vector<std::vector<store::NewItem>> planned(threads);
  if (queries) queries->resize(inputs.size());
  stats::forChunks(inputs.size(), threads, [&](unsigned chunk, std::size_t begin, std::size_t end) {
    Walker walker(settings, stored, items ? &planned[chunk] : nullptr);
    for (std::size_t i = begin; i < end; ++i) {
      JudgedQuery q = walker.walk(inputs[i]);
      if (queries) (*queries)[i] = std::move(q);
    }
  });
  if (items)
    for (auto& part : planned) std::move(part.begin(), part.end(), std::back_inserter(*items));
}

}  // namespace

std::vector<store::NewItem> firstJudgeItems(const JudgeSettings& settings,
                                            const std::vector<JudgeInput>& inputs) {
  std::vector<store::NewItem> items;
  walkAll(settings, Stored{}, inputs, &items, nullptr);
  return items;
}

JudgeWalk walkJudgeStore(store::RunStore& store, bool planItems,
                         std::optional<JudgeRecordInputs>* cache) {
  JudgeWalk w;
  std::optional<JudgeRecordInputs> own;
  std::optional<JudgeRecordInputs>& slot = cache ? *cache : own;
  if (!slot) slot = loadRecord(store);
  const JudgeRecordInputs& l = *slot;
  if (!l.error.empty()) {
    w.error = l.error;
    return w;
  }
  w.settings = l.settings;
  const Stored stored = readStored(store);
  w.pendingItems = stored.pending;
  w.heuristic = stored.heuristic;
  walkAll(w.settings, stored, l.inputs, planItems ? &w.items : nullptr, &w.queries);
  return w;
}

std::vector<store::NewItem> nextJudgeItems(store::RunStore& store) {
  return walkJudgeStore(store, true).items;
}

const PremiseVerdicts* JudgedQuery::find(std::string_view premise) const {
  for (const auto& v : verdicts)
    if (v.premise == premise) return &v;
  return nullptr;
}

}  // namespace ragscope::core::eval
