#include "ui/pages/statspanel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>
#include <cmath>
#include <memory>

#include "ui/charts/chartwidget.h"
#include "ui/jobs/statsrunner.h"
#include "ui/models/runvalues.h"
#include "ui/pages/formwidgets.h"
#include "ui/pages/ppisummary.h"

namespace ragscope::ui {

namespace stats = core::stats;

StatsPanel::StatsPanel(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("StatsPanel"));
  m_title = new QLabel(tr("Select a measure column to see its statistics."), this);
  m_title->setWordWrap(true);
  auto* close = new QToolButton(this);
  close->setIcon(style()->standardIcon(QStyle::SP_TitleBarCloseButton));
  close->setAutoRaise(true);
  close->setToolTip(tr("Close the statistics panel"));
  connect(close, &QToolButton::clicked, this, &StatsPanel::closeRequested);
  auto* titleRow = new QHBoxLayout;
  titleRow->addWidget(m_title, 1);
  titleRow->addWidget(close, 0, Qt::AlignTop);

  m_resamples = resamplesSpin(this);
  m_resamples->setSingleStep(1000);
  m_resamples->setValue(kDefaultResamples);
  m_resamples->setToolTip(tr("Number of bootstrap resamples (B)"));
  m_sampleSize = sampleSizeSpin(tr("n"), this);
  m_sampleSize->setToolTip(
      tr("Resample size s; n = the number of queries (VERA used s = 50, B = 500)"));
  m_level = levelCombo(this);
  m_method = new QComboBox(this);
  m_method->addItem(tr("percentile"), int(stats::CiMethod::Percentile));
  m_method->addItem(tr("BCa"), int(stats::CiMethod::Bca));
  m_seed = seedSpin(this);

  auto* row1 = new QHBoxLayout;
  row1->addWidget(new QLabel(tr("B"), this));
  row1->addWidget(m_resamples, 1);
  row1->addWidget(new QLabel(tr("s"), this));
  row1->addWidget(m_sampleSize, 1);
  auto* row2 = new QHBoxLayout;
  row2->addWidget(new QLabel(tr("level"), this));
  row2->addWidget(m_level);
  row2->addWidget(m_method);
  row2->addWidget(new QLabel(tr("seed"), this));
  row2->addWidget(m_seed, 1);

  m_default = new QPushButton(tr("Default"), this);
  m_default->setToolTip(tr("B = 10,000 resamples of size s = n"));
  connect(m_default, &QPushButton::clicked, this, &StatsPanel::useDefaultSetting);
  m_vera = new QPushButton(tr("VERA (s = 50, B = 500)"), this);
  m_vera->setToolTip(tr("VERA's setting: B = 500 resamples of s = 50 queries each"));
  connect(m_vera, &QPushButton::clicked, this, &StatsPanel::useVeraSetting);
  auto* presets = new QHBoxLayout;
  presets->addWidget(new QLabel(tr("Setting"), this));
  presets->addWidget(m_default);
  presets->addWidget(m_vera);
  presets->addStretch(1);

  m_compute = new QPushButton(tr("Recompute"), this);
  connect(m_compute, &QPushButton::clicked, this, &StatsPanel::recompute);
  m_cancel = new QPushButton(tr("Cancel"), this);
  connect(m_cancel, &QPushButton::clicked, this, &StatsPanel::cancel);
  m_busy = new QProgressBar(this);
  m_busy->setRange(0, 0);
  m_busy->setMaximumHeight(12);
  m_busy->setTextVisible(false);
  m_job = new StatsRunner({m_compute, m_cancel, m_busy}, this);
  auto* row3 = new QHBoxLayout;
  row3->addWidget(m_compute);
  row3->addWidget(m_cancel);
  row3->addWidget(m_busy, 1);

  m_figures = new QLabel(this);
  m_figures->setTextFormat(Qt::RichText);
  m_figures->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_figures->setWordWrap(true);

  m_chart = new charts::ChartWidget(this);
  m_chart->setPlaceholder(tr("The bootstrap distribution appears here."));

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addLayout(titleRow);
  layout->addLayout(presets);
  layout->addLayout(row1);
  layout->addLayout(row2);
  layout->addLayout(row3);
  layout->addWidget(m_figures);
  m_human = new QLabel(this);
  m_human->setObjectName(QStringLiteral("StatsHumanLabels"));
  m_human->setTextFormat(Qt::RichText);
  m_human->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_human->setWordWrap(true);
  m_human->setVisible(false);
  layout->addWidget(m_human);
  layout->addWidget(m_chart, 1);
  setMinimumWidth(340);
}

StatsPanel::~StatsPanel() = default;

void StatsPanel::setHumanLabels(const core::eval::PpiEstimate* e) {
  m_human->setVisible(e != nullptr);
  if (!e) {
    m_human->clear();
    return;
  }
  const auto& r = e->result;
  auto row = [](const QString& name, double mean, double low, double high) {
    return QStringLiteral("<tr><td>%1</td><td align='right'>%2</td></tr>")
        .arg(name, meanWithInterval(mean, low, high));
  };
  QString h = tr("<b>Human labels</b> on %1 of %2 %3 (over items, not per query):")
                  .arg(e->items.labelled())
                  .arg(e->items.items())
                  .arg(QString::fromStdString(e->items.description).toHtmlEscaped());
  h += QStringLiteral("<table cellpadding='2'>");
  h += row(tr("judge only"), r.judgeOnly.mean, r.judgeOnly.ci.low, r.judgeOnly.ci.high);
  h += row(tr("human only"), r.humanOnly.mean, r.humanOnly.ci.low, r.humanOnly.ci.high);
  if (r.ok())
    h += row(tr("PPI++ (λ %1)").arg(r.lambda, 0, 'f', 3), r.estimate, r.ci.low, r.ci.high);
  else
    h += QStringLiteral("<tr><td>PPI++</td><td>%1</td></tr>")
             .arg(QString::fromStdString(r.error).toHtmlEscaped());
  h += QStringLiteral("</table>");
  m_human->setText(h);
}

