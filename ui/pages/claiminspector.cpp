#include "ui/pages/claiminspector.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <map>
#include <set>

#include "core/claims/claimspans.h"
#include "core/eval/inputs/claimlabels.h"
#include "core/eval/jobs/claimverdicts.h"
#include "core/labels/labelqueue.h"
#include "ui/labelbook.h"
#include "ui/style.h"
#include "ui/textutil.h"

namespace ragscope::ui {

namespace {

using core::claims::Label;
using State = ClaimInspector::ClaimState;

QString html(std::string_view s) {
  return QString::fromUtf8(s.data(), qsizetype(s.size()))
      .toHtmlEscaped()
      .replace(QLatin1Char('\n'), QStringLiteral("<br>"));
}

// When claims share text, the span shows the most serious verdict.
int severity(State s) {
  switch (s) {
    case State::Contradiction:
      return 6;
    case State::Unsupported:
      return 5;
    case State::Neutral:
      return 4;
    case State::Error:
      return 3;
    case State::Unparsed:
      return 2;
    case State::Supported:
      return 1;
    case State::NotJudged:
      return 0;
  }
  return 0;
}

QTableWidgetItem* cell(const QString& text, const QString& tip = {}) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  if (!tip.isEmpty()) item->setToolTip(tip);
  return item;
}

QTableWidgetItem* verdictCell(std::optional<Label> label) {
  const State s = ClaimInspector::stateOf(label);
  auto* item = cell(ClaimInspector::marker(s) + QLatin1Char(' ') + ClaimInspector::stateName(s));
  item->setBackground(ClaimInspector::colour(s));
  item->setForeground(s == State::Contradiction ? QColor(Qt::white) : QColor(0x10, 0x10, 0x10));
  return item;
}

// The human verdict's look: the judge's colours and markers for the same verdict; "cannot tell"
// grey. A verdict that disagrees with the judge is bold and marked ≠.
QTableWidgetItem* humanVerdictCell(const core::labels::Label* label, std::optional<Label> judge,
                                   const std::string& claimText, std::size_t annotators) {
  if (!label) {
    auto* item = cell(QStringLiteral("–"), ClaimInspector::tr("No human verdict yet"));
    item->setForeground(QColor(0x80, 0x80, 0x80));
    return item;
  }
  State s = State::NotJudged;
  if (label->value == "supported") s = State::Supported;
  if (label->value == "unsupported") s = State::Unsupported;
  if (label->value == "contradiction") s = State::Contradiction;
  if (label->value == "neutral") s = State::Neutral;
  const bool disagrees = judge && core::labels::claimDisagrees(*judge, label->value);
  QString text = s == State::NotJudged
                     ? QStringLiteral("? ") + ClaimInspector::tr("cannot tell")
                     : ClaimInspector::marker(s) + QLatin1Char(' ') + ClaimInspector::stateName(s);
  if (disagrees) text = QStringLiteral("≠ ") + text;
  if (!label->comment.empty()) text += QStringLiteral(" ✎");
  if (annotators > 1) text += QStringLiteral(" (+%1)").arg(annotators - 1);
  QString tip = ClaimInspector::tr("%1, %2").arg(q(label->annotator), q(label->time));
  if (!label->comment.empty()) tip += QStringLiteral("\n") + q(label->comment);
  if (!label->context.empty() && label->context != claimText)
    tip += ClaimInspector::tr("\nLabelled when the claim read: %1").arg(q(label->context));
  if (disagrees) tip += ClaimInspector::tr("\nDisagrees with the judge");
  auto* item = cell(text, tip);
  item->setBackground(s == State::NotJudged ? QColor(0xe4, 0xe4, 0xe4) : ClaimInspector::colour(s));
  item->setForeground(s == State::Contradiction ? QColor(Qt::white) : QColor(0x10, 0x10, 0x10));
  if (disagrees) {
    QFont f = item->font();
    f.setBold(true);
    item->setFont(f);
  }
  return item;
}

QTableWidget* makeTable(const QStringList& headers) {
  auto* t = new QTableWidget(0, int(headers.size()));
  t->setHorizontalHeaderLabels(headers);
  t->verticalHeader()->hide();
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  t->setSelectionMode(QAbstractItemView::SingleSelection);
  t->setWordWrap(false);
  t->verticalHeader()->setDefaultSectionSize(22);
  t->horizontalHeader()->setStretchLastSection(true);
  return t;
}

}  // namespace

