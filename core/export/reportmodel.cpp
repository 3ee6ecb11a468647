#include "core/export/reportmodel.h"

namespace ragscope::core::exporting {

std::string mainMetric(const ReportRun& run) {
  for (const auto& m : run.metrics)
    if (m.name == "map") return m.name;
  for (const auto& m : run.metrics)
    if (m.ciLow) return m.name;
  return run.metrics.empty() ? std::string() : run.metrics.front().name;
}

}  // namespace ragscope::core::exporting
