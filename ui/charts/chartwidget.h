#pragma once
// A chart on screen, fed by a plain ChartSpec (chartdata.h), with copy / save as PNG / save as SVG
// from a context menu or the small button in its corner. The exported picture is rebuilt at the
// requested size (fonts, ticks and markers adapt to it), so a 300x200 thumbnail and a 1600x1000
// slide are both readable, whatever the size of the view on screen.
//
//   auto* chart = new charts::ChartWidget(this);
//   chart->setSpec(charts::BootstrapChart{...});
//   chart->savePng("hist.png", {1600, 1000});

#include <QImage>
#include <QSize>
#include <QString>
#include <QWidget>

#include "ui/charts/chartdata.h"

class QChartView;
class QLabel;
class QToolButton;

namespace ragscope::ui::charts {

class ChartWidget : public QWidget {
  Q_OBJECT
 public:
  explicit ChartWidget(QWidget* parent = nullptr);
  ~ChartWidget() override;

  void setSpec(ChartSpec spec);
  const ChartSpec& spec() const { return m_spec; }
  bool isEmpty() const { return std::holds_alternative<std::monostate>(m_spec); }
  // Shown instead of a chart while there is nothing to draw ("Computing…", "Select a measure").
  void setPlaceholder(const QString& text);

  // The chart drawn at `size` (the view's size when empty) on a white background.
  QImage renderImage(QSize size = {}) const;
  bool savePng(const QString& path, QSize size = {}) const;
  bool saveSvg(const QString& path, QSize size = {}) const;
  void copyToClipboard() const;

  // Static variants for callers without a widget (reports, tests).
  static QImage render(const ChartSpec& spec, QSize size);
  static bool writeSvg(const ChartSpec& spec, const QString& path, QSize size);

  QSize sizeHint() const override { return {480, 320}; }
  // The on-screen size the current chart's fonts, ticks and legend were chosen for.
  QSize builtSize() const { return m_builtSize; }

 protected:
  void contextMenuEvent(QContextMenuEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void rebuild();
  void saveDialog();
  QSize exportSize(QSize requested) const;

  ChartSpec m_spec;
  QChartView* m_view;
  QLabel* m_placeholder;
  QToolButton* m_menuButton;
  QSize m_builtFor;
  QSize m_builtSize;
};

}  // namespace ragscope::ui::charts
