#include "core/export/reportfile.h"

#include "core/export/json.h"
#include "core/export/reportjson.h"
#include "core/util/atomicfile.h"

namespace ragscope::core::exporting {

bool writeReportData(const Report& report, const std::string& path, ReportDataKind kind,
                     CsvGrain grain, std::string* error) {
  return writeFileAtomically(
      path,
      [&](std::ostream& os) {
        return kind == ReportDataKind::Json ? writeJson(os, reportJson(report), 2)
                                            : writeReportCsv(os, report, grain);
      },
      error);
}

}  // namespace ragscope::core::exporting
