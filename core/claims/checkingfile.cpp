#include "core/claims/checkingfile.h"

#include <fstream>
#include <sstream>
#include <unordered_map>

#include "core/claims/numpycompat.h"
#include "core/data/jsonguard.h"
#include "core/data/jsonlines.h"
#include "core/export/json.h"
#include "core/util/inputfile.h"
#include "core/util/jsonkeep.h"

namespace ragscope::core::claims {

namespace {

using nlohmann::json;

// Problems of one record, each problem text ending with the record's query id once it is known.
struct RecordContext {
  RecordProblems& problems;
  std::string suffix;

  void error(std::string_view field, const std::string& problem) {
    problems.error(field, problem + suffix);
  }
  void warning(std::string_view field, const std::string& problem) {
    problems.warning(field, problem + suffix);
  }
};

// What a label list held besides labels, reported once per field.
struct LabelNotes {
  std::size_t missing = 0;  // nulls and padding
  std::size_t unknown = 0;
  std::string firstUnknown;
};

constexpr const char* kLabelHelp = "a string (Entailment, Neutral or Contradiction) or null";

bool readLabelList(const json& v, const std::string& field, std::vector<Label>& out,
                   LabelNotes& notes, RecordContext& ctx, const char* what) {
  if (!v.is_array()) {
    ctx.error(field,
              std::string("must be a list of labels (") + what + "), not " + jsonTypeName(v));
    return false;
  }
  out.reserve(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const json& e = v[i];
    if (e.is_null()) {
      ++notes.missing;
      out.push_back(Label::Unparsed);
    } else if (e.is_string()) {
      const auto& name = e.get_ref<const std::string&>();
      if (auto l = labelFromName(name)) {
        out.push_back(*l);
      } else {
        if (notes.unknown++ == 0) notes.firstUnknown = name.substr(0, 40);
        out.push_back(Label::Unparsed);
      }
    } else {
      ctx.error(indexedField(field, i),
                std::string("a label must be ") + kLabelHelp + ", not " + jsonTypeName(e));
      return false;
    }
  }
  return true;
}

bool readClaims(const json& v, const std::string& field, std::vector<Claim>& out,
                RecordContext& ctx) {
  if (!v.is_array()) {
    ctx.error(field, "must be a list of claims, not " + jsonTypeName(v));
    return false;
  }
  for (std::size_t i = 0; i < v.size(); ++i) {
    const json& c = v[i];
    Claim claim;
    if (c.is_string()) {
      claim.push_back(c.get<std::string>());
    } else if (c.is_array()) {
      for (const json& part : c) {
        if (!part.is_string()) {
          ctx.error(indexedField(field, i),
                    "a claim's parts must be strings, not " + jsonTypeName(part));
          return false;
        }
        claim.push_back(part.get<std::string>());
      }
    } else {
      ctx.error(
          indexedField(field, i),
          "a claim must be a string or a [subject, relation, object] list, not " + jsonTypeName(c));
      return false;
    }
    out.push_back(std::move(claim));
  }
  return true;
}

struct RawMatrix {
  bool present = false;
  std::vector<std::vector<Label>> rows;
  LabelNotes notes;
};

bool readMatrix(const json& rec, const char* key, RawMatrix& m, RecordContext& ctx) {
  auto it = rec.find(key);
  if (it == rec.end() || it->is_null()) return true;
  m.present = true;
  if (!it->is_array()) {
    ctx.error(key, "must be a list with one list of labels per claim, not " + jsonTypeName(*it));
    return false;
  }
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& row = (*it)[i];
    if (!row.is_array()) {
      ctx.error(indexedField(key, i), "must be a list of labels (one per retrieved chunk), not " +
                                          jsonTypeName(row) + ": the matrix has the wrong shape");
      return false;
    }
    m.rows.emplace_back();
    if (!readLabelList(row, indexedField(key, i), m.rows.back(), m.notes, ctx,
                       "one per retrieved chunk"))
      return false;
  }
  return true;
}

void noteWarnings(const char* field, bool present, std::size_t expected, const LabelNotes& notes,
                  RecordContext& ctx) {
  if (expected == 0) return;
  if (!present) {
    ctx.warning(field, "missing: all " + std::to_string(expected) + " labels read as unparsed");
    return;
  }
  if (notes.missing > 0)
    ctx.warning(field, std::to_string(notes.missing) + " of " + std::to_string(expected) +
                           " labels missing (null or absent), read as unparsed");
  if (notes.unknown > 0)
    ctx.warning(
        field,
        "'" + notes.firstUnknown + "'" +
            (notes.unknown > 1 ? " and " + std::to_string(notes.unknown - 1) + " more" : "") +
            " not a label name (Entailment, Neutral, Contradiction), read as unparsed");
}

// Parses one results[] element into `ex`; false (with errors recorded) when it cannot be used.
bool parseRecord(json& rec, ClaimExample& ex, RecordContext& ctx,
                 std::unordered_map<std::string, std::uint64_t>& seen, std::uint64_t line) {
  RecordProblems& problems = ctx.problems;
  if (!rec.is_object()) {
    ctx.error({}, "must be a JSON object, not " + jsonTypeName(rec));
    return false;
  }
  auto id = jsonId(rec, "query_id", problems, true);
  if (!id) return false;
  ex.queryId = *id;
  ctx.suffix = " (query_id " + ex.queryId + ")";
  if (auto [it, fresh] = seen.emplace(ex.queryId, line); !fresh) {
    ctx.error("query_id",
              "repeats the query_id of the record at line " + std::to_string(it->second));
    return false;
  }
  if (auto s = jsonString(rec, "query", problems, false)) ex.query = std::move(*s);
  if (auto s = jsonString(rec, "gt_answer", problems, false)) ex.goldAnswer = std::move(*s);
  if (auto s = jsonString(rec, "response", problems, false)) ex.response = std::move(*s);
  if (problems.hasErrors()) return false;

  bool haveChunks = false;
  if (auto it = rec.find("retrieved_context"); it != rec.end() && !it->is_null()) {
    haveChunks = true;
    if (!it->is_array()) {
      ctx.error("retrieved_context", "must be a list of {doc_id, text}, not " + jsonTypeName(*it));
      return false;
    }
    for (std::size_t i = 0; i < it->size(); ++i) {
      json& c = (*it)[i];
      const std::string field = indexedField("retrieved_context", i);
      Chunk chunk;
      if (c.is_string()) {
        chunk.text = c.get<std::string>();
      } else if (c.is_object()) {
        if (auto d = jsonId(c, "doc_id", problems, false, field + ".doc_id"))
          chunk.id = std::move(*d);
        if (auto t = jsonString(c, "text", problems, false, field + ".text"))
          chunk.text = std::move(*t);
      } else {
        ctx.error(field, "must be an object {doc_id, text}, not " + jsonTypeName(c));
        return false;
      }
      ex.retrieved.push_back(std::move(chunk));
    }
    if (problems.hasErrors()) return false;
  }

  bool haveResponseClaims = false, haveAnswerClaims = false;
  if (auto it = rec.find("response_claims"); it != rec.end() && !it->is_null()) {
    haveResponseClaims = true;
    if (!readClaims(*it, "response_claims", ex.responseClaims, ctx)) return false;
  }
  if (auto it = rec.find("gt_answer_claims"); it != rec.end() && !it->is_null()) {
    haveAnswerClaims = true;
    if (!readClaims(*it, "gt_answer_claims", ex.answerClaims, ctx)) return false;
  }

  std::vector<Label> a2r, r2a;
  LabelNotes a2rNotes, r2aNotes;
  bool haveA2r = false, haveR2a = false;
  if (auto it = rec.find("answer2response"); it != rec.end() && !it->is_null()) {
    haveA2r = true;
    if (!readLabelList(*it, "answer2response", a2r, a2rNotes, ctx, "one per response claim"))
      return false;
  }
  if (auto it = rec.find("response2answer"); it != rec.end() && !it->is_null()) {
    haveR2a = true;
    if (!readLabelList(*it, "response2answer", r2a, r2aNotes, ctx, "one per gold-answer claim"))
      return false;
  }
  RawMatrix mResp, mAns;
  if (!readMatrix(rec, "retrieved2response", mResp, ctx) ||
      !readMatrix(rec, "retrieved2answer", mAns, ctx))
    return false;

  // Sizes: from the claims and chunks when given, else from the labels.
  const std::size_t r =
      haveResponseClaims ? ex.responseClaims.size() : std::max(a2r.size(), mResp.rows.size());
  const std::size_t g =
      haveAnswerClaims ? ex.answerClaims.size() : std::max(r2a.size(), mAns.rows.size());
  std::size_t k = ex.retrieved.size();
  if (!haveChunks) {
    k = 0;
    for (const auto* m : {&mResp, &mAns})
      for (const auto& row : m->rows) k = std::max(k, row.size());
  }
  const auto n = [](std::size_t v) { return std::to_string(v); };
  if (a2r.size() > r) {
    ctx.error("answer2response",
              "has " + n(a2r.size()) + " labels for " + n(r) + " response claims");
    return false;
  }
  if (r2a.size() > g) {
    ctx.error("response2answer",
              "has " + n(r2a.size()) + " labels for " + n(g) + " gold-answer claims");
    return false;
  }
  for (auto [m, key, claims, what] :
       {std::tuple{&mResp, "retrieved2response", r, "response claims"},
        std::tuple{&mAns, "retrieved2answer", g, "gold-answer claims"}}) {
    if (m->rows.size() > claims) {
      ctx.error(key, "has " + n(m->rows.size()) + " rows for " + n(claims) + " " + what +
                         ": the matrix has the wrong shape");
      return false;
    }
    for (std::size_t i = 0; i < m->rows.size(); ++i) {
      if (m->rows[i].size() > k) {
        ctx.error(indexedField(key, i), "has " + n(m->rows[i].size()) + " labels for " + n(k) +
                                            " retrieved chunks: the matrix has the wrong shape");
        return false;
      }
    }
  }

  ex.resize(r, g, k);
  std::copy(a2r.begin(), a2r.end(), ex.answer2response.begin());
  std::copy(r2a.begin(), r2a.end(), ex.response2answer.begin());
  for (std::size_t i = 0; i < mResp.rows.size(); ++i)
    for (std::size_t c = 0; c < mResp.rows[i].size(); ++c)
      ex.retrieved2response.at(i, c) = mResp.rows[i][c];
  for (std::size_t j = 0; j < mAns.rows.size(); ++j)
    for (std::size_t c = 0; c < mAns.rows[j].size(); ++c)
      ex.retrieved2answer.at(j, c) = mAns.rows[j][c];

  a2rNotes.missing += r - a2r.size();
  r2aNotes.missing += g - r2a.size();
  std::size_t cellsResp = 0, cellsAns = 0;
  for (const auto& row : mResp.rows) cellsResp += row.size();
  for (const auto& row : mAns.rows) cellsAns += row.size();
  mResp.notes.missing += r * k - cellsResp;
  mAns.notes.missing += g * k - cellsAns;
  noteWarnings("answer2response", haveA2r, r, a2rNotes, ctx);
  noteWarnings("response2answer", haveR2a, g, r2aNotes, ctx);
  noteWarnings("retrieved2response", mResp.present, r * k, mResp.notes, ctx);
  noteWarnings("retrieved2answer", mAns.present, g * k, mAns.notes, ctx);

  if (auto it = rec.find("metrics"); it != rec.end() && !it->is_null()) {
    if (!it->is_object()) {
      ctx.warning("metrics",
                  "must be an object of numbers, not " + jsonTypeName(*it) + "; ignored");
    } else {
      for (auto m = it->begin(); m != it->end(); ++m) {
        if (m.value().is_number())
          ex.storedMetrics[m.key()] = m.value().get<double>();
        else
          ctx.warning("metrics." + m.key(),
                      "not a number (" + jsonTypeName(m.value()) + "); ignored");
      }
    }
  }
  return !problems.hasErrors();
}

std::string labelJson(Label l) {
  switch (l) {
    case Label::Supported:
      return "Entailment";
    case Label::Unsupported:
      return "Neutral";
    default:
      return std::string(labelName(l));
  }
}

nlohmann::ordered_json claimsJson(const std::vector<Claim>& claims) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& c : claims) {
    if (c.size() == 1)
      out.push_back(c.front());
    else
      out.push_back(c);
  }
  return out;
}

