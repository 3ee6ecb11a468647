// Assigned nuggets in nuggetizer's JSONL layout (core/trecrag/nuggetfile.h), scored
// (nuggetscore.h) when read without errors. Checked: the report's invariants; every score of a
// file read cleanly lies in [0, 1] and each query's strict scores never exceed their lenient ones
// (partial support only adds).
// max_len: 32768
// dict: json
// seed: tests/fuzz/seeds/nuggets

#include "core/trecrag/nuggetfile.h"
#include "core/trecrag/nuggetscore.h"
#include "fuzzsupport.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::writeScratch("nuggets.jsonl", fuzz::bytes(data, size));
  auto loaded = core::trecrag::readAssignedNuggets(path, fuzz::loadOptions());
  fuzz::checkReport(loaded.report);
  if (!loaded.report.ok() || loaded.report.hasErrors()) return 0;
  const auto table = core::trecrag::scoreNuggetQueries(loaded.value);
  auto inUnit = [](double v) { return v >= 0.0 && v <= 1.0; };
  for (const auto& s : table.queries) {
    fuzz::check(inUnit(s.strictVital) && inUnit(s.strictAll) && inUnit(s.vital) && inUnit(s.all),
                "a nugget score outside [0, 1]");
    fuzz::check(s.strictVital <= s.vital && s.strictAll <= s.all,
                "a strict score above its lenient one");
  }
  fuzz::touch(core::trecrag::formatNuggetScores(table, true));
  fuzz::touch(core::trecrag::nuggetScoresJson(table).dump(
      -1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  return 0;
}