ClaimInspector::ClaimInspector(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("ClaimInspector"));
  m_heading = new QLabel(tr("Select an answer to inspect its claims."));
  m_heading->setWordWrap(true);
  m_heading->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* legend = new QLabel;
  QStringList parts;
  for (State s : {State::Supported, State::Unsupported, State::Contradiction, State::Neutral,
                  State::Unparsed, State::Error})
    parts << QStringLiteral("<span style='background:%1;color:%2'>&nbsp;%3 %4&nbsp;</span>")
                 .arg(colour(s).name(),
                      s == State::Contradiction ? QStringLiteral("white") : QStringLiteral("black"),
                      marker(s), stateName(s));
  legend->setText(tr("Claims vs the retrieved chunks: %1").arg(parts.join(QLatin1Char(' '))));
  legend->setWordWrap(true);
  m_response = new QTextBrowser;
  m_response->setObjectName(QStringLiteral("ClaimResponse"));
  m_response->setPlaceholderText(tr("The answer, with each claim's span marked."));

  m_claims = makeTable(
      {tr("#"), tr("vs chunks"), tr("vs gold answer"), tr("votes"), tr("claim"), tr("human")});
  m_claims->setObjectName(QStringLiteral("ClaimList"));
  // The human verdict is shown beside the judge's (a visual move: columns keep their numbers).
  m_claims->horizontalHeader()->moveSection(kHumanColumn, 2);
  m_claims->installEventFilter(this);
  connect(m_claims, &QTableWidget::currentCellChanged, this, [this](int row) {
    showEvidence(row);
    m_lastTable = m_claims;
    showCurrentComment();
  });

  // Labelling: the premise, the keys, the comment, the disagreement filter and the queue.
  m_premiseChoice = new QComboBox;
  m_premiseChoice->setObjectName(QStringLiteral("ClaimLabelPremise"));
  m_premiseChoice->addItem(tr("vs the retrieved chunks (faithfulness)"),
                           int(core::labels::ClaimPremise::Chunks));
  m_premiseChoice->addItem(tr("vs the gold answer (correctness)"),
                           int(core::labels::ClaimPremise::GoldAnswer));
  m_premiseChoice->setToolTip(
      tr("What your verdicts on the answer's claims judge them against. The label records it, "
         "and only the metric asking the same question uses it: a claim the chunks support may "
         "still be wrong by the gold answer. Gold claims are judged against the answer."));
  connect(m_premiseChoice, &QComboBox::currentIndexChanged, this, [this] {
    setLabelPremise(core::labels::ClaimPremise(m_premiseChoice->currentData().toInt()));
  });
  m_keys = new QLabel;
  m_keys->setObjectName(QStringLiteral("ClaimLabelKeys"));
  m_keys->setWordWrap(true);
  m_labelStatus = mutedLabel();
  m_labelStatus->setObjectName(QStringLiteral("ClaimLabelStatus"));
  m_comment = new QLineEdit;
  m_comment->setObjectName(QStringLiteral("ClaimLabelComment"));
  m_comment->setPlaceholderText(tr("Comment on the selected claim's human verdict (Enter saves)"));
  m_comment->setClearButtonEnabled(true);
  connect(m_comment, &QLineEdit::returnPressed, this, &ClaimInspector::saveComment);
  m_disagreeOnly = new QCheckBox(tr("Disagrees with the judge"));
  m_disagreeOnly->setObjectName(QStringLiteral("ClaimDisagreeFilter"));
  m_disagreeOnly->setToolTip(
      tr("Show only the claims whose human verdict differs from the judge's"));
  connect(m_disagreeOnly, &QCheckBox::toggled, this, &ClaimInspector::applyDisagreementFilter);
  auto* queue = new QPushButton(tr("Labelling queue…"));
  queue->setObjectName(QStringLiteral("ClaimLabelQueueButton"));
  queue->setToolTip(tr("Label a sample of this run's claims one after another by keyboard"));
  connect(queue, &QPushButton::clicked, this, &ClaimInspector::queueRequested);
  auto* premiseRow = new QHBoxLayout;
  premiseRow->addWidget(new QLabel(tr("Your verdicts on answer claims:")));
  premiseRow->addWidget(m_premiseChoice);
  premiseRow->addWidget(m_keys, 1);
  auto* labelRow = new QHBoxLayout;
  labelRow->addWidget(m_labelStatus, 1);
  labelRow->addWidget(m_disagreeOnly);
  labelRow->addWidget(queue);
  auto* claimsBox = new QWidget;
  auto* claimsLayout = new QVBoxLayout(claimsBox);
  claimsLayout->setContentsMargins(0, 0, 0, 0);
  claimsLayout->setSpacing(2);
  claimsLayout->addLayout(premiseRow);
  claimsLayout->addLayout(labelRow);
  claimsLayout->addWidget(m_claims, 1);
  claimsLayout->addWidget(m_comment);

  m_evidence = new QTextBrowser;
  m_evidence->setObjectName(QStringLiteral("ClaimEvidence"));
  m_evidence->setPlaceholderText(
      tr("Click a claim: the premise passages, with the chunks that support it marked."));
  m_gold = new QTextBrowser;
  m_goldClaims = makeTable(
      {tr("#"), tr("in the answer"), tr("in the chunks"), tr("gold claim"), tr("human vs answer")});
  m_goldClaims->setObjectName(QStringLiteral("GoldClaimList"));
  m_goldClaims->horizontalHeader()->moveSection(kGoldHumanColumn, 2);
  m_goldClaims->installEventFilter(this);
  connect(m_goldClaims, &QTableWidget::currentCellChanged, this, [this] {
    m_lastTable = m_goldClaims;
    showCurrentComment();
  });
  auto* goldSplit = new QSplitter(Qt::Vertical);
  goldSplit->addWidget(m_gold);
  goldSplit->addWidget(m_goldClaims);
  m_calls = new QListWidget;
  m_callText = new QTextBrowser;
  m_callText->setObjectName(QStringLiteral("JudgeCallText"));
  connect(m_calls, &QListWidget::currentRowChanged, this, &ClaimInspector::showCall);
  auto* callSplit = new QSplitter(Qt::Horizontal);
  callSplit->addWidget(m_calls);
  callSplit->addWidget(m_callText);
  callSplit->setStretchFactor(0, 1);
  callSplit->setStretchFactor(1, 3);
  m_tabs = new QTabWidget;
  m_tabs->addTab(m_evidence, tr("Evidence"));
  m_tabs->addTab(goldSplit, tr("Gold answer"));
  m_tabs->addTab(callSplit, tr("Judge calls"));

  auto* top = new QWidget;
  auto* topLayout = new QVBoxLayout(top);
  topLayout->setContentsMargins(0, 0, 0, 0);
  topLayout->addWidget(m_heading);
  topLayout->addWidget(legend);
  topLayout->addWidget(m_response, 1);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(top);
  split->addWidget(claimsBox);
  split->addWidget(m_tabs);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setStretchFactor(2, 3);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split);
  setLabelPremise(core::labels::ClaimPremise::Chunks);  // the keys' text and the column's name
}

