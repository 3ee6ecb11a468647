#pragma once
// The demo opened from a copy in a folder of the user's: labelling, new runs and saved files go
// into the copy, never into the bundled resources/demo (a checkout's source tree, or an installed
// share folder). The GUI's "Open the demo project" (and `ragscope --demo`) opens the copy.
//
//   std::string error;
//   auto project = copyDemoProject(userFolder / "demo", &error);   // <folder>/demo.ragscope.json

#include <filesystem>
#include <optional>
#include <string>

namespace ragscope::core {

// Copies the bundled demo (findDemoProject(): the project file, README.md, and the dataset parts
// and run stores the project lists inside its folder) into `folder`, creating it, and returns the
// copy's project file. A copy made earlier from the same bundle is kept as it is (the user's
// labels and runs in it stay); a file of it that is missing is copied again. When the bundle
// changed (another ragscope version), its files are copied over the old ones; files the user made
// in the copy are left alone. nullopt with *error when there is no bundled demo or a file cannot
// be copied.
std::optional<std::filesystem::path> copyDemoProject(const std::filesystem::path& folder,
                                                     std::string* error);

}  // namespace ragscope::core
