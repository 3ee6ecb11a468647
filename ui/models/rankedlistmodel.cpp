#include "ui/models/rankedlistmodel.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <string>
#include <unordered_map>

#include "core/metrics/doclevel.h"

namespace ragscope::ui {

QColor RankedListModel::gradeColor(int grade, int relevanceLevel) {
  if (grade >= relevanceLevel) {
    // Relevant: deeper green for higher grades.
    const int shade = std::max(150, 225 - 30 * (grade - relevanceLevel));
    return QColor(shade - 40, 235, shade - 40);
  }
  // Judged below the level: grade 0 (and below) red, partly relevant grades (TREC DL's 1 at -l 2)
  // amber, lighter towards the level, so a "near miss" is told apart from a true non-relevant.
  if (grade <= 0) return QColor(245, 222, 222);
  return QColor(250, std::min(248, 226 + 10 * (grade - 1)), 190);
}

RankedListModel::RankedListModel(QObject* parent) : QAbstractTableModel(parent) {}

void RankedListModel::setRanking(std::shared_ptr<const core::Run> run, const core::Ranking* ranking,
                                 const std::vector<core::Judgment>* judgments, int relevanceLevel,
                                 std::optional<std::size_t> maxDepth, const core::Corpus* corpus) {
  beginResetModel();
  m_run = std::move(run);
  m_docs =
      ranking ? core::rankedList(*ranking, judgments, maxDepth) : std::vector<core::RankedDoc>{};
  m_corpus = corpus;
  m_level = relevanceLevel;
  m_sameDocumentAs.clear();
  endResetModel();
}

void RankedListModel::markRepeatedDocuments() {
  std::unordered_map<std::string, std::size_t> firstRank;
  m_sameDocumentAs.assign(m_docs.size(), 0);
  for (std::size_t i = 0; i < m_docs.size(); ++i) {
    const auto [it, first] =
        firstRank.emplace(core::chunkDocumentId(m_docs[i].docId), m_docs[i].rank);
    if (!first) m_sameDocumentAs[i] = it->second;
  }
  if (!m_docs.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void RankedListModel::clear() {
  beginResetModel();
  m_docs.clear();
  m_sameDocumentAs.clear();
  m_run.reset();
  m_corpus = nullptr;
  endResetModel();
}

int RankedListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(m_docs.size());
}

int RankedListModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant RankedListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const core::RankedDoc& d = m_docs[index.row()];
  const std::size_t sameAs = m_sameDocumentAs.empty() ? 0 : m_sameDocumentAs[index.row()];
  // A repeated document does not count at document level: shown like an unjudged row.
  const bool judged = d.rel.has_value() && *d.rel >= 0 && sameAs == 0;
  if (role == Qt::BackgroundRole) return judged ? QBrush(gradeColor(*d.rel, m_level)) : QVariant();
  if (role == Qt::FontRole && !judged) {
    QFont f;
    f.setItalic(true);
    return f;
  }
  if (role == Qt::ForegroundRole && !judged) return QBrush(QColor(110, 110, 110));
  switch (index.column()) {
    case Rank:
      if (role == Qt::DisplayRole || role == SortRole) return static_cast<qulonglong>(d.rank);
      break;
    case DocId:
      if (role == Qt::DisplayRole || role == SortRole)
        return QString::fromUtf8(d.docId.data(), static_cast<int>(d.docId.size()));
      if (role == Qt::ToolTipRole) return tr("Run file line %1").arg(d.line);
      break;
    case Score:
      if (role == Qt::DisplayRole) return QString::number(d.score, 'g', 8);
      if (role == SortRole) return d.score;
      break;
    case Grade:
      if (role == Qt::DisplayRole) {
        if (sameAs) return tr("not counted: document at rank %1").arg(sameAs);
        if (!d.rel) return tr("unjudged");
        if (*d.rel < 0) return tr("%1 (unjudged)").arg(*d.rel);
        return *d.rel >= m_level ? tr("%1 relevant").arg(*d.rel) : tr("%1").arg(*d.rel);
      }
      if (role == SortRole) return d.rel ? *d.rel : -1000;
      break;
    case Text:
      if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        const auto doc = m_corpus ? m_corpus->find(d.docId) : std::nullopt;
        if (!doc) return role == Qt::DisplayRole ? tr("(not in the loaded corpus)") : QVariant();
        QString text = QString::fromStdString(doc->textPrefix(2000));
        if (role == Qt::DisplayRole && text.size() > 200) text = text.left(200) + QChar(0x2026);
        return text.simplified();
      }
      break;
  }
  if (role == Qt::TextAlignmentRole && (index.column() == Rank || index.column() == Score))
    return int(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant RankedListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Rank:
      return tr("Rank");
    case DocId:
      return tr("Document");
    case Score:
      return tr("Score");
    case Grade:
      return tr("Grade");
    case Text:
      return tr("Text");
  }
  return {};
}

}  // namespace ragscope::ui
