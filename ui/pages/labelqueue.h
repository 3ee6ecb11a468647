#pragma once
// The labelling queue (core/labels/README.md, "Labelling queue"): a window that chooses what to
// label (core::labels::selectQueue: a seeded random sample, stratified by the judge's verdict,
// the claims whose repeats flipped first, or the unjudged documents in the top k of a run) and
// walks it by keyboard: a label key stores the label and moves on, → / ← next and previous,
// Space skips, '/' comments; "12 / 50" says how far. Claims of a judging run take verdicts
// (S U C N T) against the premise chosen ("Judge against": the retrieved chunks, the gold
// answer, or, for gold claims, the response; core/labels/label.h ClaimPremise), which each
// label records and the item shows first; documents of a retrieval run take relevance grades
// (0 1 2 3). Labels go through the workbench's LabelBook, so they show in every view at once;
// the annotator's name is asked once.

#include <QDialog>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/data/dataset.h"
#include "core/eval/jobs/judgejob.h"
#include "core/labels/label.h"
#include "core/labels/labelqueue.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTextBrowser;
class QThreadPool;

namespace ragscope::ui {

class LabelBook;

class LabelQueue : public QDialog {
  Q_OBJECT
 public:
  // The claims of a judging run read from `store` (the report stays shared with the caller).
  static LabelQueue* claimsQueue(LabelBook* book,
                                 std::shared_ptr<const core::eval::JudgeReport> report,
                                 const QString& store, QWidget* parent);
  // The documents the runs retrieved for `dataset`'s queries, judged against `qrels` (may be
  // null: every document is unjudged).
  static LabelQueue* documentsQueue(LabelBook* book, std::shared_ptr<const core::Dataset> dataset,
                                    std::vector<std::shared_ptr<const core::Run>> runs,
                                    std::shared_ptr<const core::Qrels> qrels, QWidget* parent);
  ~LabelQueue() override;

  bool isClaims() const { return m_report != nullptr; }

  // Scripted use (tests); build() chooses in the background, built(count) follows.
  void setOrder(core::labels::QueueOrder order);
  void setSize(int n);
  void setSeed(int seed);
  void setDepth(int k);
  void setRun(int index);
  void setSkipLabelled(bool on);
  // Claims: what the claims are judged against (the chunks, the gold answer: response claims;
  // the response: gold claims). Takes effect at the next build().
  void setPremise(core::labels::ClaimPremise premise);
  core::labels::ClaimPremise premise() const;
  void build();
  const std::vector<core::labels::QueueItem>& items() const { return m_items; }
  int position() const { return m_position; }  // -1 before a queue is built
  const core::labels::QueueItem* current() const;
  void next();
  void previous();
  void skip();

  QLabel* progressLabel() const { return m_progressText; }
  QTextBrowser* itemView() const { return m_view; }
  QLineEdit* commentEdit() const { return m_comment; }
  QLabel* humanLabel() const { return m_human; }
  QComboBox* orderChoice() const { return m_order; }
  QComboBox* premiseChoice() const { return m_premise; }

 signals:
  void built(int count);

 protected:
  void keyPressEvent(QKeyEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  LabelQueue(LabelBook* book, QWidget* parent);
  void buildUi();
  void showItem(int position);
  void refreshCurrent();
  void label(const std::string& value);
  bool handleKey(QKeyEvent* event);
  QString claimHtml(const core::labels::QueueItem& item) const;
  QString documentHtml(const core::labels::QueueItem& item) const;
  void updateProgress();

  LabelBook* m_book;
  QThreadPool* m_pool;
  // Claims
  std::shared_ptr<const core::eval::JudgeReport> m_report;
  QString m_store;
  std::unordered_map<std::string, std::size_t> m_queryOf;  // qid -> report.queries index
  // Documents
  std::shared_ptr<const core::Dataset> m_dataset;
  std::vector<std::shared_ptr<const core::Run>> m_runs;
  std::shared_ptr<const core::Qrels> m_qrels;

  std::vector<core::labels::QueueItem> m_items;
  std::vector<char> m_skipped;  // per item: skipped without a label
  int m_position = -1;
  int m_generation = 0;

  QComboBox* m_order = nullptr;
  QComboBox* m_premise = nullptr;  // claims: the premise asked about (hidden for documents)
  QSpinBox* m_size = nullptr;
  QSpinBox* m_seed = nullptr;
  QSpinBox* m_depth = nullptr;
  QComboBox* m_runChoice = nullptr;
  QCheckBox* m_skipLabelled = nullptr;
  QPushButton* m_build = nullptr;
  QLabel* m_annotator = nullptr;
  QLabel* m_progressText = nullptr;
  QProgressBar* m_progress = nullptr;
  QTextBrowser* m_view = nullptr;
  QLabel* m_human = nullptr;
  QLabel* m_keys = nullptr;
  QLineEdit* m_comment = nullptr;
};

}  // namespace ragscope::ui
