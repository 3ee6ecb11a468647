#include "ui/charts/chartwidget.h"

#include <QAreaSeries>
#include <QBuffer>
#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QCoreApplication>
#include <QCursor>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QMenu>
#include <QMimeData>
#include <QPainter>
#include <QResizeEvent>
#include <QScatterSeries>
#include <QStackedLayout>
#include <QSvgGenerator>
#include <QToolButton>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "core/stats/summary.h"
#include "ui/report/safefile.h"

namespace ragscope::ui::charts {

namespace {

// Tableau-like palette: distinguishable, and readable when printed in grey.
const QColor kPalette[] = {QColor(31, 119, 180), QColor(255, 127, 14),  QColor(44, 160, 44),
                           QColor(214, 39, 40),  QColor(148, 103, 189), QColor(140, 86, 75)};
const QColor kMeanColor(20, 20, 20);
const QColor kCiColor(200, 40, 40);

QColor paletteColor(std::size_t i) { return kPalette[i % std::size(kPalette)]; }

QString num(double v, int decimals = 4) {
  if (!std::isfinite(v)) return QStringLiteral("–");
  return QString::number(v, 'f', decimals);
}

QString signedNum(double v, int decimals = 4) {
  if (!std::isfinite(v)) return QStringLiteral("–");
  return (v > 0 ? QStringLiteral("+") : QString()) + QString::number(v, 'f', decimals);
}

QString percent(double level) { return QString::number(level * 100.0, 'g', 3) + QLatin1Char('%'); }

// Sizes of text and marks for one output size: small pictures get small fonts and few ticks so
// labels never overlap; large ones get larger fonts so they stay legible when scaled down.
struct Style {
  qreal titlePt;
  qreal labelPt;
  qreal legendPt;
  int xTicks;
  int yTicks;
  qreal marker;
  bool small;
};

Style styleFor(QSize size) {
  Style s{};
  const int w = std::max(1, size.width());
  const int h = std::max(1, size.height());
  s.small = w < 520 || h < 330;
  const qreal scale = std::clamp(std::min(w / 800.0, h / 500.0), 0.55, 1.6);
  s.titlePt = std::clamp(11.0 * scale, 7.5, 16.0);
  s.labelPt = std::clamp(9.0 * scale, 6.5, 13.0);
  s.legendPt = std::clamp(9.0 * scale, 6.5, 13.0);
  s.xTicks = std::clamp(w / 90, 4, 11);
  s.yTicks = std::clamp(h / 70, 3, 9);
  s.marker = std::clamp(8.0 * scale, 5.0, 12.0);
  return s;
}

QFont font(qreal pt, bool bold = false) {
  QFont f = QGuiApplication::font();
  f.setPointSizeF(pt);
  f.setBold(bold);
  return f;
}

QValueAxis* makeAxis(const QString& title, const Style& st, int ticks, const QString& format) {
  auto* axis = new QValueAxis;
  axis->setTitleText(title);
  axis->setTitleFont(font(st.labelPt, true));
  axis->setLabelsFont(font(st.labelPt));
  axis->setTickCount(ticks);
  axis->setLabelFormat(format);
  axis->setMinorTickCount(0);
  return axis;
}

QChart* makeChart(const QString& title, const Style& st) {
  auto* chart = new QChart;
  chart->setTitle(title);
  chart->setTitleFont(font(st.titlePt, true));
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->setBackgroundRoundness(0);
  chart->setMargins(st.small ? QMargins(2, 2, 2, 2) : QMargins(8, 6, 8, 6));
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->legend()->setFont(font(st.legendPt));
  chart->legend()->setMarkerShape(QLegend::MarkerShapeRectangle);
  return chart;
}

void attach(QChart* chart, QAbstractSeries* series, QValueAxis* x, QValueAxis* y) {
  chart->addSeries(series);
  series->attachAxis(x);
  series->attachAxis(y);
}

// An area between two lines. QAreaSeries does not own its line series (Qt Charts leaves them to
// the caller, and a chart owns only what addSeries() got): the area becomes their parent, so they
// go with it instead of leaking with every rebuilt chart.
QAreaSeries* areaBetween(QLineSeries* upper, QLineSeries* lower) {
  auto* area = new QAreaSeries(upper, lower);
  upper->setParent(area);
  lower->setParent(area);
  return area;
}

void hideFromLegend(QChart* chart, QAbstractSeries* series) {
  for (QLegendMarker* m : chart->legend()->markers(series)) m->setVisible(false);
}

QLineSeries* line(const QString& name, QPointF a, QPointF b, const QColor& color, qreal width,
                  Qt::PenStyle style) {
  auto* s = new QLineSeries;
  s->setName(name);
  s->append(a);
  s->append(b);
  QPen pen(color, width, style);
  pen.setCapStyle(Qt::FlatCap);
  s->setPen(pen);
  return s;
}

// Step outline of a histogram: every bin a flat top between its edges.
QAreaSeries* histogramArea(const core::stats::Histogram& h, double scale, const QColor& color,
                           int alpha, const QString& name) {
  auto* upper = new QLineSeries;
  auto* lower = new QLineSeries;
  upper->append(h.low, 0.0);
  for (std::size_t i = 0; i < h.counts.size(); ++i) {
    const double y = double(h.counts[i]) * scale;
    upper->append(h.binLow(i), y);
    upper->append(h.binLow(i) + h.binWidth(), y);
  }
  upper->append(h.high, 0.0);
  lower->append(h.low, 0.0);
  lower->append(h.high, 0.0);
  auto* area = areaBetween(upper, lower);
  area->setName(name);
  QColor fill = color;
  fill.setAlpha(alpha);
  area->setBrush(fill);
  area->setPen(QPen(color.darker(115), 1.2));
  return area;
}

std::pair<double, double> paddedRange(double lo, double hi, double pad = 0.04) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {0.0, 1.0};
  if (hi <= lo) return {lo - 0.5, hi + 0.5};
  const double d = (hi - lo) * pad;
  return {lo - d, hi + d};
}

// Axis range widened to multiples of a round step (1, 2, 2.5 or 5 x 10^k) with at most
// `maxTicks` ticks: tick labels stay short and evenly spaced without doubling the range, as
// QValueAxis::applyNiceNumbers() can.
double roundStep(double lo, double hi, int maxTicks) {
  maxTicks = std::max(3, maxTicks);
  const double raw = (hi - lo) / double(maxTicks - 1);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0})
    if (m * magnitude >= raw) return m * magnitude;
  return magnitude * 10.0;
}

