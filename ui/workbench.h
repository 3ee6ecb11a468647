#pragma once
// The workbench's shared state: the current dataset (immutable once loaded, shared by every page
// through std::shared_ptr<const Dataset>), its load report, and the one background load that
// replaces it. Pages observe datasetChanged() instead of talking to each other.

#include <QObject>
#include <QString>
#include <QStringList>
#include <QThreadPool>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/diagnostic.h"
#include "core/store/project.h"
#include "ui/preferences.h"

namespace ragscope::ui {

class LabelBook;
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
  // Corpus files at least this big leave their texts in the file (core::LoadOptions::
  // textInFileFrom, 64 MiB by default): tests load a "big" corpus without writing 64 MiB.
  void setTextInFileFrom(std::uint64_t bytes) { m_textInFileFrom = bytes; }

  // Parts of a project that lie outside its folder (core::Project::outsideParts) are read only
  // with the user's consent, since a project from someone else could name ../../etc/passwd or
  // ~/.ssh/id_rsa. Ask (the default) asks through the asker, once per project and path (answers
  // are remembered in Preferences, and a project saved from this GUI counts as confirmed for the
  // dataset saved); Allow reads them (scripted use); Refuse never does. Special files (/proc,
  // devices, FIFOs) are never read, whatever the policy.
  enum class OutsidePartsPolicy { Ask, Allow, Refuse };
  void setOutsidePartsPolicy(OutsidePartsPolicy policy) { m_outsidePolicy = policy; }
  OutsidePartsPolicy outsidePartsPolicy() const { return m_outsidePolicy; }
  // How Ask asks: returns true to read `paths` (resolved, absolute). The default shows a
  // QMessageBox question naming them over the active window; where nobody can answer (no
  // QApplication, or the offscreen/minimal platform of the self-test and headless demo) it
  // declines instead of blocking. Tests set their own.
  using OutsidePartsAsker =
      std::function<bool(const QString& projectFile, const QStringList& paths)>;
  void setOutsidePartsAsker(OutsidePartsAsker asker) { m_asker = std::move(asker); }

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
  // already under way. Parts that end up outside the file's folder but that the user trusted (the
  // saved dataset's, and those inside the project saved from or confirmed for it) count as
  // confirmed for the new file: reopening it asks nothing.
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

  // Retrievers of the project (the Endpoints page edits them, saveProject() writes them; no
  // secrets: keys are named by environment variable). Pages that choose a run offer them too.
  const std::vector<core::RetrieverSpec>& retrievers() const { return m_retrievers; }
  void setRetrievers(std::vector<core::RetrieverSpec> retrievers);

  // A run made by a retriever (RetrieverRunBar) joins the current dataset, replacing one of the
  // same tag, when `basis` is still the current dataset; its TREC file becomes a part of the
  // dataset, so saveProject() keeps it (an empty `file`: the run lives in this session only).
  // Returns the run's index, or -1 when the dataset was replaced meanwhile.
  int addRetrievedRun(core::Run run, const std::filesystem::path& file,
                      const std::shared_ptr<const core::Dataset>& basis);
  // Where such a run's file goes: <project folder>/runs/ when a project is open, else the user's
  // data folder; named after the dataset and the run tag.
  std::filesystem::path retrievedRunPath(const std::string& tag) const;

  // The latest retrieval evaluation (per-query values of every run): the retrieval page publishes
  // it, the statistics pages (compare, contrastive) read it. Null until one has finished.
  std::shared_ptr<const EvalOutcome> evaluation() const { return m_evaluation; }
  void setEvaluation(std::shared_ptr<const EvalOutcome> outcome);

  // The human labels of the current project (or, without one, of the dataset): every view that
  // shows or takes labels uses this one book.
  LabelBook* labelBook() const { return m_labelBook; }

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
  void retrieversChanged();

 private:
  void startLoad(const RecentDataset& spec, std::vector<core::DatasetPart> parts,
                 core::LoadReport preReport);
  void onLoaded(const LoadResult& result);
  void fail(const QString& message, core::LoadReport report);
  // Applies the outside-parts policy to `ds` of the current project; false (with an error per
  // outside part in `report`) when they are not to be read.
  bool consentToOutsideParts(const core::ProjectDataset& ds, core::LoadReport& report);
  // After a save to `savedFile`: the current project's outside parts the user already trusted
  // (see saveProject) are remembered as confirmed for it.
  void rememberSavedParts(const std::optional<core::Project>& before, const QString& savedFile);

  LoadJob* m_job = nullptr;
  std::shared_ptr<const core::Dataset> m_dataset;
  core::LoadReport m_report;
  core::LoadReport m_pendingPreReport;  // project-reading problems, merged into the load report
  QString m_name;
  RecentDataset m_pending;
  std::vector<core::DatasetPart> m_pendingParts;
  RecentDataset m_current;                        // how the loaded dataset was opened
  std::vector<core::DatasetPart> m_currentParts;  // its parts, formats resolved
  QStringList m_sessionRuns;                      // absolute paths, in the order the runs were made
  std::optional<core::Project> m_project;
  bool m_saving = false;
  QThreadPool* m_savePool = nullptr;  // owned
  core::OnError m_onError = core::OnError::Skip;
  std::uint64_t m_textInFileFrom = core::LoadOptions{}.textInFileFrom;
  OutsidePartsPolicy m_outsidePolicy = OutsidePartsPolicy::Ask;
  OutsidePartsAsker m_asker;
  std::shared_ptr<const EvalOutcome> m_evaluation;
  std::vector<core::RetrieverSpec> m_retrievers;
  LabelBook* m_labelBook = nullptr;  // a child: its writes finish before the workbench goes
};

}  // namespace ragscope::ui
