#include "ui/models/textfilterproxy.h"

namespace ragscope::ui {

TextFilterProxyModel::TextFilterProxyModel(int sortRole, QObject* parent)
    : QSortFilterProxyModel(parent) {
  setSortRole(sortRole);
  setDynamicSortFilter(false);
}

void TextFilterProxyModel::setFilterText(const QString& text) {
  if (text == m_filterText) return;
  // A reset, not invalidateFilter(): over a million rows the incremental diff emits thousands of
  // rowsRemoved/rowsInserted ranges and the view relayouts for each; a reset rebuilds the
  // mapping once (the selection is lost, which a new filter makes moot anyway).
  beginResetModel();
  m_filterText = text;
  m_matcher = TextMatcher(text);
  endResetModel();
}

}  // namespace ragscope::ui
