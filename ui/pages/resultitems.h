#pragma once
// Cells of the results tables (eRAG, Claims): text that sorts naturally ("q2" before "q10"),
// numbers right-aligned with "–" for a missing value (none or NaN, sorted first), counts. The sort
// key is under Qt::UserRole, the role those tables' models sort by.

#include <QString>
#include <QVariant>
#include <cstdint>
#include <optional>

class QStandardItem;

namespace ragscope::ui {

// "–" for NaN, else fixed with `decimals`.
QString number(double v, int decimals = 4);
QStandardItem* textItem(const QString& text, const QVariant& sort = {});
QStandardItem* numberItem(std::optional<double> v, int decimals = 4, const QString& suffix = {});
QStandardItem* countItem(std::uint64_t n);

}  // namespace ragscope::ui
