#include "ui/models/systemagreementmodel.h"

#include <cmath>

#include "ui/textutil.h"

namespace ragscope::ui {

SystemAgreementModel::SystemAgreementModel(QObject* parent) : QAbstractTableModel(parent) {}

int SystemAgreementModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_systems.size());
}

int SystemAgreementModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QString SystemAgreementModel::meanText(double v) {
  return std::isfinite(v) ? QString::number(v, 'f', 4) : QStringLiteral("–");
}

QString SystemAgreementModel::rankText(double r) {
  return r == std::floor(r) ? QString::number(static_cast<long long>(r))
                            : QString::number(r, 'f', 1);
}

QVariant SystemAgreementModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const auto& s = m_systems[std::size_t(index.row())];
  const double difference = s.underB - s.underA;
  // Positive: the system moved up (a smaller rank number) under B.
  const double move = s.rankA - s.rankB;
  if (role == Qt::EditRole || role == SortRole) {
    switch (index.column()) {
      case Name:
        return q(s.name);
      case MeanA:
        return std::isfinite(s.underA) ? QVariant(s.underA) : QVariant();
      case MeanB:
        return std::isfinite(s.underB) ? QVariant(s.underB) : QVariant();
      case Difference:
        return std::isfinite(difference) ? QVariant(difference) : QVariant();
      case RankA:
        return s.rankA;
      case RankB:
        return s.rankB;
      case RankMove:
        return move;
      default:
        return {};
    }
  }
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case Name:
        return q(s.name);
      case MeanA:
        return meanText(s.underA);
      case MeanB:
        return meanText(s.underB);
      case Difference:
        return std::isfinite(difference) ? QString::asprintf("%+.4f", difference)
                                         : QStringLiteral("–");
      case RankA:
        return rankText(s.rankA);
      case RankB:
        return rankText(s.rankB);
      case RankMove:
        if (move == 0.0) return QStringLiteral("=");
        return (move > 0 ? QStringLiteral("▲ ") : QStringLiteral("▼ ")) + rankText(std::abs(move));
      default:
        return {};
    }
  }
  if (role == Qt::TextAlignmentRole && index.column() != Name)
    return int(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole && index.column() == RankMove && move != 0.0)
    return tr("rank %1 under A, %2 under B").arg(rankText(s.rankA), rankText(s.rankB));
  return {};
}

QVariant SystemAgreementModel::headerData(int section, Qt::Orientation orientation,
                                          int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::DisplayRole) {
    switch (section) {
      case Name:
        return tr("Run");
      case MeanA:
        return tr("Mean under A");
      case MeanB:
        return tr("Mean under B");
      case Difference:
        return tr("B − A");
      case RankA:
        return tr("Rank A");
      case RankB:
        return tr("Rank B");
      case RankMove:
        return tr("Rank change");
      default:
        return {};
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case RankA:
      case RankB:
        return tr("1 = the highest mean; tied means share the mean of their ranks");
      case RankMove:
        return tr("▲ moved up under B, ▼ moved down, = kept its rank");
      default:
        return {};
    }
  }
  return {};
}

void SystemAgreementModel::setSystems(std::vector<core::trecrag::SystemScore> systems) {
  beginResetModel();
  m_systems = std::move(systems);
  endResetModel();
}

}  // namespace ragscope::ui
