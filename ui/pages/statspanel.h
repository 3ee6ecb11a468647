#pragma once
// The statistics panel of a results table: one measure of one run (its per-query values), the
// bootstrap of its mean (B, s, level, percentile or BCa, seed) computed in the background with
// cancel, the figures (mean, bootstrap mean, SE, CI, n) and the bootstrap histogram with the mean
// and CI lines. B = 10,000 resamples of size s = n by default; VERA's setting (s = 50, B = 500) is
// one button away. The retrieval and eRAG pages open it when a measure column is selected.

#include <QString>
#include <QWidget>
#include <memory>
#include <string>
#include <vector>

#include "core/stats/bootstrap.h"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QSplitter;

namespace ragscope::core::eval {
struct PpiEstimate;
}

namespace ragscope::ui {

namespace charts {
class ChartWidget;
}
class StatsRunner;

class StatsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit StatsPanel(QWidget* parent = nullptr);
  ~StatsPanel() override;

  // The panel beside `results` in a splitter (returned, for the caller's layout), hidden until a
  // measure column is selected, and hidden again by its close button.
  QSplitter* placeBeside(QWidget* results);

  // Shows `measure` of `run` and starts its bootstrap (unless it is the sample already shown).
  void setSample(const QString& run, const QString& measure, std::vector<std::string> qids,
                 std::vector<double> values);
  void clear();
  void setResamples(int b);
  void setSampleSize(int s);  // 0 = n
  // The two settings a button away, each followed by a recompute: the default (B = 10,000,
  // s = n) and VERA's (s = 50, B = 500).
  static constexpr int kDefaultResamples = 10000;
  static constexpr int kVeraResamples = 500;
  static constexpr int kVeraSampleSize = 50;
  void useDefaultSetting();
  void useVeraSetting();
  void recompute();
  void cancel();
  bool isRunning() const;

  QString run() const { return m_run; }
  QString measure() const { return m_measure; }
  const core::stats::BootstrapResult& result() const { return m_result; }
  charts::ChartWidget* chart() const { return m_chart; }
  QString summaryText() const;
  // Human labels of the measure (core/stats/README.md, "Prediction-powered inference"): the
  // judge-only, human-only and PPI++ means of its items beside the bootstrap, or none (hidden).
  void setHumanLabels(const core::eval::PpiEstimate* estimate);
  QLabel* humanLabels() const { return m_human; }

 signals:
  void computed(bool ok);
  void closeRequested();

 private:
  void onFinished(bool cancelled);

  StatsRunner* m_job = nullptr;
  QString m_run;
  QString m_measure;
  std::vector<std::string> m_qids;
  std::vector<double> m_values;
  core::stats::BootstrapResult m_result;

  QLabel* m_title;
  QSpinBox* m_resamples;
  QSpinBox* m_sampleSize;
  QComboBox* m_level;
  QComboBox* m_method;
  QSpinBox* m_seed;
  QPushButton* m_default;
  QPushButton* m_vera;
  QPushButton* m_compute;
  QPushButton* m_cancel;
  QProgressBar* m_busy;
  QLabel* m_figures;
  QLabel* m_human = nullptr;
  charts::ChartWidget* m_chart;
};

}  // namespace ragscope::ui
