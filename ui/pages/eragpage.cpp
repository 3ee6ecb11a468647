#include "ui/pages/eragpage.h"

#include <QCheckBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QLabel>
#include <QPushButton>
#include <QStyle>
#include <QThreadPool>
#include <QVBoxLayout>
#include <filesystem>
#include <utility>

#include "core/eval/reports/projectruns.h"
#include "ui/jobs/background.h"
#include "ui/jobsdock.h"
#include "ui/labelbook.h"
#include "ui/outputguard.h"
#include "ui/pages/eragsetup.h"
#include "ui/pages/jobcontrols.h"
#include "ui/pages/joblauncher.h"
#include "ui/pages/retrieverchoice.h"
#include "ui/secrets.h"
#include "ui/textutil.h"
#include "ui/workbench.h"

namespace ragscope::ui {

EragPage::EragPage(Workbench* workbench, QWidget* parent)
    : JobPage(parent), m_workbench(workbench), m_pool(new QThreadPool(this)) {
  setObjectName(QStringLiteral("EragPage"));
  m_pool->setMaxThreadCount(1);
  buildUi();
  connect(m_workbench, &Workbench::datasetChanged, this, &EragPage::refreshInputs);
  connect(m_workbench, &Workbench::retrieversChanged, this, &EragPage::refreshInputs);
  connect(m_workbench, &Workbench::datasetChanged, this, &EragPage::showProjectRuns);
  connect(m_workbench, &Workbench::projectChanged, this, &EragPage::showProjectRuns);
  refreshInputs();
}

EragPage::~EragPage() { m_pool->waitForDone(); }

QIcon EragPage::icon() const { return style()->standardIcon(QStyle::SP_FileDialogContentsView); }

void EragPage::activated() { m_setup->refreshEndpoints(); }

void EragPage::buildUi() {
  makeControls(tr("Run eRAG"), tr("Open a dataset with a run and gold answers."));
  connect(this, &EragPage::runSaved, m_controls,
          [this](bool ok, const QString& message) { m_controls->setStatus(message, !ok); });
  connect(m_launcher, &JobLauncher::retrieved, this, &EragPage::onRetrieved);
  connect(m_launcher, &JobLauncher::finished, this, &EragPage::onFinished);
  connect(m_launcher, &JobLauncher::notStarted, this, [this] {
    if (std::exchange(m_retrievalPending, false)) emit retrieved(false);
    emit finished(false);
  });
  m_setup = new EragSetup(m_workbench, m_controls->budgetEditor());
  connect(m_setup, &EragSetup::changed, m_controls, &JobControls::scheduleEstimate);
  connect(m_setup, &EragSetup::saveRunRequested, this, &EragPage::saveRun);
  auto* open = new QPushButton(tr("Open stored runs…"));
  open->setToolTip(tr("Show the results of an eRAG run store (and its end-to-end store)"));
  connect(open, &QPushButton::clicked, this, [this] {
    const QString stores = tr("Run stores (*.db)");
    const QString erag =
        QFileDialog::getOpenFileName(this, tr("eRAG run store"), runsFolder(), stores);
    if (erag.isEmpty()) return;
    openStores(erag, QFileDialog::getOpenFileName(this, tr("End-to-end run store (optional)"),
                                                  runsFolder(), stores));
  });
  m_controls->addLeading(m_setup->endToEndBox());
  m_controls->addTrailing(open);
  m_runNote = new QLabel;
  m_runNote->setWordWrap(true);
  m_runNote->setStyleSheet(QStringLiteral("color: gray;"));
  m_runNote->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_runNote->setVisible(false);

  auto* setup = new QGroupBox(tr("eRAG setup"));
  auto* setupLayout = new QVBoxLayout(setup);
  setupLayout->addWidget(m_setup);
  setupLayout->addWidget(m_runNote);
  setupLayout->addWidget(m_controls);
  m_view = new EragResultsView;
  m_view->setLabelBook(m_workbench->labelBook());
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(setup);
  layout->addWidget(m_view, 1);
}

void EragPage::refreshInputs() {
  m_setup->refreshRuns();
  const bool any = m_setup->runChoices() > 0;
  m_controls->setStartEnabled(any);
  if (any)
    m_controls->scheduleEstimate();
  else
    m_controls->showEstimate(
        tr("The current dataset has no run to evaluate and no corpus to retrieve from."), false);
}

void EragPage::setRunIndex(int index) { m_setup->setRunIndex(index); }
void EragPage::setRetrieverBm25() { m_setup->setRetrieverBm25(); }
bool EragPage::setRetriever(const QString& name) { return m_setup->setRetriever(name); }
bool EragPage::retrieverSelected() const { return m_setup->retrieverSelected(); }
void EragPage::setEndpointIndex(int index) { m_setup->setEndpointIndex(index); }
void EragPage::setK(int k) { m_setup->setK(k); }
void EragPage::setMetric(core::DownstreamMetric metric) { m_setup->setMetric(metric); }
void EragPage::setMeasures(const QString& text) { m_setup->setMeasures(text); }
void EragPage::setEndToEnd(bool on) { m_setup->setEndToEnd(on); }
RetrieverRunBar* EragPage::retrieverBar() const { return m_setup->retrieverBar(); }

std::optional<core::eval::JobSpec> EragPage::formSpec(QString* error) const {
  return m_setup->jobSpec(error);
}

bool EragPage::runEstimate() {
  const auto ds = m_workbench->dataset();
  if (ds && retrieverSelected()) {
    m_controls->showEstimate(
        tr("%1; the run joins the dataset's runs and its estimate follows.")
            .arg(retrievalStepNote(m_setup->selectedRetriever(), std::size_t(m_setup->k()))),
        true);
    return true;
  }
  const auto spec = estimableSpec();
  if (!spec) return false;
  m_controls->estimateJob(*spec, ds, [](const core::eval::JobEstimate& e) {
    QStringList lines;
    double total = 0;
    for (const auto& s : e.stages) {
      lines << tr("%1: %2").arg(s.kind == core::eval::JobKind::Erag ? tr("eRAG") : tr("end-to-end"),
                                describeEstimate(s.estimate));
      total += s.estimate.costUsd;
    }
    QString tail = tr("%1 queries with gold answers").arg(e.queries);
    if (e.queriesWithoutGold) tail += tr(", %1 without (left out)").arg(e.queriesWithoutGold);
    if (e.missingDocuments)
      tail += tr(", %1 run documents not in the corpus (skipped)").arg(e.missingDocuments);
    tail += e.heuristic ? tr(" · offline heuristic reader: no cost, outputs labelled heuristic")
                        : tr(" · total ≤ $%1").arg(total, 0, 'f', 4);
    return (lines << tail).join(QLatin1Char('\n'));
  });
  return true;
}

bool EragPage::start() {
  const auto spec = startableSpec();
  if (!spec) return false;
  const auto ds = m_workbench->dataset();
  const bool retrieve = spec->run.type == core::eval::RunSource::Type::Retriever;
  const core::RetrieverSpec& retriever = spec->run.retriever;
  if (retrieve && (ds->corpus.empty() || ds->queries.empty())) {
    m_controls->setStatus(
        tr("%1 needs a dataset with queries and a corpus.").arg(retrieverName(retriever)), true);
    return false;
  }
  const QString system =
      retrieve ? retrievedRunTag(retriever, spec->k) : q(ds->runs[spec->run.datasetRun].tag);
  const QString title = tr("erag · %1 · %2").arg(m_workbench->datasetName(), system);
  auto make = [this, spec = *spec, ds, title](const ResolvedEndpoint& key) {
    RunJobRequest request;
    request.title = title;
    request.spec = spec;
    request.dataset = ds;
    request.execution.transport = key.transport;
    request.results = m_setup->resultOptions(ds);
    return request;
  };
  auto stage = [](const RunJob& job) {
    return job.kind() == QLatin1String("e2e") ? tr("end-to-end") : tr("eRAG");
  };
  // A retriever that calls an endpoint is confirmed first (nothing is sent otherwise), and its
  // key looked up, as on the Retrievers page.
  const bool launched =
      retrieve
          ? m_launcher->launchWithRetriever(
                this, retriever, spec->endpoint,
                retriever.kind == core::RetrieverSpec::Kind::Bm25
                    ? tr("Opening the BM25 index…")
                    : tr("Starting %1…").arg(q(core::describeRetriever(retriever))),
                std::move(make), std::move(stage))
          : m_launcher->launch(spec->endpoint, tr("Starting…"), std::move(make), std::move(stage));
  if (!launched) return false;
  m_runDataset = ds;
  m_retrievalPending = retrieve;
  return true;
}

void EragPage::onRetrieved(const std::shared_ptr<const core::eval::RetrievedRun>& r) {
  m_retrievalPending = false;
  // The run joins the dataset (every page sees it); a second retrieval at the same depth replaces
  // the first, so indexes of other runs hold.
  const int runIndex = m_workbench->addRetrievedRun(r->run, {}, m_runDataset);
  if (runIndex < 0) {
    emit retrieved(false);
    m_controls->setStatus(
        tr("The dataset was replaced during the retrieval; the run was not added."), true);
    return;
  }
  const auto updated = m_workbench->dataset();
  m_runDataset = updated;
  setRunIndex(runIndex);
  m_runNote->setText(tr("%1: top %2 of %3 queries in %4 s%5%6.")
                         .arg(q(r->run.tag))
                         .arg(m_setup->k())
                         .arg(updated->queries.size())
                         .arg(r->seconds, 0, 'f', 1)
                         .arg(describeRetrievalIndexes(*r))
                         .arg(r->queriesFailed
                                  ? tr("; %n queries failed", "", int(r->queriesFailed))
                                  : QString()));
  m_runNote->setVisible(true);
  emit retrieved(true);
}

void EragPage::onFinished(const RunJobOutcome& outcome) {
  // A retrieval that ended without its run (failed, cancelled) is reported before the job.
  if (std::exchange(m_retrievalPending, false)) emit retrieved(false);
  if (!outcome.started) {
    emit finished(m_launcher->showOutcome(
        outcome, {tr("eRAG"), {}, tr("Retrieval cancelled; nothing was added.")}));
    return;
  }
  const auto& result = *outcome.result;
  if (result.evaluation.erag || result.evaluation.e2e)
    showResults(std::make_shared<const core::eval::EvaluationResults>(result.evaluation));
  QStringList stores, paths;
  for (const auto& s : result.stages) {
    stores << QFileInfo(q(s.store.string())).fileName();
    paths << q(std::filesystem::absolute(s.store).string());
  }
  m_workbench->addRunStores(paths);  // saved with the project, found again when it reopens
  const QString done = tr("Done: %1 (%2). Stores: %3")
                           .arg(result.stages.size() > 1 ? tr("eRAG and end-to-end") : tr("eRAG"),
                                outcome.status, stores.join(QStringLiteral(", ")));
  emit finished(m_launcher->showOutcome(outcome, {tr("eRAG"), done, {}}));
}

bool EragPage::saveRun(int runIndex, const QString& path) {
  const auto ds = m_workbench->dataset();
  if (!ds || runIndex < 0 || std::size_t(runIndex) >= ds->runs.size() || path.isEmpty())
    return false;
  if (const QString why = refusedOutput(path, workbenchInputs(*m_workbench)); !why.isEmpty()) {
    emit runSaved(false, why);
    return false;
  }
  runInBackground(
      this, m_pool,
      [ds, runIndex, file = std::filesystem::path(path.toStdString())] {
        std::string error;
        return core::writeTrecRun(ds->runs[std::size_t(runIndex)], file, &error) ? QString()
                                                                                 : q(error);
      },
      [this, path](const QString& error) {
        emit runSaved(error.isEmpty(), error.isEmpty() ? tr("Run saved to %1").arg(path)
                                                       : tr("Run not saved: %1").arg(error));
      });
  return true;
}

void EragPage::showProjectRuns() {
  const auto& project = m_workbench->project();
  const auto ds = m_workbench->dataset();
  if (!project || project->runStores.empty() || !ds || isRunning() || results()) return;
  std::vector<std::filesystem::path> stores;
  for (const auto& s : project->runStores) stores.push_back(project->resolve(s));
  runInBackground(
      this, m_pool,
      [stores, parts = ds->parts, name = ds->name] {
        return core::eval::storedRunsForDataset(stores, parts, name);
      },
      [this, ds](const core::eval::StoredRunPair& pair) {
        // Still the same dataset and still nothing on screen: a run started meanwhile wins.
        if (!pair.erag || m_workbench->dataset() != ds || isRunning() || results()) return;
        openStores(q(pair.erag->string()), pair.e2e ? q(pair.e2e->string()) : QString());
      });
}

bool EragPage::openStores(const QString& eragStore, const QString& e2eStore) {
  if (isRunning()) return false;
  m_controls->setBusy(true);  // reading: nothing to cancel
  m_controls->setStatus(tr("Reading %1…").arg(QFileInfo(eragStore).fileName()));
  const auto ds = m_workbench->dataset();
  m_runDataset = ds;
  // Viewing only reads: a shipped or shared store is never modified by opening it.
  runInBackground(
      this, m_pool,
      [erag = eragStore.toStdString(), e2e = e2eStore.toStdString(),
       options = m_setup->resultOptions(ds),
       ds] { return core::eval::readEvaluation(erag, e2e, options); },
      [this](core::eval::EvaluationResults read) {
        auto res = std::make_shared<const core::eval::EvaluationResults>(std::move(read));
        m_controls->setBusy(false);
        showResults(res);
        const bool ok = res->error.empty();
        m_controls->setStatus(
            ok ? tr("Showing %1").arg(QFileInfo(q(res->eragStore.string())).fileName())
               : q(res->error),
            !ok);
        emit finished(ok);
      });
  return true;
}

void EragPage::showResults(std::shared_ptr<const core::eval::EvaluationResults> results) {
  m_view->setResults(std::move(results), m_runDataset ? m_runDataset : m_workbench->dataset());
}

}  // namespace ragscope::ui
