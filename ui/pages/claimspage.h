#pragma once
// Claim-level judging (core/claims/README.md) in the GUI. Setup: the current dataset; where the
// answers come from (the dataset's own responses, an answers file of `generate`, or generated now
// from one of its runs, from BM25 over its corpus or from a retriever saved in the project — dense
// and hybrid too, confirmed first when it calls an endpoint — with a chosen generator); the judge
// endpoint
// (or the offline heuristic judge); metric families (the notebook's, RAGChecker's eleven, RAGAS's,
// answer relevancy with an embeddings endpoint, VERA's consolidated score with a rerank
// endpoint); the compatibility mode; repeats; the claim x chunk matrix; the extraction and
// judging templates (viewable and editable); a budget; and a dry-run estimate. The page gathers a
// core::eval::JobSpec (ClaimsSetup) and hands it to a RunJob through the JobLauncher and
// JobControls every job page shares (Jobs dock: progress, cancel, resume): the same path as
// `ragscope-cli judge`. Results, or a stored claims run (a project's opens by itself),
// show in a ClaimsResultsView.

#include <QString>
#include <memory>
#include <optional>
#include <vector>

#include "core/eval/api/job.h"
#include "ui/pages/claimsresultsview.h"
#include "ui/pages/claimssetup.h"
#include "ui/pages/jobpage.h"

class QLabel;
class QProgressBar;
class QThreadPool;
class QToolButton;

namespace ragscope::ui {

struct RunJobOutcome;
class RetrieverRunBar;
class Workbench;

class ClaimsPage : public JobPage {
  Q_OBJECT
 public:
  // Where the answers come from (>= 0: generated from that run).
  using AnswersSource = ClaimsSetup::AnswersSource;
  static constexpr AnswersSource DatasetAnswers = ClaimsSetup::DatasetAnswers;
  static constexpr AnswersSource AnswersFile = ClaimsSetup::AnswersFile;
  static constexpr AnswersSource Bm25Generated = ClaimsSetup::Bm25Generated;

  explicit ClaimsPage(Workbench* workbench, QWidget* parent = nullptr);
  ~ClaimsPage() override;

  QString title() const override { return tr("Claims"); }
  QIcon icon() const override;
  void activated() override;

  // Scripted use (self-test, tests).
  bool setAnswersSource(int source);  // an AnswersSource or a run index
  // Answers generated from the top k of a saved retriever of the project (by name).
  bool setRetriever(const QString& name);
  void setAnswersFile(const QString& path);
  // Adds (or selects) an endpoint in the judge selector; index 0 is the offline heuristic judge.
  void setJudgeEndpoint(const core::llm::EndpointConfig& endpoint);
  void setJudgeIndex(int index);
  void setMode(const QString& mode);  // ragscope, ragchecker, ragas
  void setK(int k);
  void setMatrix(bool on);
  void setSetupVisible(bool on);
  bool start() override;
  // Shows a stored claims run; finished() follows.
  bool openStore(const QString& path);

  ClaimsResultsView* view() const { return m_view; }
  ClaimsSetup* setup() const { return m_setup; }
  const core::eval::JudgeReport* report() const { return m_view->report(); }

  // The bootstrap the page's CIs use: the CLI's (B = 10,000, seed 42, percentile), on one thread.
  static core::eval::ResultOptions resultOptions();

  // Makes a run with one of the project's retrievers (scripted use: tests, screenshots).
  RetrieverRunBar* retrieverBar() const;

 private:
  void buildUi();
  void showProjectRuns();
  std::optional<core::eval::JobSpec> formSpec(QString* error) const override;
  bool runEstimate() override;
  void onFinished(const RunJobOutcome& outcome);
  void showReport(std::shared_ptr<const core::eval::JudgeReport> report, const QString& store);

  Workbench* m_workbench;
  ClaimsSetup* m_setup = nullptr;
  QLabel* m_runLabel = nullptr;  // which run the results show
  QToolButton* m_setupToggle = nullptr;
  ClaimsResultsView* m_view = nullptr;
  QThreadPool* m_pool = nullptr;  // owned: stored runs read off the GUI thread
  bool m_userOpened = false;  // a run or a store was shown: the project's store does not replace it
  int m_openGeneration = 0;
};

}  // namespace ragscope::ui
