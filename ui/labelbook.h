#pragma once
// The workbench's human labels (core/labels/README.md): the current project's labels store, held
// by the Workbench, read and written off the GUI thread. Views that show labels (the claim
// inspector, the document lists, the agreement view, the Claims and eRAG summaries, the
// statistics panel) read snapshot() and listen to labelsChanged(): a label added anywhere shows
// everywhere at once, without reloading. Without a project the labels of a dataset go to the
// user's data folder ("labels/<dataset name>.labels.db").
//
//   book->add(label);                 // queued; labelAdded / labelFailed follow
//   connect(book, &LabelBook::labelsChanged, this, &View::refreshLabels);
//   auto labels = book->snapshot();   // the latest label of each (target, annotator)

#include <QObject>
#include <QString>
#include <filesystem>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/labels/label.h"
#include "core/labels/labelstore.h"

class QThreadPool;
class QWidget;

namespace ragscope::ui {

class Workbench;

// An immutable view of the store at one moment: the latest label of each (target, annotator).
struct LabelSnapshot {
  std::vector<core::labels::Label> current;
  // The current labels of one target (one per annotator); empty when none.
  std::vector<const core::labels::Label*> of(const core::labels::Target& target) const;
  // This annotator's current label of the target, or null.
  const core::labels::Label* of(const core::labels::Target& target,
                                const std::string& annotator) const;
  // What a view shows as "the human" label of a target: this annotator's, else the latest of
  // anyone's (highest id); null when nobody labelled it.
  const core::labels::Label* shown(const core::labels::Target& target,
                                   const std::string& annotator) const;
  // Fills the index of() uses; the snapshots LabelBook hands out are indexed already.
  void buildIndex();
  // Target key -> positions in `current`.
  std::unordered_map<std::string, std::vector<std::size_t>> byTarget;
};

class LabelBook : public QObject {
  Q_OBJECT
 public:
  explicit LabelBook(Workbench* workbench);
  ~LabelBook() override;

  // The store in use (follows the workbench's project and dataset); empty before one is known.
  QString storePath() const;
  std::shared_ptr<const LabelSnapshot> snapshot() const { return m_snapshot; }
  // Where the labels' relative scopes lead (core/labels/labelscope.h): the store's folder, the
  // project's; empty before a store is known.
  std::filesystem::path labelsFolder() const;
  // Scopes of targets (core/labels/label.h): a run store as the project lists it, else its path
  // relative to the labels' folder when inside it, else its absolute path (never its file name
  // alone: two runs of one file name are two scopes); and the current dataset's name
  // (Relevance).
  std::string runScope(const QString& storePath) const;
  std::string datasetScope() const;
  // Writes (and reloads) not yet finished; labelsChanged() follows the last one.
  int pending() const { return m_pending; }
  // Reads the store again (another program may have added labels); labelsChanged() follows.
  void refresh();
  // The workbench whose project and dataset the labels belong to.
  Workbench* workbench() const { return m_workbench; }

  // The annotator's name (Preferences); empty until asked. ensureAnnotator() asks once through a
  // dialog over `parent` when none is set (tests set one with setAnnotator()).
  QString annotator() const;
  void setAnnotator(const QString& name);
  bool ensureAnnotator(QWidget* parent);

  // Stores a label in the background (annotator and time filled in when empty); labelAdded()
  // or labelFailed(why) follows, then labelsChanged() with the new snapshot.
  void add(core::labels::Label label);
  void add(std::vector<core::labels::Label> labels);

 signals:
  void labelsChanged();
  void labelAdded(const QString& targetKey);
  void labelFailed(const QString& why);

 private:
  struct Session;
  void reload();
  QString pathForWorkbench() const;
  void publish(const std::weak_ptr<Session>& session,
               std::shared_ptr<const LabelSnapshot> snapshot);
  Workbench* m_workbench = nullptr;
  std::shared_ptr<const LabelSnapshot> m_snapshot = std::make_shared<LabelSnapshot>();
  std::shared_ptr<Session> m_session;  // the open store; used on m_pool's one thread only
  QThreadPool* m_pool = nullptr;       // one thread: writes stay in the order they were made
  int m_pending = 0;
};

}  // namespace ragscope::ui
