#pragma once
// The runs a statistics page draws from (Compare, Contrastive): those of the workbench's latest
// retrieval evaluation, followed by the per-query files (`trec_eval -q` output) the user added,
// read off the GUI thread. changed() follows any change of the list.

#include <QObject>
#include <QString>
#include <QStringList>
#include <vector>

#include "ui/models/runvalues.h"

class QLabel;
class QWidget;

namespace ragscope::ui {

class PerQueryFilesJob;
class Workbench;

class RunSources : public QObject {
  Q_OBJECT
 public:
  // `reportEmpty`: a file without values counts among the problems.
  RunSources(Workbench* workbench, bool reportEmpty, QObject* parent);

  const std::vector<RunValues>& evaluationRuns() const { return m_evalRuns; }
  const std::vector<RunValues>& fileRuns() const { return m_fileRuns; }
  std::vector<const RunValues*> all() const;  // evaluation runs first
  const RunValues* at(int index) const;       // into all(); null when out of range

  // Reads the files in the background; filesAdded() follows.
  void addPerQueryFiles(const QStringList& files);
  // Asks for files with a dialog, then adds them.
  void chooseFiles(QWidget* parent);
  // `status` says what the file requests do (reading, added, the first problems).
  void showStatusIn(QLabel* status);

 signals:
  void changed();
  // "Reading n file(s)…" as the request starts.
  void reading(const QString& status);
  // The files are read: whether all were fine, and what was added or the first problems.
  void filesAdded(bool allOk, const QString& status);

 private:
  void refresh();

  Workbench* m_workbench;
  PerQueryFilesJob* m_files;
  bool m_reportEmpty;
  std::vector<RunValues> m_evalRuns;
  std::vector<RunValues> m_fileRuns;
};

}  // namespace ragscope::ui
