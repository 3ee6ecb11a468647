#pragma once
// Paints a HeatmapModel cell as a colour for its label: 0 red-ish, 1 green, hues in between for
// continuous labels (ROUGE-L, F1), grey for a missing label. The value is printed on the cell in a
// colour that stays readable on any fill; the current cell gets a dark frame.

#include <QColor>
#include <QStyledItemDelegate>

namespace ragscope::ui {

class HeatmapDelegate : public QStyledItemDelegate {
  Q_OBJECT
 public:
  using QStyledItemDelegate::QStyledItemDelegate;

  // The fill for a label in [0, 1] (clamped); missing labels use missingColour().
  static QColor labelColour(double label);
  static QColor missingColour() { return QColor(0xc8, 0xc8, 0xc8); }

  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override;
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

}  // namespace ragscope::ui
