#pragma once
// Rows of a run comparison: one per (measure, pair of runs), the better run first. Mean of each,
// the mean difference with its paired bootstrap CI, the randomization (sign-flip) p-value raw and
// Holm-adjusted over every row, the paired t-test p (raw and Holm), wins/ties/losses per query and
// Kendall's tau between the runs' per-query values. Numbers sort numerically through SortRole.

#include <QAbstractTableModel>
#include <QString>
#include <string>
#include <vector>

#include "core/stats/correlation.h"
#include "core/stats/paired.h"

namespace ragscope::ui {

struct ComparisonRow {
  QString measure;
  QString runA;  // the run with the higher mean
  QString runB;
  std::vector<std::string> qids;  // aligned queries; a[i], b[i] in `sample`
  std::vector<double> a;
  std::vector<double> b;
  core::stats::PairedResult paired;  // A minus B
  core::stats::CorrelationResult correlation;
  double pHolm = 1.0;   // randomization p, Holm over all rows
  double pTHolm = 1.0;  // t-test p, Holm over all rows
};

class ComparisonModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int SortRole = Qt::UserRole;
  enum Column {
    Measure,
    RunA,
    RunB,
    N,
    MeanA,
    MeanB,
    Diff,
    Ci,
    P,
    PHolm,
    PT,
    PTHolm,
    Wtl,
    Tau,
    ColumnCount
  };

  explicit ComparisonModel(QObject* parent = nullptr);

  void setRows(std::vector<ComparisonRow> rows, double level, double alpha);
  const std::vector<ComparisonRow>& rows() const { return m_rows; }
  const ComparisonRow* rowAt(int row) const;
  double alpha() const { return m_alpha; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::vector<ComparisonRow> m_rows;
  double m_level = 0.95;
  double m_alpha = 0.05;
};

// "0.0001", "< 0.0001", "0.034": p-values as people read them.
QString formatP(double p);

}  // namespace ragscope::ui
