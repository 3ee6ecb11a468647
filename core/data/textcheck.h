#pragma once
// Cheap checks that a field read from a text file is text: a binary file fed to a TSV loader
// must produce a clear diagnostic, not ids full of garbage.

#include <optional>
#include <string>
#include <string_view>

namespace ragscope::core {

// nullopt when `s` is valid UTF-8 without NUL bytes; otherwise a problem sentence naming the
// byte offset ("invalid UTF-8 at byte 17", "NUL byte at byte 3 (binary data?)").
std::optional<std::string> checkText(std::string_view s);

}  // namespace ragscope::core
