#include "ui/workbench.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QMessageBox>
#include <QStandardPaths>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include "ui/jobs/evaljob.h"
#include "ui/jobs/loadjob.h"
#include "ui/labelbook.h"
#include "ui/outputguard.h"

namespace ragscope::ui {

namespace {

std::filesystem::path toPath(const QString& path) {
  return std::filesystem::path(path.toStdString());
}

core::Diagnostic diag(const QString& file, const QString& field, const QString& problem) {
  core::Diagnostic d;
  d.severity = core::Severity::Error;
  d.file = file.toStdString();
  d.field = field.toStdString();
  d.problem = problem.toStdString();
  return d;
}

// DatasetPart::format is a Format today and may become optional<Format> ("detect"); both work.
template <class F>
std::optional<core::Format> formatOf(const F& f) {
  return std::optional<core::Format>(f);
}

QString confirmationKey(const QString& projectFile, const QString& path) {
  return projectFile + QLatin1Char('\n') + path;
}

// Remembers that the user agreed to read `paths` for `projectFile` (a bounded list, newest last).
void rememberOutsideParts(const QString& projectFile, const QStringList& paths) {
  constexpr int kMaxConfirmations = 1000;
  QStringList confirmed = Preferences::confirmedOutsideParts.get();
  for (const QString& path : paths) {
    const QString key = confirmationKey(projectFile, path);
    confirmed.removeAll(key);
    confirmed << key;
  }
  while (confirmed.size() > kMaxConfirmations) confirmed.removeFirst();
  Preferences::confirmedOutsideParts.set(confirmed);
}

// The default asker: a question over the active window; declines where nobody can answer.
bool askWithDialog(const QString& projectFile, const QStringList& paths) {
  const QString platform = QGuiApplication::platformName();
  if (!qobject_cast<QApplication*>(QCoreApplication::instance()) ||
      platform == QLatin1String("offscreen") || platform == QLatin1String("minimal"))
    return false;
  constexpr int kShown = 15;
  QStringList shown = paths.mid(0, kShown);
  if (paths.size() > kShown) shown << QObject::tr("... and %1 more").arg(paths.size() - kShown);
  const QString text =
      QObject::tr(
          "The project %1 names files outside its folder:\n\n%2\n\nA project from "
          "someone else can point anywhere on this computer. Read these files?")
          .arg(QDir::toNativeSeparators(projectFile), shown.join(QLatin1Char('\n')));
  return QMessageBox::question(
             QApplication::activeWindow(), QObject::tr("Files outside the project"), text,
             QMessageBox::Yes | QMessageBox::No, QMessageBox::No) == QMessageBox::Yes;
}

std::string normalised(const std::filesystem::path& p) {
  std::string s = p.lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

Workbench::Workbench(QObject* parent)
    : QObject(parent), m_job(new LoadJob(this)), m_savePool(new QThreadPool(this)) {
  m_savePool->setMaxThreadCount(1);  // project saves: small, one at a time, never the global pool
  connect(m_job, &LoadJob::started, this, &Workbench::loadStarted);
  connect(m_job, &LoadJob::progress, this, &Workbench::loadProgress);
  connect(m_job, &LoadJob::finished, this, &Workbench::onLoaded);
  m_labelBook = new LabelBook(this);
}

Workbench::~Workbench() {
  m_savePool->waitForDone();  // a project save in flight finishes writing before we go
}

bool Workbench::isLoading() const { return m_job->isRunning(); }

void Workbench::cancelLoad() { m_job->cancel(); }

std::vector<core::DatasetPart> Workbench::resolveParts(const RecentDataset& spec,
                                                       QStringList* undetected) {
  std::vector<core::DatasetPart> parts;
  for (const auto& p : spec.parts) {
    std::optional<core::Format> format;
    if (!p.format.isEmpty()) format = core::formatFromName(p.format.toStdString());
    if (!format) format = core::detectFormat(toPath(p.path));
    core::DatasetPart part;
    part.path = toPath(p.path);
    if (format) {
      part.format = *format;
    } else if (!core::isBundleFolder(part.path)) {
      // A folder of recognised files is loaded file by file (format left to detection).
      if (undetected) undetected->push_back(p.path);
      continue;
    }
    parts.push_back(std::move(part));
  }
  return parts;
}

bool Workbench::openDataset(const RecentDataset& spec) {
  QStringList undetected;
  std::vector<core::DatasetPart> parts = resolveParts(spec, &undetected);
  if (!undetected.isEmpty() || parts.empty()) {
    core::LoadReport report;
    for (const QString& path : undetected)
      report.add(diag(path, "format", "cannot detect the format; choose one explicitly"), 100);
    if (parts.empty() && undetected.isEmpty())
      report.add(diag(QString(), "dataset", "no files to open"), 100);
    fail(tr("Could not open the dataset: format unknown"), std::move(report));
    return false;
  }
  RecentDataset resolved = spec;
  if (resolved.name.isEmpty()) resolved.name = spec.label();
  startLoad(resolved, std::move(parts), {});
  return true;
}

bool Workbench::openProject(const QString& file, const QString& datasetName) {
  core::Loaded<core::Project> loaded = core::readProject(toPath(file));
  if (!loaded.report.ok() || loaded.report.hasErrors()) {
    fail(tr("Could not read project %1").arg(QFileInfo(file).fileName()), loaded.report);
    return false;
  }
  m_project = std::move(loaded.value);
  m_project->file = toPath(QFileInfo(file).absoluteFilePath());
  m_retrievers = m_project->retrievers;
  emit projectChanged();
  emit retrieversChanged();
  if (m_project->datasets.empty()) {
    core::LoadReport report = loaded.report;
    report.add(diag(file, "datasets", "the project names no dataset"), 100);
    fail(tr("The project has no dataset"), std::move(report));
    return false;
  }
  m_pendingPreReport = loaded.report;
  return openProjectDataset(datasetName);
}

bool Workbench::openProjectDataset(const QString& datasetName) {
  if (!m_project) return false;
  const core::ProjectDataset* chosen = &m_project->datasets.front();
  for (const auto& ds : m_project->datasets)
    if (QString::fromStdString(ds.name) == datasetName) chosen = &ds;
  core::LoadReport report = std::exchange(m_pendingPreReport, {});
  std::vector<core::DatasetPart> parts = m_project->datasetParts(*chosen, report);
  const QString projectFile = QString::fromStdString(m_project->file.string());
  if (parts.empty() || report.hasErrors()) {
    fail(tr("Could not open dataset %1 of the project").arg(QString::fromStdString(chosen->name)),
         std::move(report));
    return false;
  }
  if (!consentToOutsideParts(*chosen, report)) {
    fail(tr("Dataset %1 names files outside the project folder: not read")
             .arg(QString::fromStdString(chosen->name)),
         std::move(report));
    return false;
  }
  RecentDataset spec;
  spec.name = QString::fromStdString(chosen->name);
  spec.project = projectFile;
  spec.projectDataset = spec.name;
  startLoad(spec, std::move(parts), std::move(report));
  return true;
}

bool Workbench::consentToOutsideParts(const core::ProjectDataset& ds, core::LoadReport& report) {
  const std::vector<std::filesystem::path> outside = m_project->outsideParts(ds);
  if (outside.empty() || m_outsidePolicy == OutsidePartsPolicy::Allow) return true;
  const QString projectFile = QString::fromStdString(m_project->file.string());
  if (m_outsidePolicy == OutsidePartsPolicy::Ask) {
    const QStringList confirmed = Preferences::confirmedOutsideParts.get();
    QStringList ask;
    for (const auto& p : outside) {
      const QString path = QString::fromStdString(p.string());
      if (!confirmed.contains(confirmationKey(projectFile, path)) && !ask.contains(path))
        ask << path;
    }
    if (ask.isEmpty()) return true;
    if (m_asker ? m_asker(projectFile, ask) : askWithDialog(projectFile, ask)) {
      rememberOutsideParts(projectFile, ask);
      return true;
    }
  }
  // Not read: each such part named where the Issues dock shows it.
  std::string prefix = "dataset '" + ds.name + "'";
  for (std::size_t i = 0; i < m_project->datasets.size(); ++i)
    if (&m_project->datasets[i] == &ds) prefix = "datasets[" + std::to_string(i) + "]";
  const std::string why = m_outsidePolicy == OutsidePartsPolicy::Refuse
                              ? "reading outside the project folder is not allowed"
                              : "not confirmed";
  for (std::size_t j = 0; j < ds.parts.size(); ++j) {
    const core::PartCheck check = m_project->checkPart(ds.parts[j].path);
    if (check.place != core::PartPlace::Outside) continue;
    report.add(
        {core::Severity::Error, m_project->file.string(), 0,
         prefix + ".parts[" + std::to_string(j) + "].path",
         "outside the project folder: " + check.resolved.string() + "; not read (" + why + ")"},
        core::LoadOptions{}.maxStoredDiagnostics);
  }
  return false;
}

void Workbench::rememberSavedParts(const std::optional<core::Project>& before,
                                   const QString& savedFile) {
  // Files outside the saved project's folder that the user already trusted need no question when
  // it is reopened: those of the dataset just saved (the user opened them), and those that were
  // inside the project saved from or confirmed for it ("save as" into another folder).
  const QString beforeFile = before ? QString::fromStdString(before->file.string()) : QString();
  const QStringList confirmed = Preferences::confirmedOutsideParts.get();
  QStringList trusted;
  for (const auto& ds : m_project->datasets) {
    const bool loaded = QString::fromStdString(ds.name) == m_name;
    for (const auto& p : m_project->outsideParts(ds)) {
      const QString path = QString::fromStdString(p.string());
      const bool known =
          before && (before->checkPart(p.string()).place == core::PartPlace::Inside ||
                     confirmed.contains(confirmationKey(beforeFile, path)));
      if (loaded || known) trusted << path;
    }
  }
  if (!trusted.isEmpty()) rememberOutsideParts(savedFile, trusted);
}

QString Workbench::projectFile() const {
  return m_project ? QString::fromStdString(m_project->file.string()) : QString();
}

namespace {

struct SaveOutcome {
  std::optional<core::Project> saved;  // as read back from the file
  QString error;
};

// On a worker: the project with `dataset` put in, written atomically (with fsync) and read back,
// so the in-memory project holds the paths as stored.
SaveOutcome writeAndReadBack(core::Project project, const std::filesystem::path& target,
                             std::optional<core::ProjectDataset> dataset) {
  SaveOutcome out;
  if (dataset) project.putDataset(std::move(*dataset));
  if (auto error = core::writeProject(project, target)) {
    out.error = QString::fromStdString(*error);
    return out;
  }
  core::Loaded<core::Project> saved = core::readProject(target);
  if (!saved.report.ok() || saved.report.hasErrors()) {
    out.error = QObject::tr("The project was written but cannot be read back: %1")
                    .arg(saved.report.diagnostics.empty()
                             ? QString()
                             : QString::fromStdString(saved.report.diagnostics.front().toString()));
    return out;
  }
  out.saved = std::move(saved.value);
  out.saved->file = target;
  return out;
}

}  // namespace

void Workbench::addRunStores(const QStringList& stores) {
  for (const QString& s : stores)
    if (!s.isEmpty() && !m_sessionRuns.contains(s)) m_sessionRuns << s;
}

bool Workbench::saveProject(const QString& file) {
  if (!m_dataset || m_saving) return false;
  // Never over a file the project reads (a dataset's part, a run store, the labels store); only
  // the project file itself is replaced by a save (core/util/outputcheck.h).
  {
    auto inputs = workbenchInputs(*this);
    std::erase_if(inputs, [](const core::NamedPath& p) { return p.name == "the project"; });
    if (const QString why = refusedOutput(file, inputs); !why.isEmpty()) {
      QMetaObject::invokeMethod(
          this, [this, why] { emit projectSaved(false, why); }, Qt::QueuedConnection);
      return true;
    }
  }
  const std::filesystem::path target = toPath(QFileInfo(file).absoluteFilePath());
  core::Project project = m_project.value_or(core::Project{});
  if (!m_project) {
    QString name = QFileInfo(file).fileName();
    name.chop(name.endsWith(QLatin1String(".ragscope.json")) ? 14 : 0);
    project.name = name.toStdString();
  }
  // A dataset of this project is in it already; any other bundle joins under its name. Its paths
  // are made relative to the folder the project's other paths are relative to (writeProject
  // rebases them all when saving elsewhere); that touches the file system, so on the worker too.
  const std::filesystem::path base = project.file.empty() ? target : project.file;
  const bool join = m_current.project.isEmpty() || toPath(m_current.project) != project.file;
  // Stores are kept by absolute path: the runs folder is the user's, not the project's.
  for (const QString& store : m_sessionRuns) {
    const std::string path = store.toStdString();
    bool listed = false;
    for (const auto& known : project.runStores)
      listed = listed || project.resolve(known) == toPath(store);
    if (!listed) project.runStores.push_back(path);
  }
  project.retrievers = m_retrievers;
  m_saving = true;
  auto* watcher = new QFutureWatcher<SaveOutcome>(this);
  connect(watcher, &QFutureWatcher<SaveOutcome>::finished, this, [this, watcher, file, target] {
    SaveOutcome out = watcher->result();
    watcher->deleteLater();
    m_saving = false;
    if (!out.saved) {
      emit projectSaved(false, out.error);
      return;
    }
    const std::optional<core::Project> before = std::exchange(m_project, std::move(out.saved));
    rememberSavedParts(before, QString::fromStdString(target.string()));
    m_current.project = QString::fromStdString(target.string());
    m_current.projectDataset = m_name;
    m_current.name = m_name;
    m_current.parts.clear();
    Preferences::addRecentDataset(m_current);
    emit projectChanged();
    emit projectSaved(true, file);
  });
  watcher->setFuture(QtConcurrent::run(
      m_savePool, [project = std::move(project), target, join, name = m_name.toStdString(),
                   parts = m_currentParts, base]() mutable {
        std::optional<core::ProjectDataset> dataset;
        if (join) dataset = core::makeProjectDataset(name, parts, base);
        return writeAndReadBack(std::move(project), target, std::move(dataset));
      }));
  return true;
}

void Workbench::startLoad(const RecentDataset& spec, std::vector<core::DatasetPart> parts,
                          core::LoadReport preReport) {
  m_pending = spec;
  m_pendingParts = parts;
  m_pendingPreReport = std::move(preReport);
  core::LoadOptions options;
  options.onError = m_onError;
  options.textInFileFrom = m_textInFileFrom;
  m_job->start(spec.name, std::move(parts), options);
}

void Workbench::onLoaded(const LoadResult& result) {
  core::LoadReport report = std::exchange(m_pendingPreReport, {});
  report.merge(result.report, 10000);
  if (!result.dataset) {
    // Cancelled: the previous dataset stays; say so without replacing its diagnostics.
    emit loadFinished(false, tr("Loading %1 cancelled").arg(result.name));
    return;
  }
  m_dataset = result.dataset;
  m_report = std::move(report);
  m_name = result.name;
  m_current = m_pending;
  m_currentParts = m_pendingParts;
  Preferences::addRecentDataset(m_pending);
  emit reportChanged();
  emit datasetChanged();
  QString message =
      tr("Loaded %1 in %2 s").arg(result.name).arg(result.elapsedMs / 1000.0, 0, 'f', 1);
  if (m_report.stopped) message += tr(" (stopped at the first error)");
  emit loadFinished(true, message);
}

void Workbench::fail(const QString& message, core::LoadReport report) {
  m_report = std::move(report);
  emit reportChanged();
  emit loadFinished(false, message);
}

int Workbench::addRetrievedRun(core::Run run, const std::filesystem::path& file,
                               const std::shared_ptr<const core::Dataset>& basis) {
  if (!basis || m_dataset != basis) return -1;
  auto copy = std::make_shared<core::Dataset>(*basis);
  const auto same = std::find_if(copy->runs.begin(), copy->runs.end(),
                                 [&](const core::Run& x) { return x.tag == run.tag; });
  const int index = int(same - copy->runs.begin());
  if (same != copy->runs.end())
    *same = std::move(run);
  else
    copy->runs.push_back(std::move(run));
  const bool known =
      file.empty() || std::any_of(m_currentParts.begin(), m_currentParts.end(),
                                  [&](const core::DatasetPart& p) { return p.path == file; });
  if (!known) {
    m_currentParts.push_back({file, core::Format::TrecRun});
    copy->parts.push_back({file, core::Format::TrecRun});
    // In the project's entry for this dataset too, so that saving the project keeps the run.
    if (m_project && !m_current.project.isEmpty() && toPath(m_current.project) == m_project->file)
      for (auto& ds : m_project->datasets)
        if (ds.name == m_name.toStdString()) {
          auto entry =
              core::makeProjectDataset(ds.name, {{file, core::Format::TrecRun}}, m_project->file);
          ds.parts.push_back(entry.parts.front());
        }
  }
  m_dataset = std::move(copy);
  emit datasetChanged();
  return index;
}

std::filesystem::path Workbench::retrievedRunPath(const std::string& tag) const {
  // File names from free text: letters, digits, '.', '-', '_' kept, anything else '_'.
  auto clean = [](const QString& s) {
    QString out;
    for (const QChar c : s)
      out += (c.isLetterOrNumber() || c == QLatin1Char('.') || c == QLatin1Char('-') ||
              c == QLatin1Char('_'))
                 ? c
                 : QLatin1Char('_');
    return out.isEmpty() ? QStringLiteral("run") : out;
  };
  const QString name = clean(m_name) + QLatin1Char('-') + clean(QString::fromStdString(tag)) +
                       QStringLiteral(".trec");
  const QString folder =
      m_project && !m_project->file.empty()
          ? QString::fromStdString((m_project->file.parent_path() / "runs").string())
          : QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
                QStringLiteral("/runs");
  return toPath(folder + QLatin1Char('/') + name);
}

void Workbench::setRetrievers(std::vector<core::RetrieverSpec> retrievers) {
  m_retrievers = std::move(retrievers);
  if (m_project) m_project->retrievers = m_retrievers;
  emit retrieversChanged();
}

void Workbench::setEvaluation(std::shared_ptr<const EvalOutcome> outcome) {
  m_evaluation = std::move(outcome);
  emit evaluationChanged();
}

bool Workbench::isQueryFile(const QString& file) const {
  if (!m_dataset) return false;
  const std::string path = normalised(toPath(file));
  for (const auto& part : m_dataset->parts) {
    const std::string partPath = normalised(part.path);
    const bool same = partPath == path;
    // A folder bundle (Docugami, BEIR, TREC DL) reports problems in files inside it.
    const bool inside = !same && path.starts_with(partPath + "/");
    if (!same && !inside) continue;
    const std::optional<core::Format> format = formatOf(part.format);
    if (!format) return true;
    switch (*format) {
      case core::Format::TrecRun:
      case core::Format::TrecQrels:
      case core::Format::MsmarcoCollection:
      case core::Format::KiltKnowledgeSource:
        return false;
      default: {
        // Inside a bundle: corpus files and judgments are not query records.
        const QString name = QFileInfo(file).fileName().toLower();
        return !(inside && (name.endsWith(".pdf") || name.contains("qrels") ||
                            name.contains("corpus") || name.contains("collection")));
      }
    }
  }
  return false;
}

}  // namespace ragscope::ui