void niceAxis(QValueAxis* axis, double lo, double hi, int maxTicks) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || hi <= lo) {
    axis->setRange(lo, hi);
    return;
  }
  const double step = roundStep(lo, hi, maxTicks);
  const double a = std::floor(lo / step + 1e-9) * step;
  const double b = std::ceil(hi / step - 1e-9) * step;
  axis->setRange(a, b);
  axis->setTickCount(int(std::lround((b - a) / step)) + 1);
}

// The exact range [lo, hi] with ticks on multiples of a round step: for data bounded by a
// measure's range (scores in [0, 1]), where widening to the next round step would add a half-empty
// band (1.5 on a [0, 1] measure) but a small margin keeps points off the plot border.
void paddedTickedAxis(QValueAxis* axis, double lo, double hi, int maxTicks) {
  if (!std::isfinite(lo) || !std::isfinite(hi) || hi <= lo) {
    axis->setRange(lo, hi);
    return;
  }
  // No widening here, so a few more ticks than the niceAxis budget keep the scale readable.
  const double step = roundStep(lo, hi, maxTicks + 2);
  axis->setRange(lo, hi);
  axis->setTickType(QValueAxis::TicksDynamic);
  axis->setTickAnchor(std::ceil(lo / step - 1e-9) * step);
  axis->setTickInterval(step);
}

