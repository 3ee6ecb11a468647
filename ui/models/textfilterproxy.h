#pragma once
// The base of the proxies that filter a large table by typed text (queries, documents): the
// filter text, its TextMatcher, and the reset that applies it. Subclasses say which fields the
// matcher is tried on (filterAcceptsRow) and how columns sort (lessThan).

#include <QSortFilterProxyModel>
#include <QString>

#include "ui/models/textmatch.h"

namespace ragscope::ui {

class TextFilterProxyModel : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  // Sorts by `sortRole`; the source is immutable and only resets, so no dynamic re-sorting
  // (re-sorting a million rows on every source change is wasted work).
  explicit TextFilterProxyModel(int sortRole, QObject* parent = nullptr);

  // Case-insensitive substring; empty: every row.
  void setFilterText(const QString& text);
  QString filterText() const { return m_filterText; }

 protected:
  const TextMatcher& matcher() const { return m_matcher; }

 private:
  QString m_filterText;
  TextMatcher m_matcher;
};

}  // namespace ragscope::ui
