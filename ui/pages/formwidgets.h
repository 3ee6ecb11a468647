#pragma once
// Small factories for the editor forms of the configuration pages (Endpoints, Retrievers).

#include <QDoubleSpinBox>
#include <QString>

namespace ragscope::ui {

inline QDoubleSpinBox* doubleSpin(double min, double max, int decimals, double step, const QString& suffix = {}) {
  auto* s = new QDoubleSpinBox;
  s->setRange(min, max);
  s->setDecimals(decimals);
  s->setSingleStep(step);
  if (!suffix.isEmpty()) s->setSuffix(suffix);
  return s;
}

}  // namespace ragscope::ui