QChart* buildBootstrap(const BootstrapChart& spec, const Style& st) {
  // Small pictures: the figures that matter go in the title, the legend would be truncated.
  QChart* chart = makeChart(st.small ? QObject::tr("mean %1, %2 CI [%3, %4]")
                                           .arg(num(spec.mean, 3), percent(spec.level),
                                                num(spec.ciLow, 3), num(spec.ciHigh, 3))
                                     : spec.title,
                            st);
  chart->legend()->setVisible(!st.small);
  const auto h = core::stats::makeHistogram(spec.distribution, spec.bins);
  double maxCount = 1.0;
  for (std::size_t c : h.counts) maxCount = std::max(maxCount, double(c));
  const double top = maxCount * 1.08;
  auto* x = makeAxis(spec.valueTitle, st, st.xTicks, QStringLiteral("%.3f"));
  auto* y = makeAxis(st.small ? QObject::tr("resamples") : QObject::tr("resamples (count)"), st,
                     st.yTicks, QStringLiteral("%d"));
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);

  const QLocale locale;
  attach(chart,
         histogramArea(h, 1.0, paletteColor(0), 150,
                       QObject::tr("bootstrap means (B = %1)")
                           .arg(locale.toString(qulonglong(spec.distribution.size())))),
         x, y);
  auto* lowLine = line(
      QObject::tr("%1 CI [%2, %3]").arg(percent(spec.level), num(spec.ciLow), num(spec.ciHigh)),
      {spec.ciLow, 0.0}, {spec.ciLow, top}, kCiColor, st.small ? 1.5 : 2.0, Qt::DashLine);
  auto* highLine = line(QString(), {spec.ciHigh, 0.0}, {spec.ciHigh, top}, kCiColor,
                        st.small ? 1.5 : 2.0, Qt::DashLine);
  auto* meanLine = line(QObject::tr("bootstrap mean %1").arg(num(spec.mean)), {spec.mean, 0.0},
                        {spec.mean, top}, kMeanColor, st.small ? 1.5 : 2.5, Qt::SolidLine);
  attach(chart, meanLine, x, y);
  attach(chart, lowLine, x, y);
  attach(chart, highLine, x, y);
  hideFromLegend(chart, highLine);

  const auto [lo, hi] = paddedRange(std::min(h.low, spec.ciLow), std::max(h.high, spec.ciHigh));
  niceAxis(x, lo, hi, st.xTicks);
  niceAxis(y, 0.0, top, st.yTicks);
  return chart;
}

QChart* buildOverlay(const OverlayChart& spec, const Style& st) {
  QChart* chart = makeChart(spec.title, st);
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& g : spec.groups)
    for (double v : g.distribution)
      if (std::isfinite(v)) {
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
  if (!(lo <= hi)) {
    lo = 0.0;
    hi = 1.0;
  }
  auto* x = makeAxis(spec.valueTitle, st, st.xTicks, QStringLiteral("%.3f"));
  auto* y =
      makeAxis(st.small ? QObject::tr("% of resamples") : QObject::tr("share of resamples (%)"), st,
               st.yTicks, QStringLiteral("%.0f"));
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);

  // One binning for all groups (a common range) so the bars line up; heights in percent so sets
  // with different B compare.
  std::vector<core::stats::Histogram> hists;
  double top = 1.0;
  for (const auto& g : spec.groups) {
    hists.push_back(core::stats::makeHistogram(g.distribution, spec.bins, std::make_pair(lo, hi)));
    const double scale = g.distribution.empty() ? 0.0 : 100.0 / double(g.distribution.size());
    for (std::size_t c : hists.back().counts) top = std::max(top, double(c) * scale);
  }
  top = std::min(top * 1.08, 100.0);  // shares: never past 100 %
  for (std::size_t i = 0; i < spec.groups.size(); ++i) {
    const auto& g = spec.groups[i];
    const double scale = g.distribution.empty() ? 0.0 : 100.0 / double(g.distribution.size());
    const QString name =
        st.small ? g.name
                 : QObject::tr("%1 (n = %2): mean %3, %4 CI [%5, %6]")
                       .arg(g.name)
                       .arg(g.n)
                       .arg(num(g.mean), percent(spec.level), num(g.ciLow), num(g.ciHigh));
    attach(chart, histogramArea(hists[i], scale, paletteColor(i), 110, name), x, y);
  }
  // Mean lines over the areas, in the group colour, out of the legend (the area names say it).
  for (std::size_t i = 0; i < spec.groups.size(); ++i) {
    const auto& g = spec.groups[i];
    auto* meanLine = line(QString(), {g.mean, 0.0}, {g.mean, top}, paletteColor(i).darker(140),
                          st.small ? 1.5 : 2.5, Qt::DashLine);
    attach(chart, meanLine, x, y);
    hideFromLegend(chart, meanLine);
  }
  const auto [plo, phi] = paddedRange(lo, hi);
  paddedTickedAxis(x, plo, phi, st.xTicks);
  niceAxis(y, 0.0, top, st.yTicks);
  return chart;
}