ClaimInspector::ClaimState ClaimInspector::stateOf(std::optional<Label> label) {
  if (!label) return State::NotJudged;
  switch (*label) {
    case Label::Supported:
    case Label::Entailment:
      return State::Supported;
    case Label::Unsupported:
      return State::Unsupported;
    case Label::Contradiction:
      return State::Contradiction;
    case Label::Neutral:
      return State::Neutral;
    case Label::Unparsed:
      return State::Unparsed;
    case Label::Error:
      return State::Error;
  }
  return State::NotJudged;
}

QColor ClaimInspector::colour(ClaimState s) {
  switch (s) {
    case State::Supported:
      return QColor(0xb9, 0xe4, 0xb4);
    case State::Unsupported:
      return QColor(0xf5, 0xa3, 0xa3);
    case State::Contradiction:
      return QColor(0x8e, 0x10, 0x10);
    case State::Neutral:
      return QColor(0xf7, 0xd6, 0x8f);
    case State::Unparsed:
    case State::Error:
      return QColor(0xcf, 0xcf, 0xcf);
    case State::NotJudged:
      return QColor(0xf0, 0xf0, 0xf0);
  }
  return {};
}

QString ClaimInspector::marker(ClaimState s) {
  switch (s) {
    case State::Supported:
      return QStringLiteral("✓");
    case State::Unsupported:
      return QStringLiteral("✗");
    case State::Contradiction:
      return QStringLiteral("⊘");
    case State::Neutral:
      return QStringLiteral("~");
    case State::Unparsed:
      return QStringLiteral("?");
    case State::Error:
      return QStringLiteral("!");
    case State::NotJudged:
      return QStringLiteral("–");
  }
  return {};
}