QSplitter* StatsPanel::placeBeside(QWidget* results) {
  setVisible(false);
  connect(this, &StatsPanel::closeRequested, this, [this] { setVisible(false); });
  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(results);
  split->addWidget(this);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setCollapsible(1, false);
  return split;
}

void StatsPanel::setResamples(int b) { m_resamples->setValue(b); }
void StatsPanel::setSampleSize(int s) { m_sampleSize->setValue(s); }
void StatsPanel::useDefaultSetting() {
  m_resamples->setValue(kDefaultResamples);
  m_sampleSize->setValue(0);
  recompute();
}

void StatsPanel::useVeraSetting() {
  m_resamples->setValue(kVeraResamples);
  m_sampleSize->setValue(kVeraSampleSize);
  recompute();
}

bool StatsPanel::isRunning() const { return m_job->isRunning(); }

void StatsPanel::cancel() { m_job->cancel(); }

void StatsPanel::clear() {
  m_job->forget();
  m_run.clear();
  m_measure.clear();
  m_values.clear();
  m_qids.clear();
  m_result = {};
  m_title->setText(tr("Select a measure column to see its statistics."));
  m_figures->clear();
  setHumanLabels(nullptr);
  m_chart->setPlaceholder(tr("The bootstrap distribution appears here."));
}

void StatsPanel::setSample(const QString& run, const QString& measure,
                           std::vector<std::string> qids, std::vector<double> values) {
  if (run == m_run && measure == m_measure && values == m_values) return;
  m_run = run;
  m_measure = measure;
  m_qids = std::move(qids);
  m_values = std::move(values);
  m_title->setText(tr("<b>%1</b> of <b>%2</b>").arg(measure.toHtmlEscaped(), run.toHtmlEscaped()));
  recompute();
}

void StatsPanel::recompute() {
  if (m_values.empty()) return;
  stats::BootstrapOptions o;
  o.resamples = static_cast<std::size_t>(m_resamples->value());
  o.sampleSize = static_cast<std::size_t>(m_sampleSize->value());
  o.level = m_level->currentData().toDouble();
  o.method = static_cast<stats::CiMethod>(m_method->currentData().toInt());
  o.seed = static_cast<std::uint64_t>(m_seed->value());
  m_chart->setPlaceholder(
      tr("Computing %1 resamples…").arg(QLocale().toString(qulonglong(o.resamples))));
  m_job->start<stats::BootstrapResult>(
      [values = m_values, o](stats::BootstrapResult& out, const std::atomic<bool>* cancel) mutable {
        o.cancel = cancel;
        out = stats::bootstrap(values, o);
      },
      [this](stats::BootstrapResult result, bool cancelled) {
        m_result = std::move(result);
        onFinished(cancelled);
      });
}

void StatsPanel::onFinished(bool cancelled) {
  const bool ok = !cancelled && m_result.ok();
  if (!ok) {
    m_figures->setText(
        cancelled || m_result.cancelled
            ? tr("Cancelled.")
            : tr("Cannot bootstrap: %1").arg(QString::fromStdString(m_result.error)));
    m_chart->setPlaceholder(tr("No distribution."));
    emit computed(false);
    return;
  }
  m_figures->setText(summaryText());
  charts::BootstrapChart spec;
  const QString label = measureLabel(m_measure);
  // The run on a line of its own: rank_llm's labels ("rank (SPLADE_P_P_ENSEMBLE_DISTIL/...)")
  // made one line too wide for the panel, and Qt Charts elides titles.
  spec.title = tr("Bootstrap of mean %1<br>%2").arg(label.toHtmlEscaped(), m_run.toHtmlEscaped());
  spec.valueTitle = tr("mean %1 per resample (s = %2)").arg(label).arg(m_result.sampleSize);
  spec.distribution = m_result.distribution;
  spec.mean = m_result.mean;
  spec.ciLow = m_result.ci.low;
  spec.ciHigh = m_result.ci.high;
  spec.level = m_result.level;
  m_chart->setSpec(std::move(spec));
  emit computed(true);
}

QString StatsPanel::summaryText() const {
  const auto& r = m_result;
  if (!r.ok()) return {};
  const QLocale locale;
  return tr("mean <b>%1</b> &nbsp; %2% CI <b>[%3, %4]</b> &nbsp; n = <b>%5</b><br>"
            "bootstrap mean %6, SE %7 (variance %8)<br>"
            "<span style='color:gray'>B = %9, s = %10, %11, seed %12</span>")
      .arg(r.observedMean, 0, 'f', 4)
      .arg(r.level * 100, 0, 'g', 3)
      .arg(r.ci.low, 0, 'f', 4)
      .arg(r.ci.high, 0, 'f', 4)
      .arg(r.n)
      .arg(r.mean, 0, 'f', 4)
      .arg(r.standardError, 0, 'f', 4)
      .arg(r.variance, 0, 'g', 3)
      .arg(locale.toString(qulonglong(r.resamples)))
      .arg(r.sampleSize)
      .arg(r.method == stats::CiMethod::Bca ? tr("BCa") : tr("percentile"))
      .arg(r.seed);
}

}  // namespace ragscope::ui
