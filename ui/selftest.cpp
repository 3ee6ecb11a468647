#include "ui/selftest.h"

#include <QDir>
#include <QHeaderView>
#include <QListWidget>
#include <QPixmap>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSet>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <filesystem>

#include "core/data/dataset.h"
#include "core/store/project.h"
#include "ui/issuesdock.h"
#include "ui/jobs/runjob.h"
#include "ui/mainwindow.h"
#include "ui/models/comparisonmodel.h"
#include "ui/models/diagnosticsmodel.h"
#include "ui/models/documentlistmodel.h"
#include "ui/models/documentsearch.h"
#include "ui/models/endpointlistmodel.h"
#include "ui/models/heatmapmodel.h"
#include "ui/models/querytablemodel.h"
#include "ui/models/textmatch.h"
#include "ui/pages/claiminspector.h"
#include "ui/pages/claimspage.h"
#include "ui/pages/comparepage.h"
#include "ui/pages/contrastivepage.h"
#include "ui/pages/corpusbrowser.h"
#include "ui/pages/datasetpage.h"
#include "ui/pages/endpointspage.h"
#include "ui/pages/eragpage.h"
#include "ui/pages/page.h"
#include "ui/pages/retrievalpage.h"
#include "ui/report/safefile.h"
#include "ui/workbench.h"

