#pragma once
// One example of claim-level judging (core/claims/README.md, "RAGChecker metrics"): a query, its
// response, the gold answer, the retrieved chunks, the claims extracted from the response and from
// the gold answer, and the four label sets RAGChecker's checking step produces.
//
// Naming (RAGChecker's, and a trap): `answer2response[i]` is the gold answer (premise) judged
// against response claim i, so it has one label per *response* claim; `response2answer[j]` has one
// per *gold-answer* claim. The matrices are stored as the file stores them, one row per claim and
// one column per chunk: retrieved2response.at(i, k) = chunk k judged against response claim i.
//
//   ClaimExample ex;
//   ex.resize(/*R=*/2, /*G=*/1, /*K=*/3);        // every label Unparsed until set
//   ex.answer2response[0] = Label::Entailment;
//   ex.retrieved2response.at(1, 2) = Label::Neutral;
//   if (auto why = shapeProblem(ex)) ...         // labels and claims must agree in size
//
// Sizes: R = answer2response.size() = retrieved2response.rows(); G = response2answer.size() =
// retrieved2answer.rows(); K = the matrices' columns. Claim texts and chunks are optional (a file
// may carry labels only); when present they must match R, G and K.

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/claims/labels.h"

namespace ragscope::core::claims {

// A claim: one sentence, or RAGChecker's [subject, relation, object] triple.
using Claim = std::vector<std::string>;

struct Chunk {
  std::string id;
  std::string text;
};

// Row-major rows x cols labels; a row per claim, a column per chunk.
class LabelMatrix {
 public:
  LabelMatrix() = default;
  LabelMatrix(std::size_t rows, std::size_t cols, Label fill = Label::Unparsed)
      : m_rows(rows), m_cols(cols), m_cells(rows * cols, fill) {}

  std::size_t rows() const { return m_rows; }
  std::size_t cols() const { return m_cols; }
  Label& at(std::size_t row, std::size_t col) { return m_cells[row * m_cols + col]; }
  Label at(std::size_t row, std::size_t col) const { return m_cells[row * m_cols + col]; }
  const Label* row(std::size_t r) const { return m_cells.data() + r * m_cols; }
  const std::vector<Label>& cells() const { return m_cells; }

 private:
  std::size_t m_rows = 0;
  std::size_t m_cols = 0;
  std::vector<Label> m_cells;
};

struct ClaimExample {
  std::string queryId;
  std::string query;
  std::string response;
  std::string goldAnswer;
  std::vector<Chunk> retrieved;
  std::vector<Claim> responseClaims;  // R, or empty when only labels are known
  std::vector<Claim> answerClaims;    // G, or empty when only labels are known

  std::vector<Label> answer2response;  // R: gold answer |= response claim i
  std::vector<Label> response2answer;  // G: response |= gold claim j
  LabelMatrix retrieved2response;      // R x K: chunk k |= response claim i
  LabelMatrix retrieved2answer;        // G x K: chunk k |= gold claim j

  // Metrics as a file stored them (RAGChecker's per-example `metrics`), never recomputed here.
  std::map<std::string, double> storedMetrics;
  std::uint64_t line = 0;  // where the record began in its file (0 when not read from a file)

  std::size_t responseClaimCount() const { return answer2response.size(); }  // R
  std::size_t answerClaimCount() const { return response2answer.size(); }    // G
  // K: the matrices' columns (a matrix without rows may leave its column count at 0).
  std::size_t chunkCount() const {
    return std::max(retrieved2response.cols(), retrieved2answer.cols());
  }

  // Sets R, G and K, every label Unparsed (claim texts and chunks are left as they are).
  void resize(std::size_t r, std::size_t g, std::size_t k);
};

// nullopt when the sizes agree (see the header comment); otherwise what disagrees, e.g.
// "retrieved2answer has 3 columns, retrieved2response 4".
std::optional<std::string> shapeProblem(const ClaimExample& ex);

}  // namespace ragscope::core::claims
