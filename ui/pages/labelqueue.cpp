#include "ui/pages/labelqueue.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSpinBox>
#include <QTextBrowser>
#include <QThreadPool>
#include <QVBoxLayout>
#include <functional>

#include "core/eval/inputs/claimlabels.h"
#include "core/eval/jobs/claimverdicts.h"
#include "ui/jobs/background.h"
#include "ui/labelbook.h"
#include "ui/pages/claiminspector.h"
#include "ui/style.h"
#include "ui/textutil.h"

namespace ragscope::ui {

namespace {

using core::labels::ClaimPremise;
using core::labels::QueueItem;
using core::labels::QueueOrder;

QString queueEsc(const std::string& s, int max = 4000) {
  QString t = q(s);
  const bool cut = t.size() > max;
  if (cut) t = t.left(max);
  return t.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")) +
         (cut ? QStringLiteral(" […]") : QString());
}

// The claim verdict a canonical value names, as the inspector shows it.
QString queueVerdictChip(const std::string& value) {
  using State = ClaimInspector::ClaimState;
  State s = State::NotJudged;
  if (value == "supported") s = State::Supported;
  if (value == "unsupported") s = State::Unsupported;
  if (value == "contradiction") s = State::Contradiction;
  if (value == "neutral") s = State::Neutral;
  const QString name = value == "cannot_tell"  ? LabelQueue::tr("cannot tell")
                       : s == State::NotJudged ? LabelQueue::tr("no verdict")
                                               : ClaimInspector::stateName(s);
  return QStringLiteral("<span style='background:%1;color:%2'>&nbsp;%3 %4&nbsp;</span>")
      .arg(ClaimInspector::colour(s).name(),
           s == State::Contradiction ? QStringLiteral("white") : QStringLiteral("black"),
           s == State::NotJudged ? QStringLiteral("?") : ClaimInspector::marker(s), name);
}

}  // namespace

LabelQueue::LabelQueue(LabelBook* book, QWidget* parent)
    : QDialog(parent), m_book(book), m_pool(new QThreadPool(this)) {
  m_pool->setMaxThreadCount(1);
  setObjectName(QStringLiteral("LabelQueue"));
  setAttribute(Qt::WA_DeleteOnClose);
  setModal(false);
}

LabelQueue::~LabelQueue() { m_pool->waitForDone(); }

LabelQueue* LabelQueue::claimsQueue(LabelBook* book,
                                    std::shared_ptr<const core::eval::JudgeReport> report,
                                    const QString& store, QWidget* parent) {
  auto* queue = new LabelQueue(book, parent);
  queue->m_report = std::move(report);
  queue->m_store = store;
  for (std::size_t i = 0; i < queue->m_report->queries.size(); ++i)
    queue->m_queryOf.emplace(queue->m_report->queries[i].qid, i);
  queue->setWindowTitle(tr("Labelling queue · claims of %1").arg(QFileInfo(store).fileName()));
  queue->buildUi();
  return queue;
}

LabelQueue* LabelQueue::documentsQueue(LabelBook* book,
                                       std::shared_ptr<const core::Dataset> dataset,
                                       std::vector<std::shared_ptr<const core::Run>> runs,
                                       std::shared_ptr<const core::Qrels> qrels, QWidget* parent) {
  auto* queue = new LabelQueue(book, parent);
  queue->m_dataset = std::move(dataset);
  queue->m_runs = std::move(runs);
  queue->m_qrels = std::move(qrels);
  queue->setWindowTitle(tr("Labelling queue · unjudged documents"));
  queue->buildUi();
  return queue;
}

void LabelQueue::buildUi() {
  m_order = new QComboBox;
  m_order->setObjectName(QStringLiteral("QueueOrder"));
  if (isClaims()) {
    m_order->addItem(tr("Random sample"), int(QueueOrder::Random));
    m_order->addItem(tr("Stratified by the judge's verdict"), int(QueueOrder::StratifiedByJudge));
    m_order->addItem(tr("Repeats that disagree first"), int(QueueOrder::DisagreementsFirst));
  } else {
    m_order->addItem(tr("Unjudged in the top k, top ranks first"), int(QueueOrder::TopRanksFirst));
    m_order->addItem(tr("Unjudged in the top k, random sample"), int(QueueOrder::Random));
  }
  // Parented at once: the documents queue never lays it out.
  m_premise = new QComboBox(this);
  m_premise->setObjectName(QStringLiteral("QueuePremise"));
  m_premise->addItem(tr("answer claims vs the retrieved chunks (faithfulness)"),
                     int(ClaimPremise::Chunks));
  m_premise->addItem(tr("answer claims vs the gold answer (correctness)"),
                     int(ClaimPremise::GoldAnswer));
  m_premise->addItem(tr("gold claims vs the answer (coverage)"), int(ClaimPremise::Response));
  m_premise->setToolTip(
      tr("What each claim is judged against: the label records it, and only the metric that "
         "asks the same question uses it (a verdict against the chunks says nothing about "
         "correctness)"));
  m_size = new QSpinBox;
  m_size->setRange(1, 100000);
  m_size->setValue(50);
  m_size->setPrefix(tr("N = "));
  m_size->setToolTip(tr("How many items to label"));
  m_seed = new QSpinBox;
  m_seed->setRange(0, 1000000000);
  m_seed->setValue(42);
  m_seed->setPrefix(tr("seed "));
  m_seed->setToolTip(tr("The same seed chooses the same items again"));
  // Parented at once: in the claims queue these two are never put in a layout (and stay hidden),
  // and a widget without a parent would outlive the dialog.
  m_depth = new QSpinBox(this);
  m_depth->setRange(1, 10000);
  m_depth->setValue(10);
  m_depth->setPrefix(tr("k = "));
  m_depth->setToolTip(tr("Look for unjudged documents down to this rank"));
  m_runChoice = new QComboBox(this);
  for (const auto& run : m_runs) m_runChoice->addItem(q(run->tag));
  m_skipLabelled = new QCheckBox(tr("Leave out what I labelled"));
  m_skipLabelled->setChecked(true);
  m_build = new QPushButton(tr("Choose"));
  m_build->setObjectName(QStringLiteral("QueueBuild"));
  m_build->setAutoDefault(false);
  connect(m_build, &QPushButton::clicked, this, &LabelQueue::build);
  auto* setup = new QHBoxLayout;
  setup->addWidget(new QLabel(tr("Label:")));
  if (isClaims()) setup->addWidget(m_premise);
  setup->addWidget(m_order);
  m_premise->setVisible(isClaims());
  if (!isClaims()) {
    setup->addWidget(m_runChoice);
    setup->addWidget(m_depth);
  }
  setup->addWidget(m_size);
  setup->addWidget(m_seed);
  setup->addWidget(m_skipLabelled);
  setup->addWidget(m_build);
  setup->addStretch(1);
  m_depth->setVisible(!isClaims());
  m_runChoice->setVisible(!isClaims());

  m_annotator = mutedLabel();
  auto* rename = new QPushButton(tr("Change name…"));
  rename->setAutoDefault(false);
  connect(rename, &QPushButton::clicked, this, [this] {
    const QString before = m_book->annotator();
    m_book->setAnnotator({});
    if (!m_book->ensureAnnotator(this)) m_book->setAnnotator(before);
    updateProgress();
  });
  m_progressText = new QLabel;
  m_progressText->setObjectName(QStringLiteral("QueueProgress"));
  QFont big = m_progressText->font();
  big.setBold(true);
  m_progressText->setFont(big);
  m_progress = new QProgressBar;
  m_progress->setTextVisible(false);
  m_progress->setMaximumHeight(10);
  auto* status = new QHBoxLayout;
  status->addWidget(m_progressText);
  status->addWidget(m_progress, 1);
  status->addWidget(m_annotator);
  status->addWidget(rename);

  m_view = new QTextBrowser;
  m_view->setObjectName(QStringLiteral("QueueItem"));
  m_view->setOpenLinks(false);
  m_view->setPlaceholderText(tr("Choose what to label, then label it here by keyboard."));
  m_view->installEventFilter(this);
  m_human = new QLabel;
  m_human->setObjectName(QStringLiteral("QueueHuman"));
  m_human->setTextFormat(Qt::RichText);
  m_keys = new QLabel(
      isClaims() ? tr("<b>S</b> supported · <b>U</b> unsupported · <b>C</b> contradiction · "
                      "<b>N</b> neutral · <b>T</b>/<b>?</b> cannot tell — then on to the next · "
                      "<b>→</b> next · <b>←</b> previous · <b>Space</b> skip · <b>/</b> comment")
                 : tr("<b>0</b> not relevant · <b>1</b> related · <b>2</b> relevant · "
                      "<b>3</b> highly relevant — then on to the next · <b>→</b> next · "
                      "<b>←</b> previous · <b>Space</b> skip · <b>/</b> comment"));
  m_keys->setObjectName(QStringLiteral("QueueKeys"));
  m_keys->setWordWrap(true);
  m_comment = new QLineEdit;
  m_comment->setObjectName(QStringLiteral("QueueComment"));
  m_comment->setPlaceholderText(
      tr("Comment (optional; goes with the next label key, Enter returns to the item)"));
  connect(m_comment, &QLineEdit::returnPressed, m_view, qOverload<>(&QWidget::setFocus));
  auto* prev = new QPushButton(tr("← Previous"));
  auto* skipButton = new QPushButton(tr("Skip"));
  auto* nextButton = new QPushButton(tr("Next →"));
  for (auto* b : {prev, skipButton, nextButton}) {
    b->setAutoDefault(false);
    b->setFocusPolicy(Qt::NoFocus);  // the keys stay with the item
  }
  connect(prev, &QPushButton::clicked, this, &LabelQueue::previous);
  connect(skipButton, &QPushButton::clicked, this, &LabelQueue::skip);
  connect(nextButton, &QPushButton::clicked, this, &LabelQueue::next);
  auto* walk = new QHBoxLayout;
  walk->addWidget(m_human, 1);
  walk->addWidget(prev);
  walk->addWidget(skipButton);
  walk->addWidget(nextButton);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(setup);
  layout->addLayout(status);
  layout->addWidget(m_view, 1);
  layout->addLayout(walk);
  layout->addWidget(m_keys);
  layout->addWidget(m_comment);
  resize(900, 640);
  connect(m_book, &LabelBook::labelsChanged, this, &LabelQueue::refreshCurrent);
  connect(m_book, &LabelBook::labelFailed, this, [this](const QString& why) {
    m_human->setText(errorHtml(tr("Not stored: %1").arg(why.toHtmlEscaped())));
  });
  updateProgress();
}

void LabelQueue::setOrder(QueueOrder order) {
  const int i = m_order->findData(int(order));
  if (i >= 0) m_order->setCurrentIndex(i);
}
void LabelQueue::setSize(int n) { m_size->setValue(n); }
void LabelQueue::setSeed(int seed) { m_seed->setValue(seed); }
void LabelQueue::setDepth(int k) { m_depth->setValue(k); }
void LabelQueue::setRun(int index) { m_runChoice->setCurrentIndex(index); }
void LabelQueue::setSkipLabelled(bool on) { m_skipLabelled->setChecked(on); }
void LabelQueue::setPremise(ClaimPremise premise) {
  const int i = m_premise->findData(int(premise));
  if (i >= 0) m_premise->setCurrentIndex(i);
}
ClaimPremise LabelQueue::premise() const { return ClaimPremise(m_premise->currentData().toInt()); }

void LabelQueue::build() {
  core::labels::QueueOptions options;
  options.order = QueueOrder(m_order->currentData().toInt());
  options.size = std::size_t(m_size->value());
  options.seed = std::uint64_t(m_seed->value());
  if (m_skipLabelled->isChecked()) {
    const std::string me = m_book->annotator().toStdString();
    for (const auto& l : m_book->snapshot()->current)
      if (l.annotator == me) options.skip.insert(l.target.key());
  }
  const int generation = ++m_generation;
  m_build->setEnabled(false);
  m_progressText->setText(tr("Choosing…"));
  std::function<std::vector<QueueItem>()> work;
  if (isClaims()) {
    work = [report = m_report, scope = m_book->runScope(m_store), premise = premise(), options] {
      return core::labels::selectQueue(core::eval::claimCandidates(*report, scope, premise),
                                       options);
    };
  } else {
    const int run = m_runChoice->currentIndex();
    if (run < 0 || std::size_t(run) >= m_runs.size()) {
      m_build->setEnabled(true);
      m_progressText->setText(tr("No run to look in."));
      return;
    }
    work = [r = m_runs[std::size_t(run)], qrels = m_qrels, k = std::size_t(m_depth->value()),
            scope = m_book->datasetScope(), options] {
      const core::Qrels none;
      return core::labels::selectQueue(
          core::labels::unjudgedTopK(*r, qrels ? *qrels : none, k, scope), options);
    };
  }
  runInBackground(this, m_pool, std::move(work), [this, generation](std::vector<QueueItem> items) {
    if (generation != m_generation) return;
    m_build->setEnabled(true);
    m_items = std::move(items);
    m_skipped.assign(m_items.size(), 0);
    m_position = m_items.empty() ? -1 : 0;
    showItem(m_position);
    m_view->setFocus();
    emit built(int(m_items.size()));
  });
}

const QueueItem* LabelQueue::current() const {
  return m_position >= 0 && std::size_t(m_position) < m_items.size()
             ? &m_items[std::size_t(m_position)]
             : nullptr;
}

void LabelQueue::next() {
  if (m_position + 1 <= int(m_items.size()) && !m_items.empty())
    showItem(std::min(m_position + 1, int(m_items.size())));
}
void LabelQueue::previous() {
  if (m_position > 0) showItem(m_position - 1);
}
void LabelQueue::skip() {
  if (!current()) return;
  m_skipped[std::size_t(m_position)] = 1;
  next();
}

void LabelQueue::showItem(int position) {
  m_position = position;
  m_comment->clear();
  refreshCurrent();
  if (const auto* item = current()) {
    const auto* mine = m_book->snapshot()->of(item->target, m_book->annotator().toStdString());
    if (mine) m_comment->setText(q(mine->comment));
  }
}

void LabelQueue::refreshCurrent() {
  updateProgress();
  const QueueItem* item = current();
  if (!item) {
    if (!m_items.empty())
      m_view->setHtml(tr("<h3>Done: all %1 items walked.</h3><p>← goes back; Choose makes a new "
                         "queue (what you labelled is left out).</p>")
                          .arg(m_items.size()));
    else if (m_generation > 0)
      m_view->setHtml(
          tr("<p>Nothing to label: every candidate is labelled already, or there "
             "are none.</p>"));
    m_human->clear();
    return;
  }
  const int scroll = m_view->verticalScrollBar() ? m_view->verticalScrollBar()->value() : 0;
  const QString body = isClaims() ? claimHtml(*item) : documentHtml(*item);
  if (m_view->property("shownKey").toString() != q(item->target.key())) {
    m_view->setHtml(body);
    m_view->setProperty("shownKey", q(item->target.key()));
  } else {
    m_view->setHtml(body);
    m_view->verticalScrollBar()->setValue(scroll);  // a label stored: the reader stays put
  }
  const auto snapshot = m_book->snapshot();
  const std::string me = m_book->annotator().toStdString();
  QString human;
  if (const auto* mine = snapshot->of(item->target, me)) {
    human = tr("Your label: %1")
                .arg(isClaims() ? queueVerdictChip(mine->value)
                                : tr("<b>grade %1</b>").arg(q(mine->value)));
    if (!mine->comment.empty()) human += QStringLiteral(" · ✎ ") + html(mine->comment);
  } else {
    human = tr("Your label: <i>none yet</i>");
  }
  int others = 0;
  for (const auto* l : snapshot->of(item->target)) others += l->annotator != me ? 1 : 0;
  if (others) human += tr(" · %n other annotator(s)", nullptr, others);
  if (m_skipped[std::size_t(m_position)]) human += tr(" · skipped before");
  m_human->setText(human);
}

QString LabelQueue::claimHtml(const QueueItem& item) const {
  const auto it = m_queryOf.find(item.target.qid);
  if (it == m_queryOf.end())
    return tr("<p>Query %1 is not in this run.</p>").arg(html(item.target.qid));
  const core::eval::JudgedQuery& jq = m_report->queries[it->second];
  const ClaimPremise premise =
      item.target.claimPremise().value_or(core::labels::defaultClaimPremise(item.target.item));
  const QString premiseName = q(std::string(core::labels::claimPremiseText(premise)));
  QString h = tr("<p style='color:#666'>%1 · %2 · judged against %3</p>")
                  .arg(html(jq.qid), html(item.target.item), premiseName);
  h += tr("<p><b>Question:</b> %1</p>").arg(queueEsc(jq.question, 2000));
  // The question the label answers, then the claim, then the premise it is judged against:
  // the label records that premise, and only its metric uses it.
  h += tr("<p style='color:#1a4d7a'><b>Is this claim supported by %1?</b></p>").arg(premiseName);
  h += QStringLiteral("<p style='font-size:x-large; background:#f3f3ef; padding:6px'>%1</p>")
           .arg(queueEsc(item.context, 4000));
  h += tr("<p>The judge (against %1): %2%3</p>")
           .arg(premiseName, queueVerdictChip(item.judge),
                item.flipped ? tr(" · <b style='color:#a04000'>⚑ its repeated asks disagree</b>")
                             : QString());
  const auto chunksHtml = [&] {
    QString c;
    for (std::size_t k = 0; k < jq.chunks.size(); ++k)
      c += QStringLiteral("<p><b>%1. %2</b><br>%3</p>")
               .arg(k + 1)
               .arg(html(jq.chunks[k].id), queueEsc(jq.chunks[k].text, 1500));
    return c;
  };
  const QString answerHtml = tr("<p>%1</p>").arg(queueEsc(jq.response, 6000));
  const QString goldHtml = tr("<p>%1</p>").arg(queueEsc(jq.gold, 3000));
  // The premise's heading stands out (QTextBrowser draws a block's background, not its border).
  const QString premiseStyle = QStringLiteral("background-color:#dce8f4; color:#1a4d7a");
  switch (premise) {
    case ClaimPremise::Chunks:
      h += tr("<h4 style='%1'>The premise: the retrieved chunks (%2)</h4>")
               .arg(premiseStyle)
               .arg(jq.chunks.size());
      h += jq.chunks.empty() ? tr("<p><i>No chunk was retrieved.</i></p>") : chunksHtml();
      h += tr("<h4>The answer</h4>") + answerHtml;
      if (!jq.gold.empty()) h += tr("<h4>Gold answer (not the premise)</h4>") + goldHtml;
      break;
    case ClaimPremise::GoldAnswer:
      h += tr("<h4 style='%1'>The premise: the gold answer</h4>").arg(premiseStyle);
      h += jq.gold.empty() ? tr("<p><i>This query has no gold answer.</i></p>") : goldHtml;
      h += tr("<h4>The answer</h4>") + answerHtml;
      if (!jq.chunks.empty())
        h += tr("<h4>Retrieved chunks (%1, not the premise)</h4>").arg(jq.chunks.size()) +
             chunksHtml();
      break;
    case ClaimPremise::Response:
      h += tr("<h4 style='%1'>The premise: the answer</h4>").arg(premiseStyle) + answerHtml;
      if (!jq.gold.empty()) h += tr("<h4>Gold answer</h4>") + goldHtml;
      break;
  }
  return h;
}

QString LabelQueue::documentHtml(const QueueItem& item) const {
  QString h = tr("<p style='color:#666'>%1 · rank %2 · <i>unjudged in the qrels</i></p>")
                  .arg(html(item.target.qid))
                  .arg(item.rank);
  if (m_dataset)
    if (const core::Query* query = m_dataset->findQuery(item.target.qid)) {
      h += QStringLiteral("<p style='font-size:large'><b>%1</b></p>")
               .arg(queueEsc(query->text, 3000));
      QStringList gold;
      for (const auto& a : query->goldAnswers()) gold << queueEsc(a, 300);
      if (!gold.isEmpty())
        h += tr("<p><b>Gold answers:</b> %1</p>").arg(gold.join(QStringLiteral(" | ")));
    }
  h += QStringLiteral("<h4>%1</h4>").arg(html(item.target.item));
  const auto doc = m_dataset ? m_dataset->corpus.find(item.target.item) : std::nullopt;
  if (!doc) return h + tr("<p><i>Not in the loaded corpus: only its id is known.</i></p>");
  if (!doc->title.empty()) h += QStringLiteral("<p><b>%1</b></p>").arg(queueEsc(doc->title, 400));
  // One document's opening per step (a pread when its text stays in its file).
  return h + QStringLiteral("<p style='background:#f6f6f4; padding:6px'>%1</p>")
                 .arg(queueEsc(doc->textPrefix(16000), 6000));
}

void LabelQueue::updateProgress() {
  const QString name = m_book->annotator();
  m_annotator->setText(name.isEmpty() ? tr("annotator: asked at the first label")
                                      : tr("annotator: %1").arg(name));
  if (m_items.empty()) {
    m_progressText->setText(m_generation > 0 ? tr("0 / 0") : QString());
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    return;
  }
  const auto snapshot = m_book->snapshot();
  const std::string me = name.toStdString();
  int labelled = 0, skipped = 0;
  for (std::size_t i = 0; i < m_items.size(); ++i) {
    if (snapshot->of(m_items[i].target, me))
      ++labelled;
    else if (m_skipped[i])
      ++skipped;
  }
  const int shown = std::min(m_position + 1, int(m_items.size()));
  QString text = tr("%1 / %2").arg(shown).arg(m_items.size());
  text += tr(" · %1 labelled").arg(labelled);
  if (skipped) text += tr(" · %1 skipped").arg(skipped);
  m_progressText->setText(text);
  m_progress->setRange(0, int(m_items.size()));
  m_progress->setValue(labelled);
}

void LabelQueue::label(const std::string& value) {
  const QueueItem* item = current();
  if (!item) return;
  if (!m_book->ensureAnnotator(this)) {
    m_human->setText(errorHtml(tr("Labels need your name: not stored.")));
    return;
  }
  core::labels::Label l;
  l.target = item->target;
  l.value = value;
  l.context = item->context;
  l.comment = m_comment->text().trimmed().toStdString();
  m_book->add(std::move(l));
  m_skipped[std::size_t(m_position)] = 0;
  showItem(m_position + 1);
}

bool LabelQueue::handleKey(QKeyEvent* event) {
  if (event->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)) return false;
  switch (event->key()) {
    case Qt::Key_Right:
    case Qt::Key_PageDown:
      next();
      return true;
    case Qt::Key_Left:
    case Qt::Key_PageUp:
      previous();
      return true;
    case Qt::Key_Space:
      skip();
      return true;
    case Qt::Key_Slash:
      m_comment->setFocus();
      return true;
    default:
      break;
  }
  std::string value;
  if (isClaims()) {
    value = ClaimInspector::verdictForKey(event->key());
  } else if (event->key() >= Qt::Key_0 && event->key() <= Qt::Key_3) {
    value = std::to_string(event->key() - Qt::Key_0);
  }
  if (value.empty()) return false;
  label(value);
  return true;
}

void LabelQueue::keyPressEvent(QKeyEvent* event) {
  if (!handleKey(event)) QDialog::keyPressEvent(event);
}

bool LabelQueue::eventFilter(QObject* watched, QEvent* event) {
  if (watched == m_view && event->type() == QEvent::KeyPress &&
      handleKey(static_cast<QKeyEvent*>(event)))
    return true;
  return QDialog::eventFilter(watched, event);
}

}  // namespace ragscope::ui
