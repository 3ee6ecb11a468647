#include "ui/models/rankedlistmodel.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <string>
#include <unordered_map>

#include "core/metrics/doclevel.h"
#include "ui/labelbook.h"

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
  m_qid = ranking ? ranking->queryId : std::string();
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
  m_qid.clear();
  endResetModel();
}

void RankedListModel::setHumanLabels(std::shared_ptr<const LabelSnapshot> labels, std::string scope,
                                     std::string annotator) {
  m_labels = std::move(labels);
  m_scope = std::move(scope);
  m_annotator = std::move(annotator);
  if (!m_docs.empty()) emit dataChanged(index(0, Human), index(rowCount() - 1, Human));
}

std::string RankedListModel::docIdAt(int row) const {
  return row >= 0 && std::size_t(row) < m_docs.size() ? std::string(m_docs[row].docId)
                                                      : std::string();
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
  if (index.column() == Human) return humanData(d, role);
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

QVariant RankedListModel::humanData(const core::RankedDoc& d, int role) const {
  if (!m_labels || m_qid.empty()) return {};
  const core::labels::Target target{core::labels::TargetKind::Relevance, m_scope, m_qid,
                                    std::string(d.docId)};
  const core::labels::Label* shown = m_labels->shown(target, m_annotator);
  if (!shown) {
    if (role == Qt::DisplayRole) return QStringLiteral("–");
    if (role == Qt::ForegroundRole) return QBrush(QColor(150, 150, 150));
    if (role == SortRole) return -1;
    return {};
  }
  const int grade = QString::fromStdString(shown->value).toInt();
  const auto all = m_labels->of(target);
  switch (role) {
    case Qt::DisplayRole: {
      QString text = QString::fromStdString(shown->value);
      if (shown->annotator != m_annotator)
        text += QStringLiteral(" · ") + QString::fromStdString(shown->annotator);
      if (all.size() > 1) text += QStringLiteral(" (+%1)").arg(all.size() - 1);
      // A human grade that crosses the qrels' relevance level is worth a second look.
      if (d.rel && *d.rel >= 0 && (*d.rel >= m_level) != (grade >= m_level))
        text = QStringLiteral("≠ ") + text;
      return text;
    }
    case SortRole:
      return grade;
    case Qt::BackgroundRole:
      return QBrush(gradeColor(grade, m_level));
    case Qt::ForegroundRole:
      return QBrush(QColor(16, 16, 16));
    case Qt::ToolTipRole: {
      QStringList lines;
      for (const auto* l : all) {
        QString line = tr("%1: grade %2 (%3)")
                           .arg(QString::fromStdString(l->annotator),
                                QString::fromStdString(l->value), QString::fromStdString(l->time));
        if (!l->comment.empty()) line += QStringLiteral(" — ") + QString::fromStdString(l->comment);
        lines << line;
      }
      return lines.join(QLatin1Char('\n'));
    }
    default:
      return {};
  }
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
    case Human:
      return tr("Human");
    case Text:
      return tr("Text");
  }
  return {};
}

}  // namespace ragscope::ui
