#pragma once
// The Claims page's setup form: the current dataset; where the answers come from (the dataset's
// own responses, an answers file of `generate`, or generated now from one of its runs, from BM25
// over its corpus or from a retriever saved in the project (bm25, es, http, dense, hybrid; run as
// the job's first step: ui/pages/retrieverchoice.h), with a chosen generator and the project's
// retriever bar); the judge endpoint
// (or the offline heuristic judge); the metric families (the notebook's, RAGChecker's eleven,
// RAGAS's, answer relevancy with an embeddings endpoint, VERA's consolidated score with a rerank
// endpoint); the compatibility mode; repeats; k; the claim x chunk matrix; the extraction and
// judging templates. It turns them into the core::eval::JobSpec the page runs; changed() tells
// the page to refresh its estimate.

#include <QString>
#include <QWidget>
#include <optional>
#include <vector>

#include "core/eval/api/job.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace ragscope::ui {

class RetrieverRunBar;
class TemplateField;
class Workbench;

class ClaimsSetup : public QWidget {
  Q_OBJECT
 public:
  // Where the answers come from (the answers selector's item data for the first three).
  // >= 0: generated from that run; Bm25Generated - 1 - i: from the project's saved retriever i.
  enum AnswersSource { DatasetAnswers = -1, AnswersFile = -2, Bm25Generated = -3 };
  enum class Family { Notebook, RagChecker, Ragas, ContextRelevance, AnswerRelevancy, Vera };

  // `budgetEditor` (the page's JobControls') is placed in the form.
  ClaimsSetup(Workbench* workbench, QWidget* budgetEditor, QWidget* parent = nullptr);

  void refreshEndpoints();  // endpoints may have been edited on their page
  void refreshInputs();     // the dataset changed

  bool setAnswersSource(int source);  // an AnswersSource or a run index
  // Answers generated from a saved retriever of the project, by name; false when there is none.
  bool setRetriever(const QString& name);
  // The retriever the job runs first when the answers are generated from one (BM25 or saved).
  std::optional<core::RetrieverSpec> selectedRetriever() const;
  QComboBox* answersCombo() const { return m_answers; }
  void setAnswersFile(const QString& path);
  // Adds (or selects) an endpoint in the judge selector; index 0 is the offline heuristic judge.
  void setJudgeEndpoint(const core::llm::EndpointConfig& endpoint);
  void setJudgeIndex(int index);
  QString judgeName() const;
  void setMode(const QString& mode);  // ragscope, ragchecker, ragas
  void setK(int k);
  void setMatrix(bool on);
  RetrieverRunBar* retrieverBar() const { return m_retrieverBar; }

  // The job the form describes (no budget; store folder and front end set).
  std::optional<core::eval::JobSpec> jobSpec(QString* error) const;

 signals:
  void changed();

 private:
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
  std::vector<core::llm::EndpointConfig> m_generators, m_judges, m_embedders, m_rerankers;
  std::vector<core::llm::EndpointConfig> m_scripted;  // endpoints given by setJudgeEndpoint
};

}  // namespace ragscope::ui