QChart* buildPaired(const PairedDifferenceChart& spec, const Style& st, bool interactive) {
  QChart* chart = makeChart(st.small ? QObject::tr("mean difference %1, %2 CI [%3, %4]")
                                           .arg(signedNum(spec.meanDiff, 3), percent(spec.level),
                                                signedNum(spec.ciLow, 3), signedNum(spec.ciHigh, 3))
                                     : spec.title,
                            st);
  chart->legend()->setVisible(!st.small);
  const std::size_t n = spec.differences.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return spec.differences[a] < spec.differences[b];
  });

  auto* x = makeAxis(st.small ? QObject::tr("queries (n = %1)").arg(n)
                              : QObject::tr("queries, sorted by difference (n = %1)").arg(n),
                     st, st.xTicks, QStringLiteral("%d"));
  auto* y = makeAxis(st.small ? QObject::tr("A − B") : spec.valueTitle, st, st.yTicks,
                     QStringLiteral("%.2f"));
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);

  // Bars as two step areas (positive, negative) so thousands of queries stay cheap to draw; a gap
  // between bars only while bars are wide enough to show one.
  const double gap = n <= 120 ? 0.15 : 0.0;
  auto* posUpper = new QLineSeries;
  auto* negUpper = new QLineSeries;
  std::size_t wins = 0, losses = 0;
  double lo = std::min(0.0, spec.ciLow), hi = std::max(0.0, spec.ciHigh);
  for (std::size_t k = 0; k < n; ++k) {
    const double d = spec.differences[order[k]];
    lo = std::min(lo, d);
    hi = std::max(hi, d);
    const double a = double(k) + gap, b = double(k + 1) - gap;
    QLineSeries* s = d >= 0.0 ? posUpper : negUpper;
    if (d > 0.0) ++wins;
    if (d < 0.0) ++losses;
    s->append(a, 0.0);
    s->append(a, d);
    s->append(b, d);
    s->append(b, 0.0);
  }
  auto zeroLine = [n] {
    auto* s = new QLineSeries;
    s->append(0.0, 0.0);
    s->append(double(std::max<std::size_t>(n, 1)), 0.0);
    return s;
  };
  const double xMax = double(std::max<std::size_t>(n, 1));

  // CI band first so the bars draw over it.
  auto* bandUpper = new QLineSeries;
  bandUpper->append(0.0, spec.ciHigh);
  bandUpper->append(xMax, spec.ciHigh);
  auto* bandLower = new QLineSeries;
  bandLower->append(0.0, spec.ciLow);
  bandLower->append(xMax, spec.ciLow);
  auto* band = areaBetween(bandUpper, bandLower);
  band->setName(QObject::tr("%1 CI of the mean [%2, %3]")
                    .arg(percent(spec.level), signedNum(spec.ciLow), signedNum(spec.ciHigh)));
  QColor bandColor = kCiColor;
  bandColor.setAlpha(55);
  band->setBrush(bandColor);
  band->setPen(QPen(kCiColor, 1.0, Qt::DashLine));
  attach(chart, band, x, y);

  const QColor winColor(44, 160, 44), lossColor(214, 39, 40);
  auto* pos = areaBetween(posUpper, zeroLine());
  // "1 query", not "1 queries": no translation is loaded to pluralise %n.
  pos->setName(wins == 1 ? QObject::tr("A better (1 query)")
                         : QObject::tr("A better (%1 queries)").arg(wins));
  pos->setBrush(winColor);
  pos->setPen(QPen(winColor.darker(120), n <= 120 ? 1.0 : 0.0));
  auto* neg = areaBetween(negUpper, zeroLine());
  neg->setName(losses == 1 ? QObject::tr("B better (1 query)")
                           : QObject::tr("B better (%1 queries)").arg(losses));
  neg->setBrush(lossColor);
  neg->setPen(QPen(lossColor.darker(120), n <= 120 ? 1.0 : 0.0));
  attach(chart, pos, x, y);
  attach(chart, neg, x, y);

  auto* meanLine =
      line(QObject::tr("mean difference %1").arg(signedNum(spec.meanDiff)), {0.0, spec.meanDiff},
           {xMax, spec.meanDiff}, kMeanColor, st.small ? 1.5 : 2.5, Qt::SolidLine);
  attach(chart, meanLine, x, y);
  auto* axisLine = line(QString(), {0.0, 0.0}, {xMax, 0.0}, QColor(90, 90, 90), 1.0, Qt::SolidLine);
  attach(chart, axisLine, x, y);
  hideFromLegend(chart, axisLine);

  if (interactive) {
    // The query under the mouse, by bar index.
    auto qids = spec.qids;
    auto diffs = spec.differences;
    auto tip = [order, qids, diffs](const QPointF& p, bool state) {
      if (!state) {
        QToolTip::hideText();
        return;
      }
      const long k = long(std::floor(p.x()));
      if (k < 0 || k >= long(order.size())) return;
      const std::size_t i = order[std::size_t(k)];
      QToolTip::showText(QCursor::pos(), QObject::tr("query %1: %2")
                                             .arg(i < qids.size() ? qids[i] : QString())
                                             .arg(signedNum(diffs[i])));
    };
    QObject::connect(pos, &QAreaSeries::hovered, pos, tip);
    QObject::connect(neg, &QAreaSeries::hovered, neg, tip);
  }

  // Exactly the bars' extent; ticks at round query counts from 0.
  x->setRange(0.0, xMax);
  {
    const double raw = xMax / double(std::max(2, st.xTicks));
    const double magnitude = std::pow(10.0, std::floor(std::log10(std::max(1.0, raw))));
    double step = magnitude * 10.0;
    for (double m : {1.0, 2.0, 5.0, 10.0})
      if (m * magnitude >= raw) {
        step = m * magnitude;
        break;
      }
    x->setTickType(QValueAxis::TicksDynamic);
    x->setTickAnchor(0.0);
    x->setTickInterval(step);
  }
  const auto [plo, phi] = paddedRange(lo, hi, 0.03);
  niceAxis(y, plo, phi, st.yTicks);
  return chart;
}

