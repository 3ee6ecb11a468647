#include "ui/pages/agreementview.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>

#include "core/claims/agreementreport.h"
#include "core/eval/inputs/labelsources.h"
#include "core/labels/labelcatalog.h"
#include "core/labels/labelscope.h"
#include "core/store/project.h"
#include "ui/charts/chartwidget.h"
#include "ui/jobs/background.h"
#include "ui/labelbook.h"
#include "ui/style.h"
#include "ui/textutil.h"
#include "ui/workbench.h"

namespace ragscope::ui {

namespace {

// "claim (response vs chunks)": a claim group's question, since a label answers one premise's.
QString agreementKindText(core::labels::TargetKind kind, bool goldClaims,
                          std::optional<core::labels::ClaimPremise> premise) {
  QString text = q(std::string(core::labels::targetKindName(kind)));
  if (premise)
    text += QStringLiteral(" (%1 vs %2)")
                .arg(goldClaims ? QStringLiteral("gold") : QStringLiteral("response"),
                     q(std::string(core::labels::claimPremiseName(*premise))));
  return text;
}

// x 100, two decimals, as RAGChecker's meta_eval.py prints them; with the CI when there is one.
QString stat(const core::claims::AgreementStat& s) {
  const double v = core::claims::asPrinted(s.value);
  if (std::isnan(v)) return QStringLiteral("–");
  QString text = QString::number(v, 'f', 2);
  const double lo = core::claims::asPrinted(s.ci.low), hi = core::claims::asPrinted(s.ci.high);
  if (!std::isnan(lo) && !std::isnan(hi))
    text += QStringLiteral(" [%1, %2]").arg(lo, 0, 'f', 2).arg(hi, 0, 'f', 2);
  return text;
}

QTableWidgetItem* cell(const QString& text) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  return item;
}

}  // namespace