QString ClaimInspector::stateName(ClaimState s) {
  switch (s) {
    case State::Supported:
      return tr("supported");
    case State::Unsupported:
      return tr("unsupported");
    case State::Contradiction:
      return tr("contradiction");
    case State::Neutral:
      return tr("neutral");
    case State::Unparsed:
      return tr("unparsed");
    case State::Error:
      return tr("error");
    case State::NotJudged:
      return tr("not judged");
  }
  return {};
}

ClaimInspector::ClaimState ClaimInspector::claimState(int claim) const {
  if (!m_query || claim < 0 || std::size_t(claim) >= m_query->responseClaims.claims.size())
    return State::NotJudged;
  return stateOf(core::eval::responseClaimVsChunks(*m_query, std::size_t(claim)));
}

void ClaimInspector::setQuery(const core::eval::JudgedQuery* query, const QString& store) {
  m_query = query;
  m_store = store;
  ++m_generation;
  m_callData.clear();
  m_calls->clear();
  m_callText->clear();
  m_evidence->clear();
  if (!query) {
    m_heading->setText(tr("Select an answer to inspect its claims."));
    m_response->clear();
    m_claims->setRowCount(0);
    m_goldClaims->setRowCount(0);
    m_gold->clear();
    m_labelStatus->clear();
    return;
  }
  m_heading->setText(
      tr("<b>%1</b> · %2").arg(q(query->qid).toHtmlEscaped(), q(query->question).toHtmlEscaped()));
  m_scope = m_book && !store.isEmpty() ? m_book->runScope(store)
                                       : QFileInfo(store).fileName().toStdString();
  showResponse();
  showClaims();
  showGold();
  refreshHuman();
  loadCalls();
}

void ClaimInspector::showResponse() {
  const auto& text = m_query->response;
  const auto& claimTexts = m_query->responseClaims.claims;
  if (m_query->responseFailed) {
    m_response->setHtml(tr("<i>No answer: its generation %1.</i>")
                            .arg(*m_query->responseFailed == core::claims::ScoreState::Error
                                     ? tr("failed")
                                     : tr("gave nothing")));
    return;
  }
  const auto spans = core::claims::locateClaims(text, claimTexts);
  // Elementary segments between every span boundary, each shown with the most serious verdict of
  // the claims covering it; after a span's last segment, the markers of the claims ending there.
  std::set<std::size_t> cuts = {0, text.size()};
  for (const auto& s : spans)
    if (s) cuts.insert({s->begin, s->end});
  std::map<std::size_t, QStringList> endMarkers;
  QString body;
  for (auto it = cuts.begin(); std::next(it) != cuts.end(); ++it) {
    const std::size_t a = *it, b = *std::next(it);
    State worst = State::NotJudged;
    bool covered = false;
    for (std::size_t i = 0; i < spans.size(); ++i) {
      if (!spans[i] || spans[i]->begin > a || spans[i]->end < b) continue;
      covered = true;
      const State s = claimState(int(i));
      if (severity(s) >= severity(worst)) worst = s;
    }
    const QString segment = html(std::string_view(text).substr(a, b - a));
    if (covered)
      body += QStringLiteral("<span style='background-color:%1;color:%2'>%3</span>")
                  .arg(colour(worst).name(),
                       worst == State::Contradiction ? QStringLiteral("#ffffff")
                                                     : QStringLiteral("#101010"),
                       segment);
    else
      body += segment;
    for (std::size_t i = 0; i < spans.size(); ++i)
      if (spans[i] && spans[i]->end == b)
        body += QStringLiteral("<sup><b>[%1&nbsp;%2]</b></sup>")
                    .arg(i + 1)
                    .arg(marker(claimState(int(i))));
  }
  QStringList loose;
  for (std::size_t i = 0; i < spans.size(); ++i)
    if (!spans[i])
      loose << QStringLiteral("<li>[%1 %2] %3</li>")
                   .arg(i + 1)
                   .arg(marker(claimState(int(i))), html(claimTexts[i]));
  if (!loose.isEmpty())
    body += tr("<p><i>Claims not found in the text (the judge reworded them):</i></p><ul>%1</ul>")
                .arg(loose.join(QString()));
  if (m_query->responseClaims.failed)
    body += tr("<p><i>No claims: the extraction %1 (%2).</i></p>")
                .arg(*m_query->responseClaims.failed == core::claims::ScoreState::Error
                         ? tr("failed")
                         : tr("could not be read"),
                     html(m_query->responseClaims.problem));
  else if (claimTexts.empty())
    body += tr("<p><i>The judge found no claim in this answer.</i></p>");
  else if (!m_query->responseClaims.problem.empty())  // claims past the cap: Unparsed, not judged
    body += tr("<p><i>%1</i></p>").arg(html(m_query->responseClaims.problem));
  m_response->setHtml(body);
}

