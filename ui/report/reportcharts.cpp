#include "ui/report/reportcharts.h"

#include <QAbstractTextDocumentLayout>
#include <QPainter>
#include <QTextCursor>
#include <QTextDocument>
#include <algorithm>
#include <cmath>
#include <map>

#include "core/claims/agreement.h"

namespace ragscope::ui::report {

namespace {

constexpr int kChartType = QTextFormat::UserObject + 1;
constexpr int kChartIndex = QTextFormat::UserProperty + 1;

const QColor kInk(40, 40, 40);
const QColor kGrid(215, 215, 215);
const QColor kAccent(31, 119, 180);

QString q(const std::string& s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

QString number(double v) { return QString::number(v, 'f', std::abs(v) >= 100 ? 0 : 3); }

// A linear axis over [lo, hi] mapped onto [a, b] (pixels).
struct Axis {
  double lo = 0, hi = 1, a = 0, b = 1;
  double at(double v) const { return hi > lo ? a + (v - lo) / (hi - lo) * (b - a) : a; }
};

// [0, 1] when the values fit in it (most measures), else their range with a margin.
std::pair<double, double> domain(const std::vector<double>& values) {
  if (values.empty()) return {0, 1};
  const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
  if (*mn >= 0 && *mx <= 1) return {0, 1};
  const double pad = (*mx - *mn) * 0.05 + 1e-9;
  return {*mn - pad, *mx + pad};
}

void axisTicks(QPainter& p, const Axis& x, double y, int ticks) {
  p.setPen(kGrid);
  QFont f = p.font();
  f.setPointSizeF(7);
  p.setFont(f);
  for (int i = 0; i <= ticks; ++i) {
    const double v = x.lo + (x.hi - x.lo) * i / ticks;
    p.setPen(kGrid);
    p.drawLine(QPointF(x.at(v), y - 4), QPointF(x.at(v), y));
    p.setPen(kInk);
    p.drawText(QRectF(x.at(v) - 20, y, 40, 10), Qt::AlignCenter, number(v));
  }
}

// Label colours shared by the verdict bars and their legend.
QColor verdictColour(const std::string& verdict) {
  if (verdict == "supported") return QColor(46, 139, 87);
  if (verdict == "unsupported") return QColor(200, 60, 50);
  if (verdict == "contradiction") return QColor(130, 20, 20);
  if (verdict == "neutral") return QColor(230, 160, 40);
  return QColor(160, 160, 160);  // unparsed, error
}

}  // namespace

void ChartObjects::registerWith(QTextDocument* document) {
  document->documentLayout()->registerHandler(kChartType, this);
}

void ChartObjects::insert(QTextCursor& cursor, QSizeF size, PaintFn paint) {
  QTextCharFormat f;
  f.setObjectType(kChartType);
  f.setProperty(kChartIndex, static_cast<int>(m_paint.size()));
  m_sizes.push_back(size);
  m_paint.push_back(std::move(paint));
  cursor.insertText(QString(QChar::ObjectReplacementCharacter), f);
}

QSizeF ChartObjects::intrinsicSize(QTextDocument*, int, const QTextFormat& format) {
  const int i = format.property(kChartIndex).toInt();
  return i >= 0 && static_cast<std::size_t>(i) < m_sizes.size()
             ? m_sizes[static_cast<std::size_t>(i)]
             : QSizeF();
}

void ChartObjects::drawObject(QPainter* painter, const QRectF& rect, QTextDocument* doc, int,
                              const QTextFormat& format) {
  const int i = format.property(kChartIndex).toInt();
  if (i < 0 || static_cast<std::size_t>(i) >= m_paint.size()) return;
  painter->save();
  painter->setFont(doc->defaultFont());  // the report's face, without ligatures
  painter->setRenderHint(QPainter::Antialiasing);
  m_paint[static_cast<std::size_t>(i)](*painter, rect);
  painter->restore();
}

void paintIntervals(QPainter& p, const QRectF& rect,
                    const std::vector<const core::exporting::ReportMetric*>& metrics) {
  if (metrics.empty()) return;
  std::vector<double> all;
  for (const auto* m : metrics) {
    if (m->mean) all.push_back(*m->mean);
    if (m->ciLow) all.push_back(*m->ciLow);
    if (m->ciHigh) all.push_back(*m->ciHigh);
  }
  const auto [lo, hi] = domain(all);
  const double labelWidth = 150;
  Axis x{lo, hi, rect.left() + labelWidth, rect.right() - 10};
  const double rowH = (rect.height() - 14) / static_cast<double>(metrics.size());
  QFont f = p.font();
  f.setPointSizeF(7.5);
  p.setFont(f);
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const auto& m = *metrics[i];
    const double y = rect.top() + rowH * (static_cast<double>(i) + 0.5);
    p.setPen(kInk);
    const QString label =
        p.fontMetrics().elidedText(q(m.name), Qt::ElideMiddle, static_cast<int>(labelWidth - 8));
    p.drawText(QRectF(rect.left(), y - rowH / 2, labelWidth - 6, rowH),
               Qt::AlignRight | Qt::AlignVCenter, label);
    p.setPen(kGrid);
    p.drawLine(QPointF(x.a, y), QPointF(x.b, y));
    if (m.ciLow && m.ciHigh) {
      p.setPen(QPen(kAccent, 1.5));
      p.drawLine(QPointF(x.at(*m.ciLow), y), QPointF(x.at(*m.ciHigh), y));
      p.drawLine(QPointF(x.at(*m.ciLow), y - 3), QPointF(x.at(*m.ciLow), y + 3));
      p.drawLine(QPointF(x.at(*m.ciHigh), y - 3), QPointF(x.at(*m.ciHigh), y + 3));
    }
    if (m.mean) {
      p.setPen(Qt::NoPen);
      p.setBrush(kInk);
      p.drawEllipse(QPointF(x.at(*m.mean), y), 2.5, 2.5);
      p.setBrush(Qt::NoBrush);
    }
  }
  axisTicks(p, x, rect.bottom() - 10, 5);
}

void paintDistribution(QPainter& p, const QRectF& rect, const core::exporting::ReportMetric& m) {
  const auto& d = m.distribution;
  if (d.empty()) return;
  const auto [lowest, highest] = std::minmax_element(d.begin(), d.end());
  const int bins = 30;
  std::vector<int> counts(bins, 0);
  // Every resample the same (all queries scored alike): one bar in the middle of a narrow axis.
  const double spread = *highest - *lowest;
  const double pad = spread > 0 ? 0.0 : std::max(0.01, std::abs(*lowest) * 0.02);
  const double lo = *lowest - pad, width = (spread > 0 ? spread : 2 * pad) / bins;
  for (const double v : d) counts[std::clamp(static_cast<int>((v - lo) / width), 0, bins - 1)]++;
  const int top = *std::max_element(counts.begin(), counts.end());
  Axis x{lo, lo + width * bins, rect.left() + 10, rect.right() - 10};
  const double base = rect.bottom() - 14, height = rect.height() - 42;
  p.setPen(QPen(Qt::white, 0.5));
  p.setBrush(QColor(31, 119, 180, 160));
  for (int b = 0; b < bins; ++b) {
    const double h = top > 0 ? height * counts[b] / top : 0;
    p.drawRect(QRectF(x.at(lo + width * b), base - h,
                      x.at(lo + width * (b + 1)) - x.at(lo + width * b), h));
  }
  p.setBrush(Qt::NoBrush);
  auto mark = [&](double v, const QColor& c, const QString& label) {
    p.setPen(QPen(c, 1.2, Qt::DashLine));
    p.drawLine(QPointF(x.at(v), base), QPointF(x.at(v), base - height - 4));
    p.setPen(c);
    p.drawText(QRectF(x.at(v) - 40, rect.top() + 13, 80, 10), Qt::AlignCenter, label);
  };
  QFont f = p.font();
  f.setPointSizeF(7);
  p.setFont(f);
  if (m.ciLow) mark(*m.ciLow, QColor(200, 60, 50), "2.5%");
  if (m.ciHigh) mark(*m.ciHigh, QColor(200, 60, 50), "97.5%");
  if (m.mean) mark(*m.mean, kInk, "mean");
  axisTicks(p, x, base + 2, 4);
  p.setPen(kInk);
  p.drawText(QRectF(rect.left(), rect.top(), rect.width(), 12), Qt::AlignLeft,
             QString("%1: %2 bootstrap means").arg(q(m.name)).arg(d.size()));
}

void paintHeatmap(QPainter& p, const QRectF& rect,
                  const std::vector<core::exporting::ReportDocument>& documents,
                  std::size_t maxRows) {
  std::vector<std::string> order;
  // Per query and rank: no document (outer nullopt), a document without an output (inner), a label.
  std::map<std::string, std::vector<std::optional<std::optional<double>>>> rows;
  std::size_t ranks = 0;
  for (const auto& d : documents) {
    auto [it, fresh] = rows.try_emplace(d.qid);
    if (fresh) order.push_back(d.qid);
    if (it->second.size() < d.rank) it->second.resize(d.rank);
    it->second[d.rank - 1] = d.label;
    ranks = std::max(ranks, d.rank);
  }
  if (order.empty() || ranks == 0) return;
  const std::size_t shown = std::min(order.size(), maxRows);
  const double labelW = 70, headH = 12;
  const double cellW = std::min(28.0, (rect.width() - labelW) / static_cast<double>(ranks));
  const double cellH = std::min(10.0, (rect.height() - headH) / static_cast<double>(shown));
  QFont f = p.font();
  f.setPointSizeF(std::max(4.5, std::min(7.0, cellH * 0.8)));
  p.setFont(f);
  p.setPen(kInk);
  for (std::size_t r = 0; r < ranks; ++r)
    p.drawText(QRectF(rect.left() + labelW + cellW * r, rect.top(), cellW, headH), Qt::AlignCenter,
               QString::number(r + 1));
  for (std::size_t i = 0; i < shown; ++i) {
    const double y = rect.top() + headH + cellH * static_cast<double>(i);
    p.setPen(kInk);
    p.drawText(QRectF(rect.left(), y, labelW - 4, cellH), Qt::AlignRight | Qt::AlignVCenter,
               q(order[i]).left(14));
    const auto& labels = rows[order[i]];
    for (std::size_t r = 0; r < ranks; ++r) {
      if (r >= labels.size() || !labels[r]) continue;  // no document at this rank
      const auto& label = *labels[r];
      const double v = label ? std::clamp(*label, 0.0, 1.0) : 0.0;
      const QColor c =
          label ? QColor::fromRgbF(1 - 0.8 * v, 1 - 0.45 * v, 1 - 0.75 * v) : QColor(150, 150, 150);
      p.setPen(QPen(QColor(200, 200, 200), 0.5));
      p.setBrush(c);
      p.drawRect(QRectF(rect.left() + labelW + cellW * r, y, cellW, cellH));
    }
  }
  p.setBrush(Qt::NoBrush);
  p.setPen(kInk);
  p.drawText(QRectF(rect.left(), rect.top() + headH + cellH * shown + 2, rect.width(), 10),
             Qt::AlignLeft,
             QString("%1%2 queries; rank across; label from white (0) to green (1); grey: no "
                     "output; blank: no document")
                 .arg(shown < order.size() ? QString("first %1 of ").arg(shown) : QString())
                 .arg(order.size()));
}

void paintVerdicts(QPainter& p, const QRectF& rect,
                   const std::vector<core::exporting::ReportClaim>& claims) {
  static const std::vector<std::string> verdicts = {"supported",     "neutral",  "unsupported",
                                                    "contradiction", "unparsed", "error"};
  std::vector<std::string> premises;
  std::map<std::string, std::map<std::string, int>> counts;
  for (const auto& c : claims) {
    if (c.premise.rfind("chunk ", 0) == 0) continue;  // the matrix: one bar per chunk would crowd
    const std::string key = c.side + " vs " + c.premise;
    if (!counts.count(key)) premises.push_back(key);
    ++counts[key][c.verdict];
  }
  if (premises.empty()) return;
  QFont f = p.font();
  f.setPointSizeF(7.5);
  p.setFont(f);
  const double labelW = 120, legendH = 14;
  const double barH =
      std::min(18.0, (rect.height() - legendH) / static_cast<double>(premises.size()) - 4);
  for (std::size_t i = 0; i < premises.size(); ++i) {
    const auto& c = counts[premises[i]];
    int total = 0;
    for (const auto& [v, n] : c) total += n;
    const double y = rect.top() + (barH + 4) * static_cast<double>(i);
    p.setPen(kInk);
    p.drawText(QRectF(rect.left(), y, labelW - 6, barH), Qt::AlignRight | Qt::AlignVCenter,
               QString("%1 (%2)").arg(q(premises[i])).arg(total));
    double x = rect.left() + labelW;
    const double w = rect.width() - labelW - 10;
    for (const auto& v : verdicts) {
      const auto it = c.find(v);
      if (it == c.end() || total == 0) continue;
      const double part = w * it->second / total;
      p.setPen(Qt::NoPen);
      p.setBrush(verdictColour(v));
      p.drawRect(QRectF(x, y, part, barH));
      if (part > 22) {
        p.setPen(Qt::white);
        p.drawText(QRectF(x, y, part, barH), Qt::AlignCenter, QString::number(it->second));
      }
      x += part;
    }
  }
  p.setBrush(Qt::NoBrush);
  double x = rect.left() + labelW;
  const double y = rect.bottom() - legendH + 3;
  for (const auto& v : verdicts) {
    p.setPen(Qt::NoPen);
    p.setBrush(verdictColour(v));
    p.drawRect(QRectF(x, y + 2, 8, 8));
    p.setPen(kInk);
    p.drawText(QRectF(x + 11, y, 70, 12), Qt::AlignLeft | Qt::AlignVCenter, q(v));
    x += 72;
  }
  p.setBrush(Qt::NoBrush);
}

void paintScatter(QPainter& p, const QRectF& rect,
                  const std::vector<std::pair<double, double>>& points, const std::string& xLabel,
                  const std::string& yLabel) {
  if (points.empty()) return;
  std::vector<double> xs, ys;
  for (const auto& [a, b] : points) {
    xs.push_back(a);
    ys.push_back(b);
  }
  const auto [xlo, xhi] = domain(xs);
  const auto [ylo, yhi] = domain(ys);
  const QRectF plot(rect.left() + 40, rect.top() + 8, rect.width() - 50, rect.height() - 36);
  Axis x{xlo, xhi, plot.left(), plot.right()};
  Axis y{ylo, yhi, plot.bottom(), plot.top()};
  p.setPen(kGrid);
  p.drawRect(plot);
  p.setPen(Qt::NoPen);
  p.setBrush(QColor(31, 119, 180, 150));
  for (const auto& [a, b] : points) p.drawEllipse(QPointF(x.at(a), y.at(b)), 2.2, 2.2);
  p.setBrush(Qt::NoBrush);
  axisTicks(p, x, plot.bottom() + 2, 4);
  QFont f = p.font();
  f.setPointSizeF(7.5);
  p.setFont(f);
  p.setPen(kInk);
  for (int i = 0; i <= 4; ++i) {
    const double v = ylo + (yhi - ylo) * i / 4;
    p.drawText(QRectF(rect.left(), y.at(v) - 5, 36, 10), Qt::AlignRight | Qt::AlignVCenter,
               number(v));
  }
  p.drawText(QRectF(plot.left(), rect.bottom() - 12, plot.width(), 12), Qt::AlignCenter, q(xLabel));
  // Pearson's r, for the reader's eye (the statistics commands give tau and rho with CIs).
  const double pearson = core::claims::pearson(xs, ys);
  const QString r = std::isfinite(pearson) ? QString::number(pearson, 'f', 3) : QString("n/a");
  p.drawText(plot.adjusted(4, 2, -4, 0), Qt::AlignLeft | Qt::AlignTop,
             QString("y: %1   n = %2   Pearson r = %3").arg(q(yLabel)).arg(points.size()).arg(r));
}

}  // namespace ragscope::ui::report