AgreementView::AgreementView(QWidget* parent) : QWidget(parent) {
  auto* csv = new QPushButton(tr("Human labels (qid,label CSV)…"));
  csv->setToolTip(
      tr("Compare this judging run's per-answer scores with human labels; rows with the same qid "
         "are several annotators"));
  connect(csv, &QPushButton::clicked, this, [this] {
    const QString f = QFileDialog::getOpenFileName(this, tr("Human labels"), {},
                                                   tr("CSV files (*.csv);;All files (*)"));
    if (!f.isEmpty()) loadHumanCsv(f);
  });
  auto* meta = new QPushButton(tr("RAGChecker meta-evaluation…"));
  meta->setToolTip(
      tr("A human file (pairwise preferences) and a baseline file with model1/model2 scores"));
  connect(meta, &QPushButton::clicked, this, [this] {
    const QString human = QFileDialog::getOpenFileName(this, tr("Human file"), {},
                                                       tr("JSON files (*.json);;All files (*)"));
    if (human.isEmpty()) return;
    const QString judge =
        QFileDialog::getOpenFileName(this, tr("Baseline (judge) file"), QFileInfo(human).path(),
                                     tr("JSON files (*.json);;All files (*)"));
    if (judge.isEmpty()) return;
    bool ok = false;
    const QString name =
        QInputDialog::getText(this, tr("Judge name"), tr("The judge's key in the baseline file:"),
                              QLineEdit::Normal, QStringLiteral("ragchecker"), &ok);
    if (ok && !name.isEmpty()) loadMetaEvaluation(human, judge, name);
  });
  m_status = new QLabel(tr("Load human labels to see how far the judge agrees with people."));
  m_status->setWordWrap(true);
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_table = new QTableWidget(0, 8);
  m_table->setHorizontalHeaderLabels(
      {tr("aspect"), tr("judge metric"), tr("pairs"), tr("Pearson ×100"), tr("Spearman ×100"),
       tr("Kendall τb ×100"), tr("Cohen κ ×100"), tr("human ceiling (P / S / K)")});
  m_table->verticalHeader()->hide();
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::SingleSelection);
  m_table->horizontalHeader()->setStretchLastSection(true);
  connect(m_table, &QTableWidget::currentCellChanged, this, [this](int row) { selectAspect(row); });
  m_scatter = new charts::ChartWidget;
  m_scatter->setObjectName(QStringLiteral("AgreementScatter"));
  m_scatter->setPlaceholder(
      tr("Select an aspect: the judge's score against the human label, one point per label."));
  auto* fromLabels = new QPushButton(tr("From the project's labels"));
  fromLabels->setObjectName(QStringLiteral("AgreementFromLabels"));
  fromLabels->setToolTip(
      tr("Compare the judge with the labels made in the workbench (claim verdicts, document "
         "grades, eRAG labels), updated as each label is stored"));
  connect(fromLabels, &QPushButton::clicked, this, &AgreementView::showProjectLabels);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(fromLabels);
  buttons->addWidget(csv);
  buttons->addWidget(meta);
  buttons->addStretch(1);
  m_csvPane = new QSplitter(Qt::Vertical);
  m_csvPane->addWidget(m_table);
  m_csvPane->addWidget(m_scatter);
  m_csvPane->setStretchFactor(0, 1);
  m_csvPane->setStretchFactor(1, 3);

  m_liveTable = new QTableWidget(0, 8);
  m_liveTable->setObjectName(QStringLiteral("AgreementLiveTable"));
  m_liveTable->setHorizontalHeaderLabels({tr("labels of"), tr("annotator"), tr("pairs"),
                                          tr("accuracy"), tr("Cohen κ"), tr("cannot tell"),
                                          tr("no judge verdict"), tr("compared with")});
  m_liveTable->verticalHeader()->hide();
  m_liveTable->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_liveTable->setSelectionMode(QAbstractItemView::SingleSelection);
  m_liveTable->horizontalHeader()->setStretchLastSection(true);
  connect(m_liveTable, &QTableWidget::currentCellChanged, this,
          [this](int row) { showConfusion(row); });
  m_confusion = new QTextBrowser;
  m_confusion->setObjectName(QStringLiteral("AgreementConfusion"));
  m_confusion->setPlaceholderText(tr("Select a row: its confusion matrix of judge vs human."));
  m_livePane = new QSplitter(Qt::Vertical);
  m_livePane->addWidget(m_liveTable);
  m_livePane->addWidget(m_confusion);
  m_livePane->setStretchFactor(0, 2);
  m_livePane->setStretchFactor(1, 3);
  m_livePane->hide();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(buttons);
  layout->addWidget(m_status);
  layout->addWidget(m_csvPane, 1);
  layout->addWidget(m_livePane, 1);
}

void AgreementView::setReport(std::shared_ptr<const core::eval::JudgeReport> report,
                              const QString& store) {
  m_report = std::move(report);
  m_store = store;
  m_sources.reset();  // the shown run is one of the sources
  if (m_live) computeLive();
}

bool AgreementView::loadHumanCsv(const QString& path) {
  if (!m_report) {
    m_status->setText(
        tr("Open or run a judging run first: its scores are what the labels are compared with."));
    return false;
  }
  start(
      [report = m_report, human = path.toStdString()] {
        return core::eval::compareAgreementWithReport(human, *report, {});
      },
      QFileInfo(path).fileName());
  return true;
}

bool AgreementView::loadMetaEvaluation(const QString& humanJson, const QString& baselineJson,
                                       const QString& name) {
  start([human = humanJson.toStdString(), judge = baselineJson.toStdString(),
         n = name.toStdString()] { return core::eval::compareAgreementFiles(human, judge, n, {}); },
        QFileInfo(humanJson).fileName());
  return true;
}

void AgreementView::start(std::function<core::eval::AgreementOutcome()> work, const QString& what) {
  setLive(false);
  const int generation = ++m_generation;
  m_status->setText(tr("Comparing with %1 (1,000 bootstrap resamples per coefficient)…").arg(what));
  auto* watcher = new QFutureWatcher<core::eval::AgreementOutcome>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, what] {
    auto outcome = std::make_shared<const core::eval::AgreementOutcome>(watcher->result());
    watcher->deleteLater();
    if (generation != m_generation) return;
    if (!outcome->ok()) {
      QString text = q(outcome->error);
      for (const auto& d : outcome->report.diagnostics) {
        text += QStringLiteral("\n") + q(d.toString());
        if (text.size() > 2000) break;
      }
      m_status->setText(text);
      setErrorStyle(m_status, true);
      emit finished(false);
      return;
    }
    m_status->setStyleSheet(QString());
    m_status->setText(
        tr("%1: %2 layout; kappa on %3. Coefficients ×100 with 95% bootstrap CIs (seed 42).")
            .arg(what, q(outcome->result.layout), q(outcome->result.kappaOn)));
    show(outcome);
    emit finished(true);
  });
  watcher->setFuture(QtConcurrent::run(std::move(work)));
}

