#pragma once
// Small factories for the forms of the pages: the configuration editors (Endpoints, Retrievers),
// the job setups (eRAG, Claims) and the statistics options (Compare, Contrastive, the statistics
// panel), so a setting reads the same wherever it is offered.

#include <QDoubleSpinBox>
#include <QString>
#include <functional>
#include <vector>

#include "core/llm/provider.h"

class QComboBox;
class QHBoxLayout;
class QLineEdit;
class QSpinBox;
class QWidget;

namespace ragscope::ui {

inline QDoubleSpinBox* doubleSpin(double min, double max, int decimals, double step,
                                  const QString& suffix = {}) {
  auto* s = new QDoubleSpinBox;
  s->setRange(min, max);
  s->setDecimals(decimals);
  s->setSingleStep(step);
  if (!suffix.isEmpty()) s->setSuffix(suffix);
  return s;
}

// A path field with a "…" button beside it that fills the field with what `choose` returns (a
// file dialog; an empty string leaves it as it was).
QHBoxLayout* pathRow(QLineEdit* field, std::function<QString()> choose);

// Fills an endpoint selector with `endpoints`' names, offline ones followed by `offlineNote`;
// the entry of the same name stays selected (else the first). Signals are blocked meanwhile.
void fillEndpointCombo(QComboBox* combo, const std::vector<core::llm::EndpointConfig>& endpoints,
                       const QString& offlineNote);

// Statistics options: bootstrap resamples B (10,000), permutations (10,000), the resample size s
// (0 shows `nText`: the sample's own n), the CI level (95 % of 90/95/99; the value is the level as
// a fraction) and the seed (core::stats::kDefaultSeed).
QSpinBox* resamplesSpin(QWidget* parent);
QSpinBox* permutationsSpin(QWidget* parent);
QSpinBox* sampleSizeSpin(const QString& nText, QWidget* parent);
QComboBox* levelCombo(QWidget* parent);
QSpinBox* seedSpin(QWidget* parent);

}  // namespace ragscope::ui
