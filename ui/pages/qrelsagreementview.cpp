#include "ui/pages/qrelsagreementview.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QThreadPool>
#include <QVBoxLayout>
#include <cmath>

#include "core/export/json.h"
#include "core/stats/runsummary.h"
#include "ui/delegates/heatmapdelegate.h"
#include "ui/jobs/background.h"
#include "ui/jobs/statsrunner.h"
#include "ui/models/confusionmodel.h"
#include "ui/models/systemagreementmodel.h"
#include "ui/outputguard.h"
#include "ui/pages/runlisteditor.h"
#include "ui/style.h"
#include "ui/textutil.h"
#include "ui/workbench.h"

namespace ragscope::ui {

namespace {

constexpr int kPathRole = Qt::UserRole;  // qrels choice: the file; empty = the dataset's
constexpr int kCellSize = 58;

// The CLI's default (app/cli/qrelsagreementcommand.cpp): nDCG@20, the first measure of the TREC
// 2024 RAG track's comparison of UMBRELA with NIST's assessors; the same default here gives the
// same figures as `ragscope-cli qrels-agreement` without --measure.
constexpr char kDefaultMeasure[] = "ndcg_cut_20";

QString fixed4(double v) {
  return std::isfinite(v) ? QString::number(v, 'f', 4) : QStringLiteral("–");
}

// "0.6667 (p = 0.1742)"; "–" when undefined (fewer than two systems, a constant side).
QString coefficientText(const core::stats::Coefficient& c) {
  if (!std::isfinite(c.value)) return QStringLiteral("–");
  return std::isfinite(c.p) ? QStringLiteral("%1 (p = %2)").arg(fixed4(c.value), fixed4(c.p))
                            : fixed4(c.value);
}

QLabel* figureLabel(QWidget* parent, const QString& name) {
  auto* label = new QLabel(QStringLiteral("–"), parent);
  label->setObjectName(name);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  QFont f = label->font();
  f.setBold(true);
  label->setFont(f);
  return label;
}

// A confusion matrix drawn as the eRAG heatmap is (HeatmapDelegate), in counts' shares.
QTableView* heatmapView(ConfusionModel* model, const QString& name, QWidget* parent) {
  auto* view = new QTableView(parent);
  view->setObjectName(name);
  view->setModel(model);
  view->setItemDelegate(new HeatmapDelegate(view, HeatmapDelegate::Scale::Share));
  view->setSelectionMode(QAbstractItemView::SingleSelection);
  view->setShowGrid(false);
  view->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  view->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  view->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  view->horizontalHeader()->setDefaultSectionSize(kCellSize);
  view->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  view->verticalHeader()->setDefaultSectionSize(kCellSize * 2 / 3);
  view->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
  return view;
}

// The matrix's whole extent, so that every cell shows without scrolling.
void fitHeatmap(QTableView* view) {
  const auto* model = view->model();
  const int frame = 2 * view->frameWidth();
  const int w = view->verticalHeader()->sizeHint().width() +
                model->columnCount() * view->horizontalHeader()->defaultSectionSize() + frame;
  const int h = view->horizontalHeader()->sizeHint().height() +
                model->rowCount() * view->verticalHeader()->defaultSectionSize() + frame;
  view->setFixedSize(w, h);
}

}  // namespace

QrelsAgreementView::QrelsAgreementView(Workbench* workbench, QWidget* parent)
    : QWidget(parent), m_workbench(workbench) {
  buildUi();
  m_runner = new StatsRunner({m_compare, nullptr, m_busy}, this);
  connect(m_workbench, &Workbench::datasetChanged, this, &QrelsAgreementView::refreshDatasetInputs);
  refreshDatasetInputs();
  clearFigures();
}

void QrelsAgreementView::buildUi() {
  auto* inputs =
      new QGroupBox(tr("Compare two qrels files (e.g. NIST's and an LLM assessor's)"), this);
  auto* form = new QFormLayout;
  auto qrelsRow = [&](QComboBox*& combo, const QString& label, const QString& tip) {
    combo = new QComboBox(inputs);
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(30);
    combo->setToolTip(tip);
    auto* browse = new QPushButton(tr("Qrels file…"), inputs);
    QComboBox* target = combo;
    connect(browse, &QPushButton::clicked, this, [this, target] { chooseQrels(target); });
    auto* row = new QHBoxLayout;
    row->addWidget(combo, 1);
    row->addWidget(browse);
    form->addRow(label, row);
  };
  qrelsRow(m_qrelsA, tr("Qrels A (rows):"), tr("The reference grades, e.g. NIST's"));
  qrelsRow(m_qrelsB, tr("Qrels B (columns):"), tr("The grades to check, e.g. an LLM assessor's"));

  m_runs = new RunListEditor(5, inputs);
  m_runs->list()->setToolTip(tr("The systems whose orderings under A and under B are compared"));
  form->addRow(tr("Runs:"), m_runs);

  m_measure = new QLineEdit(QString::fromLatin1(kDefaultMeasure), inputs);
  m_measure->setPlaceholderText(QString::fromLatin1(kDefaultMeasure));
  m_measure->setToolTip(
      tr("The measure that orders the systems: one column in any spelling eval takes "
         "(ndcg_cut_20, ndcg_cut.20, nDCG@20). Default nDCG@20, the TREC 2024 RAG track's."));
  m_level = new QSpinBox(inputs);
  m_level->setRange(1, core::trecrag::kTopGrade);
  m_level->setValue(core::trecrag::kDefaultBinaryLevel);
  m_level->setToolTip(
      tr("Relevant = grade >= level, for the binary kappa and the evaluation (-l; NDCG ignores "
         "it). 2, as TREC DL and the RAG tracks binarise."));
  m_complete = new QCheckBox(tr("Complete (-c)"), inputs);
  m_complete->setToolTip(tr("A query a run does not answer counts as 0"));
  auto* optionsRow = new QHBoxLayout;
  optionsRow->addWidget(m_measure, 1);
  optionsRow->addSpacing(12);
  optionsRow->addWidget(new QLabel(tr("Relevance level (-l):"), inputs));
  optionsRow->addWidget(m_level);
  optionsRow->addSpacing(12);
  optionsRow->addWidget(m_complete);
  form->addRow(tr("Measure:"), optionsRow);

  m_compare = new QPushButton(tr("Compare"), inputs);
  m_compare->setObjectName(QStringLiteral("QrelsAgreementCompare"));
  connect(m_compare, &QPushButton::clicked, this, &QrelsAgreementView::compute);
  m_save = new QPushButton(tr("Save JSON…"), inputs);
  m_save->setToolTip(tr("The document `ragscope-cli qrels-agreement --json` prints"));
  m_save->setEnabled(false);
  connect(m_save, &QPushButton::clicked, this, &QrelsAgreementView::saveJsonDialog);
  m_busy = new QProgressBar(inputs);
  m_busy->setRange(0, 0);
  m_busy->setMaximumWidth(120);
  m_busy->setVisible(false);
  m_status = new QLabel(inputs);
  m_status->setObjectName(QStringLiteral("QrelsAgreementStatus"));
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_status->setWordWrap(true);
  auto* actionRow = new QHBoxLayout;
  actionRow->addWidget(m_compare);
  actionRow->addWidget(m_save);
  actionRow->addWidget(m_busy);
  actionRow->addWidget(m_status, 1);
  form->addRow(actionRow);
  inputs->setLayout(form);

  // Grades: the figures, then both matrices as heatmaps.
  m_gradesBox = new QGroupBox(tr("Grades on the pairs both files judge"), this);
  auto* figures = new QGridLayout;
  m_pairs = figureLabel(m_gradesBox, QStringLiteral("pairs"));
  m_queries = figureLabel(m_gradesBox, QStringLiteral("queries"));
  m_kappa = figureLabel(m_gradesBox, QStringLiteral("kappa"));
  m_accuracy = figureLabel(m_gradesBox, QStringLiteral("accuracy"));
  m_binaryKappa = figureLabel(m_gradesBox, QStringLiteral("binary_kappa"));
  m_binaryAccuracy = figureLabel(m_gradesBox, QStringLiteral("binary_accuracy"));
  m_binaryCaption = new QLabel(m_gradesBox);
  m_kappa->setToolTip(
      tr("Unweighted Cohen's kappa on the grades 0..3: (p_o − p_e) / (1 − p_e), "
         "p_e from both files' marginals; – when undefined (p_e = 1)"));
  m_accuracy->setToolTip(tr("The share of the shared pairs given the same grade (p_o)"));
  m_binaryKappa->setToolTip(tr("Cohen's kappa on relevant (grade ≥ level) or not"));
  m_binaryCaption->setToolTip(m_binaryKappa->toolTip());
  int row = 0;
  auto addFigure = [&](const QString& caption, QLabel* value, int column) {
    auto* label = new QLabel(caption, m_gradesBox);
    label->setToolTip(value->toolTip());
    figures->addWidget(label, row, column * 2);
    figures->addWidget(value, row, column * 2 + 1);
  };
  addFigure(tr("Pairs both judge:"), m_pairs, 0);
  addFigure(tr("Queries both judge:"), m_queries, 1);
  ++row;
  addFigure(tr("Cohen's kappa (0..3):"), m_kappa, 0);
  addFigure(tr("Accuracy:"), m_accuracy, 1);
  ++row;
  figures->addWidget(m_binaryCaption, row, 0);
  figures->addWidget(m_binaryKappa, row, 1);
  figures->addWidget(new QLabel(tr("Accuracy:"), m_gradesBox), row, 2);
  figures->addWidget(m_binaryAccuracy, row, 3);
  figures->setColumnStretch(4, 1);
  figures->setHorizontalSpacing(10);

  m_grades = new ConfusionModel(this);
  m_binary = new ConfusionModel(this);
  m_gradesView = heatmapView(m_grades, QStringLiteral("QrelsGradesHeatmap"), m_gradesBox);
  m_binaryView = heatmapView(m_binary, QStringLiteral("QrelsBinaryHeatmap"), m_gradesBox);
  // Captions above, matrices below, both kept at the top left (the matrices have fixed sizes).
  auto* matrices = new QGridLayout;
  matrices->addWidget(new QLabel(tr("Confusion of grades (rows A, columns B)"), m_gradesBox), 0, 0);
  m_binaryMatrixCaption = new QLabel(m_gradesBox);
  matrices->addWidget(m_binaryMatrixCaption, 0, 2);
  matrices->addWidget(m_gradesView, 1, 0, Qt::AlignLeft | Qt::AlignTop);
  matrices->addWidget(m_binaryView, 1, 2, Qt::AlignLeft | Qt::AlignTop);
  matrices->setColumnMinimumWidth(1, 24);
  matrices->setColumnStretch(3, 1);
  auto* legend = mutedLabel();
  legend->setText(
      tr("Cell: the number of pairs with that grade in A and in B. Colour: the cell's share of its "
         "row (of the pairs A graded so, the share B graded each way), from white (none) to blue "
         "(all). The diagonal is agreement."));
  legend->setWordWrap(true);
  auto* gl = new QVBoxLayout(m_gradesBox);
  gl->addLayout(figures);
  gl->addSpacing(6);
  gl->addLayout(matrices);
  gl->addWidget(legend);
  gl->addStretch();

  // Systems: the means and ranks under both, the correlation of the two orderings, the swaps.
  m_systemsBox = new QGroupBox(tr("Systems ordered under A and under B"), this);
  m_systems = new SystemAgreementModel(this);
  auto* proxy = new QSortFilterProxyModel(this);
  proxy->setSourceModel(m_systems);
  proxy->setSortRole(SystemAgreementModel::SortRole);
  m_systemsView = new QTableView(m_systemsBox);
  m_systemsView->setObjectName(QStringLiteral("QrelsSystemsTable"));
  m_systemsView->setModel(proxy);
  m_systemsView->setSortingEnabled(true);
  m_systemsView->sortByColumn(-1, Qt::AscendingOrder);  // as given, until a header is clicked
  m_systemsView->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_systemsView->setAlternatingRowColors(true);
  m_systemsView->verticalHeader()->setVisible(false);
  m_systemsView->horizontalHeader()->setStretchLastSection(true);
  m_kendall = figureLabel(m_systemsBox, QStringLiteral("kendall"));
  m_spearman = figureLabel(m_systemsBox, QStringLiteral("spearman"));
  auto* correlation = new QHBoxLayout;
  correlation->addWidget(new QLabel(tr("Kendall's tau-b:"), m_systemsBox));
  correlation->addWidget(m_kendall);
  correlation->addSpacing(16);
  correlation->addWidget(new QLabel(tr("Spearman's rho:"), m_systemsBox));
  correlation->addWidget(m_spearman);
  correlation->addStretch();
  m_swaps = new QLabel(m_systemsBox);
  m_swaps->setObjectName(QStringLiteral("QrelsRankSwaps"));
  m_swaps->setWordWrap(true);
  m_swaps->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_systemsNote = mutedLabel();
  m_systemsNote->setParent(m_systemsBox);
  m_systemsNote->setWordWrap(true);
  auto* sl = new QVBoxLayout(m_systemsBox);
  sl->addWidget(m_systemsView, 1);
  sl->addLayout(correlation);
  sl->addWidget(m_swaps);
  sl->addWidget(m_systemsNote);

  auto* results = new QSplitter(Qt::Horizontal, this);
  results->addWidget(m_gradesBox);
  results->addWidget(m_systemsBox);
  // The grades' side has a natural width (fixed-size matrices); the systems' table takes the rest.
  results->setStretchFactor(0, 0);
  results->setStretchFactor(1, 1);

  // The inputs' problems, as core reports them: shown only when there are some.
  m_problemsBox = new QGroupBox(tr("Problems in the inputs"), this);
  m_problems = new QTextBrowser(m_problemsBox);
  m_problems->setObjectName(QStringLiteral("QrelsAgreementProblems"));
  m_problems->setMaximumHeight(8 * m_problems->fontMetrics().height());
  auto* pl = new QVBoxLayout(m_problemsBox);
  pl->setContentsMargins(4, 4, 4, 4);
  pl->addWidget(m_problems);
  m_problemsBox->setVisible(false);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(inputs);
  layout->addWidget(m_problemsBox);
  layout->addWidget(results, 1);
}

void QrelsAgreementView::refreshDatasetInputs() {
  const auto dataset = m_workbench->dataset();
  for (QComboBox* combo : {m_qrelsA, m_qrelsB}) {
    // The dataset's qrels first, then the files the user chose (kept).
    QStringList files;
    for (int i = 0; i < combo->count(); ++i)
      if (!combo->itemData(i, kPathRole).toString().isEmpty())
        files << combo->itemData(i, kPathRole).toString();
    const QString current = combo->currentData(kPathRole).toString();
    const bool hadCurrent = combo->currentIndex() >= 0;
    combo->clear();
    if (dataset && !dataset->qrels.byQuery.empty())
      combo->addItem(tr("Dataset qrels (%1 judgments, %2 queries)")
                         .arg(dataset->qrels.judgmentCount())
                         .arg(dataset->qrels.byQuery.size()),
                     QString());
    for (const QString& f : files) qrelsItem(combo, f);
    if (hadCurrent) {
      const int idx = combo->findData(current, kPathRole);
      if (idx >= 0) combo->setCurrentIndex(idx);
    }
  }

  // Runs: the dataset's replaced, added files kept.
  m_runs->setDatasetRuns(dataset.get());
}

int QrelsAgreementView::qrelsItem(QComboBox* combo, const QString& file) {
  int idx = combo->findData(file, kPathRole);
  if (idx < 0) {
    combo->addItem(QFileInfo(file).fileName(), file);
    idx = combo->count() - 1;
    combo->setItemData(idx, file, Qt::ToolTipRole);
  }
  return idx;
}

void QrelsAgreementView::chooseQrels(QComboBox* target) {
  const QString file = QFileDialog::getOpenFileName(this, tr("Qrels file (TREC format)"));
  if (file.isEmpty()) return;
  // Offered on both sides: the file chosen for B today may be A's reference tomorrow.
  qrelsItem(target == m_qrelsA ? m_qrelsB : m_qrelsA, file);
  target->setCurrentIndex(qrelsItem(target, file));
}

void QrelsAgreementView::setQrels(const QString& fileA, const QString& fileB) {
  for (auto [combo, file] : {std::pair{m_qrelsA, fileA}, std::pair{m_qrelsB, fileB}}) {
    const int idx = file.isEmpty() ? combo->findData(QString(), kPathRole) : qrelsItem(combo, file);
    if (idx >= 0) combo->setCurrentIndex(idx);
  }
}

void QrelsAgreementView::addRunFiles(const QStringList& files) { m_runs->addRunFiles(files); }

void QrelsAgreementView::setMeasure(const QString& measure) { m_measure->setText(measure); }
void QrelsAgreementView::setLevel(int level) { m_level->setValue(level); }
void QrelsAgreementView::setComplete(bool on) { m_complete->setChecked(on); }

bool QrelsAgreementView::compute() {
  auto refuse = [this](const QString& why) {
    m_status->setText(why);
    setErrorStyle(m_status, true);
    return false;
  };
  if (m_qrelsA->currentIndex() < 0 || m_qrelsB->currentIndex() < 0)
    return refuse(tr("Choose two qrels files (A and B), or load a dataset with judgments."));
  QrelsAgreementRequest request;
  request.dataset = m_workbench->dataset();
  request.qrelsA = m_qrelsA->currentData(kPathRole).toString().toStdString();
  request.qrelsB = m_qrelsB->currentData(kPathRole).toString().toStdString();
  const QString measureText = m_measure->text().trimmed().isEmpty()
                                  ? QString::fromLatin1(kDefaultMeasure)
                                  : m_measure->text().trimmed();
  auto measure = core::parseMeasureName(measureText.toStdString());
  if (!measure.ok()) return refuse(tr("Measure: %1").arg(q(measure.error)));
  if (measure.value.column().empty())
    return refuse(
        tr("Measure: '%1' yields several columns; give one (e.g. ndcg_cut_20)").arg(measureText));
  request.measure = std::move(measure.value);
  request.level = m_level->value();
  request.complete = m_complete->isChecked();
  QStringList inputs;
  for (const auto& f : {request.qrelsA, request.qrelsB})
    if (!f.empty()) inputs << q(f);
  RunListEditor::Choice runs = m_runs->chosen();
  request.datasetRuns = std::move(runs.datasetRuns);
  for (const QString& f : runs.files) request.runFiles.push_back(f.toStdString());
  inputs << runs.files;
  m_inputFiles = inputs;
  m_status->setText(tr("Comparing…"));
  setErrorStyle(m_status, false);
  m_runner->start<QrelsAgreementOutcome>(
      [request](QrelsAgreementOutcome& out, const std::atomic<bool>* cancel) {
        out = computeQrelsAgreement(request, cancel);
      },
      [this](QrelsAgreementOutcome out, bool cancelled) {
        show(std::make_shared<const QrelsAgreementOutcome>(std::move(out)), cancelled);
      });
  return true;
}

void QrelsAgreementView::clearFigures() {
  for (QLabel* l : {m_pairs, m_queries, m_kappa, m_accuracy, m_binaryKappa, m_binaryAccuracy,
                    m_kendall, m_spearman})
    l->setText(QStringLiteral("–"));
  const int level = m_level->value();
  m_binaryCaption->setText(tr("Binary kappa (grade ≥ %1):").arg(level));
  m_binaryMatrixCaption->setText(tr("Binary at level %1 (relevant = grade ≥ %1)").arg(level));
  QStringList grades;
  for (int g = 0; g <= core::trecrag::kTopGrade; ++g) grades << QString::number(g);
  m_grades->setBlank(grades, grades, QStringLiteral("A"), QStringLiteral("B"));
  const QStringList binary = {tr("< %1").arg(level), tr("≥ %1").arg(level)};
  m_binary->setBlank(binary, binary, QStringLiteral("A"), QStringLiteral("B"));
  fitHeatmap(m_gradesView);
  fitHeatmap(m_binaryView);
  m_systems->setSystems({});
  m_swaps->clear();
  m_systemsNote->setText(
      tr("Check runs above: each is evaluated under A and under B over the queries both files "
         "judge, and the two orderings are compared."));
}

void QrelsAgreementView::show(std::shared_ptr<const QrelsAgreementOutcome> outcome,
                              bool cancelled) {
  if (cancelled) {
    m_status->setText(tr("Cancelled."));
    setErrorStyle(m_status, false);
    return;
  }
  m_outcome = std::move(outcome);
  const QrelsAgreementOutcome& o = *m_outcome;
  showProblems(o);
  clearFigures();
  m_save->setEnabled(o.computed);
  if (!o.computed) {
    m_status->setText(tr("Not compared: %1").arg(q(o.error)));
    setErrorStyle(m_status, true);
    emit finished(false);
    return;
  }

  const auto& g = o.grades;
  const int level = g.level;
  m_pairs->setText(tr("%1  (only A: %2, only B: %3)").arg(g.shared).arg(g.onlyA).arg(g.onlyB));
  m_queries->setText(tr("%1  (only A: %2, only B: %3)")
                         .arg(g.queriesShared)
                         .arg(g.queriesOnlyA)
                         .arg(g.queriesOnlyB));
  m_kappa->setText(fixed4(g.kappa));
  m_accuracy->setText(fixed4(g.accuracy));
  m_binaryKappa->setText(fixed4(g.binaryKappa));
  m_binaryAccuracy->setText(fixed4(g.binaryAccuracy));
  m_binaryCaption->setText(tr("Binary kappa (grade ≥ %1):").arg(level));
  m_binaryMatrixCaption->setText(tr("Binary at level %1 (relevant = grade ≥ %1)").arg(level));
  QStringList grades;
  std::vector<std::vector<std::size_t>> counts;
  for (int a = 0; a <= core::trecrag::kTopGrade; ++a) {
    grades << QString::number(a);
    counts.emplace_back(g.grades[std::size_t(a)].begin(), g.grades[std::size_t(a)].end());
  }
  m_grades->setMatrix(grades, grades, std::move(counts), QStringLiteral("A"), QStringLiteral("B"));
  std::vector<std::vector<std::size_t>> binary;
  for (const auto& row : g.binary) binary.emplace_back(row.begin(), row.end());
  const QStringList sides = {tr("< %1").arg(level), tr("≥ %1").arg(level)};
  m_binary->setMatrix(sides, sides, std::move(binary), QStringLiteral("A"), QStringLiteral("B"));
  fitHeatmap(m_gradesView);
  fitHeatmap(m_binaryView);

  if (o.systems) {
    const auto& s = *o.systems;
    m_systems->setSystems(s.systems);
    m_systemsView->resizeColumnsToContents();
    m_kendall->setText(coefficientText(s.correlation.kendall));
    m_spearman->setText(coefficientText(s.correlation.spearman));
    QStringList swaps;
    for (const auto& w : o.swaps)
      swaps << tr("%1: %2 → %3")
                   .arg(html(w.name), SystemAgreementModel::rankText(w.rankA),
                        SystemAgreementModel::rankText(w.rankB));
    m_swaps->setText(swaps.isEmpty() ? tr("No system changed its rank between A and B.")
                                     : tr("<b>Largest rank swaps</b> (rank under A → under B): %1")
                                           .arg(swaps.join(QStringLiteral(" · "))));
    m_systemsNote->setText(
        tr("%1 at -l %2%3, over the %4 queries both files judge; %5 systems; rank 1 = the highest "
           "mean, tied means share their mean rank; no bootstrap.")
            .arg(q(s.measure))
            .arg(level)
            .arg(m_complete->isChecked() ? tr(" -c") : QString())
            .arg(s.sharedQueries)
            .arg(s.systems.size()));
  }

  if (!o.error.empty()) {
    m_status->setText(q(o.error));
    setErrorStyle(m_status, true);
  } else {
    m_status->setText(tr("%n pair(s) compared", nullptr, int(g.shared)) +
                      (o.systems
                           ? tr(", %n system(s) ordered", nullptr, int(o.systems->systems.size()))
                           : QString()) +
                      QLatin1Char('.'));
    setOutcomeStyle(m_status, true);
  }
  emit finished(o.ok());
}

void QrelsAgreementView::showProblems(const QrelsAgreementOutcome& o) {
  QString text;
  for (const auto& d : o.problems) {
    const QString line = html(d.toString());
    text += d.severity == core::Severity::Error ? errorHtml(line, "p")
                                                : QStringLiteral("<p>%1</p>").arg(line);
  }
  if (o.unlisted > 0) text += tr("<p>… and %n more</p>", nullptr, int(o.unlisted));
  m_problems->setHtml(text);
  m_problemsBox->setVisible(!o.problems.empty());
}

QString QrelsAgreementView::figureText(const QString& name) const {
  for (QLabel* l : {m_pairs, m_queries, m_kappa, m_accuracy, m_binaryKappa, m_binaryAccuracy,
                    m_kendall, m_spearman})
    if (l->objectName() == name) return l->text();
  return {};
}

void QrelsAgreementView::saveJsonDialog() {
  const QString file = QFileDialog::getSaveFileName(this, tr("Save the qrels agreement as"),
                                                    QString(), tr("JSON (*.json)"));
  if (!file.isEmpty()) saveJson(file);
}

bool QrelsAgreementView::saveJson(const QString& file) {
  auto fail = [this](const QString& message) {
    m_status->setText(message);
    setErrorStyle(m_status, true);
    emit saved(false, message);
    return false;
  };
  if (!m_outcome || !m_outcome->computed) return fail(tr("Nothing to save: compare first."));
  auto inputs = workbenchInputs(*m_workbench);
  for (const QString& f : m_inputFiles)
    inputs.push_back({"input", f.toStdString(), core::PathUse::Read});
  if (const QString why = refusedOutput(file, inputs); !why.isEmpty())
    return fail(tr("Not saved: %1").arg(why));
  runInBackground(
      this, QThreadPool::globalInstance(),
      [outcome = m_outcome, path = file.toStdString()] {
        std::string error;
        core::exporting::writeJsonFile(path, outcome->json(), &error);
        return error;
      },
      [this, file](std::string error) {
        const bool ok = error.empty();
        const QString message =
            ok ? tr("Saved %1").arg(QFileInfo(file).fileName()) : tr("Not saved: %1").arg(q(error));
        m_status->setText(message);
        setOutcomeStyle(m_status, ok);
        emit saved(ok, message);
      });
  return true;
}

}  // namespace ragscope::ui
