#include "ui/pages/ppisummary.h"

#include <QHeaderView>
#include <QLabel>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>
#include <cmath>

#include "ui/labelbook.h"
#include "ui/pages/resultitems.h"

namespace ragscope::ui {

namespace {

QStandardItem* ppiCell(double mean, double low, double high) {
  auto* item = textItem(meanWithInterval(mean, low, high), std::isfinite(mean) ? mean : -1.0);
  item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
  return item;
}

}  // namespace

QString meanWithInterval(double mean, double low, double high) {
  if (!std::isfinite(mean)) return QStringLiteral("–");
  QString s = QString::number(mean, 'f', 4);
  if (std::isfinite(low) && std::isfinite(high))
    s += QStringLiteral("  [%1, %2]")
             .arg(QString::number(low, 'f', 4), QString::number(high, 'f', 4));
  return s;
}

PpiSummary::PpiSummary(QWidget* parent) : QWidget(parent) {
  m_title = new QLabel(
      tr("<b>Human labels</b>: the judge's mean over all items, the human mean over the labelled "
         "ones, and the prediction-powered estimate (PPI++) that corrects the judge with them; "
         "95% normal intervals"));
  m_title->setWordWrap(true);
  m_model = new QStandardItemModel(this);
  m_model->setSortRole(Qt::UserRole);
  m_view = new QTableView;
  m_view->setObjectName(QStringLiteral("PpiSummary"));
  m_view->setModel(m_model);
  m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_view->verticalHeader()->hide();
  m_view->setAlternatingRowColors(true);
  m_view->setWordWrap(false);  // one line per metric; the item's description elides
  m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
  m_note = new QLabel;
  m_note->setWordWrap(true);
  m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 4, 0, 0);
  layout->addWidget(m_title);
  layout->addWidget(m_view, 1);
  layout->addWidget(m_note);
  refresh();
}

void PpiSummary::setLabelBook(LabelBook* book) {
  if (m_book == book) return;
  if (m_book) disconnect(m_book, nullptr, this, nullptr);
  m_book = book;
  if (m_book) connect(m_book, &LabelBook::labelsChanged, this, &PpiSummary::refresh);
  refresh();
}

void PpiSummary::setSource(ItemsFn items) {
  m_items = std::move(items);
  refresh();
}

const core::eval::PpiEstimate* PpiSummary::estimate(const std::string& metric) const {
  for (const auto& e : m_estimates)
    if (e.items.metric == metric) return &e;
  return nullptr;
}

void PpiSummary::refresh() {
  m_estimates.clear();
  if (m_items) {
    static const std::vector<core::labels::Label> kNoLabels;
    const auto snapshot = m_book ? m_book->snapshot() : nullptr;
    m_estimates =
        core::eval::estimatePpi(m_items(snapshot ? snapshot->current : kNoLabels,
                                        m_book ? m_book->labelsFolder() : std::filesystem::path()),
                                {});
  }
  m_model->clear();
  m_model->setHorizontalHeaderLabels({tr("metric"), tr("labelled / items"), tr("judge only"),
                                      tr("human only"), tr("PPI++"), tr("λ"), tr("one item")});
  m_model->horizontalHeaderItem(4)->setToolTip(
      tr("mean over the unlabelled items of λ·judge + mean over the labelled ones of "
         "(human − λ·judge): the judge's figure corrected by its error where people labelled "
         "(Angelopoulos et al., Science 2023; PPI++ tunes λ)"));
  std::size_t labelled = 0, unresolved = 0, notUsed = 0, several = 0, otherPremise = 0;
  bool claims = false;
  for (const auto& e : m_estimates) {
    const auto& r = e.result;
    auto* name = textItem(QString::fromStdString(e.items.metric));
    name->setToolTip(QString::fromStdString(e.items.description));
    auto* counts = textItem(QStringLiteral("%1 / %2").arg(e.items.labelled()).arg(e.items.items()),
                            qulonglong(e.items.labelled()));
    counts->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    QStandardItem* ppi = r.ok()
                             ? ppiCell(r.estimate, r.ci.low, r.ci.high)
                             : textItem(e.items.labelled() == 0 ? tr("no labels yet")
                                                                : QString::fromStdString(r.error));
    if (!r.ok()) ppi->setForeground(QColor(120, 120, 120));
    auto* lambda = r.ok() ? textItem(QString::number(r.lambda, 'f', 3), r.lambda) : textItem("–");
    lambda->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_model->appendRow({name, counts,
                        ppiCell(r.judgeOnly.mean, r.judgeOnly.ci.low, r.judgeOnly.ci.high),
                        ppiCell(r.humanOnly.mean, r.humanOnly.ci.low, r.humanOnly.ci.high), ppi,
                        lambda, textItem(QString::fromStdString(e.items.description))});
    m_model->item(m_model->rowCount() - 1, 6)
        ->setToolTip(QString::fromStdString(e.items.description));
    claims |= e.items.labelKind == core::labels::TargetKind::Claim;
    labelled += e.items.labelled();
    unresolved += e.items.judgeUnresolved;
    notUsed += e.items.labelsNotUsed + e.items.staleLabels;
    several += e.items.severalAnnotators;
    otherPremise += e.items.otherPremise;
  }
  m_view->resizeColumnsToContents();
  m_view->horizontalHeader()->setStretchLastSection(true);
  QString note;
  if (!m_items)
    note = tr("No run shown.");
  else if (m_estimates.empty())
    note = tr("This run has no judged items to label.");
  else if (labelled == 0)
    note =
        tr("No item of this run is labelled yet: label claims in the inspector or the "
           "labelling queue, and the human-only and PPI columns fill in as you go.");
  else
    note = (claims ? tr("A claim metric's items are its claims, 1 when the judge found the claim "
                        "supported, else 0; its human values are the labels judged against its "
                        "own premise (faithfulness: the retrieved chunks, correctness: the gold "
                        "answer, coverage: the response). ")
                   : tr("The judge's value of an item is its stored label. ")) +
           tr("Across these rows: %1 item(s) without a judge value left out (unparsed, failed, "
              "no output); %2 label(s) not used (no such item, or stale); %3 item(s) labelled "
              "by several annotators count with their mean; cannot tell counts as unlabelled. "
              "Intervals are normal and not clipped to the metric's range.")
               .arg(unresolved)
               .arg(notUsed)
               .arg(several);
  if (otherPremise > 0)
    note +=
        tr(" %n labelled claim(s) judged against another premise count for that premise's "
           "metric only.",
           nullptr, int(otherPremise));
  m_note->setText(note);
  emit estimatesChanged();
}

}  // namespace ragscope::ui
