#pragma once
// The isolation every workbench test starts with, so that nothing it does reaches the user's
// files: Qt's test mode for QStandardPaths, settings of its own (cleared), and the response
// cache, trusted endpoints and run stores in the test's temporary folder.

#include <QCoreApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QString>
#include <QTemporaryDir>

#include "ui/jobs/runjob.h"
#include "ui/secrets.h"

namespace ragscope::test {

// Call from initTestCase: QVERIFY(isolateWorkbenchTest("tst_x", m_dir)). `secretsTimeoutMs`
// (when > 0) bounds the wait for the OS keychain, which a test machine may not have.
inline bool isolateWorkbenchTest(const QString& testName, const QTemporaryDir& dir,
                                 int secretsTimeoutMs = 0) {
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName(QStringLiteral("ragscope-tests"));
  QCoreApplication::setApplicationName(testName);
  QSettings().clear();
  if (!dir.isValid()) return false;
  qputenv("XDG_CACHE_HOME", dir.filePath(QStringLiteral("cache")).toLocal8Bit());
  qputenv("XDG_CONFIG_HOME", dir.filePath(QStringLiteral("config")).toLocal8Bit());
  ui::setRunsFolderOverride(dir.filePath(QStringLiteral("runs")));
  if (secretsTimeoutMs > 0) ui::Secrets::setTimeoutMs(secretsTimeoutMs);
  return true;
}

}  // namespace ragscope::test