void ClaimInspector::showClaims() {
  const auto& claimTexts = m_query->responseClaims.claims;
  m_claims->setRowCount(int(claimTexts.size()));
  for (std::size_t i = 0; i < claimTexts.size(); ++i) {
    const int row = int(i);
    m_claims->setItem(row, 0, cell(QString::number(i + 1)));
    m_claims->setItem(row, 1, verdictCell(core::eval::responseClaimVsChunks(*m_query, i)));
    m_claims->setItem(row, 2, verdictCell(core::eval::responseClaimVsGold(*m_query, i)));
    const auto votes =
        core::eval::claimVotes(*m_query, m_query->find("faith") ? "faith" : "correct", i);
    QStringList v;
    for (const Label l : votes.votes) v << marker(stateOf(l));
    auto* voteCell =
        cell(v.isEmpty() ? QStringLiteral("–")
                         : v.join(QLatin1Char(' ')) + (votes.flipped ? tr("  ⚑ flip") : QString()),
             votes.flipped ? tr("The repeated asks disagree on this claim") : QString());
    if (votes.flipped) voteCell->setForeground(QColor(0xa0, 0x40, 0x00));
    m_claims->setItem(row, 3, voteCell);
    m_claims->setItem(row, 4, cell(q(claimTexts[i]), q(claimTexts[i])));
  }
  m_claims->resizeColumnsToContents();
  m_claims->horizontalHeader()->setStretchLastSection(true);
}

void ClaimInspector::showGold() {
  m_gold->setHtml(
      m_query->gold.empty()
          ? tr("<i>This query has no gold answer: correctness and coverage are empty.</i>")
          : tr("<b>Gold answer</b><br>%1").arg(html(m_query->gold)));
  const auto& gold = m_query->goldClaims.claims;
  m_goldClaims->setRowCount(int(gold.size()));
  for (std::size_t i = 0; i < gold.size(); ++i) {
    m_goldClaims->setItem(int(i), 0, cell(QString::number(i + 1)));
    m_goldClaims->setItem(int(i), 1, verdictCell(core::eval::goldClaimVsResponse(*m_query, i)));
    m_goldClaims->setItem(int(i), 2, verdictCell(core::eval::goldClaimVsChunks(*m_query, i)));
    m_goldClaims->setItem(int(i), 3, cell(q(gold[i]), q(gold[i])));
  }
  m_goldClaims->resizeColumnsToContents();
  m_goldClaims->horizontalHeader()->setStretchLastSection(true);
}

void ClaimInspector::selectClaim(int claim) { m_claims->setCurrentCell(claim, 4); }

void ClaimInspector::showEvidence(int claim) {
  if (!m_query || claim < 0 || std::size_t(claim) >= m_query->responseClaims.claims.size()) {
    m_evidence->clear();
    return;
  }
  const std::size_t c = std::size_t(claim);
  const State overall = claimState(claim);
  QString body =
      tr("<p><b>Claim %1</b> %2 %3<br>%4</p>")
          .arg(claim + 1)
          .arg(marker(overall), stateName(overall), html(m_query->responseClaims.claims[c]));
  const bool matrix = core::eval::hasClaimChunkMatrix(*m_query);
  std::vector<std::string> passages;
  for (const auto& ch : m_query->chunks) passages.push_back(ch.text);
  const auto closest = core::claims::closestPassage(m_query->responseClaims.claims[c], passages);
  if (m_query->chunks.empty())
    body += tr("<p><i>This answer was judged without retrieved chunks.</i></p>");
  else if (!matrix)
    body += tr("<p><i>The claim was judged against the %1 chunks joined; chunks were not judged "
               "one by one "
               "(turn on the claim × chunk matrix for that). The chunk sharing most of its words "
               "is marked.</i></p>")
                .arg(m_query->chunks.size());
  for (std::size_t k = 0; k < m_query->chunks.size(); ++k) {
    QString tag;
    QString style = QStringLiteral("border-left:4px solid #bbbbbb;");
    if (matrix) {
      const State s = stateOf(core::eval::claimVsChunk(*m_query, c, k));
      tag = QStringLiteral("%1 %2").arg(
          marker(s), s == State::Supported ? tr("supports this claim") : stateName(s));
      if (s == State::Supported)
        style = QStringLiteral("background-color:%1;").arg(colour(s).name());
    } else if (closest && *closest == k) {
      tag = tr("closest in wording");
    }
    body += QStringLiteral("<div style='%1'><p><b>%2. %3</b> %4<br>%5</p></div>")
                .arg(style)
                .arg(k + 1)
                .arg(html(m_query->chunks[k].id),
                     tag.isEmpty() ? QString() : QStringLiteral("— <b>%1</b>").arg(tag),
                     html(m_query->chunks[k].text));
  }
  if (const auto gold = core::eval::responseClaimVsGold(*m_query, c))
    body += tr("<p><b>Against the gold answer:</b> %1 %2<br>%3</p>")
                .arg(marker(stateOf(gold)), stateName(stateOf(gold)), html(m_query->gold));
  m_evidence->setHtml(body);
  m_tabs->setCurrentWidget(m_evidence);
}

