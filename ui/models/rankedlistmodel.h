#pragma once
// One query's ranking as the evaluator saw it (sorted, depth-cut) with qrels grades: rows coloured
// by grade, unjudged documents marked, document text from the corpus when it is loaded.
// The Human column shows the human relevance grades of the labels store (core/labels/README.md):
// the annotator's own grade, else the latest anyone gave, with the others in the tooltip.

#include <QAbstractTableModel>
#include <QColor>
#include <memory>
#include <string>
#include <vector>

#include "core/data/model.h"
#include "core/metrics/retrievalevaluator.h"

namespace ragscope::ui {

struct LabelSnapshot;

class RankedListModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Rank, DocId, Score, Grade, Human, Text, ColumnCount };
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
  // The human grades shown (Relevance targets of `scope`, the dataset's name); `annotator`'s own
  // grade comes first. Repaints the Human column only.
  void setHumanLabels(std::shared_ptr<const LabelSnapshot> labels, std::string scope,
                      std::string annotator);
  // The query shown and the document id of a row (for labelling).
  const std::string& queryId() const { return m_qid; }
  std::string docIdAt(int row) const;
  // Document level (chunked corpora): a chunk whose document was ranked higher up does not count;
  // its row says so instead of repeating the grade. Applies to the ranking set last.
  void markRepeatedDocuments();

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  QVariant humanData(const core::RankedDoc& d, int role) const;
  std::shared_ptr<const core::Run> m_run;
  std::vector<core::RankedDoc> m_docs;
  const core::Corpus* m_corpus = nullptr;
  // Document level, per row: the rank of its document's first chunk; 0 = the first itself.
  std::vector<std::size_t> m_sameDocumentAs;
  int m_level = 1;
  std::string m_qid;
  std::shared_ptr<const LabelSnapshot> m_labels;
  std::string m_scope, m_annotator;
};

}  // namespace ragscope::ui
