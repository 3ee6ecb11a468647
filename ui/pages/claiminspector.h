#pragma once
// The claim inspector: one judged answer taken apart. The answer's text with the span of each of
// its claims highlighted by the judge's verdict against the retrieved chunks (supported green,
// unsupported red, contradiction dark red, neutral amber, unparsed or failed grey) and a numbered
// marker after each span (✓ ✗ ⊘ ~ ? !) so the verdict reads without colour; the claim list with
// the verdicts against the chunks and the gold answer and, with repeats, each claim's votes and a
// flip marker; for the selected claim, the premise passages with the chunks that support it
// marked; the gold answer with its claims and their coverage verdicts; and the judge's calls for
// the answer, each with its exact prompt and raw reply, repair retries included (read from the
// run store in the background).
// Human labels (core/labels/README.md): a "human" column beside the judge's verdict in the claim
// and gold-claim tables; one key sets the selected claim's human verdict (S supported,
// U unsupported, C contradiction, N neutral, T or ? cannot tell) and moves to the next claim,
// against the premise chosen above the table for answer claims (the retrieved chunks or the gold
// answer: the label records it, the column shows the labels of that premise and compares them
// with the judge's verdict against it) and against the answer for gold claims,
// '/' or Enter opens the comment; a filter keeps the claims where the human disagrees with the
// judge. Labels go through the workbench's LabelBook (stored off the GUI thread) and show here
// as soon as they are stored, wherever they were made.

#include <QColor>
#include <QString>
#include <QWidget>
#include <memory>
#include <optional>

#include "core/eval/jobs/judgecalls.h"
#include "core/eval/jobs/judgejob.h"
#include "core/labels/label.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QTabWidget;
class QTableWidget;
class QTextBrowser;

namespace ragscope::ui {

class LabelBook;

class ClaimInspector : public QWidget {
  Q_OBJECT
 public:
  // How a claim is shown; the colour and the marker both come from it.
  enum class ClaimState {
    Supported,
    Unsupported,
    Contradiction,
    Neutral,
    Unparsed,
    Error,
    NotJudged
  };

  explicit ClaimInspector(QWidget* parent = nullptr);

  // `query` stays owned by the caller and must outlive its display; `store` is where its calls
  // are read from (empty: none).
  void setQuery(const core::eval::JudgedQuery* query, const QString& store);
  const core::eval::JudgedQuery* query() const { return m_query; }

  static ClaimState stateOf(std::optional<core::claims::Label> label);
  static QColor colour(ClaimState state);   // the span's background
  static QString marker(ClaimState state);  // ✓ ✗ ⊘ ~ ? ! –
  static QString stateName(ClaimState state);

  // The labels shown and made here (null: no human column input).
  void setLabelBook(LabelBook* book);
  // The human verdict key of `key` (Qt::Key_S -> "supported", ...); empty for other keys.
  static std::string verdictForKey(int key);
  // The target of response claim i (or, with `gold`, gold claim i) of the shown answer, with
  // its premise: labelPremise() for response claims, the response for gold claims.
  core::labels::Target claimTarget(int claim, bool gold = false) const;
  // What answer claims are labelled against (the chunks by default, or the gold answer).
  void setLabelPremise(core::labels::ClaimPremise premise);
  core::labels::ClaimPremise labelPremise() const { return m_premise; }
  QComboBox* premiseChoice() const { return m_premiseChoice; }
  // Sets the human verdict of claim i as the keys do (scripted use).
  void setHumanVerdict(int claim, const std::string& verdict, bool gold = false);
  void setDisagreementFilter(bool on);
  int visibleClaims() const;                  // response claims not hidden by the filter
  static constexpr int kHumanColumn = 5;      // in claimTable(), shown beside "vs chunks"
  static constexpr int kGoldHumanColumn = 4;  // in goldTable(), shown beside "in the answer"
  QCheckBox* disagreementFilter() const { return m_disagreeOnly; }
  QLineEdit* commentEdit() const { return m_comment; }
  QLabel* labelStatus() const { return m_labelStatus; }

  // Scripted use (tests): the state shown for response claim i, the selected claim, the calls.
  ClaimState claimState(int claim) const;
  void selectClaim(int claim);
  QTextBrowser* responseView() const { return m_response; }
  QTableWidget* claimTable() const { return m_claims; }
  QTextBrowser* evidenceView() const { return m_evidence; }
  QTableWidget* goldTable() const { return m_goldClaims; }
  QListWidget* callList() const { return m_calls; }
  QTextBrowser* callView() const { return m_callText; }
  QTabWidget* tabs() const { return m_tabs; }
  const std::vector<core::eval::JudgeCall>& calls() const { return m_callData; }

 signals:
  void callsLoaded(bool ok);
  // "Labelling queue…" was clicked: the results view opens the queue over the whole run.
  void queueRequested();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void showResponse();
  void showClaims();
  void showGold();
  void showEvidence(int claim);
  void loadCalls();
  void showCall(int row);
  void refreshHuman();
  void fillHumanColumn(QTableWidget* table, bool gold);
  void applyDisagreementFilter();
  void labelCurrent(QTableWidget* table, const std::string& verdict);
  void saveComment();
  void showCurrentComment();
  QTableWidget* labelTable() const;  // the table the keys act on (the focused one)

  const core::eval::JudgedQuery* m_query = nullptr;
  QString m_store;
  int m_generation = 0;
  QLabel* m_heading = nullptr;
  QTextBrowser* m_response = nullptr;
  QTableWidget* m_claims = nullptr;
  QTabWidget* m_tabs = nullptr;
  QTextBrowser* m_evidence = nullptr;
  QTextBrowser* m_gold = nullptr;
  QTableWidget* m_goldClaims = nullptr;
  QListWidget* m_calls = nullptr;
  QTextBrowser* m_callText = nullptr;
  std::vector<core::eval::JudgeCall> m_callData;
  LabelBook* m_book = nullptr;
  std::string m_scope;  // the run store as a label scope
  core::labels::ClaimPremise m_premise = core::labels::ClaimPremise::Chunks;
  QComboBox* m_premiseChoice = nullptr;
  QLabel* m_keys = nullptr;
  QCheckBox* m_disagreeOnly = nullptr;
  QLineEdit* m_comment = nullptr;
  QLabel* m_labelStatus = nullptr;
  QTableWidget* m_lastTable = nullptr;  // the table a comment belongs to
};

}  // namespace ragscope::ui
