#include "ui/pages/jobcontrols.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QStyle>
#include <QTimer>
#include <QVBoxLayout>

#include "ui/jobs/background.h"
#include "ui/jobs/retrieverjob.h"
#include "ui/jobsdock.h"
#include "ui/style.h"
#include "ui/textutil.h"

namespace ragscope::ui {

JobControls::JobControls(Options options, QWidget* parent)
    : QWidget(parent), m_debounce(new QTimer(this)) {
  setObjectName(QStringLiteral("JobControls"));
  m_pool.setMaxThreadCount(1);
  m_debounce->setSingleShot(true);
  m_debounce->setInterval(kEstimateDebounceMs);
  m_debounce->setTimerType(Qt::PreciseTimer);  // a coarse timer may fire 5 % early
  connect(m_debounce, &QTimer::timeout, this, &JobControls::estimateNow);
  const bool compact = options.parts & Compact;

  m_start = new QPushButton(options.startText, this);
  m_cancel = new QPushButton(tr("Cancel"), this);
  if (!compact) {
    m_start->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    m_cancel->setIcon(style()->standardIcon(QStyle::SP_MediaStop));
  }
  m_cancel->setEnabled(false);
  connect(m_start, &QPushButton::clicked, this, &JobControls::startRequested);
  connect(m_cancel, &QPushButton::clicked, this, &JobControls::cancelRequested);
  m_progress = new QProgressBar(this);
  m_progress->setVisible(false);
  m_status = new QLabel(this);
  m_status->setTextFormat(Qt::PlainText);  // errors quote servers and files: never HTML
  m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

  if (options.parts & WithBudget) {
    m_budgetRow = new QWidget(this);
    m_useBudget = new QCheckBox(tr("Pause before the cost exceeds"), m_budgetRow);
    m_budget = new QDoubleSpinBox(m_budgetRow);
    m_budget->setRange(0.0, 100000.0);
    m_budget->setPrefix(QStringLiteral("$"));
    m_budget->setValue(1.0);
    m_budget->setEnabled(false);
    connect(m_useBudget, &QCheckBox::toggled, m_budget, &QWidget::setEnabled);
    auto* budgetRow = new QHBoxLayout(m_budgetRow);
    budgetRow->setContentsMargins(0, 0, 0, 0);
    budgetRow->addWidget(m_useBudget);
    budgetRow->addWidget(m_budget);
    // Where an LLM job starts: its calls live, or as a batch at the endpoint's Batch API
    // (core/eval/engine/batchrun.h; the Jobs dock shows the batch's state).
    m_asBatch = new QCheckBox(tr("As batch"), m_budgetRow);
    m_asBatch->setObjectName(QStringLiteral("AsBatch"));
    m_asBatch->setToolTip(
        tr("Send the calls through the endpoint's Batch API (about half the "
           "price, results within 24 h); one batch per judging phase"));
    budgetRow->addSpacing(12);
    budgetRow->addWidget(m_asBatch);
    budgetRow->addStretch(1);
  }

  m_row = new QHBoxLayout;
  if (compact) {
    // [leading…] Start Cancel [progress] status
    m_progress->setMaximumWidth(160);
    m_row->setContentsMargins(0, 0, 0, 0);
    m_row->addWidget(m_start);
    m_row->addWidget(m_cancel);
    m_row->addWidget(m_progress);
    m_row->addWidget(m_status, 1);
    setLayout(m_row);
    return;
  }
  // Estimate: …            (WithEstimate)
  // [leading…] [progress] [trailing…] Cancel Start
  // status
  m_progress->setTextVisible(false);
  m_progress->setMaximumHeight(14);
  m_status->setWordWrap(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  if (options.parts & WithEstimate) {
    m_estimate = new QLabel(this);
    m_estimate->setWordWrap(true);
    m_estimate->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* title = new QLabel(tr("Estimate:"), this);
    title->setAlignment(Qt::AlignTop);
    auto* estimateRow = new QHBoxLayout;
    estimateRow->addWidget(title);
    estimateRow->addWidget(m_estimate, 1);
    layout->addLayout(estimateRow);
  }
  m_row->addStretch(1);  // the buttons keep their size when the progress bar is hidden
  m_row->addWidget(m_progress, 1);
  m_row->addWidget(m_cancel);
  m_row->addWidget(m_start);
  layout->addLayout(m_row);
  layout->addWidget(m_status);
}

JobControls::~JobControls() {
  m_estimateGeneration = -1;  // a finishing estimate is not shown
  m_pool.waitForDone();
}

void JobControls::addLeading(QWidget* widget, int stretch) {
  m_row->insertWidget(m_leadingAt++, widget, stretch);
}

void JobControls::addTrailing(QWidget* widget) {
  m_row->insertWidget(m_row->indexOf(m_cancel), widget);
}

bool JobControls::asBatch() const { return m_asBatch && m_asBatch->isChecked(); }

std::optional<double> JobControls::budgetUsd() const {
  if (!m_useBudget || !m_useBudget->isChecked()) return std::nullopt;
  return m_budget->value();
}

void JobControls::setBudget(std::optional<double> usd) {
  if (!m_useBudget) return;
  m_useBudget->setChecked(usd.has_value());
  if (usd) m_budget->setValue(*usd);
}

void JobControls::setBusy(bool busy, bool cancellable) {
  m_busy = busy;
  m_start->setEnabled(!busy && m_startEnabled);
  m_cancel->setEnabled(busy && cancellable);
  if (busy) {
    m_progress->setRange(0, 0);  // indeterminate until the job reports a total
    m_progress->setVisible(true);
  } else {
    m_progress->setVisible(false);
  }
}

void JobControls::setStartEnabled(bool on) {
  m_startEnabled = on;
  m_start->setEnabled(!m_busy && on);
}

void JobControls::setStatus(const QString& text, bool error) {
  m_error = error;
  m_status->setText(text);
  setErrorStyle(m_status, error);
}

void JobControls::fail(const QString& message) {
  setBusy(false);
  setStatus(message, true);
}

void JobControls::showProgress(const QString& stage, const core::eval::Progress& p,
                               std::optional<double> budgetUsd) {
  if (p.total) {
    m_progress->setRange(0, 1000);
    m_progress->setValue(int(1000.0 * double(p.done) / double(p.total)));
  }
  setStatus(tr("%1: %2").arg(stage, describeProgress(p, budgetUsd)));
}

void JobControls::showRetrievalProgress(bool indexing, quint64 done, quint64 total) {
  ui::showRetrievalProgress(m_progress, m_status, indexing, done, total);
}

void JobControls::scheduleEstimate() {
  if (!m_estimate) return;
  ++m_estimateGeneration;  // an estimate still running is superseded
  m_debounce->start();
}

bool JobControls::estimateNow() {
  m_debounce->stop();
  ++m_estimateGeneration;
  return m_estimator && m_estimator();
}

void JobControls::showEstimate(const QString& text, bool ok) {
  if (m_estimate) {
    m_estimate->setText(text);
    setErrorStyle(m_estimate, !ok);
  }
  emit estimateFinished(ok);
}

void JobControls::estimateJob(core::eval::JobSpec spec,
                              std::shared_ptr<const core::Dataset> dataset,
                              DescribeEstimate describe) {
  const int generation = m_estimateGeneration;
  if (m_estimate) {
    m_estimate->setText(tr("Estimating…"));
    setErrorStyle(m_estimate, false);
  }
  runInBackground(
      this, &m_pool,
      [spec = std::move(spec), dataset] { return core::eval::estimateJob(spec, *dataset); },
      [this, generation, describe = std::move(describe)](const core::eval::JobEstimate& e) {
        if (generation != m_estimateGeneration) return;  // superseded
        if (!e.error.empty())
          showEstimate(q(e.error), false);
        else
          showEstimate(describe(e), true);
      });
}

}  // namespace ragscope::ui
