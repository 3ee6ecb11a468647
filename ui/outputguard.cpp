#include "ui/outputguard.h"

#include "core/labels/labelstore.h"
#include "ui/labelbook.h"
#include "ui/workbench.h"

namespace ragscope::ui {

std::vector<core::NamedPath> workbenchInputs(const Workbench& workbench) {
  std::vector<core::NamedPath> out;
  const auto& project = workbench.project();
  if (project && !project->file.empty()) {
    out.push_back({"the project", project->file});
    for (const auto& ds : project->datasets)
      for (const auto& part : ds.parts)
        out.push_back(
            {"a file of the project's dataset '" + ds.name + "'", project->resolve(part)});
    for (const auto& store : project->runStores)
      out.push_back({"the project's run store", project->resolve(store)});
  }
  if (const auto ds = workbench.dataset())
    for (const auto& part : ds->parts) out.push_back({"the dataset's file", part.path});
  for (const QString& store : workbench.sessionRunStores())
    out.push_back({"a run store of this session", store.toStdString()});
  if (project && !project->file.empty())
    out.push_back({"the labels store", core::labels::labelsStorePath(project->file)});
  else if (const LabelBook* book = workbench.labelBook(); book && !book->storePath().isEmpty())
    out.push_back({"the labels store", book->storePath().toStdString()});
  return out;
}

QString refusedOutput(const QString& file, const std::vector<core::NamedPath>& inputs) {
  std::vector<core::NamedPath> paths = inputs;
  for (auto& p : paths) p.use = core::PathUse::Read;
  paths.push_back({"the file chosen", file.toStdString(), core::PathUse::Written});
  const auto why = core::outputOverInput(paths);
  return why ? QString::fromStdString(*why) : QString();
}

}  // namespace ragscope::ui
