#pragma once
// The paths an option's value stands for, when it is more than the one path it names (the option
// layer's output-over-input check, app/cli/options.h, compares them all): a project file with the
// files it lists, a labels source with its store, "@FILE", "GOLD,GUESS".

#include <string>

#include "app/cli/options.h"

namespace ragscope::cli {

// --labels PROJECT_OR_LABELS_STORE: the value, and for a project (*.json) the labels store beside
// it (PROJECT.labels.db, core/labels/labelstore.h), with `storeUse` (labels import writes it).
DerivedPaths labelsSourcePaths(std::string option, core::PathUse storeUse);

// --project P: the project file, its datasets' parts, its run stores and its labels store, all
// read.
DerivedPaths projectPaths(std::string option);

// "@FILE" (a request template read from FILE): FILE, read; any other value names no file.
DerivedPaths atFilePath(std::string option);

// "GOLD,GUESS" (report --kilt): both files, read.
DerivedPaths commaSeparatedPaths(std::string option);

// retrieve --out RUN: RUN and its checkpoint RUN.partial (core/retrieval/retrievejob.h), written.
DerivedPaths runAndCheckpointPaths(std::string option);

}  // namespace ragscope::cli