void AgreementView::show(std::shared_ptr<const core::eval::AgreementOutcome> outcome) {
  m_outcome = std::move(outcome);
  const auto& aspects = m_outcome->result.aspects;
  m_table->setRowCount(int(aspects.size()));
  for (std::size_t i = 0; i < aspects.size(); ++i) {
    const auto& a = aspects[i];
    const int row = int(i);
    m_table->setItem(row, 0, cell(q(a.aspect)));
    m_table->setItem(row, 1, cell(q(a.judgeMetric)));
    m_table->setItem(row, 2, cell(QString::number(a.judge.n)));
    m_table->setItem(row, 3, cell(stat(a.judge.pearson)));
    m_table->setItem(row, 4, cell(stat(a.judge.spearman)));
    m_table->setItem(row, 5, cell(stat(a.judge.kendallTauB)));
    m_table->setItem(row, 6, cell(stat(a.judge.cohenKappa)));
    auto printed = [](const core::claims::AgreementStat& s) {
      const double v = core::claims::asPrinted(s.value);
      return std::isnan(v) ? QStringLiteral("–") : QString::number(v, 'f', 2);
    };
    m_table->setItem(
        row, 7,
        cell(a.hasCeiling ? QStringLiteral("%1 / %2 / %3 (n %4)")
                                .arg(printed(a.ceiling.pearson), printed(a.ceiling.spearman),
                                     printed(a.ceiling.kendallTauB))
                                .arg(a.ceiling.n)
                          : tr("one annotator")));
  }
  m_table->resizeColumnsToContents();
  m_table->horizontalHeader()->setStretchLastSection(true);
  if (!aspects.empty()) m_table->setCurrentCell(0, 0);
}

void AgreementView::selectAspect(int row) {
  if (!m_outcome || row < 0 || std::size_t(row) >= m_outcome->result.aspects.size()) return;
  const auto& a = m_outcome->result.aspects[std::size_t(row)];
  charts::ScatterChart chart;
  chart.title = tr("%1: judge vs human · Pearson r = %2")
                    .arg(q(a.aspect))
                    .arg(a.judge.pearson.value, 0, 'f', 3);
  chart.xTitle = tr("judge: %1").arg(q(a.judgeMetric));
  chart.yTitle = tr("human label");
  chart.x = a.judgeValues;
  chart.y = a.humanValues;
  chart.qids.resize(chart.x.size());
  chart.tau = a.judge.kendallTauB.value;
  chart.rho = a.judge.spearman.value;
  chart.diagonal = false;
  m_scatter->setSpec(std::move(chart));
}

// ---- From the project's labels ---------------------------------------------------------------

namespace {

struct LiveAgreementResult {
  std::shared_ptr<const core::labels::LabelSources> sources;
  std::shared_ptr<const core::labels::LabelAgreementReport> report;
  QStringList problems;  // run stores that could not be read
};

QString agreementNumber(double v, int decimals = 3) {
  return std::isnan(v) ? QStringLiteral("–") : QString::number(v, 'f', decimals);
}

}  // namespace

void AgreementView::setLabelBook(LabelBook* book) {
  m_book = book;
  if (!book) return;
  connect(book, &LabelBook::labelsChanged, this, [this] {
    if (m_live) computeLive();
  });
  auto sourcesChanged = [this] {
    m_sources.reset();
    if (m_live) computeLive();
  };
  connect(book->workbench(), &Workbench::projectChanged, this, sourcesChanged);
  connect(book->workbench(), &Workbench::datasetChanged, this, sourcesChanged);
}

bool AgreementView::showProjectLabels() {
  if (!m_book) {
    m_status->setText(tr("Labels are kept with a dataset or project: open one first."));
    return false;
  }
  ++m_generation;  // a CSV comparison under way no longer shows
  setLive(true);
  computeLive();
  return true;
}

