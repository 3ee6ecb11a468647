#pragma once
// The GUI's side of "no output over an input" (core/util/outputcheck.h, as the CLI's option
// layer): every save action that writes a file made from what the workbench read (a report, a
// view's table, KILT predictions, a run, a batch file, the project saved under another name)
// asks here first, and a file the workbench reads is never chosen as its target.
//
//   if (const QString why = refusedOutput(file, workbenchInputs(*wb)); !why.isEmpty()) { ...

#include <QString>
#include <vector>

#include "core/util/outputcheck.h"

namespace ragscope::ui {

class Workbench;

// The files the workbench reads for what it shows: the project file, the loaded dataset's parts,
// the project's run stores and this session's, the labels store (and its SQLite side files, which
// the check covers).
std::vector<core::NamedPath> workbenchInputs(const Workbench& workbench);

// Why `file` must not be written by an action reading `inputs` (a sentence naming the input), or
// an empty string when it may.
QString refusedOutput(const QString& file, const std::vector<core::NamedPath>& inputs);

}  // namespace ragscope::ui
