#pragma once
// The eRAG page's setup form: the current dataset, one of its runs, BM25 over its corpus or one of
// the project's saved retrievers (bm25, es, http, dense, hybrid: ui/pages/retrieverchoice.h) run
// as the job's first step (with a "Save run…" button and the project's retriever bar), the
// generator endpoint, the prompt
// template, k, the downstream metric that labels each document, the measures that aggregate the
// labels, and whether the end-to-end run follows. It turns them into the core::eval::JobSpec and
// result options the page runs; changed() tells the page to refresh its estimate.

#include <QString>
#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "core/eval/api/job.h"
#include "core/metrics/downstream.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace ragscope::ui {

class RetrieverRunBar;
class Workbench;

class EragSetup : public QWidget {
  Q_OBJECT
 public:
  // `budgetEditor` (the page's JobControls') is placed in the form.
  EragSetup(Workbench* workbench, QWidget* budgetEditor, QWidget* parent = nullptr);

  void refreshEndpoints();  // endpoints may have been edited on their page
  void refreshRuns();       // the dataset changed
  int runChoices() const;   // runs and retrievers to choose from

  void setRunIndex(int index);  // a run of the dataset
  void setRetrieverBm25();      // BM25 (Xapian) over the dataset's corpus, top k
  // One of the project's saved retrievers by name (its top k retrieved first); false when the
  // selector has no such retriever.
  bool setRetriever(const QString& name);
  bool retrieverSelected() const;  // BM25 or a saved retriever, rather than a run
  // The retriever the job runs first (when retrieverSelected()).
  core::RetrieverSpec selectedRetriever() const;
  QComboBox* runCombo() const { return m_run; }
  void setEndpointIndex(int index);  // 0: the offline heuristic reader
  void setK(int k);
  int k() const;
  void setMetric(core::DownstreamMetric metric);
  void setMeasures(const QString& text);
  void setEndToEnd(bool on);
  QCheckBox* endToEndBox() const { return m_e2e; }
  RetrieverRunBar* retrieverBar() const { return m_retrieverBar; }

  // The job the form describes (no budget; store folder and front end set).
  std::optional<core::eval::JobSpec> jobSpec(QString* error) const;
  core::eval::ResultOptions resultOptions(
      const std::shared_ptr<const core::Dataset>& dataset) const;

 signals:
  void changed();
  void saveRunRequested(int runIndex, const QString& path);

 private:
  core::llm::EndpointConfig endpoint() const;
  std::vector<core::MeasureRequest> parsedMeasures(QString* error) const;

  Workbench* m_workbench;
  RetrieverRunBar* m_retrieverBar = nullptr;
  QLabel* m_datasetLabel = nullptr;
  QComboBox* m_run = nullptr;
  QPushButton* m_saveRun = nullptr;
  QComboBox* m_endpoint = nullptr;
  QLineEdit* m_template = nullptr;
  QSpinBox* m_k = nullptr;
  QComboBox* m_metric = nullptr;
  QLineEdit* m_measures = nullptr;
  QCheckBox* m_e2e = nullptr;
  std::vector<core::llm::EndpointConfig> m_endpoints;
  bool m_measuresEdited = false;
};

}  // namespace ragscope::ui
