#include "ui/models/comparisonmodel.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <cmath>

#include "ui/models/evalsummarymodel.h"

namespace ragscope::ui {

QString formatP(double p) {
  if (!std::isfinite(p)) return QStringLiteral("–");
  if (p < 0.0001) return QStringLiteral("< 0.0001");
  if (p < 0.001) return QString::number(p, 'f', 4);
  return QString::number(p, 'f', 3);
}

ComparisonModel::ComparisonModel(QObject* parent) : QAbstractTableModel(parent) {}

void ComparisonModel::setRows(std::vector<ComparisonRow> rows, double level, double alpha) {
  beginResetModel();
  m_rows = std::move(rows);
  m_level = level;
  m_alpha = alpha;
  endResetModel();
}

const ComparisonRow* ComparisonModel::rowAt(int row) const {
  return row >= 0 && row < static_cast<int>(m_rows.size()) ? &m_rows[static_cast<std::size_t>(row)]
                                                           : nullptr;
}

int ComparisonModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ComparisonModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ComparisonModel::data(const QModelIndex& index, int role) const {
  const ComparisonRow* r = index.isValid() ? rowAt(index.row()) : nullptr;
  if (!r) return {};
  const auto& p = r->paired;
  const bool significant = r->pHolm <= m_alpha;
  if (role == Qt::TextAlignmentRole)
    return index.column() <= RunB ? int(Qt::AlignLeft | Qt::AlignVCenter)
                                  : int(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::BackgroundRole && index.column() == PHolm && significant)
    return QBrush(QColor(200, 235, 200));
  if (role == Qt::FontRole && index.column() == PHolm && significant) {
    QFont f;
    f.setBold(true);
    return f;
  }
  if (role == Qt::ToolTipRole) {
    switch (index.column()) {
      case P:
        return tr("Fisher randomization (sign-flip) test, %1")
            .arg(p.randomization.exact
                     ? tr("exact")
                     : tr("%1 random sign vectors").arg(p.randomization.permutations));
      case PHolm:
        return significant
                   ? tr("Significant at α = %1 after Holm's correction over all %2 comparisons")
                         .arg(m_alpha)
                         .arg(m_rows.size())
                   : tr("Not significant at α = %1 after Holm's correction").arg(m_alpha);
      case Wtl:
        return tr("Queries where A is better / equal / worse");
      case N:
        return p.unaligned() > 0 ? tr("%1 queries in only one run were left out").arg(p.unaligned())
                                 : QVariant();
      default:
        return {};
    }
  }
  if (role != Qt::DisplayRole && role != SortRole) return {};
  const bool sort = role == SortRole;
  auto number = [sort](double v, int decimals) -> QVariant {
    if (sort) return v;
    return std::isfinite(v) ? QString::number(v, 'f', decimals) : QStringLiteral("–");
  };
  switch (index.column()) {
    case Measure:
      return r->measure;
    case RunA:
      return r->runA;
    case RunB:
      return r->runB;
    case N:
      return sort ? QVariant(qulonglong(p.n)) : QVariant(QString::number(p.n));
    case MeanA:
      return number(p.meanA, 4);
    case MeanB:
      return number(p.meanB, 4);
    case Diff:
      if (sort) return p.meanDiff;
      return (p.meanDiff > 0 ? QStringLiteral("+") : QString()) +
             QString::number(p.meanDiff, 'f', 4);
    case Ci:
      return sort ? QVariant(p.ci.low) : QVariant(formatInterval(p.ci));
    case P:
      return sort ? QVariant(p.randomization.p) : QVariant(formatP(p.randomization.p));
    case PHolm:
      return sort ? QVariant(r->pHolm)
                  : QVariant(formatP(r->pHolm) + (significant ? QStringLiteral(" *") : QString()));
    case PT:
      return sort ? QVariant(p.ttest.p) : QVariant(formatP(p.ttest.p));
    case PTHolm:
      return sort ? QVariant(r->pTHolm) : QVariant(formatP(r->pTHolm));
    case Wtl:
      if (sort) return double(p.wins) - double(p.losses);
      return QStringLiteral("%1 / %2 / %3").arg(p.wins).arg(p.ties).arg(p.losses);
    case Tau:
      return number(r->correlation.kendall.value, 3);
    default:
      return {};
  }
}

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case RunA:
        return tr("The run with the higher mean");
      case Diff:
        return tr("Mean of the per-query differences A − B");
      case Ci:
        return tr("Paired bootstrap %1% CI of the mean difference").arg(m_level * 100, 0, 'g', 3);
      case P:
        return tr("Randomization test p-value (two-sided)");
      case PHolm:
        return tr("Randomization p, Holm-adjusted over every row; * = significant at α = %1")
            .arg(m_alpha);
      case PT:
        return tr("Paired t-test p-value (two-sided)");
      case PTHolm:
        return tr("t-test p, Holm-adjusted over every row");
      case Tau:
        return tr("Kendall's τ-b between the two runs' per-query values");
      default:
        return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case Measure:
      return tr("Measure");
    case RunA:
      return tr("Run A");
    case RunB:
      return tr("Run B");
    case N:
      return tr("n");
    case MeanA:
      return tr("Mean A");
    case MeanB:
      return tr("Mean B");
    case Diff:
      return tr("Δ (A − B)");
    case Ci:
      return tr("%1% CI").arg(m_level * 100, 0, 'g', 3);
    case P:
      return tr("p (rand.)");
    case PHolm:
      return tr("p Holm");
    case PT:
      return tr("p (t-test)");
    case PTHolm:
      return tr("p t Holm");
    case Wtl:
      return tr("W / T / L");
    case Tau:
      return tr("τ");
    default:
      return {};
  }
}

}  // namespace ragscope::ui