namespace ragscope::ui {

namespace {

// A word of the query text long enough to make a selective filter.
QString filterWord(const core::Query& q) {
  const QStringList words = QString::fromStdString(q.text).split(
      QRegularExpression(QStringLiteral("\\W+")), Qt::SkipEmptyParts);
  for (const QString& w : words)
    if (w.size() >= 5) return w;
  return QString::fromStdString(q.id);
}

// A document of the corpus that some query points at (provenance or judgment), else the first.
std::string interestingDocument(const core::Dataset& ds) {
  for (const auto& q : ds.queries) {
    for (const auto& id : q.goldDocIds()) {
      if (ds.corpus.contains(id)) return id;
      // A PDF's chunks (held in memory; a corpus of millions is not scanned).
      for (std::size_t i = 0; i < ds.corpus.inMemorySize() && i < kBigCorpusDocuments; ++i)
        if (ds.corpus.inMemory(i).parentId == id) return ds.corpus.inMemory(i).id;
    }
    if (const auto it = ds.qrels.byQuery.find(q.id); it != ds.qrels.byQuery.end())
      for (const auto& j : it->second)
        if (j.rel > 0 && ds.corpus.contains(j.docId)) return j.docId;
  }
  return ds.corpus.empty() ? std::string() : ds.corpus.at(0).id;
}

}  // namespace

SelfTest::SelfTest(MainWindow* window, SelfTestOptions options, QObject* parent)
    : QObject(parent), m_window(window), m_options(std::move(options)) {
  m_timeout.setSingleShot(true);
  connect(&m_timeout, &QTimer::timeout, this, [this] {
    check(false, tr("finished within %1 s").arg(m_options.timeoutMs / 1000));
    finish();
  });
}

void SelfTest::check(bool condition, const QString& what) {
  m_log << (condition ? QStringLiteral("ok    ") : QStringLiteral("FAIL  ")) + what;
  if (!condition) m_failures << what;
}

void SelfTest::shoot(const QString& name) {
  if (m_options.screenshotDir.isEmpty()) return;
  QDir().mkpath(m_options.screenshotDir);
  const QString path =
      QDir(m_options.screenshotDir).absoluteFilePath(name + QStringLiteral(".png"));
  const bool saved = savePngSafely(m_window->grab().toImage(), path);
  check(saved, tr("screenshot %1").arg(path));
  if (saved) m_screenshots << path;
}

void SelfTest::start() {
  m_window->show();
  Workbench* wb = m_window->workbench();
  connect(wb, &Workbench::loadFinished, this, &SelfTest::onLoadFinished);
  m_timeout.start(m_options.timeoutMs);
  bool started = false;
  if (m_options.openPaths.isEmpty()) {
    // A fresh copy each time: every tour starts from the bundled demo, and leaves nothing in the
    // user's demo copy or in the bundled files.
    m_demoDir = std::make_shared<QTemporaryDir>();
    started =
        m_demoDir->isValid() && m_window->openDemo(m_demoDir->filePath(QStringLiteral("demo")));
    check(started, tr("open the demo project"));
  } else {
    started = m_window->datasetPage()->openPaths(m_options.openPaths, m_options.formats, false);
    check(started, tr("open %1").arg(m_options.openPaths.join(QStringLiteral(", "))));
  }
  // A load that could not start reports through loadFinished too (queued after this call).
  if (!started) QTimer::singleShot(0, this, &SelfTest::finish);
}

void SelfTest::onLoadFinished(bool ok, const QString& message) {
  if (m_done) return;
  ++m_loads;
  check(ok, tr("load: %1").arg(message));
  if (!ok) {
    finish();
    return;
  }
  if (m_loads > 1) {
    tourSecondDataset();
    return;
  }
  DatasetPage* page = m_window->datasetPage();
  Workbench* wb = m_window->workbench();
  const auto ds = wb->dataset();

  m_steps.push_back([this, ds, wb] {
    m_log << tr("dataset %1: %2 queries, %3 documents, %4 judgments, %5 runs, %6 examples, "
                "%7 diagnostics")
                 .arg(wb->datasetName())
                 .arg(ds->queries.size())
                 .arg(ds->corpus.size())
                 .arg(ds->qrels.judgmentCount())
                 .arg(ds->runs.size())
                 .arg(ds->examples.size())
                 .arg(wb->report().diagnostics.size());
    check(!ds->queries.empty() || !ds->corpus.empty() || !ds->runs.empty() || !ds->examples.empty(),
          tr("dataset has content"));
  });
  m_steps.push_back([this, page, ds] {
    check(page->queryModel()->rowCount() == int(ds->queries.size()),
          tr("query table shows every query"));
    if (ds->queries.empty()) return;
    // Pick a query with gold or judgments to show a rich detail pane.
    int row = 0;
    for (int i = 0; i < int(ds->queries.size()) && i < 200; ++i)
      if (!ds->queries[std::size_t(i)].gold.empty() || page->queryModel()->judgedCount(i) > 0) {
        row = i;
        break;
      }
    check(page->selectQueryRow(row),
          tr("select query %1").arg(QString::fromStdString(ds->queries[std::size_t(row)].id)));
    check(page->detailView()->toPlainText().contains(
              QString::fromStdString(ds->queries[std::size_t(row)].id)),
          tr("detail pane shows the selected query"));
  });
  m_steps.push_back([this] { shoot(QStringLiteral("01-queries")); });
  m_steps.push_back([this, page, ds] {
    if (ds->queries.empty()) return;
    const QString word = filterWord(ds->queries.front());
    page->setQueryFilter(word);
    const int shown = page->queryProxy()->rowCount();
    check(shown >= 1 && shown <= int(ds->queries.size()),
          tr("filter \"%1\" keeps %2 of %3 queries").arg(word).arg(shown).arg(ds->queries.size()));
    bool allMatch = true;
    for (int r = 0; r < shown && r < 100; ++r) {
      const QModelIndex i = page->queryProxy()->index(r, QueryTableModel::Id);
      const core::Query* q = page->queryModel()->query(page->queryProxy()->mapToSource(i).row());
      allMatch = allMatch && (QString::fromStdString(q->text).contains(word, Qt::CaseInsensitive) ||
                              QString::fromStdString(q->id).contains(word, Qt::CaseInsensitive));
    }
    check(allMatch, tr("every filtered query contains the filter text"));
    if (shown > 0) page->queryView()->selectRow(0);
  });
  m_steps.push_back([this] { shoot(QStringLiteral("02-filtered")); });
  m_steps.push_back([this, page, ds] {
    page->setQueryFilter(QString());
    check(page->queryProxy()->rowCount() == int(ds->queries.size()),
          tr("clearing the filter restores all rows"));
    if (ds->queries.size() < 2) return;
    page->queryView()->sortByColumn(QueryTableModel::Id, Qt::DescendingOrder);
    auto idAt = [&](int r) {
      const QModelIndex i = page->queryProxy()->index(r, 0);
      return page->queryModel()->query(page->queryProxy()->mapToSource(i).row())->id;
    };
    check(compareIds(idAt(0), idAt(1)) >= 0, tr("sort by id, descending"));
    page->queryView()->sortByColumn(-1, Qt::AscendingOrder);
    page->selectQueryRow(int(ds->queries.size()) - 1);
    check(!page->detailView()->toPlainText().isEmpty(), tr("select the last query"));
  });
  m_steps.push_back([this, page, ds] {
    if (ds->corpus.empty()) return;
    const std::string id = interestingDocument(*ds);
    check(page->showDocument(id), tr("open corpus document %1").arg(QString::fromStdString(id)));
  });
  m_steps.push_back([this, page, ds] {
    if (ds->corpus.empty()) return;
    // A text left in its file (a big corpus) is read off the GUI thread: this step comes back
    // (every 30 ms) until it is shown.
    if (page->corpusBrowser()->isReading()) {
      --m_next;
      return;
    }
    check(!page->documentText()->toPlainText().isEmpty(), tr("corpus document text is shown"));
  });
  m_steps.push_back([this, ds] {
    if (!ds->corpus.empty()) shoot(QStringLiteral("03-corpus"));
  });
  m_steps.push_back([page, ds] {
    if (!ds->runs.empty()) page->tabs()->setCurrentIndex(page->runsTab());
  });
  m_steps.push_back([this, ds] {
    if (!ds->runs.empty()) shoot(QStringLiteral("04-runs"));
  });
  m_steps.push_back([this, page, wb] {
    page->tabs()->setCurrentIndex(page->queriesTab());
    IssuesDock* dock = m_window->issuesDock();
    dock->show();
    const int rows = dock->model()->rowCount();
    check(rows == int(wb->report().diagnostics.size()),
          tr("Issues dock lists %1 diagnostics").arg(rows));
    if (rows > 0) dock->activateRow(0);
  });
  m_steps.push_back([this] {
    shoot(QStringLiteral("05-issues"));
    // Closed again: the later screenshots show each page at the size an analyst sees it.
    m_window->issuesDock()->hide();
  });
  m_steps.push_back([this, ds] {
    if (!ds->qrels.byQuery.empty() && !ds->runs.empty()) evaluateRetrieval();
  });
  m_steps.push_back([this] { tourLlmPages(); });
  m_steps.push_back([this] { tourClaimsPage(); });
  m_steps.push_back([this] {
    for (Page* p : m_window->pages()) {
      m_window->showPage(p);
      check(m_window->currentPage() == p, tr("page %1").arg(p->title()));
    }
    m_window->showPage(m_window->datasetPage());
  });
  m_steps.push_back([this] { saveProjectCopy(); });
  QTimer::singleShot(0, this, &SelfTest::runSteps);
}

void SelfTest::saveProjectCopy() {
  Workbench* wb = m_window->workbench();
  if (!wb->project()) return;
  const core::Project original = *wb->project();
  m_projectDir = std::make_shared<QTemporaryDir>();
  const QString file = m_projectDir->filePath(QStringLiteral("saved/copy.ragscope.json"));
  check(m_projectDir->isValid() && QDir(m_projectDir->path()).mkpath(QStringLiteral("saved")),
        tr("temporary folder for the project copy"));
  // The save runs off the GUI thread: the tour waits for projectSaved, then checks the file.
  auto conn = std::make_shared<QMetaObject::Connection>();
  *conn = connect(wb, &Workbench::projectSaved, this,
                  [this, conn, file, original](bool ok, const QString& fileOrError) {
                    disconnect(*conn);
                    m_waiting = false;
                    check(ok, tr("save the project as %1%2")
                                  .arg(file, ok ? QString() : QStringLiteral(": ") + fileOrError));
                    if (ok) checkSavedProject(file, original);
                    QTimer::singleShot(0, this, &SelfTest::runSteps);
                  });
  m_waiting = wb->saveProject(file);
  if (!m_waiting) {
    disconnect(*conn);
    check(false, tr("save the project as %1: could not start").arg(file));
  }
}

void SelfTest::checkSavedProject(const QString& file, const core::Project& original) {
  const auto copy = core::readProject(file.toStdString());
  // The project's runs, then the runs this session made (the eRAG tour's), saved with it.
  const QStringList& session = m_window->workbench()->sessionRunStores();
  bool same =
      copy.report.ok() && !copy.report.hasErrors() &&
      copy.value.datasets.size() == original.datasets.size() &&
      copy.value.runStores.size() == original.runStores.size() + std::size_t(session.size());
  namespace fs = std::filesystem;
  auto sameFile = [](const fs::path& a, const fs::path& b) {
    std::error_code ec;
    return fs::equivalent(a, b, ec);
  };
  for (std::size_t d = 0; same && d < original.datasets.size(); ++d)
    for (std::size_t p = 0; same && p < original.datasets[d].parts.size(); ++p)
      same = sameFile(copy.value.resolve(copy.value.datasets[d].parts[p]),
                      original.resolve(original.datasets[d].parts[p]));
  for (std::size_t r = 0; same && r < original.runStores.size(); ++r)
    same = sameFile(copy.value.resolve(copy.value.runStores[r]),
                    original.resolve(original.runStores[r]));
  for (int r = 0; same && r < session.size(); ++r)
    same = sameFile(
        copy.value.resolve(copy.value.runStores[original.runStores.size() + std::size_t(r)]),
        session[r].toStdString());
  check(same, tr("project read back: %1 datasets, %2 run stores, every path naming the same file")
                  .arg(copy.value.datasets.size())
                  .arg(copy.value.runStores.size()));
}

void SelfTest::tourSecondDataset() {
  DatasetPage* page = m_window->datasetPage();
  const auto ds = m_window->workbench()->dataset();
  m_steps.push_back([this, page, ds] {
    m_log << tr("dataset %1: %2 queries, %3 documents, %4 examples")
                 .arg(m_window->workbench()->datasetName())
                 .arg(ds->queries.size())
                 .arg(ds->corpus.size())
                 .arg(ds->examples.size());
    check(page->queryModel()->rowCount() == int(ds->queries.size()),
          tr("query table shows every query"));
    if (!ds->queries.empty()) {
      check(page->selectQueryRow(0), tr("select the first query"));
      check(!page->detailView()->toPlainText().isEmpty(), tr("detail pane shows it"));
    }
  });
  m_steps.push_back([this] { shoot(QStringLiteral("07-second-dataset")); });
  QTimer::singleShot(0, this, &SelfTest::runSteps);
}

void SelfTest::evaluateRetrieval() {
  RetrievalPage* page = nullptr;
  for (Page* p : m_window->pages())
    if (auto* r = qobject_cast<RetrievalPage*>(p)) page = r;
  check(page != nullptr, tr("retrieval page present"));
  if (!page) return;
  m_window->showPage(page);
  const auto ds = m_window->workbench()->dataset();
  QSet<QString> names;
  for (int i = 0; i < page->runList()->count(); ++i) names.insert(page->runList()->item(i)->text());
  check(names.size() == page->runList()->count(),
        tr("run list: %1 runs, each named differently").arg(names.size()));
  connect(
      page, &RetrievalPage::evaluationFinished, this,
      [this, page, ds](bool ok) {
        check(ok, tr("retrieval evaluation of %1 runs").arg(ds->runs.size()));
        check(page->summaryView()->model()->rowCount() == int(ds->runs.size()),
              tr("summary table has one row per run"));
        if (!page->outcome().results.empty() && !page->outcome().results.front().queries.empty())
          page->showQuery(
              0, QString::fromStdString(page->outcome().results.front().queries.front().qid));
        check(page->rankedView()->model()->rowCount() > 0, tr("drill-down shows a ranked list"));
        // Still waiting: a step timer already queued must not run ahead of the screenshot, which
        // shows the summary's CIs (not "…"), so it waits for the background bootstrap too.
        auto shootAndContinue = [this, page] {
          checkIntervalsVisible(page);
          QTimer::singleShot(50, this, [this] {
            shoot(QStringLiteral("06-retrieval"));
            compareRunsAndContrast();
          });
        };
        if (page->summaryStatisticsPending())
          connect(page, &RetrievalPage::summaryStatisticsReady, this, shootAndContinue,
                  Qt::SingleShotConnection);
        else
          shootAndContinue();
      },
      Qt::SingleShotConnection);
  m_waiting = page->evaluate();
  check(m_waiting, tr("start retrieval evaluation"));
}

// Every CI cell of the summary is filled in and as narrow as its column at most: an interval
// elided to "[0.18…" reads as a different number.
void SelfTest::checkIntervalsVisible(RetrievalPage* page) {
  const QTableView* view = page->summaryView();
  const QAbstractItemModel* model = view->model();
  const int margin =
      2 * (view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, view) + 1);
  int cells = 0, readable = 0;
  for (int c = 0; c < model->columnCount(); ++c) {
    if (!model->headerData(c, Qt::Horizontal).toString().endsWith(QLatin1String("% CI"))) continue;
    for (int r = 0; r < model->rowCount(); ++r) {
      const QString text = model->index(r, c).data().toString();
      ++cells;
      if (text != QStringLiteral("…") &&
          view->columnWidth(c) >= view->fontMetrics().horizontalAdvance(text) + margin)
        ++readable;
    }
  }
  check(cells > 0 && readable == cells,
        tr("summary CIs computed and shown whole: %1 of %2 cells").arg(readable).arg(cells));
}

