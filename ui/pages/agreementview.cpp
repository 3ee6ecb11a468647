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
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>

#include "core/claims/agreementreport.h"
#include "ui/charts/chartwidget.h"
#include "ui/style.h"
#include "ui/textutil.h"

namespace ragscope::ui {

namespace {

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
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(csv);
  buttons->addWidget(meta);
  buttons->addStretch(1);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(m_table);
  split->addWidget(m_scatter);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 3);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(buttons);
  layout->addWidget(m_status);
  layout->addWidget(split, 1);
}

void AgreementView::setReport(std::shared_ptr<const core::eval::JudgeReport> report) {
  m_report = std::move(report);
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

}  // namespace ragscope::ui
