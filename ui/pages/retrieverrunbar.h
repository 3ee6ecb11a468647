#pragma once
// "Make a run with a retriever" for every page that chooses a run (Retrieval, eRAG, Claims): one
// row with the project's retrievers, the depth, Run and Cancel, a progress bar and a status line
// (a compact JobControls; JobLauncher confirms the retriever and looks up its key first).
// The run is made in the background by core::runRetrieveJob (the code path of `ragscope-cli
// retrieve`), written as a TREC file (Workbench::retrievedRunPath; es/http resumable there), and
// joins the dataset, where the page then finds and selects it (runAdded).

#include <QWidget>
#include <memory>

namespace ragscope::core {
struct Dataset;
struct RetrieveJobResult;
}  // namespace ragscope::core

class QComboBox;
class QLabel;
class QSpinBox;

namespace ragscope::ui {

class JobControls;
class JobLauncher;
class RetrieverJob;
class Workbench;

class RetrieverRunBar : public QWidget {
  Q_OBJECT
 public:
  RetrieverRunBar(Workbench* workbench, int defaultK, QWidget* parent = nullptr);
  ~RetrieverRunBar() override;

  // Runs the retriever at `index` of the workbench's list (-1: the one chosen) with depth `k`
  // (0: the spin box's). False when it cannot start (the status line says why).
  bool run(int index = -1, int k = 0);
  void cancel();
  bool isRunning() const;
  QComboBox* retrieverCombo() const { return m_retriever; }
  QLabel* statusLabel() const;

 signals:
  // The run is in the dataset at `runIndex` (the dataset changed first).
  void runAdded(int runIndex);
  void finished(bool ok);

 private:
  void refresh();
  void onFinished(const std::shared_ptr<const core::RetrieveJobResult>& result);

  Workbench* m_workbench;
  RetrieverJob* m_job;
  std::shared_ptr<const core::Dataset> m_basis;  // the dataset the job started from
  QComboBox* m_retriever;
  QSpinBox* m_k;
  JobControls* m_controls;
  JobLauncher* m_launcher;
};

}  // namespace ragscope::ui
