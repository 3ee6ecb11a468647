#include "ui/pages/formwidgets.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>

#include "core/llm/providerfactory.h"
#include "core/stats/bootstrap.h"
#include "ui/textutil.h"

namespace ragscope::ui {

QHBoxLayout* pathRow(QLineEdit* field, std::function<QString()> choose) {
  auto* browse = new QPushButton(QObject::tr("…"));
  browse->setFixedWidth(30);
  QObject::connect(browse, &QPushButton::clicked, field, [field, choose = std::move(choose)] {
    const QString path = choose();
    if (path.isEmpty()) return;
    field->setText(path);
    emit field->editingFinished();  // the page reacts as to a typed path
  });
  auto* row = new QHBoxLayout;
  row->addWidget(field, 1);
  row->addWidget(browse);
  return row;
}

void fillEndpointCombo(QComboBox* combo, const std::vector<core::llm::EndpointConfig>& endpoints,
                       const QString& offlineNote) {
  const QString previous = combo->currentText();
  QSignalBlocker block(combo);
  combo->clear();
  for (const auto& e : endpoints)
    combo->addItem(core::llm::isOfflineEndpoint(e) && !offlineNote.isEmpty()
                       ? QStringLiteral("%1 (%2)").arg(q(e.name), offlineNote)
                       : q(e.name));
  const int keep = combo->findText(previous);
  combo->setCurrentIndex(keep >= 0 ? keep : 0);
}

namespace {

QSpinBox* countSpin(int min, int max, int value, QWidget* parent) {
  auto* spin = new QSpinBox(parent);
  spin->setRange(min, max);
  spin->setValue(value);
  spin->setGroupSeparatorShown(true);
  return spin;
}

}  // namespace

QSpinBox* resamplesSpin(QWidget* parent) { return countSpin(100, 1000000, 10000, parent); }
QSpinBox* permutationsSpin(QWidget* parent) { return countSpin(100, 10000000, 10000, parent); }

QSpinBox* sampleSizeSpin(const QString& nText, QWidget* parent) {
  auto* spin = new QSpinBox(parent);
  spin->setRange(0, 10000000);
  spin->setSpecialValueText(nText);
  return spin;
}

QComboBox* levelCombo(QWidget* parent) {
  auto* combo = new QComboBox(parent);
  combo->addItem(QStringLiteral("90%"), 0.90);
  combo->addItem(QStringLiteral("95%"), 0.95);
  combo->addItem(QStringLiteral("99%"), 0.99);
  combo->setCurrentIndex(1);
  return combo;
}

QSpinBox* seedSpin(QWidget* parent) {
  auto* spin = new QSpinBox(parent);
  spin->setRange(0, 2147483647);
  spin->setValue(int(core::stats::kDefaultSeed));
  return spin;
}

}  // namespace ragscope::ui