void AgreementView::setLive(bool on) {
  m_live = on;
  m_livePane->setVisible(on);
  m_csvPane->setVisible(!on);
}

void AgreementView::computeLive() {
  if (m_liveRunning) {  // one computation at a time; the latest labels follow it
    m_liveDirty = true;
    return;
  }
  m_liveRunning = true;
  m_liveDirty = false;
  const int generation = ++m_liveGeneration;
  if (!m_liveReport) m_status->setText(tr("Comparing the judge with the project's labels…"));
  // Inputs copied on the GUI thread; the sources (run stores read, the dataset) once per run
  // and project, the comparison at every change of the labels.
  const Workbench* wb = m_book->workbench();
  auto work = [sources = m_sources, labels = m_book->snapshot(), report = m_report,
               scope = m_report ? m_book->runScope(m_store) : std::string(),
               folder = m_book->labelsFolder(), shown = m_store.toStdString(),
               project = wb->project(), dataset = wb->dataset(),
               datasetName = m_book->datasetScope()] {
    LiveAgreementResult r;
    if (sources) {
      r.sources = sources;
    } else {
      auto built = std::make_shared<core::labels::LabelSources>();
      built->folder = folder;  // where the labels' relative scopes lead
      if (report) built->runs.push_back(core::eval::labelSourceOfReport(scope, shown, *report));
      if (project)
        for (const std::string& listed : project->runStores) {
          const auto path = project->resolve(listed);
          if (!shown.empty() && core::labels::sameStoreFile(path, shown))
            continue;  // the run on screen is in already
          core::labels::RunSource source;
          std::string error;
          if (core::eval::readLabelRunSource(path, listed, source, &error))
            built->runs.push_back(std::move(source));
          else
            r.problems << q(error);
        }
      if (dataset) built->datasets.push_back({datasetName, dataset});
      r.sources = std::move(built);
    }
    core::labels::LabelAgreementOptions options;
    r.report = std::make_shared<const core::labels::LabelAgreementReport>(
        core::labels::computeLabelAgreement(labels->current, *r.sources, options));
    return r;
  };
  runInBackground(this, QThreadPool::globalInstance(), std::move(work),
                  [this, generation](LiveAgreementResult r) {
                    m_liveRunning = false;
                    if (generation == m_liveGeneration && m_live) {
                      m_sources = r.sources;
                      showLive(r.report);
                      if (!r.problems.isEmpty())
                        m_status->setText(m_status->text() + QStringLiteral("\n") +
                                          r.problems.join(QLatin1Char('\n')));
                      emit liveUpdated();
                    }
                    if (m_liveDirty && m_live) computeLive();
                  });
}

