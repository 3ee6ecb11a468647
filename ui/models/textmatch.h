#pragma once
// Case-insensitive substring search over the core's UTF-8 strings without building a QString per
// row: filters run over a million rows on every keystroke, so the ASCII case stays allocation-free.

#include <QString>
#include <string_view>

namespace ragscope::ui {

class TextMatcher {
 public:
  TextMatcher() = default;
  explicit TextMatcher(const QString& needle);

  bool isEmpty() const { return m_needle.isEmpty(); }
  bool matches(std::string_view haystack) const;

 private:
  QString m_needle;
  QByteArray m_asciiLower;  // set when the needle is pure ASCII
  bool m_ascii = false;
};

// Ids that are both plain non-negative integers compare numerically ("9" < "10"), others bytewise.
int compareIds(std::string_view a, std::string_view b);

}  // namespace ragscope::ui
