#pragma once
// The workbench's status colours, written once: an error in red, a passed check in green, on
// labels (style sheet) and in rich text (HTML) alike; and the grey of secondary text.

#include <QColor>
#include <QLabel>
#include <QPalette>
#include <QString>

namespace ragscope::ui {

inline constexpr char kErrorColor[] = "#b01c1c";
inline constexpr char kOkColor[] = "#1b7a2e";

// A label's text in the error colour (true) or the palette's (false).
inline void setErrorStyle(QLabel* label, bool error) {
  label->setStyleSheet(error ? QStringLiteral("color: %1;").arg(QLatin1String(kErrorColor))
                             : QString());
}
// A label's text in the colour of a passed check (true) or of an error (false).
inline void setOutcomeStyle(QLabel* label, bool ok) {
  label->setStyleSheet(
      QStringLiteral("color: %1;").arg(QLatin1String(ok ? kOkColor : kErrorColor)));
}
// A label for secondary text (counts, summaries) in a muted grey.
inline QLabel* mutedLabel() {
  auto* label = new QLabel;
  QPalette pal = label->palette();
  pal.setColor(QPalette::WindowText, QColor(0x5f, 0x5f, 0x5f));
  label->setPalette(pal);
  return label;
}
// Already escaped HTML wrapped in `element` (span, p) in the error colour.
inline QString errorHtml(const QString& html, const char* element = "span") {
  return QStringLiteral("<%1 style='color:%2'>%3</%1>")
      .arg(QLatin1String(element), QLatin1String(kErrorColor), html);
}

}  // namespace ragscope::ui
