#pragma once
// Text from outside (a server's reply, a file, a judge's answer) made safe to print on a
// terminal or in a plain-text label. A reply quoted raw in an error message could carry ESC
// sequences that clear the screen, set the window title or rewrite what was printed before, so
// every quote of such text goes through escapeControlChars() before it joins a message:
//
//   *error = "HTTP 500: " + escapeControlChars(body.substr(0, 200));
//
// What is escaped: C0 controls and DEL as \xNN ("\x1b"), the C1 controls U+0080..U+009F and the
// invisible direction marks and overrides (which reorder what a reader sees) as \uNNNN, and bytes
// that are not valid UTF-8 as \xNN. Everything else, other languages included, passes unchanged.

#include <cstddef>
#include <string>
#include <string_view>

namespace ragscope::core {

enum class LineBreaks {
  Space,  // one-line messages: tab, CR and LF become a space each
  Keep,   // multi-line output (a terminal stream): tab, CR and LF pass unchanged
};

std::string escapeControlChars(std::string_view text, LineBreaks lineBreaks = LineBreaks::Space);

// The length of `text` without a trailing UTF-8 sequence that is cut short but could still be
// completed by the bytes that follow: where a stream filter may stop and wait for more.
std::size_t completeUtf8Prefix(std::string_view text);

// True when escapeControlChars() would change nothing (no control, no invalid UTF-8).
bool isPrintableText(std::string_view text);

}  // namespace ragscope::core
