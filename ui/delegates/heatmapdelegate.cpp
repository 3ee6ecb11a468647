#include "ui/delegates/heatmapdelegate.h"

#include <QPainter>
#include <algorithm>

#include "ui/models/heatmapmodel.h"

namespace ragscope::ui {

QColor HeatmapDelegate::labelColour(double label) {
  const double t = std::clamp(label, 0.0, 1.0);
  // Hue from red (0°) through amber to green (120°); moderate saturation keeps text readable and
  // the ends tell apart for red-green colour-blind readers by lightness too.
  const double hue = 120.0 * t / 360.0;
  const double saturation = 0.62;
  const double lightness = 0.62 - 0.12 * t;
  return QColor::fromHslF(float(hue), float(saturation), float(lightness));
}

QColor HeatmapDelegate::shareColour(double share) {
  const double t = std::clamp(share, 0.0, 1.0);
  // One hue, lightness alone carries the value: readable in grey and for colour-blind readers.
  return QColor::fromHslF(float(215.0 / 360.0), float(0.65), float(0.97 - 0.62 * t));
}

void HeatmapDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                            const QModelIndex& index) const {
  const QString text = index.data(Qt::DisplayRole).toString();
  const QVariant label = index.data(HeatmapModel::LabelRole);
  const bool empty = text.isEmpty();  // beyond the query's list: no document at this rank
  painter->save();
  const QRect cell = option.rect.adjusted(1, 1, -1, -1);
  QColor fill = empty                     ? option.palette.base().color()
                : !label.isValid()        ? missingColour()
                : m_scale == Scale::Share ? shareColour(label.toDouble())
                                          : labelColour(label.toDouble());
  painter->fillRect(cell, fill);
  if (!empty) {
    painter->setPen(fill.lightnessF() > 0.45 ? QColor(0x10, 0x10, 0x10) : Qt::white);
    painter->drawText(cell, Qt::AlignCenter, text);
  }
  if (option.state & QStyle::State_Selected) {
    QPen pen(QColor(0x10, 0x10, 0x40));
    pen.setWidth(3);
    painter->setPen(pen);
    painter->drawRect(cell.adjusted(1, 1, -2, -2));
  }
  painter->restore();
}

QSize HeatmapDelegate::sizeHint(const QStyleOptionViewItem& option,
                                const QModelIndex& index) const {
  QSize s = QStyledItemDelegate::sizeHint(option, index);
  return {std::max(s.width(), 56), std::max(s.height(), 24)};
}

}  // namespace ragscope::ui
