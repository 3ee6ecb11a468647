#pragma once
// Files the tests write and read back (always in temporary folders), and a load report as text.

#include <QString>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/data/diagnostic.h"

namespace ragscope::test {

inline void writeText(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
}

inline std::string readText(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every diagnostic on a line of its own ("file:line: field: problem").
inline QString diagnosticsText(const core::LoadReport& report) {
  QString all;
  for (const auto& d : report.diagnostics) all += QString::fromStdString(d.toString()) + "\n";
  return all;
}

}  // namespace ragscope::test