nlohmann::ordered_json matrixJson(const LabelMatrix& m) {
  auto out = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < m.rows(); ++i) {
    auto row = nlohmann::ordered_json::array();
    for (std::size_t c = 0; c < m.cols(); ++c) row.push_back(labelJson(m.at(i, c)));
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace

Loaded<std::vector<ClaimExample>> readCheckingOutput(const std::filesystem::path& path,
                                                     const LoadOptions& options) {
  Loaded<std::vector<ClaimExample>> out;
  std::unordered_map<std::string, std::uint64_t> seen;
  auto onRecord = [&](json& rec, const JsonRecordPlace& place, RecordProblems& problems) {
    RecordContext ctx{problems, {}};
    ClaimExample ex;
    ex.line = place.line;
    bool ok = false;
    try {
      ok = parseRecord(rec, ex, ctx, seen, place.line);
    } catch (const json::exception& e) {
      // parseRecord checks every type before reading it; this is the net under that promise.
      ctx.error({}, std::string("unexpected JSON content: ") + e.what());
    }
    if (ok && !problems.hasErrors()) out.value.push_back(std::move(ex));
  };
  out.report = readJsonArrayElements(path, options, "results", onRecord);
  return out;
}

// RAGChecker's checking outputs run to tens of megabytes; anything past this is not one.
constexpr std::uint64_t kMaxCheckingFileBytes = std::uint64_t{2} << 30;

std::map<std::string, std::map<std::string, double>> readStoredCorpusMetrics(
    const std::filesystem::path& path, std::string* error) {
  std::map<std::string, std::map<std::string, double>> out;
  const auto fail = [&](std::string why) {
    if (error) *error = path.string() + ": " + std::move(why);
    return decltype(out){};
  };
  std::string problem;
  const auto read = readBoundedFile(path, kMaxCheckingFileBytes, "a checking-output file", problem);
  if (!read) return fail(problem);
  const std::string& text = *read;
  if (auto why = checkJsonDepth(text, 256)) return fail(*why);
  // Only "metrics" is built (the results are skipped while parsing), strictly: a member given
  // twice anywhere is refused (core/util/jsonstrict.h), json::parse would keep the last.
  JsonKeep keep;
  keep.step("metrics").everything = true;
  json doc;
  if (JsonStrictError why; !parseJsonKeeping(text, keep, &doc, &why))
    return fail(why.repeated ? "not strict JSON: " + describeJsonStrictError(why)
                             : std::string("not valid JSON"));
  if (!doc.is_object()) return out;
  auto metrics = doc.find("metrics");
  if (metrics == doc.end() || !metrics->is_object()) return out;
  for (auto group = metrics->begin(); group != metrics->end(); ++group) {
    if (!group.value().is_object()) continue;
    std::string name = group.key();
    if (name.ends_with("_metrics")) name.resize(name.size() - 8);
    for (auto m = group.value().begin(); m != group.value().end(); ++m)
      if (m.value().is_number()) out[name][m.key()] = m.value().get<double>();
  }
  return out;
}

nlohmann::ordered_json checkingOutputJson(std::span<const ClaimExample> examples,
                                          const CorpusScores* scores) {
  using ojson = nlohmann::ordered_json;
  ojson results = ojson::array();
  for (std::size_t e = 0; e < examples.size(); ++e) {
    const ClaimExample& ex = examples[e];
    ojson rec;
    rec["query_id"] = ex.queryId;
    rec["query"] = ex.query;
    rec["gt_answer"] = ex.goldAnswer;
    rec["response"] = ex.response;
    ojson chunks = ojson::array();
    for (const auto& c : ex.retrieved) chunks.push_back({{"doc_id", c.id}, {"text", c.text}});
    rec["retrieved_context"] = std::move(chunks);
    // Claims only when they are the claims the labels are about.
    if (ex.responseClaims.size() == ex.responseClaimCount())
      rec["response_claims"] = claimsJson(ex.responseClaims);
    if (ex.answerClaims.size() == ex.answerClaimCount())
      rec["gt_answer_claims"] = claimsJson(ex.answerClaims);
    ojson a2r = ojson::array(), r2a = ojson::array();
    for (Label l : ex.answer2response) a2r.push_back(labelJson(l));
    for (Label l : ex.response2answer) r2a.push_back(labelJson(l));
    rec["answer2response"] = std::move(a2r);
    rec["response2answer"] = std::move(r2a);
    rec["retrieved2response"] = matrixJson(ex.retrieved2response);
    rec["retrieved2answer"] = matrixJson(ex.retrieved2answer);
    if (scores && e < scores->perExample.size()) {
      ojson m = ojson::object();
      for (Metric metric : allMetrics()) {
        const MetricScore& s = scores->perExample[e][metric];
        if (s.hasValue()) m[std::string(metricKey(metric))] = s.value;
      }
      rec["metrics"] = std::move(m);
    }
    results.push_back(std::move(rec));
  }
  ojson doc;
  doc["results"] = std::move(results);
  if (scores) {
    ojson groups = ojson::object();
    for (Metric metric : allMetrics()) {
      const CorpusMetric& c = (*scores)[metric];
      groups[std::string(metricGroup(metric))][std::string(metricKey(metric))] =
          c.scored > 0 ? ojson(c.percent) : ojson(nullptr);
    }
    doc["metrics"] = std::move(groups);
  }
  return doc;
}

bool writeCheckingOutput(const std::filesystem::path& path, std::span<const ClaimExample> examples,
                         const CorpusScores* scores, std::string* error) {
  return exporting::writeJsonFile(path, checkingOutputJson(examples, scores), error, 2);
}

}  // namespace ragscope::core::claims
