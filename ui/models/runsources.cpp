#include "ui/models/runsources.h"

#include <QFileDialog>
#include <QLabel>

#include "ui/jobs/perqueryfilesjob.h"
#include "ui/workbench.h"

namespace ragscope::ui {

RunSources::RunSources(Workbench* workbench, bool reportEmpty, QObject* parent)
    : QObject(parent),
      m_workbench(workbench),
      m_files(new PerQueryFilesJob(this)),
      m_reportEmpty(reportEmpty) {
  connect(m_workbench, &Workbench::evaluationChanged, this, &RunSources::refresh);
  connect(m_files, &PerQueryFilesJob::loaded, this, [this](const PerQueryRuns& loaded) {
    for (const auto& run : loaded.runs) m_fileRuns.push_back(run);
    emit changed();
    emit filesAdded(loaded.allOk, loaded.problems.isEmpty()
                                      ? tr("%n run(s) added.", "", int(loaded.runs.size()))
                                      : loaded.problems.mid(0, 5).join(QLatin1Char('\n')));
  });
  const auto outcome = m_workbench->evaluation();
  m_evalRuns = outcome ? runValuesFrom(*outcome) : std::vector<RunValues>{};
}

void RunSources::refresh() {
  const auto outcome = m_workbench->evaluation();
  m_evalRuns = outcome ? runValuesFrom(*outcome) : std::vector<RunValues>{};
  emit changed();
}

std::vector<const RunValues*> RunSources::all() const {
  std::vector<const RunValues*> out;
  for (const auto& r : m_evalRuns) out.push_back(&r);
  for (const auto& r : m_fileRuns) out.push_back(&r);
  return out;
}

const RunValues* RunSources::at(int index) const {
  if (index < 0) return nullptr;
  const auto i = std::size_t(index);
  if (i < m_evalRuns.size()) return &m_evalRuns[i];
  if (i - m_evalRuns.size() < m_fileRuns.size()) return &m_fileRuns[i - m_evalRuns.size()];
  return nullptr;
}

void RunSources::addPerQueryFiles(const QStringList& files) {
  core::LoadOptions options;
  options.onError = m_workbench->onError();
  emit reading(tr("Reading %n file(s)…", "", int(files.size())));
  m_files->start(files, options, m_reportEmpty);
}

void RunSources::showStatusIn(QLabel* status) {
  connect(this, &RunSources::reading, status, &QLabel::setText);
  connect(this, &RunSources::filesAdded, status,
          [status](bool, const QString& text) { status->setText(text); });
}

void RunSources::chooseFiles(QWidget* parent) {
  const QStringList files = QFileDialog::getOpenFileNames(parent, tr("trec_eval -q output files"));
  if (!files.isEmpty()) addPerQueryFiles(files);
}

}  // namespace ragscope::ui
