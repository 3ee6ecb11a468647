#pragma once
// The workbench's shared state: the current dataset (immutable once loaded, shared by every page
// through std::shared_ptr<const Dataset>), its load report, and the one background load that
// replaces it. Pages observe datasetChanged() instead of talking to each other.

#include <QObject>
#include <QString>
#include <QStringList>
#include <QThreadPool>

#include <memory>
#include <optional>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/diagnostic.h"
#include "core/store/project.h"
#include "ui/preferences.h"

namespace ragscope::ui {

class LoadJob;
struct LoadResult;
struct EvalOutcome;

class Workbench : public QObject {
  Q_OBJECT
 public:
  explicit Workbench(QObject* parent = nullptr);
  ~Workbench() override;

  std::shared_ptr<const core::Dataset> dataset() const { return m_dataset; }
  // Diagnostics of the latest load attempt (which may have failed and left the dataset as it was).
  const core::LoadReport& report() const { return m_report; }
  QString datasetName() const { return m_name; }
  const std::optional<core::Project>& project() const { return m_project; }
  bool isLoading() const;

  core::OnError onError() const { return m_onError; }
  void setOnError(core::OnError mode) { m_onError = mode; }

  // Resolves each part's format: a named format, else detectFormat(). Paths whose format cannot be
  // detected are returned in `undetected` (the caller asks the user and fills them in).
  static std::vector<core::DatasetPart> resolveParts(const RecentDataset& spec,
                                                     QStringList* undetected);

  // Starts loading; every part must carry a format or be detectable. Returns false (and reports
  // why through loadFinished) when it cannot start.
  bool openDataset(const RecentDataset& spec);
  // Reads a project file and loads one of its datasets (the first when `datasetName` is empty).
  bool openProject(const QString& file, const QString& datasetName = {});
  // Loads another dataset of the current project.
  bool openProjectDataset(const QString& datasetName);
  // Writes the current project, with the loaded dataset in it, to `file` (atomically; paths
  // relative to the file's folder) off the GUI thread. Without a project a new one is made, named
  // after the file. On success the project is the current one and is remembered in the recent list.
  // projectSaved() reports the outcome; false (and no signal) when no dataset is open or a save is
  // already under way.
  bool saveProject(const QString& file);
  // Run stores made in this session (by the pages' jobs): saveProject() lists them in the
  // project, so a run made in the GUI is found again when the project is reopened.
  void addRunStores(const QStringList& stores);
  const QStringList& sessionRunStores() const { return m_sessionRuns; }
  bool isSaving() const { return m_saving; }
  // The current project's file; empty when none is open.
  QString projectFile() const;
  void cancelLoad();

  // The part path a diagnostic's file belongs to, and whether that part carries queries.
  bool isQueryFile(const QString& file) const;

  // A dataset derived from the current one (a retrieved run added, see RetrieveJob) becomes the
  // current one when `basis` still is; datasetChanged() follows. False when it was replaced since.
  bool updateDataset(std::shared_ptr<const core::Dataset> updated, const std::shared_ptr<const core::Dataset>& basis);

  // The latest retrieval evaluation (per-query values of every run): the retrieval page publishes
  // it, the statistics pages (compare, contrastive) read it. Null until one has finished.
  std::shared_ptr<const EvalOutcome> evaluation() const { return m_evaluation; }
  void setEvaluation(std::shared_ptr<const EvalOutcome> outcome);

 signals:
  void loadStarted(const QString& name);
  void loadProgress(quint64 done, quint64 total);
  void loadFinished(bool ok, const QString& message);
  void datasetChanged();
  // The report of the latest load attempt (also a failed one) changed: the Issues dock listens.
  void reportChanged();
  void projectChanged();
  // saveProject() finished: `ok`, and the project file or the error.
  void projectSaved(bool ok, const QString& fileOrError);
  void evaluationChanged();

 private:
  void startLoad(const RecentDataset& spec, std::vector<core::DatasetPart> parts,
                 core::LoadReport preReport);
  void onLoaded(const LoadResult& result);
  void fail(const QString& message, core::LoadReport report);

  LoadJob* m_job = nullptr;
  std::shared_ptr<const core::Dataset> m_dataset;
  core::LoadReport m_report;
  core::LoadReport m_pendingPreReport;  // project-reading problems, merged into the load report
  QString m_name;
  RecentDataset m_pending;
  std::vector<core::DatasetPart> m_pendingParts;
  RecentDataset m_current;                        // how the loaded dataset was opened
  std::vector<core::DatasetPart> m_currentParts;  // its parts, formats resolved
  QStringList m_sessionRuns;  // absolute paths, in the order the runs were made
  std::optional<core::Project> m_project;
  bool m_saving = false;
  QThreadPool* m_savePool = nullptr;  // owned
  core::OnError m_onError = core::OnError::Skip;
  std::shared_ptr<const EvalOutcome> m_evaluation;
};

}  // namespace ragscope::ui
