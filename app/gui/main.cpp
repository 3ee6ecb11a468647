// ragscope: the workbench GUI. Thin: arguments, platform choice, the window, and the self-test /
// headless demo driver from ragscope_ui.

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QSettings>
#include <QTextStream>
#include <cstring>

#include "ui/mainwindow.h"
#include "ui/pages/datasetpage.h"
#include "ui/selftest.h"

#ifndef RAGSCOPE_VERSION
#define RAGSCOPE_VERSION "0.1.0"  // the build normally passes the project version
#endif

namespace {

bool hasFlag(int argc, char** argv, const char* flag) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], flag) == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  // The platform must be chosen before QApplication exists. The self-test always runs offscreen;
  // without any display the demo runs headless instead of failing to connect.
  const bool selfTest = hasFlag(argc, argv, "--self-test");
  bool headless = false;
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
    const bool noDisplay =
        qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
    if (selfTest || noDisplay) qputenv("QT_QPA_PLATFORM", "offscreen");
    headless = noDisplay && !selfTest;
  }
  headless = headless || hasFlag(argc, argv, "--headless");

  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("ragscope"));
  // The self-test and the headless tour keep their own settings so they never rewrite the user's
  // recent list or window layout.
  QApplication::setApplicationName(selfTest || headless ? QStringLiteral("ragscope-selftest")
                                                        : QStringLiteral("ragscope"));
  QApplication::setApplicationVersion(QStringLiteral(RAGSCOPE_VERSION));
  // ...and start from a clean slate each time, so every tour sees the first-run layout.
  if (selfTest || headless) QSettings().clear();

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Workbench for evaluating retrieval-augmented generation."));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption demo(QStringLiteral("demo"),
                                QStringLiteral("Open the bundled demo project."));
  const QCommandLineOption open(
      QStringLiteral("open"),
      QStringLiteral("Open a project file or dataset file/folder (repeatable)."),
      QStringLiteral("path"));
  const QCommandLineOption format(
      QStringLiteral("format"),
      QStringLiteral("Format of the opened files: one for all, or one per --open."),
      QStringLiteral("name"));
  const QCommandLineOption selfTestOption(
      QStringLiteral("self-test"),
      QStringLiteral(
          "Run offscreen: open the demo (or --open), exercise the main views, exit 0 on success."));
  const QCommandLineOption headlessOption(
      QStringLiteral("headless"),
      QStringLiteral("Run the demo tour without showing a window, then exit."));
  const QCommandLineOption screenshots(
      QStringLiteral("screenshots"),
      QStringLiteral("Save screenshots of the views to this folder."), QStringLiteral("dir"));
  parser.addOptions({demo, open, format, selfTestOption, headlessOption, screenshots});
  parser.addPositionalArgument(QStringLiteral("paths"), QStringLiteral("Files or folders to open."),
                               QStringLiteral("[paths...]"));
  parser.process(app);

  QStringList paths = parser.values(open) + parser.positionalArguments();
  const QStringList formats = parser.values(format);

  ragscope::ui::MainWindow window;
  QTextStream out(stdout);

  if (selfTest || headless) {
    ragscope::ui::SelfTestOptions options;
    options.openPaths = paths;
    options.formats = formats;
    options.screenshotDir = parser.value(screenshots);
    if (headless && options.screenshotDir.isEmpty())
      options.screenshotDir =
          QDir::current().absoluteFilePath(QStringLiteral("ragscope-demo-output"));
    ragscope::ui::SelfTest tour(&window, options);
    QObject::connect(
        &tour, &ragscope::ui::SelfTest::finished, &app,
        [&](int code) {
          out << (selfTest ? "ragscope self-test" : "ragscope demo (headless, offscreen)") << "\n";
          for (const QString& line : tour.log()) out << "  " << line << "\n";
          if (!tour.screenshots().isEmpty()) {
            out << "Screenshots written:\n";
            for (const QString& shot : tour.screenshots()) out << "  " << shot << "\n";
          }
          out << (code == 0 ? "All checks passed.\n" : "Some checks FAILED.\n");
          out.flush();
          window.close();
          QApplication::exit(code);
        },
        Qt::QueuedConnection);  // a tour that fails while starting finishes before exec(): exit()
                                // then would be lost, so the exit is delivered by the event loop
    tour.start();
    return QApplication::exec();
  }

  window.show();
  if (parser.isSet(demo) && paths.isEmpty()) window.openDemo();
  if (!paths.isEmpty()) window.datasetPage()->openPaths(paths, formats);
  return QApplication::exec();
}
