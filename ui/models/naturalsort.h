#pragma once
// Sort keys that order ids as a person reads them: digit runs compare by value, so "q2" sorts
// before "q10" and MS MARCO's 104861 before 1037798. Display keeps the id as it is; trec_eval's
// byte order still decides how means are summed (core), this only orders table rows.

#include <QString>

namespace ragscope::ui {

// "r17" -> "r" + "17" left-padded to 20 digits; text runs compare case-insensitively.
inline QString naturalSortKey(const QString& id) {
  QString key;
  key.reserve(id.size() + 24);
  for (qsizetype i = 0; i < id.size();) {
    if (id[i].isDigit()) {
      qsizetype j = i;
      while (j < id.size() && id[j].isDigit()) ++j;
      QString digits = id.mid(i, j - i);
      while (digits.size() > 1 && digits.front() == QLatin1Char('0')) digits.remove(0, 1);
      key += QString(qMax<qsizetype>(0, 20 - digits.size()), QLatin1Char('0')) + digits;
      i = j;
    } else {
      key += id[i].toLower();
      ++i;
    }
  }
  return key;
}

}  // namespace ragscope::ui
