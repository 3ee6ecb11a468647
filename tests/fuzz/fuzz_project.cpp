// Project files (core/store/project.cpp: readProject): versioned JSON naming datasets and run
// stores. Only the file is read: the parts it names are resolved, never opened.
// max_len: 16384
// dict: json
// seed: resources/demo/demo.ragscope.json

#include "core/store/project.h"
#include "fuzzsupport.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (fuzz::hasOverflowingNumber(fuzz::bytes(data, size)))
    return -1;  // issue 12 item 1 (elsewhere)
  const auto path = fuzz::writeScratch("project/p.ragscope.json", fuzz::bytes(data, size));
  auto loaded = core::readProject(path);
  fuzz::checkReport(loaded.report);
  const core::Project& project = loaded.value;
  for (const auto& dataset : project.datasets) {
    core::LoadReport report;
    for (const auto& part : project.datasetParts(dataset, report)) fuzz::touch(part.path.native());
    fuzz::checkReport(report);
  }
  for (const auto& store : project.runStores) fuzz::touch(project.resolve(store).native());
  return 0;
}
