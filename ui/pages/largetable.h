#pragma once
// Tables of a million rows and more (the dataset page's queries and documents): fixed row heights,
// column widths measured on the first rows only, and one column that takes the width left over.

#include <QTableView>
#include <algorithm>
#include <map>

namespace ragscope::ui {

// Fixed row heights let the view compute positions arithmetically: a million rows scroll as
// smoothly as a hundred.
void setUpLargeTable(QTableView* view);

// Keeps a table's `fill` column as wide as the viewport leaves it (see largetable.cpp).
void fillColumn(QTableView* view, int fill);

// Column widths from the first and last rows (a million-row model is never measured whole: ids that
// grow along the file are widest at its end); columns without any data (Model::isColumnEmpty) are
// hidden. `fill` takes the width the others leave in the
// viewport; `caps` bounds the others (280 px by default).
template <class Model>
void fitColumns(QTableView* view, const Model* model, int fill, const std::map<int, int>& caps) {
  const QFontMetrics fm = view->fontMetrics();
  auto* header = view->horizontalHeader();
  const int count = model->rowCount();
  const int head = std::min(count, 300);
  const int tail = std::max(head, count - 100);
  for (int c = 0; c < model->columnCount(); ++c) {
    const bool hidden = model->isColumnEmpty(c);
    view->setColumnHidden(c, hidden);
    if (hidden || c == fill) continue;
    int width = fm.horizontalAdvance(model->headerData(c, Qt::Horizontal).toString()) + 30;
    auto measure = [&](int r) {
      width = std::max(width, fm.horizontalAdvance(model->index(r, c).data().toString()) + 14);
    };
    for (int r = 0; r < head; ++r) measure(r);
    for (int r = tail; r < count; ++r) measure(r);
    const auto cap = caps.find(c);
    width = std::min(width, cap == caps.end() ? 280 : cap->second);
    header->resizeSection(c, width);
  }
  fillColumn(view, fill);
}

}  // namespace ragscope::ui