QChart* buildScatter(const ScatterChart& spec, const Style& st, bool interactive) {
  const QString title =
      spec.title.isEmpty()
          ? QObject::tr("Kendall τ = %1, Spearman ρ = %2").arg(num(spec.tau, 3), num(spec.rho, 3))
          : QObject::tr("%1 — Kendall τ = %2, Spearman ρ = %3")
                .arg(spec.title, num(spec.tau, 3), num(spec.rho, 3));
  QChart* chart = makeChart(
      st.small ? QObject::tr("τ = %1, ρ = %2").arg(num(spec.tau, 3), num(spec.rho, 3)) : title, st);
  chart->legend()->setVisible(!st.small);
  auto* x = makeAxis(spec.xTitle, st, st.xTicks, QStringLiteral("%.2f"));
  auto* y = makeAxis(spec.yTitle, st, st.yTicks, QStringLiteral("%.2f"));
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);

  const std::size_t n = std::min(spec.x.size(), spec.y.size());
  double lo = INFINITY, hi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  // Per-query measures are often coarse (binary labels, P@5 in fifths): many queries can share one
  // point. Each distinct point is drawn once, its mark growing with the number of queries there,
  // so 20 queries at (0, 1) do not look like one.
  std::map<std::pair<double, double>, QStringList> at;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(spec.x[i]) || !std::isfinite(spec.y[i])) continue;
    at[{spec.x[i], spec.y[i]}] << (i < spec.qids.size() ? spec.qids[i] : QString());
    lo = std::min(lo, spec.x[i]);
    hi = std::max(hi, spec.x[i]);
    ylo = std::min(ylo, spec.y[i]);
    yhi = std::max(yhi, spec.y[i]);
  }
  if (!(lo <= hi)) lo = 0.0, hi = 1.0, ylo = 0.0, yhi = 1.0;
  if (spec.diagonal) {
    // Same scale on both axes so the diagonal means "equal".
    lo = std::min(lo, ylo);
    hi = std::max(hi, yhi);
    ylo = lo;
    yhi = hi;
    auto* diag =
        line(QObject::tr("y = x"), {lo, lo}, {hi, hi}, QColor(120, 120, 120), 1.2, Qt::DashLine);
    attach(chart, diag, x, y);
  }
  // One series per multiplicity (a series has one marker size); the single points carry the legend.
  std::map<qsizetype, QScatterSeries*> byCount;
  QColor c = paletteColor(0);
  c.setAlpha(170);
  auto seriesFor = [&](qsizetype count) {
    auto& s = byCount[count];
    if (!s) {
      s = new QScatterSeries;
      s->setMarkerSize(st.marker * std::min(3.0, std::sqrt(double(count))));
      s->setColor(c);
      s->setBorderColor(paletteColor(0).darker(130));
    }
    return s;
  };
  seriesFor(1);
  for (const auto& [point, ids] : at) seriesFor(ids.size())->append(point.first, point.second);
  const bool stacked = byCount.size() > 1;
  byCount[1]->setName(
      stacked ? QObject::tr("queries (n = %1; larger marks: several queries at one point)").arg(n)
              : QObject::tr("queries (n = %1)").arg(n));
  for (const auto& [count, series] : byCount) {
    attach(chart, series, x, y);
    if (count > 1) hideFromLegend(chart, series);
    if (!interactive) continue;
    QObject::connect(series, &QScatterSeries::hovered, series, [at](const QPointF& p, bool state) {
      const auto it = at.find({p.x(), p.y()});
      if (!state || it == at.end()) {
        QToolTip::hideText();
        return;
      }
      const QStringList& ids = it->second;
      const QString shown = ids.size() <= 8
                                ? ids.join(QStringLiteral(", "))
                                : ids.mid(0, 8).join(QStringLiteral(", ")) + QStringLiteral(", …");
      const QString where = QStringLiteral("(%1, %2)").arg(num(p.x()), num(p.y()));
      QToolTip::showText(
          QCursor::pos(),
          ids.size() == 1 ? QObject::tr("query %1: %2").arg(shown, where)
                          : QObject::tr("%1 queries at %2: %3").arg(ids.size()).arg(where, shown));
    });
  }
  // A small margin keeps points at 0 or 1 (common for per-query measures) off the plot border.
  const auto [xl, xh] = paddedRange(lo, hi);
  const auto [yl, yh] = paddedRange(ylo, yhi);
  paddedTickedAxis(x, xl, xh, st.xTicks);
  paddedTickedAxis(y, yl, yh, st.yTicks);
  return chart;
}