// The statistics pages on the evaluation just made: the runs compared pairwise, then the queries
// split in halves by the first run's first measure and the two halves contrasted. Resumes the
// tour when both are done (or could not start).
void SelfTest::compareRunsAndContrast() {
  ComparePage* compare = nullptr;
  ContrastivePage* contrastive = nullptr;
  for (Page* p : m_window->pages()) {
    if (auto* c = qobject_cast<ComparePage*>(p)) compare = c;
    if (auto* c = qobject_cast<ContrastivePage*>(p)) contrastive = c;
  }
  auto resume = [this] {
    m_window->showPage(m_window->datasetPage());
    m_waiting = false;
    runSteps();
  };
  auto contrast = [this, contrastive, resume] {
    const QStringList runs = contrastive ? contrastive->runNames() : QStringList();
    const ComparisonModel* model = nullptr;
    for (Page* p : m_window->pages())
      if (auto* c = qobject_cast<ComparePage*>(p)) model = c->model();
    const QString measure =
        model && model->rowCount() > 0 ? model->rowAt(0)->measure : QStringLiteral("map");
    if (!contrastive || runs.isEmpty() || !contrastive->setSource(0, measure) ||
        !contrastive->splitByHalves(0, measure, tr("top half"), tr("bottom half"))) {
      check(false, tr("contrastive page: split the queries by %1").arg(measure));
      resume();
      return;
    }
    m_window->showPage(contrastive);
    connect(
        contrastive, &ContrastivePage::analysisFinished, this,
        [this, contrastive, resume](bool ok) {
          check(ok && contrastive->result().groups.size() == 2,
                tr("contrastive analysis: top vs bottom half, two bootstrap distributions"));
          QTimer::singleShot(50, this, [this, resume] {
            shoot(QStringLiteral("06c-contrastive"));
            resume();
          });
        },
        Qt::SingleShotConnection);
    if (!contrastive->analyse()) {
      check(false, tr("start the contrastive analysis"));
      resume();
    }
  };
  if (!compare || compare->runNames().size() < 2) {
    // One run: nothing to compare; the contrastive analysis still applies.
    m_log << tr("compare page: fewer than two runs, skipped");
    contrast();
    return;
  }
  m_window->showPage(compare);
  compare->setRunsChecked({});
  connect(
      compare, &ComparePage::comparisonFinished, this,
      [this, compare, contrast](bool ok) {
        const int pairs = compare->runNames().size() * (compare->runNames().size() - 1) / 2;
        check(ok && compare->model()->rowCount() >= pairs,
              tr("compare page: %1 run pair(s) with paired tests").arg(pairs));
        if (compare->model()->rowCount() > 0) {
          const ComparisonRow& row = *compare->model()->rowAt(0);
          m_log << tr("compare %1: %2 vs %3, diff %4, p %5, Holm %6")
                       .arg(row.measure, row.runA, row.runB)
                       .arg(row.paired.meanDiff, 0, 'f', 4)
                       .arg(row.paired.randomization.p, 0, 'g', 3)
                       .arg(row.pHolm, 0, 'g', 3);
          check(row.pHolm >= row.paired.randomization.p,
                tr("Holm-adjusted p is at least the raw p"));
        }
        QTimer::singleShot(50, this, [this, contrast] {
          shoot(QStringLiteral("06b-compare"));
          contrast();
        });
      },
      Qt::SingleShotConnection);
  if (!compare->compare()) {
    check(false, tr("start the run comparison"));
    contrast();
  }
}

