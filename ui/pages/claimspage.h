#pragma once
// Claim-level judging (SPEC §7, CLAIMS.md) in the GUI. Setup: the current dataset; where the
// answers come from (the dataset's own responses, an answers file of `generate`, or generated now
// from one of its runs or from BM25 over its corpus with a chosen generator); the judge endpoint
// (or the offline heuristic judge); metric families (the notebook's, RAGChecker's eleven, RAGAS's,
// answer relevancy with an embeddings endpoint, VERA's consolidated score with a rerank
// endpoint); the compatibility mode; repeats; the claim x chunk matrix; the extraction and
// judging templates (viewable and editable); a budget; and a dry-run estimate. The page gathers a
// core::eval::JobSpec and hands it to a RunJob (Jobs dock: progress, cancel, resume): the same
// path as `ragscope-cli judge`. Results, or a stored claims run (a project's opens by itself),
// show in a ClaimsResultsView.

#include <QString>
#include <memory>
#include <optional>
#include <vector>

#include "core/eval/job.h"
#include "ui/pages/claimsresultsview.h"
#include "ui/pages/page.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QThreadPool;
class QToolButton;

namespace ragscope::ui {

class RunJob;
struct RunJobOutcome;
class TemplateField;
class RetrieverRunBar;
class Workbench;

class ClaimsPage : public Page {
  Q_OBJECT
 public:
  // Where the answers come from (the answers selector's item data for the first three).
  enum AnswersSource {
    DatasetAnswers = -1,
    AnswersFile = -2,
    Bm25Generated = -3
  };  // >= 0: generated from that run
  enum class Family { Notebook, RagChecker, Ragas, ContextRelevance, AnswerRelevancy, Vera };

  explicit ClaimsPage(Workbench* workbench, QWidget* parent = nullptr);
  ~ClaimsPage() override;

  QString title() const override { return tr("Claims"); }
  QIcon icon() const override;
  void activated() override;

  // Scripted use (self-test, tests).
  bool setAnswersSource(int source);  // an AnswersSource or a run index
  void setAnswersFile(const QString& path);
  // Adds (or selects) an endpoint in the judge selector; index 0 is the offline heuristic judge.
  void setJudgeEndpoint(const core::llm::EndpointConfig& endpoint);
  void setJudgeIndex(int index);
  void setFamily(Family family, bool on);
  void setMode(const QString& mode);  // ragscope, ragchecker, ragas
  void setRepeats(int repeats);
  void setK(int k);
  void setMatrix(bool on);
  void setBudget(std::optional<double> usd);
  void setSetupVisible(bool on);
  bool estimate();  // estimateFinished() follows
  bool start();     // finished() follows
  void cancel();
  bool isRunning() const { return m_running; }
  std::optional<core::eval::JobSpec> jobSpec(QString* error) const;
  // Shows a stored claims run; finished() follows.
  bool openStore(const QString& path);

  ClaimsResultsView* view() const { return m_view; }
  const core::eval::JudgeReport* report() const { return m_view->report(); }
  QLabel* estimateLabel() const { return m_estimate; }
  QLabel* statusLabel() const { return m_status; }
  QProgressBar* progressBar() const { return m_progress; }

  // The bootstrap the page's CIs use: the CLI's (B = 10,000, seed 42, percentile), on one thread.
  static core::eval::ResultOptions resultOptions();

  // Makes a run with one of the project's retrievers (scripted use: tests, screenshots).
  RetrieverRunBar* retrieverBar() const { return m_retrieverBar; }
 signals:
  void estimateFinished(bool ok);
  void finished(bool ok);

 private:
  void buildUi();
  void refreshInputs();
  void refreshEndpoints();
  void showProjectRuns();
  void scheduleEstimate();
  void onFinished(const RunJobOutcome& outcome);
  void showReport(std::shared_ptr<const core::eval::JudgeReport> report, const QString& store);
  void fail(const QString& message);
  void setBusy(bool busy);
  QString metricList() const;

  Workbench* m_workbench;
  RetrieverRunBar* m_retrieverBar = nullptr;
  QLabel* m_datasetLabel = nullptr;
  QComboBox* m_answers = nullptr;
  QLineEdit* m_answersFile = nullptr;
  QComboBox* m_generator = nullptr;
  QComboBox* m_judge = nullptr;
  QComboBox* m_embedder = nullptr;
  QComboBox* m_reranker = nullptr;
  std::vector<QCheckBox*> m_families;
  QComboBox* m_mode = nullptr;
  QSpinBox* m_repeats = nullptr;
  QSpinBox* m_k = nullptr;
  QCheckBox* m_matrix = nullptr;
  TemplateField* m_extractTemplate = nullptr;
  TemplateField* m_judgeTemplate = nullptr;
  QCheckBox* m_useBudget = nullptr;
  QDoubleSpinBox* m_budget = nullptr;
  QLabel* m_estimate = nullptr;
  QLabel* m_status = nullptr;
  QLabel* m_runLabel = nullptr;  // which run the results show
  QToolButton* m_setupToggle = nullptr;
  QPushButton* m_startButton = nullptr;
  QPushButton* m_cancelButton = nullptr;
  QProgressBar* m_progress = nullptr;
  ClaimsResultsView* m_view = nullptr;
  std::vector<core::llm::EndpointConfig> m_generators, m_judges, m_embedders, m_rerankers;
  std::vector<core::llm::EndpointConfig> m_scripted;  // endpoints given by setJudgeEndpoint
  RunJob* m_job = nullptr;
  QThreadPool* m_pool = nullptr;
  bool m_running = false;
  bool m_userOpened = false;  // a run or a store was shown: the project's store does not replace it
  int m_estimateGeneration = 0;
  int m_openGeneration = 0;
};

}  // namespace ragscope::ui
