#include "ui/pages/resultitems.h"

#include <QStandardItem>
#include <cmath>

#include "ui/models/naturalsort.h"

namespace ragscope::ui {

QString number(double v, int decimals) {
  return std::isnan(v) ? QStringLiteral("–") : QString::number(v, 'f', decimals);
}

QStandardItem* textItem(const QString& text, const QVariant& sort) {
  auto* item = new QStandardItem(text);
  item->setData(sort.isValid() ? sort : QVariant(naturalSortKey(text)), Qt::UserRole);
  item->setEditable(false);
  return item;
}

QStandardItem* numberItem(std::optional<double> v, int decimals, const QString& suffix) {
  const bool missing = !v || std::isnan(*v);
  auto* item = new QStandardItem(missing ? QStringLiteral("–") : number(*v, decimals) + suffix);
  item->setData(missing ? -1e300 : *v, Qt::UserRole);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  item->setEditable(false);
  return item;
}

QStandardItem* countItem(std::uint64_t n) {
  auto* item = new QStandardItem(QString::number(n));
  item->setData(double(n), Qt::UserRole);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  item->setEditable(false);
  return item;
}

}  // namespace ragscope::ui
