#include "core/export/reportcsv.h"

#include "core/export/csv.h"

namespace ragscope::core::exporting {

namespace {

void optionalNumber(CsvWriter& w, const std::optional<double>& v) {
  if (v)
    w.number(*v);
  else
    w.empty();
}

void header(CsvWriter& w, std::initializer_list<std::string_view> names) {
  for (const auto name : names) w.text(name);
  w.endRow();
}

}  // namespace

std::string_view csvGrainName(CsvGrain grain) {
  switch (grain) {
    case CsvGrain::Summary:
      return "summary";
    case CsvGrain::Query:
      return "query";
    case CsvGrain::Document:
      return "document";
    case CsvGrain::Claim:
      return "claim";
    case CsvGrain::Labels:
      return "labels";
  }
  return "summary";
}

std::optional<CsvGrain> csvGrainFromName(std::string_view name) {
  for (const auto g :
       {CsvGrain::Summary, CsvGrain::Query, CsvGrain::Document, CsvGrain::Claim, CsvGrain::Labels})
    if (csvGrainName(g) == name) return g;
  return std::nullopt;
}

bool writeReportCsv(std::ostream& out, const Report& report, CsvGrain grain) {
  CsvWriter w(out, CsvWriter::LineEnd::CrLf);
  switch (grain) {
    case CsvGrain::Summary:
      header(w, {"run", "kind", "mode", "metric", "mean", "ci_low", "ci_high", "n", "total",
                 "scored", "unparsed", "error", "empty", "incomplete"});
      for (const auto& run : report.runs)
        for (const auto& m : run.metrics) {
          w.text(run.name).text(run.kind).text(run.mode).text(m.name);
          optionalNumber(w, m.mean);
          optionalNumber(w, m.ciLow);
          optionalNumber(w, m.ciHigh);
          w.number(m.n)
              .number(m.total)
              .number(m.scored)
              .number(m.unparsed)
              .number(m.errors)
              .number(m.empty);
          w.number(m.incomplete).endRow();
        }
      break;
    case CsvGrain::Query:
      header(w, {"run", "kind", "qid", "metric", "value", "state"});
      for (const auto& run : report.runs)
        for (const auto& v : run.values) {
          w.text(run.name).text(run.kind).text(v.qid).text(v.metric);
          optionalNumber(w, v.value);
          w.text(v.state).endRow();
        }
      break;
    case CsvGrain::Document:
      header(w, {"run", "qid", "rank", "doc_id", "label", "output"});
      for (const auto& run : report.runs)
        for (const auto& d : run.documents) {
          w.text(run.name).text(d.qid).number(d.rank).text(d.docId);
          optionalNumber(w, d.label);
          w.text(d.output).endRow();
        }
      break;
    case CsvGrain::Claim:
      header(w, {"run", "qid", "side", "claim_index", "claim", "premise", "verdict", "repeats",
                 "flipped"});
      for (const auto& run : report.runs)
        for (const auto& c : run.claims) {
          w.text(run.name)
              .text(c.qid)
              .text(c.side)
              .number(c.index)
              .text(c.claim)
              .text(c.premise)
              .text(c.verdict);
          w.text(c.repeats).number(c.flipped ? 1 : 0).endRow();
        }
      break;
    case CsvGrain::Labels:
      header(w, {"run", "metric", "items", "labelled", "judge_mean", "judge_ci_low",
                 "judge_ci_high", "human_mean", "human_ci_low", "human_ci_high", "ppi_estimate",
                 "ppi_ci_low", "ppi_ci_high", "lambda", "problem"});
      for (const auto& run : report.runs) {
        if (!run.humanLabels) continue;
        for (const auto& p : run.humanLabels->ppi) {
          w.text(run.name).text(p.metric).number(p.items).number(p.labelled);
          for (const auto* v : {&p.judgeMean, &p.judgeLow, &p.judgeHigh, &p.humanMean, &p.humanLow,
                                &p.humanHigh, &p.estimate, &p.ciLow, &p.ciHigh, &p.lambda})
            optionalNumber(w, *v);
          w.text(p.problem).endRow();
        }
      }
      break;
  }
  return w.ok();
}

}  // namespace ragscope::core::exporting