void ClaimInspector::loadCalls() {
  if (m_store.isEmpty()) return;
  const int generation = m_generation;
  auto* watcher = new QFutureWatcher<std::pair<std::vector<core::eval::JudgeCall>, QString>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    auto [calls, error] = watcher->result();
    watcher->deleteLater();
    if (generation != m_generation) return;  // another answer was selected meanwhile
    m_callData = std::move(calls);
    m_calls->clear();
    for (const auto& c : m_callData) {
      QString label = q(c.key);
      if (c.key.rfind("repair:", 0) == 0) label = tr("↻ %1 (repair retry)").arg(label);
      if (c.status != "done") label += QStringLiteral(" [%1]").arg(q(c.status));
      m_calls->addItem(label);
    }
    if (!error.isEmpty())
      m_callText->setPlainText(tr("The judge's calls could not be read: %1").arg(error));
    emit callsLoaded(error.isEmpty());
  });
  watcher->setFuture(QtConcurrent::run([path = m_store.toStdString(), qid = m_query->qid] {
    std::string error;
    auto calls = core::eval::judgeCallsOf(path, qid, &error);
    return std::make_pair(std::move(calls), q(error));
  }));
}

void ClaimInspector::showCall(int row) {
  if (row < 0 || std::size_t(row) >= m_callData.size()) return;
  const auto& c = m_callData[std::size_t(row)];
  QString head =
      tr("<p><b>%1</b> · %2 · %n attempt(s)", "", c.attempts).arg(html(c.key), html(c.status));
  if (c.fromCache) head += tr(" · from the cache");
  if (c.heuristic) head += tr(" · offline heuristic judge");
  head += QStringLiteral("</p>");
  if (!c.error.empty()) head += errorHtml(tr("<b>Error:</b> %1").arg(html(c.error)), "p");
  m_callText->setHtml(
      head +
      tr("<p><b>Prompt</b></p><pre style='white-space:pre-wrap'>%1</pre><p><b>Raw reply</b></p>"
         "<pre style='white-space:pre-wrap'>%2</pre>")
          .arg(html(c.prompt).replace(QStringLiteral("<br>"), QStringLiteral("\n")),
               html(c.reply).replace(QStringLiteral("<br>"), QStringLiteral("\n"))));
}

// ---- Human labels -----------------------------------------------------------------------------

void ClaimInspector::setLabelBook(LabelBook* book) {
  if (m_book) disconnect(m_book, nullptr, this, nullptr);
  m_book = book;
  if (!book) return;
  connect(book, &LabelBook::labelsChanged, this, &ClaimInspector::refreshHuman);
  connect(book, &LabelBook::labelFailed, this, [this](const QString& why) {
    m_labelStatus->setText(tr("Not stored: %1").arg(why));
    setErrorStyle(m_labelStatus, true);
  });
  if (m_query) m_scope = book->runScope(m_store);
  refreshHuman();
}

std::string ClaimInspector::verdictForKey(int key) {
  switch (key) {
    case Qt::Key_S:
      return "supported";
    case Qt::Key_U:
      return "unsupported";
    case Qt::Key_C:
      return "contradiction";
    case Qt::Key_N:
      return "neutral";
    case Qt::Key_T:
    case Qt::Key_Question:
      return "cannot_tell";
    default:
      return {};
  }
}