void SelfTest::tourLlmPages() {
  EndpointsPage* endpoints = nullptr;
  EragPage* erag = nullptr;
  for (Page* p : m_window->pages()) {
    if (auto* e = qobject_cast<EndpointsPage*>(p)) endpoints = e;
    if (auto* e = qobject_cast<EragPage*>(p)) erag = e;
  }
  check(endpoints != nullptr && erag != nullptr, tr("endpoints and eRAG pages present"));
  if (!endpoints || !erag) return;
  m_window->showPage(endpoints);
  m_log << tr("endpoints page: %1 saved endpoint(s)").arg(endpoints->model()->rowCount());
  shoot(QStringLiteral("08-endpoints"));

  // eRAG needs a run and gold answers; only the demo is small enough to run in a smoke test.
  const auto ds = m_window->workbench()->dataset();
  std::size_t withGold = 0;
  for (const auto& q : ds->queries) withGold += q.goldAnswers().empty() ? 0 : 1;
  if (!m_options.openPaths.isEmpty() || ds->runs.empty() || withGold == 0) {
    m_log << tr("eRAG page: skipped (needs the demo's runs and gold answers)");
    return;
  }
  m_runsDir = std::make_shared<QTemporaryDir>();
  setRunsFolderOverride(m_runsDir->isValid() ? m_runsDir->path() : QString());
  m_window->showPage(erag);
  erag->setRunIndex(0);
  erag->setEndpointIndex(0);  // the offline heuristic reader
  erag->setK(5);
  erag->setMetric(core::DownstreamMetric::ContainsAnswer);
  erag->setMeasures(QStringLiteral("P_5, success_1, map"));
  erag->setEndToEnd(true);
  connect(
      erag, &EragPage::finished, this,
      [this, erag, withGold](bool ok) {
        check(ok, tr("eRAG and end-to-end with the offline reader"));
        check(erag->heatmap()->rowCount() == int(withGold) && erag->heatmap()->columnCount() == 5,
              tr("eRAG heatmap: %1 queries x 5 ranks").arg(erag->heatmap()->rowCount()));
        erag->resultTabs()->setCurrentIndex(erag->heatmapTab());
        check(erag->drillDown(0, 0) &&
                  erag->drillView()->toPlainText().contains(QStringLiteral("Prompt")),
              tr("eRAG drill-down shows the document, prompt and output"));
        QTimer::singleShot(50, this, [this, erag] {
          shoot(QStringLiteral("09-erag-heatmap"));
          erag->resultTabs()->setCurrentIndex(erag->correlationTab());
          QTimer::singleShot(50, this, [this, erag] {
            check(erag->correlationView()->model()->rowCount() >= 2, tr("eRAG correlation table"));
            shoot(QStringLiteral("10-erag-correlation"));
            setRunsFolderOverride(QString());
            m_window->showPage(m_window->datasetPage());
            m_waiting = false;
            runSteps();
          });
        });
      },
      Qt::SingleShotConnection);
  m_waiting = erag->start();
  check(m_waiting, tr("start eRAG"));
}

