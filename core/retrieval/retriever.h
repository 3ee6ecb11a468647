#pragma once
// Retrievers (core/retrieval/README.md): something that turns a query into a ranked list of
// document ids. A retrieve job runs one over every query of a dataset and yields a core::Run, saved
// as a TREC run file and evaluated like any other run:
//
//   auto bm25 = XapianRetriever::open(indexDir, {}, &error);          // xapianindex.h
//   RetrieveOptions o; o.k = 100; o.threads = 4;
//   Loaded<Run> run = retrieveAll(*bm25, dataset.queries, o);
//   writeTrecRun(run.value, "bm25.trec", &error);

#include <cstddef>
#include <filesystem>
#include <ostream>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/diagnostic.h"
#include "core/data/model.h"
#include "core/data/trecid.h"

namespace ragscope::core {

struct ScoredDoc {
  std::string id;
  double score = 0.0;
  std::string text;  // when the retriever returns it (HTTP, ES, run file over a corpus); else empty
};

class Retriever {
 public:
  virtual ~Retriever() = default;

  // Short name, used as the default run tag ("bm25", "es", "http", a run's tag).
  virtual std::string name() const = 0;

  // Up to k documents for `query`, best first. On failure returns {} and sets *error (one line,
  // naming the endpoint or file; never a secret). An empty result without error means "nothing
  // found". Must be safe to call from several threads at once: retrieveAll spreads queries over
  // worker threads.
  virtual std::vector<ScoredDoc> search(const Query& query, std::size_t k, std::string* error) = 0;
};

struct RetrieveOptions {
  std::size_t k = 100;
  unsigned threads = 2;
  // Skip: a failed query is reported and left out of the run; Stop: the job ends at the first one.
  OnError onError = OnError::Skip;
  std::size_t maxStoredDiagnostics = 10000;
  // (queries done, queries total), called from the calling thread about ten times a second and
  // once at the end; return false to cancel.
  ProgressFn progress;
  std::stop_token stop;
  std::string tag;  // run tag; empty = retriever.name()
};

// Runs `retriever` over `queries`. The run has one ranking per query that returned documents, in
// the order of `queries`. Each ranking is in trec_eval's order (score descending, ties by docno
// descending) so that the rank column we write is the rank trec_eval computes; scores are rounded
// to single precision first because some trec_eval versions read scores as float, and a
// difference that float cannot hold must not decide the order in one program but not the other.
// A document returned twice for one query keeps its first (best) entry, with a warning.
// report.records = queries that returned at least one document; a failed query is an error
// diagnostic (file = retriever name, field = "query <id>").
Loaded<Run> retrieveAll(Retriever& retriever, const std::vector<Query>& queries,
                        const RetrieveOptions& options);

// How writeTrecRun prints scores. Float (retrieval runs, whose scores are floats): a score that
// is a float value as %.9g, which reads back as that float; any other with %.17g. Shortest
// (fused runs, whose scores are doubles): std::to_chars's shortest text that reads back as the
// same double, whatever the double.
enum class ScoreText { Float, Shortest };

// "qid Q0 docid rank score tag" lines, rankings in run order, entries in stored order (rank =
// position + 1), scores printed with enough digits to read back the same value. A tag with
// blanks has them replaced by '_'; qids and docids go through encodeTrecId.
void writeTrecRun(const Run& run, std::ostream& out, ScoreText scores = ScoreText::Float);
// Written to a temporary file beside `path` and renamed over it, so a reader never sees half a
// run. false + *error on failure.
bool writeTrecRun(const Run& run, const std::filesystem::path& path, std::string* error,
                  ScoreText scores = ScoreText::Float);

// The tag as written: blanks replaced by '_', empty -> "ragscope".
std::string sanitizeRunTag(std::string_view tag);

}  // namespace ragscope::core