core::labels::Target ClaimInspector::claimTarget(int claim, bool gold) const {
  return {core::labels::TargetKind::Claim, m_scope, m_query ? m_query->qid : std::string(),
          (gold ? "gold:" : "response:") + std::to_string(claim),
          gold ? core::labels::ClaimPremise::Response : m_premise};
}

void ClaimInspector::setLabelPremise(core::labels::ClaimPremise premise) {
  if (premise == core::labels::ClaimPremise::Response) return;  // gold claims' only
  m_premise = premise;
  const int i = m_premiseChoice->findData(int(premise));
  if (i >= 0 && i != m_premiseChoice->currentIndex()) m_premiseChoice->setCurrentIndex(i);
  const bool chunks = premise == core::labels::ClaimPremise::Chunks;
  m_claims->horizontalHeaderItem(kHumanColumn)
      ->setText(chunks ? tr("human vs chunks") : tr("human vs gold"));
  // Beside the judge's verdict against the same premise ("vs chunks" or "vs gold answer").
  QHeaderView* header = m_claims->horizontalHeader();
  const int judgeColumn = chunks ? 1 : 2;
  const int wanted = header->visualIndex(judgeColumn) + 1;
  const int at = header->visualIndex(kHumanColumn);
  if (at != wanted) header->moveSection(at, at < wanted ? wanted - 1 : wanted);
  m_keys->setText(
      tr("<b>S</b> supported · <b>U</b> unsupported · <b>C</b> contradiction · <b>N</b> neutral "
         "· <b>T</b> or <b>?</b> cannot tell — by %1 · <b>/</b> or <b>Enter</b> comment")
          .arg(chunks ? tr("the retrieved chunks") : tr("the gold answer")));
  refreshHuman();
}

void ClaimInspector::refreshHuman() {
  if (!m_query) return;
  fillHumanColumn(m_claims, false);
  fillHumanColumn(m_goldClaims, true);
  applyDisagreementFilter();
  showCurrentComment();
}

void ClaimInspector::fillHumanColumn(QTableWidget* table, bool gold) {
  const auto& texts = gold ? m_query->goldClaims.claims : m_query->responseClaims.claims;
  const int column = gold ? kGoldHumanColumn : kHumanColumn;
  const auto snapshot = m_book ? m_book->snapshot() : nullptr;
  const std::string me = m_book ? m_book->annotator().toStdString() : std::string();
  int labelled = 0, disagree = 0;
  for (std::size_t i = 0; i < texts.size() && int(i) < table->rowCount(); ++i) {
    const auto target = claimTarget(int(i), gold);
    const core::labels::Label* label = snapshot ? snapshot->shown(target, me) : nullptr;
    // The judge's verdict against the premise the labels shown answer.
    const auto judge = core::eval::claimVerdict(*m_query, gold, i, *target.claimPremise());
    const std::size_t annotators = snapshot ? snapshot->of(target).size() : 0;
    auto* item = humanVerdictCell(label, judge, texts[i], annotators);
    // The filter reads this: 1 when the shown human verdict disagrees with the judge.
    const bool disagrees = label && judge && core::labels::claimDisagrees(*judge, label->value);
    item->setData(Qt::UserRole, disagrees);
    table->setItem(int(i), column, item);
    labelled += label ? 1 : 0;
    disagree += disagrees ? 1 : 0;
  }
  table->resizeColumnToContents(column);
  if (!gold) {
    QString status = tr("Human verdicts: %1 of %2 claims, %3 disagree with the judge")
                         .arg(labelled)
                         .arg(texts.size())
                         .arg(disagree);
    if (!m_book)
      status = tr("Human verdicts need an open dataset or project.");
    else if (m_book->annotator().isEmpty())
      status += tr(" · you will be asked your name once");
    else
      status += tr(" · annotator %1").arg(m_book->annotator().toHtmlEscaped());
    m_labelStatus->setText(status);
    m_labelStatus->setStyleSheet(QString());
  }
}

void ClaimInspector::applyDisagreementFilter() {
  const bool only = m_disagreeOnly->isChecked();
  for (auto [table, column] :
       {std::pair{m_claims, kHumanColumn}, std::pair{m_goldClaims, kGoldHumanColumn}}) {
    for (int row = 0; row < table->rowCount(); ++row) {
      const auto* item = table->item(row, column);
      table->setRowHidden(row, only && !(item && item->data(Qt::UserRole).toBool()));
    }
    // A hidden claim does not stay selected: the first one shown is.
    if (table->currentRow() >= 0 && table->isRowHidden(table->currentRow()))
      for (int row = 0; row < table->rowCount(); ++row)
        if (!table->isRowHidden(row)) {
          table->setCurrentCell(row, table->currentColumn());
          break;
        }
  }
}

