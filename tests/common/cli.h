#pragma once
// Runs ragscope-cli (path from CMake) as a child process, as a user or a script would, and keeps
// what it printed: the CLI tests assert exit codes, stdout and stderr.

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace ragscope::test {

struct CliResult {
  int exitCode = -1;  // -1: crashed or did not finish in time
  QByteArray out;
  QByteArray err;
};

inline CliResult runCli(const QStringList& args, int timeoutMs = 300000) {
  QProcess p;
  p.start(QStringLiteral(RAGSCOPE_CLI_PATH), args);
  CliResult r;
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished(5000);
    return r;
  }
  r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = p.readAllStandardOutput();
  r.err = p.readAllStandardError();
  return r;
}

// The same with the output decoded, for tests that assert on text.
struct CliText {
  int exitCode = -1;
  QString out;
  QString err;
};

inline CliText runCliText(const QStringList& args, int timeoutMs = 300000) {
  const CliResult r = runCli(args, timeoutMs);
  return {r.exitCode, QString::fromUtf8(r.out), QString::fromUtf8(r.err)};
}

}  // namespace ragscope::test
