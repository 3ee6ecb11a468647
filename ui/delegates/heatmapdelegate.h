#pragma once
// Paints a HeatmapModel cell as a colour for its label: 0 red-ish, 1 green, hues in between for
// continuous labels (ROUGE-L, F1), grey for a missing label. The value is printed on the cell in a
// colour that stays readable on any fill; the current cell gets a dark frame. With Scale::Share
// the label is a share in [0, 1] (a confusion matrix cell's share of its row) and runs from white
// to blue: red would call a cell bad that is only small.

#include <QColor>
#include <QStyledItemDelegate>

namespace ragscope::ui {

class HeatmapDelegate : public QStyledItemDelegate {
  Q_OBJECT
 public:
  enum class Scale { Label, Share };
  explicit HeatmapDelegate(QObject* parent = nullptr, Scale scale = Scale::Label)
      : QStyledItemDelegate(parent), m_scale(scale) {}

  // The fill for a label in [0, 1] (clamped); missing labels use missingColour().
  static QColor labelColour(double label);
  // The fill for a share in [0, 1] (clamped) under Scale::Share: white (0) to deep blue (1).
  static QColor shareColour(double share);
  static QColor missingColour() { return QColor(0xc8, 0xc8, 0xc8); }

  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override;
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

 private:
  Scale m_scale;
};

}  // namespace ragscope::ui
