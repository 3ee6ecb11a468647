#pragma once
// String helpers every ui file needs: core speaks std::string (UTF-8), Qt speaks QString.

#include <QString>
#include <string>

namespace ragscope::ui {

// A core string (UTF-8) as a QString.
inline QString q(const std::string& s) { return QString::fromStdString(s); }
// A core string escaped for rich text.
inline QString html(const std::string& s) { return q(s).toHtmlEscaped(); }

}  // namespace ragscope::ui
