#include "ui/pages/largetable.h"

#include <QEvent>
#include <QHeaderView>

namespace ragscope::ui {

namespace {

// Keeps a table's `fill` column as wide as the viewport leaves it, also when the viewport later
// changes width (a vertical scroll bar appearing, the splitter or window moving): sized once at
// load, the last columns ended up clipped behind a horizontal scroll bar.
class FillColumn : public QObject {
 public:
  FillColumn(QTableView* view, int column) : QObject(view), m_view(view), m_column(column) {
    setObjectName(QStringLiteral("fillColumn"));
    view->viewport()->installEventFilter(this);
  }
  void setColumn(int column) { m_column = column; }
  void fit() {
    auto* header = m_view->horizontalHeader();
    int used = 0;
    for (int c = 0; c < header->count(); ++c)
      if (c != m_column && !header->isSectionHidden(c)) used += header->sectionSize(c);
    header->resizeSection(m_column, std::max(240, m_view->viewport()->width() - used - 4));
  }
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::Resize) fit();
    return QObject::eventFilter(watched, event);
  }

 private:
  QTableView* m_view;
  int m_column;
};

}  // namespace

void setUpLargeTable(QTableView* view) {
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setSelectionMode(QAbstractItemView::SingleSelection);
  view->setAlternatingRowColors(true);
  view->setWordWrap(false);
  view->setSortingEnabled(true);
  view->setTextElideMode(Qt::ElideRight);
  view->verticalHeader()->hide();
  view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 8);
  view->horizontalHeader()->setHighlightSections(false);
  view->horizontalHeader()->setSortIndicatorShown(true);
}

void fillColumn(QTableView* view, int fill) {
  auto* filler = dynamic_cast<FillColumn*>(
      view->findChild<QObject*>(QStringLiteral("fillColumn"), Qt::FindDirectChildrenOnly));
  if (!filler) filler = new FillColumn(view, fill);
  filler->setColumn(fill);
  filler->fit();
}

}  // namespace ragscope::ui