QChart* buildChart(const ChartSpec& spec, QSize size, bool interactive) {
  const Style st = styleFor(size);
  return std::visit(
      [&](const auto& s) -> QChart* {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, BootstrapChart>)
          return buildBootstrap(s, st);
        else if constexpr (std::is_same_v<T, OverlayChart>)
          return buildOverlay(s, st);
        else if constexpr (std::is_same_v<T, PairedDifferenceChart>)
          return buildPaired(s, st, interactive);
        else if constexpr (std::is_same_v<T, ScatterChart>)
          return buildScatter(s, st, interactive);
        else
          return makeChart(QString(), st);
      },
      spec);
}

// An off-screen view of the chart at exactly `size`, laid out and ready to paint.
std::unique_ptr<QChartView> offscreenView(const ChartSpec& spec, QSize size) {
  auto view = std::make_unique<QChartView>(buildChart(spec, size, false));
  view->setAttribute(Qt::WA_DontShowOnScreen);
  view->setRenderHint(QPainter::Antialiasing);
  view->setFrameShape(QFrame::NoFrame);
  view->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  view->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  view->resize(size);
  view->chart()->resize(size);
  // The chart lays itself out through posted layout requests; deliver them before painting.
  QResizeEvent resize(size, QSize());
  QCoreApplication::sendEvent(view.get(), &resize);
  QCoreApplication::sendPostedEvents();
  QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
  return view;
}

