#pragma once
// The PDF report's charts, painted with QPainter straight onto the page, so they are vectors in
// the PDF (core/export/README.md): each chart is a QTextDocument object (ChartObjects) that the
// document lays out like a character and paints when its page is drawn. Plain painting, no Qt
// Charts: the report is written by the CLI too, without widgets.
//
//   ChartObjects charts;   // outlives the document's layout
//   charts.registerWith(doc);
//   charts.insert(cursor, {480, 160}, [=](QPainter& p, const QRectF& r) { paintHistogram(p, r,
//   ...); });

#include <QObject>
#include <QSizeF>
#include <QTextObjectInterface>
#include <functional>
#include <string>
#include <vector>

#include "core/export/reportmodel.h"

class QPainter;
class QTextCursor;
class QTextDocument;

namespace ragscope::ui::report {

using PaintFn = std::function<void(QPainter&, const QRectF&)>;

class ChartObjects : public QObject, public QTextObjectInterface {
  Q_OBJECT
  Q_INTERFACES(QTextObjectInterface)

 public:
  void registerWith(QTextDocument* document);
  // Inserts a chart of `size` (points) at the cursor.
  void insert(QTextCursor& cursor, QSizeF size, PaintFn paint);

  QSizeF intrinsicSize(QTextDocument* doc, int pos, const QTextFormat& format) override;
  void drawObject(QPainter* painter, const QRectF& rect, QTextDocument* doc, int pos,
                  const QTextFormat& format) override;

 private:
  std::vector<QSizeF> m_sizes;
  std::vector<PaintFn> m_paint;
};

// Each metric's mean (dot) and 95% CI (whisker) on one axis; metrics without an interval show
// the mean only.
void paintIntervals(QPainter& p, const QRectF& rect,
                    const std::vector<const core::exporting::ReportMetric*>& metrics);
// A metric's bootstrap distribution as a histogram, its CI bounds and mean marked.
void paintDistribution(QPainter& p, const QRectF& rect,
                       const core::exporting::ReportMetric& metric);
// eRAG labels: a row per query (at most `maxRows`), a column per rank, darker = higher label.
void paintHeatmap(QPainter& p, const QRectF& rect,
                  const std::vector<core::exporting::ReportDocument>& documents,
                  std::size_t maxRows);
// Claim verdicts per premise as stacked bars, with a legend.
void paintVerdicts(QPainter& p, const QRectF& rect,
                   const std::vector<core::exporting::ReportClaim>& claims);
// Per-query pairs (x, y) with both axes labelled and Pearson's r in the corner.
void paintScatter(QPainter& p, const QRectF& rect,
                  const std::vector<std::pair<double, double>>& points, const std::string& xLabel,
                  const std::string& yLabel);

}  // namespace ragscope::ui::report