void AgreementView::showLive(std::shared_ptr<const core::labels::LabelAgreementReport> report) {
  m_liveReport = std::move(report);
  const auto& r = *m_liveReport;
  QString status = tr("The project's labels: %n label(s)", nullptr, int(r.labels)) +
                   tr(" by %n annotator(s); updated as each label is stored.", nullptr,
                      int(r.annotators.size()));
  for (const auto& u : r.unmatched) status += QStringLiteral("\n") + q(u);
  m_status->setText(status);
  m_status->setStyleSheet(QString());
  const int keep = m_liveTable->currentRow();
  m_liveRows.clear();
  m_liveTable->setRowCount(0);
  auto addRow = [this](const QStringList& cells, int source) {
    const int row = m_liveTable->rowCount();
    m_liveTable->insertRow(row);
    for (int c = 0; c < cells.size(); ++c) m_liveTable->setItem(row, c, cell(cells[c]));
    m_liveRows.push_back(source);
  };
  for (std::size_t i = 0; i < r.judgeVsHuman.size(); ++i) {
    const auto& a = r.judgeVsHuman[i];
    addRow({QStringLiteral("%1 · %2").arg(agreementKindText(a.kind, a.goldClaims, a.premise),
                                          q(a.scope)),
            q(a.annotator), QString::number(a.n), agreementNumber(a.accuracy),
            agreementNumber(a.kappa), QString::number(a.abstained), QString::number(a.judgeMissing),
            q(a.compared)},
           int(i));
  }
  for (const auto& a : r.answers) {
    for (const auto& aspect : a.result.aspects)
      addRow({tr("answer · %1 · %2").arg(q(a.scope), q(aspect.aspect)),
              a.annotator.empty() ? tr("all") : q(a.annotator), QString::number(aspect.judge.n),
              QStringLiteral("–"), agreementNumber(aspect.judge.cohenKappa.value),
              QStringLiteral("–"), QStringLiteral("–"), q(aspect.judgeMetric)},
             -1);
  }
  for (const auto& ia : r.interAnnotator) {
    QStringList who;
    for (const auto& name : ia.annotators) who << q(name);
    QString alpha = tr("α %1").arg(agreementNumber(ia.alphaNominal.alpha));
    if (ia.alphaInterval)
      alpha += tr(" (interval %1)").arg(agreementNumber(ia.alphaInterval->alpha));
    addRow({tr("%1 · %2 · between annotators")
                .arg(agreementKindText(ia.kind, ia.goldClaims, ia.premise), q(ia.scope)),
            who.join(QStringLiteral(", ")), QString::number(ia.items), QStringLiteral("–"),
            agreementNumber(ia.cohenKappa), QStringLiteral("–"), QStringLiteral("–"), alpha},
           -1);
  }
  if (m_liveTable->rowCount() == 0)
    addRow({tr("No labels to compare yet: label claims in the inspector (S U C N T), documents "
               "in the ranked list (0–3), or use the labelling queue.")},
           -1);
  m_liveTable->resizeColumnsToContents();
  m_liveTable->horizontalHeader()->setStretchLastSection(true);
  m_liveTable->setCurrentCell(std::clamp(keep, 0, m_liveTable->rowCount() - 1), 0);
  showConfusion(m_liveTable->currentRow());
}

void AgreementView::showConfusion(int row) {
  if (!m_liveReport || row < 0 || std::size_t(row) >= m_liveRows.size() || m_liveRows[row] < 0) {
    m_confusion->clear();
    return;
  }
  const auto& a = m_liveReport->judgeVsHuman[std::size_t(m_liveRows[row])];
  QString h = tr("<p><b>%1 · %2 · %3</b><br>judge: %4<br>scale: %5<br>%6 pairs · accuracy %7 · "
                 "Cohen κ %8</p>")
                  .arg(html(std::string(core::labels::targetKindName(a.kind))), html(a.scope),
                       html(a.annotator), html(a.compared), html(a.scale))
                  .arg(a.n)
                  .arg(agreementNumber(a.accuracy), agreementNumber(a.kappa));
  const auto& c = a.confusion;
  if (!c.judge.empty() && !c.human.empty()) {
    h += tr("<table border='1' cellspacing='0' cellpadding='4'><tr><th>judge \\ human</th>");
    for (const auto& hc : c.human) h += QStringLiteral("<th>%1</th>").arg(html(hc));
    h += QStringLiteral("</tr>");
    for (std::size_t i = 0; i < c.judge.size(); ++i) {
      h += QStringLiteral("<tr><th>%1</th>").arg(html(c.judge[i]));
      for (std::size_t j = 0; j < c.human.size(); ++j) {
        const std::size_t n = i < c.counts.size() && j < c.counts[i].size() ? c.counts[i][j] : 0;
        const bool diagonal = c.judge[i] == c.human[j];
        h += QStringLiteral("<td align='right' style='background:%1'>%2</td>")
                 .arg(diagonal ? QStringLiteral("#dff0d8")
                               : (n ? QStringLiteral("#f8e0e0") : QStringLiteral("#ffffff")))
                 .arg(n);
      }
      h += QStringLiteral("</tr>");
    }
    h += QStringLiteral("</table>");
  } else if (a.correlation) {
    h += tr("<p>Pearson %1 · Spearman %2 · Kendall τb %3</p>")
             .arg(agreementNumber(a.correlation->pearson.value),
                  agreementNumber(a.correlation->spearman.value),
                  agreementNumber(a.correlation->kendallTauB.value));
  }
  m_confusion->setHtml(h);
}

}  // namespace ragscope::ui