void ClaimInspector::setDisagreementFilter(bool on) { m_disagreeOnly->setChecked(on); }

int ClaimInspector::visibleClaims() const {
  int n = 0;
  for (int row = 0; row < m_claims->rowCount(); ++row) n += m_claims->isRowHidden(row) ? 0 : 1;
  return n;
}

QTableWidget* ClaimInspector::labelTable() const {
  if (m_goldClaims->hasFocus()) return m_goldClaims;
  if (m_claims->hasFocus()) return m_claims;
  return m_lastTable ? m_lastTable : m_claims;
}

void ClaimInspector::setHumanVerdict(int claim, const std::string& verdict, bool gold) {
  QTableWidget* table = gold ? m_goldClaims : m_claims;
  if (claim < 0 || claim >= table->rowCount()) return;
  table->setCurrentCell(claim, gold ? 3 : 4);
  labelCurrent(table, verdict);
}

void ClaimInspector::labelCurrent(QTableWidget* table, const std::string& verdict) {
  const int row = table->currentRow();
  const bool gold = table == m_goldClaims;
  if (!m_query || !m_book || row < 0) return;
  const auto& texts = gold ? m_query->goldClaims.claims : m_query->responseClaims.claims;
  if (std::size_t(row) >= texts.size()) return;
  if (!m_book->ensureAnnotator(this)) {
    m_labelStatus->setText(tr("Labels need your name: not stored."));
    setErrorStyle(m_labelStatus, true);
    return;
  }
  core::labels::Label label;
  label.target = claimTarget(row, gold);
  label.value = verdict;
  label.context = texts[std::size_t(row)];
  label.comment = m_comment->text().trimmed().toStdString();
  m_book->add(std::move(label));
  m_comment->clear();
  // On to the next visible claim: labelling a whole answer is a run of key presses.
  for (int next = row + 1; next < table->rowCount(); ++next)
    if (!table->isRowHidden(next)) {
      table->setCurrentCell(next, table->currentColumn());
      break;
    }
}

void ClaimInspector::saveComment() {
  QTableWidget* table = m_lastTable ? m_lastTable : m_claims;
  const int row = table->currentRow();
  const bool gold = table == m_goldClaims;
  table->setFocus();
  if (!m_query || !m_book || row < 0) return;
  const auto snapshot = m_book->snapshot();
  const auto* mine = snapshot->of(claimTarget(row, gold), m_book->annotator().toStdString());
  if (!mine) {  // the comment waits for the verdict key
    m_labelStatus->setText(tr("Now the verdict (S, U, C, N, T): the comment goes with it."));
    return;
  }
  if (m_comment->text().trimmed().toStdString() == mine->comment) return;
  core::labels::Label label = *mine;
  label.id = 0;
  label.time.clear();
  label.comment = m_comment->text().trimmed().toStdString();
  m_book->add(std::move(label));
  m_comment->clear();
}

void ClaimInspector::showCurrentComment() {
  if (!m_query || !m_book || m_comment->hasFocus()) return;
  QTableWidget* table = m_lastTable ? m_lastTable : m_claims;
  const int row = table->currentRow();
  m_comment->clear();
  if (row < 0) return;
  const auto* mine = m_book->snapshot()->of(claimTarget(row, table == m_goldClaims),
                                            m_book->annotator().toStdString());
  if (mine) m_comment->setText(q(mine->comment));
}

bool ClaimInspector::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::KeyPress && (watched == m_claims || watched == m_goldClaims)) {
    auto* key = static_cast<QKeyEvent*>(event);
    if (key->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier))
      return QWidget::eventFilter(watched, event);
    auto* table = static_cast<QTableWidget*>(watched);
    m_lastTable = table;
    if (key->key() == Qt::Key_Slash || key->key() == Qt::Key_Return ||
        key->key() == Qt::Key_Enter) {
      m_comment->setFocus();
      m_comment->selectAll();
      return true;
    }
    const std::string verdict = verdictForKey(key->key());
    if (!verdict.empty()) {
      labelCurrent(table, verdict);
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace ragscope::ui
