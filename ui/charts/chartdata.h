#pragma once
// Plain descriptions of the statistics charts. Pages fill these from core results and hand them
// to a ChartWidget; only ui/charts turns them into Qt Charts objects, so nothing outside this
// folder includes Qt Charts.

#include <QString>
#include <QStringList>
#include <cstddef>
#include <variant>
#include <vector>

namespace ragscope::ui::charts {

// A bootstrap distribution of a mean: histogram, the mean and the CI as vertical lines.
struct BootstrapChart {
  QString title;
  QString valueTitle;                // x axis: "mean nDCG@10"
  std::vector<double> distribution;  // the B resample means
  double mean = 0.0;                 // bootstrap mean (or the observed mean)
  double ciLow = 0.0;
  double ciHigh = 0.0;
  double level = 0.95;
  std::size_t bins = 0;  // 0 = Freedman-Diaconis
};

// Several bootstrap distributions over one axis (contrastive sets).
struct OverlayChart {
  struct Group {
    QString name;
    std::vector<double> distribution;
    double mean = 0.0;
    double ciLow = 0.0;
    double ciHigh = 0.0;
    std::size_t n = 0;
  };
  QString title;
  QString valueTitle;
  std::vector<Group> groups;
  double level = 0.95;
  std::size_t bins = 40;
};

// Per-query differences a_i - b_i, drawn as bars sorted ascending, with the mean difference and
// its CI as a band.
struct PairedDifferenceChart {
  QString title;
  QString valueTitle;  // y axis: "nDCG@10 difference (A − B)"
  std::vector<QString> qids;
  std::vector<double> differences;  // parallel to qids, any order (sorted when drawn)
  double meanDiff = 0.0;
  double ciLow = 0.0;
  double ciHigh = 0.0;
  double level = 0.95;
};

// Two paired measurements per query; the title carries Kendall's tau and Spearman's rho.
struct ScatterChart {
  QString title;
  QString xTitle;
  QString yTitle;
  std::vector<QString> qids;
  std::vector<double> x;
  std::vector<double> y;
  double tau = 0.0;
  double rho = 0.0;
  bool diagonal = true;  // draw y = x (same measure of two runs)
};

using ChartSpec =
    std::variant<std::monostate, BootstrapChart, OverlayChart, PairedDifferenceChart, ScatterChart>;

}  // namespace ragscope::ui::charts
