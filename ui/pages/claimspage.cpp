#include "ui/pages/claimspage.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStyle>
#include <QThreadPool>
#include <QToolButton>
#include <QVBoxLayout>
#include <filesystem>

#include "core/eval/reports/projectruns.h"
#include "ui/jobs/background.h"
#include "ui/jobsdock.h"
#include "ui/pages/claimssetup.h"
#include "ui/pages/jobcontrols.h"
#include "ui/pages/joblauncher.h"
#include "ui/pages/retrieverchoice.h"
#include "ui/secrets.h"
#include "ui/textutil.h"
#include "ui/workbench.h"

namespace ragscope::ui {

ClaimsPage::ClaimsPage(Workbench* workbench, QWidget* parent)
    : JobPage(parent), m_workbench(workbench), m_pool(new QThreadPool(this)) {
  setObjectName(QStringLiteral("ClaimsPage"));
  m_pool->setMaxThreadCount(1);
  buildUi();
  connect(m_workbench, &Workbench::datasetChanged, m_setup, &ClaimsSetup::refreshInputs);
  connect(m_workbench, &Workbench::retrieversChanged, m_setup, &ClaimsSetup::refreshInputs);
  connect(m_workbench, &Workbench::datasetChanged, this, &ClaimsPage::showProjectRuns);
  connect(m_workbench, &Workbench::projectChanged, this, &ClaimsPage::showProjectRuns);
  m_setup->refreshInputs();
}

ClaimsPage::~ClaimsPage() { m_pool->waitForDone(); }

QIcon ClaimsPage::icon() const { return style()->standardIcon(QStyle::SP_DialogApplyButton); }

core::eval::ResultOptions ClaimsPage::resultOptions() {
  core::eval::ResultOptions o;  // the CLI's bootstrap: B = 10,000, seed 42, percentile 95 %
  // Deterministic for a seed on any number of threads; the GUI keeps a core.
  o.bootstrap.threads = 1;
  o.bootstrap.keepDistribution = false;
  o.threads = 1;
  return o;
}

void ClaimsPage::activated() { m_setup->refreshEndpoints(); }

void ClaimsPage::buildUi() {
  makeControls(tr("Judge claims"),
               tr("Open a dataset with answers, or with a run to generate them from."));
  connect(m_launcher, &JobLauncher::finished, this, &ClaimsPage::onFinished);
  connect(m_launcher, &JobLauncher::notStarted, this, [this] { emit finished(false); });
  m_setup = new ClaimsSetup(m_workbench, m_controls->budgetEditor());
  connect(m_setup, &ClaimsSetup::changed, m_controls, &JobControls::scheduleEstimate);
  auto* open = new QPushButton(tr("Open stored claims run…"));
  connect(open, &QPushButton::clicked, this, [this] {
    const QString f = QFileDialog::getOpenFileName(this, tr("Claims run store"), runsFolder(),
                                                   tr("Run stores (*.db)"));
    if (!f.isEmpty()) openStore(f);
  });
  m_controls->addTrailing(open);
  auto* setup = new QGroupBox(tr("Claim judging setup"));
  auto* setupLayout = new QVBoxLayout(setup);
  setupLayout->addWidget(m_setup);
  setupLayout->addWidget(m_controls);

  m_view = new ClaimsResultsView;
  m_view->setLabelBook(m_workbench->labelBook());
  // The setup scrolls and can be folded away: on a 1366x768 screen the results need the height.
  auto* scroll = new QScrollArea;
  scroll->setWidget(setup);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(scroll);
  split->addWidget(m_view);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);
  split->setChildrenCollapsible(false);
  m_setupToggle = new QToolButton;
  m_setupToggle->setCheckable(true);
  m_setupToggle->setChecked(true);
  m_setupToggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  m_setupToggle->setArrowType(Qt::DownArrow);
  m_setupToggle->setText(tr("Setup"));
  m_setupToggle->setToolTip(tr("Show or hide the judging setup"));
  connect(m_setupToggle, &QToolButton::toggled, this, [this, scroll](bool on) {
    scroll->setVisible(on);
    m_setupToggle->setArrowType(on ? Qt::DownArrow : Qt::RightArrow);
  });
  m_runLabel = new QLabel;
  m_runLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* header = new QHBoxLayout;
  header->addWidget(m_setupToggle);
  header->addWidget(m_runLabel, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(header);
  layout->addWidget(split, 1);
}

bool ClaimsPage::setAnswersSource(int source) { return m_setup->setAnswersSource(source); }
bool ClaimsPage::setRetriever(const QString& name) { return m_setup->setRetriever(name); }
void ClaimsPage::setAnswersFile(const QString& path) { m_setup->setAnswersFile(path); }
void ClaimsPage::setJudgeEndpoint(const core::llm::EndpointConfig& endpoint) {
  m_setup->setJudgeEndpoint(endpoint);
}
void ClaimsPage::setJudgeIndex(int index) { m_setup->setJudgeIndex(index); }
void ClaimsPage::setMode(const QString& mode) { m_setup->setMode(mode); }
void ClaimsPage::setK(int k) { m_setup->setK(k); }
void ClaimsPage::setMatrix(bool on) { m_setup->setMatrix(on); }
void ClaimsPage::setSetupVisible(bool on) { m_setupToggle->setChecked(on); }
RetrieverRunBar* ClaimsPage::retrieverBar() const { return m_setup->retrieverBar(); }

std::optional<core::eval::JobSpec> ClaimsPage::formSpec(QString* error) const {
  return m_setup->jobSpec(error);
}

bool ClaimsPage::runEstimate() {
  const auto spec = estimableSpec();
  if (!spec) return false;
  if (spec->run.type == core::eval::RunSource::Type::Retriever) {
    m_controls->showEstimate(tr("%1; the answers are generated from them, then judged. The cost "
                                "follows from the generator and judge calls.")
                                 .arg(retrievalStepNote(spec->run.retriever, spec->k)),
                             true);
    return true;
  }
  m_controls->estimateJob(*spec, m_workbench->dataset(), [](const core::eval::JobEstimate& e) {
    QStringList lines;
    for (const auto& s : e.stages) lines << describeEstimate(s.estimate);
    QString tail =
        tr("%n answer(s); the claims' verdicts follow the extractions (planned as replies arrive)",
           "", int(e.queries));
    if (e.missingDocuments)
      tail += tr(", %1 run documents not in the corpus (left out)").arg(e.missingDocuments);
    if (e.heuristic) tail += tr(" · offline heuristic judge: no cost, verdicts labelled heuristic");
    return (lines << tail).join(QLatin1Char('\n'));
  });
  return true;
}

bool ClaimsPage::start() {
  const auto spec = startableSpec();
  if (!spec) return false;
  const auto ds = m_workbench->dataset();
  const QString title = tr("judge · %1 · %2").arg(m_workbench->datasetName(), m_setup->judgeName());
  auto make = [spec = *spec, ds, title](const ResolvedEndpoint& key) {
    RunJobRequest request;
    request.title = title;
    request.spec = spec;
    request.spec->judge.judge = key.config;
    request.dataset = ds;
    request.execution.transport = key.transport;
    request.results = resultOptions();
    return request;
  };
  auto stage = [](const RunJob&) { return tr("Judging"); };
  // Answers generated from a retriever's run: a retriever that calls an endpoint is confirmed
  // first (nothing is sent otherwise) and its key looked up, as on the Retrievers page.
  const core::RetrieverSpec& retriever = spec->run.retriever;
  const bool launched = spec->run.type == core::eval::RunSource::Type::Retriever
                            ? m_launcher->launchWithRetriever(
                                  this, retriever, spec->judge.judge,
                                  tr("Starting %1…").arg(q(core::describeRetriever(retriever))),
                                  std::move(make), std::move(stage))
                            : m_launcher->launch(spec->judge.judge, tr("Starting…"),
                                                 std::move(make), std::move(stage));
  if (launched) m_userOpened = true;
  return launched;
}

void ClaimsPage::onFinished(const RunJobOutcome& outcome) {
  if (!outcome.started) {
    emit finished(m_launcher->showOutcome(
        outcome, {tr("Claim judging"), {}, tr("Cancelled before any call.")}));
    return;
  }
  const auto& result = *outcome.result;
  const QString store = result.stages.empty()
                            ? QString()
                            : q(std::filesystem::absolute(result.stages.back().store).string());
  if (result.judge)
    showReport(std::make_shared<const core::eval::JudgeReport>(*result.judge), store);
  if (!store.isEmpty()) m_workbench->addRunStores({store});  // saved with the project
  const QString done = tr("Done (%1). Store: %2").arg(outcome.status, QFileInfo(store).fileName());
  emit finished(m_launcher->showOutcome(outcome, {tr("Claim judging"), done, {}}));
}

void ClaimsPage::showReport(std::shared_ptr<const core::eval::JudgeReport> report,
                            const QString& store) {
  m_runLabel->setText(tr("<b>%1</b> · %n answer(s) · judge: %2%3", "", int(report->queries.size()))
                          .arg(QFileInfo(store).fileName().toHtmlEscaped(),
                               report->heuristic ? tr("offline heuristic") : tr("LLM endpoint"),
                               report->settings.repeats > 1
                                   ? tr(" · %1 repeats").arg(report->settings.repeats)
                                   : QString()));
  m_view->setReport(std::move(report), store);
}

bool ClaimsPage::openStore(const QString& path) {
  if (isRunning()) return false;
  m_userOpened = true;
  const int generation = ++m_openGeneration;
  m_controls->setStatus(tr("Reading %1…").arg(QFileInfo(path).fileName()));
  // Viewing only reads: a shipped or shared store is never modified by opening it.
  runInBackground(
      this, m_pool,
      [p = path.toStdString()] {
        return core::eval::readJudgeReport(p, resultOptions().bootstrap);
      },
      [this, path, generation](core::eval::JudgeReport read) {
        if (generation != m_openGeneration) return;
        auto report = std::make_shared<const core::eval::JudgeReport>(std::move(read));
        const bool ok = report->error.empty();
        if (ok) showReport(report, path);
        m_controls->setStatus(
            ok ? tr("Showing %1").arg(QFileInfo(path).fileName()) : q(report->error), !ok);
        emit finished(ok);
      });
  return true;
}

void ClaimsPage::showProjectRuns() {
  const auto& project = m_workbench->project();
  if (!project || project->runStores.empty() || isRunning() || m_userOpened) return;
  std::vector<std::filesystem::path> stores;
  for (const auto& s : project->runStores) stores.push_back(project->resolve(s));
  runInBackground(
      this, m_pool, [stores] { return core::eval::storedJudgeRuns(stores); },
      [this](const std::vector<std::filesystem::path>& found) {
        if (found.empty() || isRunning() || m_userOpened ||
            m_view->storePath() == q(found.front().string()))
          return;
        openStore(q(found.front().string()));
        m_userOpened = false;  // the project's run: another project's may replace it
      });
}

}  // namespace ragscope::ui
