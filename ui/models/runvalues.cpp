#include "ui/models/runvalues.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#include "core/stats/perqueryfile.h"
#include "core/stats/runsummary.h"
#include "ui/jobs/evaljob.h"
#include "ui/models/evalsummarymodel.h"

namespace ragscope::ui {

std::vector<RunValues> runValuesFrom(const EvalOutcome& outcome) {
  std::vector<RunValues> runs;
  QStringList names = runDisplayNames(outcome.results);  // unique, one per result
  // Runs told apart only by their file ("rank (BM25/trec_results_dl19.txt)", as rank_llm's runs
  // are) get their folder's name when the folders differ: short names keep tables and chart
  // titles readable. The full path stays in RunValues::source. (Checked on a copy: removing
  // duplicates in place would leave fewer names than runs.)
  if (QStringList(names).removeDuplicates() == 0) {
    QStringList folders;
    for (const auto& r : outcome.results) {
      const QFileInfo file(QString::fromStdString(r.runSource));
      folders << file.dir().dirName();
    }
    QStringList tags;
    for (const auto& r : outcome.results) tags << QString::fromStdString(r.runId);
    const bool tagsClash = QStringList(tags).removeDuplicates() > 0;
    if (tagsClash && QStringList(folders).removeDuplicates() == 0 && !folders.contains(QString()) &&
        !folders.contains(QStringLiteral(".")))
      names = folders;
    else
      names = runDisplayNames(outcome.results);
  }
  for (std::size_t r = 0; r < outcome.results.size(); ++r) {
    const core::EvalResult& result = outcome.results[r];
    RunValues run;
    run.name = names[static_cast<int>(r)];
    run.source = QString::fromStdString(result.runSource);
    for (std::size_t c = 0; c < result.columns.size(); ++c) {
      if (!core::stats::supportsStatistics(result.columns[c])) continue;
      core::stats::QueryValues& values = run.table[result.columns[c].name];
      for (const auto& q : result.queries)
        if (c < q.values.size()) values.emplace(q.qid, q.values[c]);
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

QStringList commonMeasures(const std::vector<RunValues>& runs) {
  QStringList out;
  if (runs.empty()) return out;
  // MeasureTable is ordered by name; trec_eval's order is lost, so put the usual headline
  // measures first and the rest by name.
  static const QStringList headline = {
      QStringLiteral("ndcg_cut_10"), QStringLiteral("map"),        QStringLiteral("recip_rank"),
      QStringLiteral("P_10"),        QStringLiteral("recall_100"), QStringLiteral("recall_1000")};
  QStringList rest;
  for (const auto& [name, values] : runs.front().table) {
    bool everywhere = !values.empty();
    for (const auto& run : runs) everywhere = everywhere && run.table.count(name) > 0;
    if (!everywhere) continue;
    const QString n = QString::fromStdString(name);
    if (headline.contains(n)) continue;
    rest << n;
  }
  for (const QString& h : headline) {
    bool everywhere = true;
    for (const auto& run : runs) everywhere = everywhere && run.table.count(h.toStdString()) > 0;
    if (everywhere) out << h;
  }
  return out + rest;
}

QString measureLabel(const QString& measure) {
  static const QRegularExpression cut(
      QStringLiteral("^(ndcg_cut|P|recall|success|map_cut)_(\\d+)$"));
  const auto m = cut.match(measure);
  if (m.hasMatch()) {
    const QString base = m.captured(1);
    const QString k = m.captured(2);
    if (base == QLatin1String("ndcg_cut")) return QStringLiteral("nDCG@") + k;
    if (base == QLatin1String("P")) return QStringLiteral("P@") + k;
    if (base == QLatin1String("recall")) return QStringLiteral("R@") + k;
    if (base == QLatin1String("success")) return QStringLiteral("Success@") + k;
    return QStringLiteral("MAP@") + k;
  }
  if (measure == QLatin1String("map")) return QStringLiteral("MAP");
  if (measure == QLatin1String("recip_rank")) return QStringLiteral("MRR");
  if (measure == QLatin1String("ndcg")) return QStringLiteral("nDCG");
  return measure;
}

PerQueryRuns readPerQueryRuns(const QStringList& files, const core::LoadOptions& options,
                              bool reportEmpty) {
  PerQueryRuns out;
  for (const QString& file : files) {
    auto loaded = core::stats::loadPerQueryFile(file.toStdString(), options);
    for (const auto& d : loaded.report.diagnostics)
      out.problems << QString::fromStdString(d.toString());
    if (!loaded.report.ok() || loaded.value.empty()) {
      out.allOk = false;
      if (reportEmpty && loaded.value.empty())
        out.problems
            << QCoreApplication::translate("RunValues", "%1: no per-query values").arg(file);
      continue;
    }
    const QFileInfo info(file);
    out.runs.push_back(
        {info.dir().dirName() + QLatin1Char('/') + info.fileName(), file, std::move(loaded.value)});
  }
  return out;
}

}  // namespace ragscope::ui
