#pragma once
// Where tests find the shared real data (../shared/data, path from CMake). Outside CI a missing
// folder skips the real-data tests; with CI=true it fails them, so CI can never pass silently.

#include <QDir>
#include <QFileInfo>
#include <QString>
#include <QTest>
#include <filesystem>
#include <string>

namespace ragscope::test {

inline bool runningInCi() { return qgetenv("CI") == "true"; }

inline std::filesystem::path dataRoot() { return std::filesystem::path(RAGSCOPE_DATA_DIR); }

inline std::filesystem::path sourceRoot() { return std::filesystem::path(RAGSCOPE_SOURCE_DIR); }

inline std::filesystem::path dataPath(const std::string& relative) { return dataRoot() / relative; }

}  // namespace ragscope::test

// Use at the top of a test function that reads ../shared/data/<relative>.
#define RAGSCOPE_REQUIRE_DATA(relative)                                                            \
  do {                                                                                             \
    const auto ragscopePath_ = ragscope::test::dataPath(relative);                                 \
    if (!std::filesystem::exists(ragscopePath_)) {                                                 \
      const QByteArray msg_ =                                                                      \
          QByteArray("shared data missing: ") + QByteArray::fromStdString(ragscopePath_.string()); \
      if (ragscope::test::runningInCi()) QFAIL(msg_.constData());                                  \
      QSKIP(msg_.constData());                                                                     \
    }                                                                                              \
  } while (false)