void SelfTest::tourClaimsPage() {
  ClaimsPage* page = nullptr;
  for (Page* p : m_window->pages())
    if (auto* c = qobject_cast<ClaimsPage*>(p)) page = c;
  check(page != nullptr, tr("claims page present"));
  if (!page) return;
  m_window->showPage(page);
  const auto& project = m_window->workbench()->project();
  const bool hasClaimsRun = project && m_options.openPaths.isEmpty() &&
                            std::any_of(project->runStores.begin(), project->runStores.end(),
                                        [](const std::filesystem::path& p) {
                                          return p.filename() == "claims-offline.db";
                                        });
  if (!hasClaimsRun) {
    m_log << tr("claims page: no stored claims run in the project, skipped");
    shoot(QStringLiteral("11-claims"));
    return;
  }
  // The project's claims run opens by itself; wait for it when it is still being read.
  auto tour = [this, page] {
    const auto* report = page->report();
    check(report && !report->queries.empty() && !report->metrics.empty(),
          tr("claims page shows the project's claims run: %1 answers")
              .arg(report ? report->queries.size() : 0));
    if (!report || report->queries.empty()) {
      m_waiting = false;
      runSteps();
      return;
    }
    ClaimsResultsView* view = page->view();
    check(view->summaryModel()->rowCount() == int(report->metrics.size()),
          tr("claims summary: one row per metric"));
    QTimer::singleShot(50, this, [this, page, view] {
      shoot(QStringLiteral("11-claims-summary"));
      view->setUnsupportedFilter(true);
      const QString qid = view->answersView()->model()->index(0, 0).data().toString();
      check(view->visibleAnswers() > 0 && view->selectAnswer(qid),
            tr("an answer with unsupported claims: %1").arg(qid));
      view->tabs()->setCurrentIndex(view->answersTab());
      int unsupported = -1;
      for (int c = 0; view->inspector()->query() &&
                      c < int(view->inspector()->query()->responseClaims.claims.size());
           ++c)
        if (view->inspector()->claimState(c) == ClaimInspector::ClaimState::Unsupported)
          unsupported = c;
      check(unsupported >= 0, tr("the inspector marks an unsupported claim"));
      view->inspector()->selectClaim(std::max(0, unsupported));
      page->setSetupVisible(false);  // the results at the height an analyst gives them
      QTimer::singleShot(80, this, [this, page, view] {
        shoot(QStringLiteral("12-claims-inspector"));
        view->tabs()->setCurrentIndex(view->unsupportedTab());
        check(view->unsupportedModel()->rowCount() > 0,
              tr("unsupported claims listed across the run"));
        QTimer::singleShot(50, this, [this, page, view] {
          shoot(QStringLiteral("13-claims-unsupported"));
          view->setUnsupportedFilter(false);
          view->tabs()->setCurrentIndex(0);
          page->setSetupVisible(true);
          m_window->showPage(m_window->datasetPage());
          m_waiting = false;
          runSteps();
        });
      });
    });
  };
  m_waiting = true;
  if (page->report()) {
    QTimer::singleShot(0, this, tour);
  } else {
    connect(page, &ClaimsPage::finished, this, tour, Qt::SingleShotConnection);
  }
}

void SelfTest::runSteps() {
  if (m_done || m_waiting) return;
  if (m_next >= m_steps.size()) {
    // A project with several datasets: switch to the next one, as the dataset picker does.
    const auto& project = m_window->workbench()->project();
    if (!m_secondStarted && m_options.openPaths.isEmpty() && project &&
        project->datasets.size() > 1) {
      m_secondStarted = true;
      const QString next = QString::fromStdString(project->datasets[1].name);
      check(m_window->workbench()->openProjectDataset(next),
            tr("switch to project dataset %1").arg(next));
      return;  // onLoadFinished continues
    }
    finish();
    return;
  }
  m_steps[m_next++]();
  // Return to the event loop between steps so layouts settle and views paint before screenshots.
  QTimer::singleShot(30, this, &SelfTest::runSteps);
}

void SelfTest::finish() {
  if (m_done) return;
  m_done = true;
  m_timeout.stop();
  emit finished(m_failures.isEmpty() ? 0 : 1);
}

}  // namespace ragscope::ui