// Buckets of the on-screen size: the view is rebuilt only when fonts or ticks would change.
QSize styleKey(QSize size) {
  const Style st = styleFor(size);
  // `small` too: fonts and ticks can stay equal across its threshold while the legend toggles.
  return {int(st.labelPt * 10) * 100 + st.xTicks,
          int(st.titlePt * 10) * 100 + st.yTicks + (st.small ? 50 : 0)};
}

}  // namespace

ChartWidget::ChartWidget(QWidget* parent)
    : QWidget(parent),
      m_view(new QChartView(this)),
      m_placeholder(new QLabel(this)),
      m_menuButton(new QToolButton(this)) {
  m_view->setRenderHint(QPainter::Antialiasing);
  m_view->setFrameShape(QFrame::NoFrame);
  m_placeholder->setAlignment(Qt::AlignCenter);
  m_placeholder->setWordWrap(true);
  m_placeholder->setStyleSheet(QStringLiteral("color: palette(mid);"));
  auto* stack = new QStackedLayout(this);
  stack->setContentsMargins(0, 0, 0, 0);
  stack->addWidget(m_placeholder);
  stack->addWidget(m_view);
  setPlaceholder(tr("No chart yet"));

  // Copy/save also from a visible button: a context menu alone is easy to miss.
  m_menuButton->setText(QStringLiteral("⋯"));
  m_menuButton->setToolTip(tr("Copy or save this chart (also on right-click)"));
  m_menuButton->setAutoRaise(true);
  m_menuButton->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(m_menuButton);
  menu->addAction(tr("Copy image"), this, &ChartWidget::copyToClipboard);
  menu->addAction(tr("Save as PNG or SVG…"), this, &ChartWidget::saveDialog);
  m_menuButton->setMenu(menu);
  m_menuButton->setVisible(false);
  setMinimumSize(220, 150);
}

ChartWidget::~ChartWidget() = default;

void ChartWidget::setSpec(ChartSpec spec) {
  m_spec = std::move(spec);
  if (isEmpty()) {
    setPlaceholder(tr("No chart yet"));
    return;
  }
  rebuild();
}

void ChartWidget::setPlaceholder(const QString& text) {
  m_spec = std::monostate{};
  m_placeholder->setText(text);
  static_cast<QStackedLayout*>(layout())->setCurrentWidget(m_placeholder);
  m_menuButton->setVisible(false);
  QChart* old = m_view->chart();
  m_view->setChart(new QChart);
  delete old;
  m_builtFor = {};
}

void ChartWidget::rebuild() {
  // This widget's size, not the view's: while the placeholder is the stacked layout's current
  // page the view is not resized, so the first chart was styled for a stale size (no legend, tiny
  // fonts on a large chart) and no resize of this widget came to correct it.
  const QSize size = !this->size().isEmpty() ? this->size() : sizeHint();
  QChart* old = m_view->chart();
  m_view->setChart(buildChart(m_spec, size, true));
  delete old;  // setChart() leaves the old chart to us
  m_builtFor = styleKey(size);
  m_builtSize = size;
  static_cast<QStackedLayout*>(layout())->setCurrentWidget(m_view);
  m_menuButton->setVisible(true);
  m_menuButton->raise();
}

