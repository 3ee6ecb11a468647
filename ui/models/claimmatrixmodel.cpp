#include "ui/models/claimmatrixmodel.h"

#include "core/eval/jobs/claimverdicts.h"
#include "ui/models/heatmapmodel.h"

namespace ragscope::ui {

using core::claims::Label;

ClaimMatrixModel::ClaimMatrixModel(QObject* parent) : QAbstractTableModel(parent) {}

void ClaimMatrixModel::setQuery(const core::eval::JudgedQuery* query) {
  beginResetModel();
  m_query = query;
  m_matrix = query && core::eval::hasClaimChunkMatrix(*query);
  endResetModel();
}

int ClaimMatrixModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_matrix ? 0 : int(m_query->responseClaims.claims.size());
}
int ClaimMatrixModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_matrix ? 0 : int(m_query->chunks.size());
}

QString ClaimMatrixModel::labelLetter(Label label) {
  switch (label) {
    case Label::Supported:
      return QStringLiteral("S");
    case Label::Unsupported:
      return QStringLiteral("U");
    case Label::Entailment:
      return QStringLiteral("E");
    case Label::Neutral:
      return QStringLiteral("N");
    case Label::Contradiction:
      return QStringLiteral("C");
    case Label::Unparsed:
      return QStringLiteral("?");
    case Label::Error:
      return QStringLiteral("!");
  }
  return {};
}

std::optional<double> ClaimMatrixModel::labelValue(Label label) {
  if (!core::claims::isResolved(label)) return std::nullopt;
  if (core::claims::isSupported(label)) return 1.0;
  return label == Label::Neutral ? 0.5 : 0.0;
}

QVariant ClaimMatrixModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  const auto label =
      core::eval::claimVsChunk(*m_query, std::size_t(index.row()), std::size_t(index.column()));
  switch (role) {
    case Qt::DisplayRole:
      return label ? labelLetter(*label) : QStringLiteral("–");
    case HeatmapModel::LabelRole: {
      const auto v = label ? labelValue(*label) : std::nullopt;
      return v ? QVariant(*v) : QVariant();
    }
    case Qt::ToolTipRole:
      return tr("Claim %1 vs %2: %3\n%4")
          .arg(index.row() + 1)
          .arg(QString::fromStdString(m_query->chunks[std::size_t(index.column())].id))
          .arg(label ? QString::fromUtf8(core::claims::labelName(*label)) : tr("not judged"))
          .arg(QString::fromStdString(m_query->responseClaims.claims[std::size_t(index.row())]));
    case Qt::TextAlignmentRole:
      return int(Qt::AlignCenter);
    default:
      return {};
  }
}

QVariant ClaimMatrixModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (!m_matrix) return {};
  if (orientation == Qt::Horizontal) {
    if (section < 0 || section >= columnCount()) return {};
    const auto relevant = core::eval::chunkRelevant(*m_query, std::size_t(section));
    const QString id = QString::fromStdString(m_query->chunks[std::size_t(section)].id);
    if (role == Qt::DisplayRole)
      return tr("%1\n%2")
          .arg(section + 1)
          .arg(!relevant   ? tr("relevance ?")
               : *relevant ? tr("relevant ✓")
                           : tr("irrelevant"));
    if (role == Qt::ToolTipRole)
      return tr("Chunk %1 (%2)%3\n\n%4")
          .arg(section + 1)
          .arg(id)
          .arg(!relevant   ? tr(": its relevance was not judged")
               : *relevant ? tr(": relevant, it supports a gold-answer claim")
                           : tr(": supports no gold-answer claim"))
          .arg(QString::fromStdString(m_query->chunks[std::size_t(section)].text).left(600));
    return {};
  }
  if (section < 0 || section >= rowCount()) return {};
  if (role == Qt::DisplayRole) return tr("claim %1").arg(section + 1);
  if (role == Qt::ToolTipRole)
    return QString::fromStdString(m_query->responseClaims.claims[std::size_t(section)]);
  return {};
}

}  // namespace ragscope::ui
