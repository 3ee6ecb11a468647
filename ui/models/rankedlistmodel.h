#pragma once
// One query's ranking as the evaluator saw it (sorted, depth-cut) with qrels grades: rows coloured
// by grade, unjudged documents marked, document text from the corpus when it is loaded.

#include <QAbstractTableModel>
#include <QColor>
#include <memory>
#include <vector>

#include "core/data/model.h"
#include "core/metrics/retrievalevaluator.h"

namespace ragscope::ui {

class RankedListModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Rank, DocId, Score, Grade, Text, ColumnCount };
  static constexpr int SortRole = Qt::UserRole;

  explicit RankedListModel(QObject* parent = nullptr);

  // Row background of a judged document: greens for relevant grades (deeper when higher), amber
  // for grades between 0 and the level, red for grade 0. Unjudged rows have none (italic, grey).
  static QColor gradeColor(int grade, int relevanceLevel);

  // `run` keeps the docno bytes alive; `corpus` (may be null) supplies document text.
  void setRanking(std::shared_ptr<const core::Run> run, const core::Ranking* ranking,
                  const std::vector<core::Judgment>* judgments, int relevanceLevel,
                  std::optional<std::size_t> maxDepth, const core::Corpus* corpus);
  void clear();
  // Document level (chunked corpora): a chunk whose document was ranked higher up does not count;
  // its row says so instead of repeating the grade. Applies to the ranking set last.
  void markRepeatedDocuments();

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::shared_ptr<const core::Run> m_run;
  std::vector<core::RankedDoc> m_docs;
  const core::Corpus* m_corpus = nullptr;
  // Document level, per row: the rank of its document's first chunk; 0 = the first itself.
  std::vector<std::size_t> m_sameDocumentAs;
  int m_level = 1;
};

}  // namespace ragscope::ui