void ChartWidget::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  m_menuButton->adjustSize();
  m_menuButton->move(width() - m_menuButton->width() - 2, 2);
  if (!isEmpty() && styleKey(event->size()) != m_builtFor) rebuild();
}

void ChartWidget::contextMenuEvent(QContextMenuEvent* event) {
  if (isEmpty()) return;
  QMenu menu(this);
  menu.addAction(tr("Copy image"), this, &ChartWidget::copyToClipboard);
  menu.addAction(tr("Save as PNG or SVG…"), this, &ChartWidget::saveDialog);
  menu.exec(event->globalPos());
}

QSize ChartWidget::exportSize(QSize requested) const {
  if (requested.isValid() && !requested.isEmpty()) return requested;
  const QSize s = size();
  return s.width() >= 200 && s.height() >= 120 ? s : QSize(960, 600);
}

QImage ChartWidget::render(const ChartSpec& spec, QSize size) {
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  auto view = offscreenView(spec, size);
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  view->render(&painter, QRectF(QPointF(), QSizeF(size)), QRect(QPoint(), size));
  return image;
}

namespace {

// The chart as an SVG drawing on white; empty when it could not be drawn.
QByteArray svgBytes(const ChartSpec& spec, QSize size) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  QSvgGenerator svg;
  svg.setOutputDevice(&buffer);
  svg.setSize(size);
  svg.setViewBox(QRect(QPoint(), size));
  svg.setTitle(QStringLiteral("ragscope chart"));
  auto view = offscreenView(spec, size);
  QPainter painter;
  if (!painter.begin(&svg)) return {};
  painter.fillRect(QRect(QPoint(), size), Qt::white);
  view->render(&painter, QRectF(QPointF(), QSizeF(size)), QRect(QPoint(), size));
  return painter.end() ? bytes : QByteArray();
}

}  // namespace

bool ChartWidget::writeSvg(const ChartSpec& spec, const QString& path, QSize size) {
  const QByteArray bytes = svgBytes(spec, size);
  return !bytes.isEmpty() && writeBytesSafely(path, bytes);
}

QImage ChartWidget::renderImage(QSize size) const { return render(m_spec, exportSize(size)); }

bool ChartWidget::savePng(const QString& path, QSize size) const {
  return !isEmpty() && savePngSafely(renderImage(size), path);
}

bool ChartWidget::saveSvg(const QString& path, QSize size) const {
  return !isEmpty() && writeSvg(m_spec, path, exportSize(size));
}

void ChartWidget::copyToClipboard() const {
  if (isEmpty()) return;
  const QSize size = exportSize({});
  auto* mime = new QMimeData;
  mime->setImageData(render(m_spec, size));
  // SVG too, for editors that take vector pictures.
  mime->setData(QStringLiteral("image/svg+xml"), svgBytes(m_spec, size));
  QGuiApplication::clipboard()->setMimeData(mime);
}

void ChartWidget::saveDialog() {
  QString selected;
  QString path =
      QFileDialog::getSaveFileName(this, tr("Save chart"), QStringLiteral("chart.png"),
                                   tr("PNG image (*.png);;SVG drawing (*.svg)"), &selected);
  if (path.isEmpty()) return;
  const bool svg = path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive) ||
                   (selected.contains(QLatin1String("svg")) &&
                    !path.endsWith(QLatin1String(".png"), Qt::CaseInsensitive));
  if (svg && !path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive))
    path += QStringLiteral(".svg");
  const bool ok = svg ? saveSvg(path) : savePng(path);
  if (!ok) QToolTip::showText(QCursor::pos(), tr("Could not write %1").arg(path), this);
}

}  // namespace ragscope::ui::charts
