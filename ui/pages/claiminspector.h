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

#include <QColor>
#include <QString>
#include <QWidget>
#include <memory>
#include <optional>

#include "core/eval/judgecalls.h"
#include "core/eval/judgejob.h"

class QLabel;
class QListWidget;
class QTabWidget;
class QTableWidget;
class QTextBrowser;

namespace ragscope::ui {

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

 private:
  void showResponse();
  void showClaims();
  void showGold();
  void showEvidence(int claim);
  void loadCalls();
  void showCall(int row);

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
};

}  // namespace ragscope::ui
