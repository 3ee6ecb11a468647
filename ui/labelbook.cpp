#include "ui/labelbook.h"

#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#include <QInputDialog>
#include <QStandardPaths>
#include <QThreadPool>
#include <QWidget>
#include <filesystem>

#include "core/labels/labelscope.h"
#include "core/store/project.h"
#include "ui/jobs/background.h"
#include "ui/preferences.h"
#include "ui/textutil.h"
#include "ui/workbench.h"

namespace ragscope::ui {

using core::labels::Label;
using core::labels::LabelStore;
using core::labels::Target;

// ---- LabelSnapshot ----------------------------------------------------------------------------

void LabelSnapshot::buildIndex() {
  byTarget.clear();
  for (std::size_t i = 0; i < current.size(); ++i) byTarget[current[i].target.key()].push_back(i);
}

std::vector<const Label*> LabelSnapshot::of(const Target& target) const {
  std::vector<const Label*> out;
  const auto it = byTarget.find(target.key());
  if (it == byTarget.end()) return out;
  for (const std::size_t i : it->second) out.push_back(&current[i]);
  return out;
}

const Label* LabelSnapshot::of(const Target& target, const std::string& annotator) const {
  for (const Label* l : of(target))
    if (l->annotator == annotator) return l;
  return nullptr;
}

const Label* LabelSnapshot::shown(const Target& target, const std::string& annotator) const {
  const Label* latest = nullptr;
  for (const Label* l : of(target)) {
    if (l->annotator == annotator) return l;
    if (!latest || l->id > latest->id) latest = l;
  }
  return latest;
}

// ---- LabelBook ---------------------------------------------------------------------------------

// One store file, opened on the pool's thread at first use (created only by a first write: a
// project opened read-only, or never labelled, gets no file).
struct LabelBook::Session {
  std::filesystem::path path;
  std::unique_ptr<LabelStore> store;
  bool writable = false;
  // Opens for writing (creating the file), or for reading when `forRead`; reading a file that
  // does not exist yet opens nothing and is no error (false, `error` empty).
  bool ensureOpen(bool forRead, std::string* error) {
    if (store && (writable || forRead)) return true;
    std::error_code ec;
    if (forRead && !std::filesystem::exists(path, ec)) return false;
    if (!forRead) std::filesystem::create_directories(path.parent_path(), ec);
    auto opened = std::make_unique<LabelStore>();
    if (!(forRead ? opened->openReadOnly(path, error) : opened->open(path, error))) return false;
    store = std::move(opened);
    writable = !forRead;
    return true;
  }
};

namespace {

// What a background step hands back to the GUI thread.
struct LabelBookResult {
  std::string error;
  QStringList addedKeys;
  std::shared_ptr<LabelSnapshot> snapshot;  // null: the store could not be read
};

std::shared_ptr<LabelSnapshot> labelBookRead(LabelStore& store) {
  auto snapshot = std::make_shared<LabelSnapshot>();
  snapshot->current = store.current();
  snapshot->buildIndex();
  return snapshot;
}

// A dataset name as a file name: letters, digits, '.', '-', '_' kept, anything else '_'.
QString labelBookFileName(const QString& name) {
  QString out;
  for (const QChar c : name)
    out += (c.isLetterOrNumber() || c == QLatin1Char('.') || c == QLatin1Char('-') ||
            c == QLatin1Char('_'))
               ? c
               : QLatin1Char('_');
  return out.isEmpty() ? QStringLiteral("dataset") : out;
}

}  // namespace

LabelBook::LabelBook(Workbench* workbench)
    : QObject(workbench), m_workbench(workbench), m_pool(new QThreadPool(this)) {
  m_pool->setMaxThreadCount(1);
  // A store's path follows the project (or, without one, the dataset).
  connect(workbench, &Workbench::projectChanged, this, &LabelBook::reload);
  connect(workbench, &Workbench::datasetChanged, this, &LabelBook::reload);
}

LabelBook::~LabelBook() {
  if (m_session) m_pool->start([old = std::move(m_session)]() mutable { old.reset(); });
  m_pool->waitForDone();  // acknowledged writes finish before the book goes
}

QString LabelBook::storePath() const { return m_session ? q(m_session->path.string()) : QString(); }

QString LabelBook::pathForWorkbench() const {
  const auto& project = m_workbench->project();
  if (project && !project->file.empty())
    return q(core::labels::labelsStorePath(project->file).string());
  if (m_workbench->datasetName().isEmpty()) return {};
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
         QStringLiteral("/labels/") + labelBookFileName(m_workbench->datasetName()) +
         QStringLiteral(".labels.db");
}

std::filesystem::path LabelBook::labelsFolder() const {
  return m_session ? core::labels::labelsFolder(m_session->path) : std::filesystem::path();
}

std::string LabelBook::runScope(const QString& storePath) const {
  const std::filesystem::path wanted(storePath.toStdString());
  const auto& project = m_workbench->project();
  if (project)
    for (const std::string& listed : project->runStores)
      if (core::labels::sameStoreFile(project->resolve(listed), wanted)) return listed;
  return core::labels::scopeOfStore(labelsFolder(), wanted);
}

std::string LabelBook::datasetScope() const { return m_workbench->datasetName().toStdString(); }

QString LabelBook::annotator() const { return Preferences::annotatorName.get(); }

void LabelBook::setAnnotator(const QString& name) {
  Preferences::annotatorName.set(name.trimmed());
}

bool LabelBook::ensureAnnotator(QWidget* parent) {
  if (!annotator().isEmpty()) return true;
  const QString platform = QGuiApplication::platformName();
  if (platform == QLatin1String("offscreen") || platform == QLatin1String("minimal"))
    return false;  // nobody to ask (self-test, headless runs): tests call setAnnotator()
  QString why;
  for (;;) {
    bool ok = false;
    const QString prompt =
        (why.isEmpty() ? QString() : why + QStringLiteral("\n\n")) +
        tr("Your name, stored with every label you make (asked once; change it in the "
           "labelling queue):");
    const QString name = QInputDialog::getText(parent, tr("Annotator"), prompt, QLineEdit::Normal,
                                               qEnvironmentVariable("USER"), &ok)
                             .trimmed();
    if (!ok) return false;
    // The store's rules for a name (printable, 1..200 bytes) are core's: ask it.
    Label probe;
    probe.target = {core::labels::TargetKind::Relevance, "d", "q", "doc"};
    probe.value = "1";
    probe.annotator = name.toStdString();
    probe.time = core::labels::nowIso8601();
    if (const auto problem = core::labels::labelProblem(probe)) {
      why = q(*problem);
      continue;
    }
    setAnnotator(name);
    return true;
  }
}

void LabelBook::reload() {
  const QString path = pathForWorkbench();
  if (m_session && q(m_session->path.string()) == path) return;
  if (m_session) {  // closed on the pool's thread, after the writes queued for it
    m_pool->start([old = std::move(m_session)]() mutable { old.reset(); });
  }
  m_session.reset();
  if (!path.isEmpty()) {
    m_session = std::make_shared<Session>();
    m_session->path = std::filesystem::path(path.toStdString());
  }
  m_snapshot = std::make_shared<LabelSnapshot>();
  emit labelsChanged();
  refresh();
}

void LabelBook::refresh() {
  if (!m_session) return;
  ++m_pending;
  const auto session = m_session;
  runInBackground(
      this, m_pool,
      [session] {
        LabelBookResult r;
        if (session->ensureOpen(true, &r.error)) r.snapshot = labelBookRead(*session->store);
        return r;
      },
      [this, weak = std::weak_ptr<Session>(session)](LabelBookResult r) {
        --m_pending;
        if (!r.error.empty()) emit labelFailed(q(r.error));
        publish(weak, std::move(r.snapshot));
      });
}

void LabelBook::add(Label label) { add(std::vector<Label>{std::move(label)}); }

void LabelBook::add(std::vector<Label> labels) {
  if (labels.empty()) return;
  if (!m_session) {
    emit labelFailed(tr("Open a dataset or a project first: labels are kept with it."));
    return;
  }
  const std::string name = annotator().toStdString();
  const std::string now = core::labels::nowIso8601();
  for (Label& l : labels) {
    if (l.annotator.empty()) l.annotator = name;
    if (l.time.empty()) l.time = now;
  }
  ++m_pending;
  const auto session = m_session;
  runInBackground(
      this, m_pool,
      [session, labels = std::move(labels)]() mutable {
        LabelBookResult r;
        // A refused label opens (and creates) nothing; the store checks them all again.
        for (const Label& l : labels)
          if (const auto problem = core::labels::labelProblem(l)) {
            r.error = *problem;
            return r;
          }
        if (!session->ensureOpen(false, &r.error)) return r;
        if (!session->store->add(labels, &r.error)) return r;
        for (const Label& l : labels) r.addedKeys << q(l.target.key());
        r.snapshot = labelBookRead(*session->store);
        return r;
      },
      [this, weak = std::weak_ptr<Session>(session)](LabelBookResult r) {
        --m_pending;
        if (!r.error.empty())
          emit labelFailed(q(r.error));
        else
          for (const QString& key : r.addedKeys) emit labelAdded(key);
        publish(weak, std::move(r.snapshot));
      });
}

void LabelBook::publish(const std::weak_ptr<Session>& session,
                        std::shared_ptr<const LabelSnapshot> snapshot) {
  // A store replaced meanwhile (another project opened) does not overwrite the current one's.
  // Compared without lock(): the GUI thread never holds (and so never closes) a store.
  const bool current =
      m_session && !session.owner_before(m_session) && !m_session.owner_before(session);
  if (!snapshot || !current) return;
  m_snapshot = std::move(snapshot);
  emit labelsChanged();
}

}  // namespace ragscope::ui
