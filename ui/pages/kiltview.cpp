#include "ui/pages/kiltview.h"

#include <QAbstractTableModel>
#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QTableWidget>
#include <QTextBrowser>
#include <QThreadPool>
#include <QVBoxLayout>
#include <algorithm>
#include <set>

#include "core/data/provenance.h"
#include "core/eval/kilt/kiltoutput.h"
#include "core/export/kiltpredictions.h"
#include "core/util/textescape.h"
#include "ui/jobs/background.h"
#include "ui/models/textfilterproxy.h"
#include "ui/outputguard.h"
#include "ui/textutil.h"
#include "ui/workbench.h"

namespace ragscope::ui {

namespace {

// Text from a file shown in the view: controls escaped (core/util/textescape.h), then HTML-escaped.
QString kiltSafe(const std::string& s) { return q(core::escapeControlChars(s)).toHtmlEscaped(); }

QString kiltJoined(const std::vector<std::string>& v, const char* sep) {
  QStringList parts;
  for (const auto& s : v) parts << q(core::escapeControlChars(s));
  return parts.join(QString::fromUtf8(sep));
}

QString kiltPageText(const core::eval::KiltPageRef& p) {
  QString s = q(core::escapeControlChars(p.wikipediaId));
  if (p.startParagraph >= 0)
    s += p.endParagraph > p.startParagraph
             ? QStringLiteral(" ¶%1–%2").arg(p.startParagraph).arg(p.endParagraph)
             : QStringLiteral(" ¶%1").arg(p.startParagraph);
  return s;
}

}  // namespace

// Columns: id, input, gold answers, answer, then every metric, then guess and gold pages.
class KiltItemModel : public QAbstractTableModel {
 public:
  static constexpr int SortRole = Qt::UserRole;
  enum FixedColumn { Id, Input, Gold, Answer, FirstMetric };

  using QAbstractTableModel::QAbstractTableModel;

  void setEvaluation(std::shared_ptr<const core::eval::KiltEvaluation> e) {
    beginResetModel();
    m_e = std::move(e);
    endResetModel();
  }
  const core::eval::KiltEvaluation* evaluation() const { return m_e.get(); }
  int metricCount() const { return m_e ? static_cast<int>(m_e->metrics.size()) : 0; }

  int rowCount(const QModelIndex& parent = {}) const override {
    return parent.isValid() || !m_e ? 0 : static_cast<int>(m_e->items.size());
  }
  int columnCount(const QModelIndex& parent = {}) const override {
    return parent.isValid() || !m_e ? 0 : FirstMetric + metricCount() + 2;
  }
  QVariant headerData(int section, Qt::Orientation o, int role) const override {
    if (o != Qt::Horizontal || role != Qt::DisplayRole || !m_e) return {};
    switch (section) {
      case Id:
        return QObject::tr("id");
      case Input:
        return QObject::tr("input");
      case Gold:
        return QObject::tr("gold answers");
      case Answer:
        return QObject::tr("answer");
      default:
        break;
    }
    const int m = section - FirstMetric;
    if (m < metricCount()) return q(m_e->metrics[std::size_t(m)].name);
    return m == metricCount() ? QObject::tr("guess pages") : QObject::tr("gold pages");
  }
  QVariant data(const QModelIndex& index, int role) const override {
    if (!m_e || !index.isValid()) return {};
    const auto& item = m_e->items[std::size_t(index.row())];
    const int c = index.column(), m = c - FirstMetric;
    if (role == Qt::TextAlignmentRole && m >= 0 && m < metricCount())
      return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && c == Answer && !item.hasGuess)
      return QObject::tr("no prediction for this id: scored 0");
    if (role != Qt::DisplayRole && role != SortRole) return {};
    switch (c) {
      case Id:
        return q(item.id);
      case Input:
        return q(core::escapeControlChars(item.input.substr(0, 300)));
      case Gold:
        return kiltJoined(item.goldAnswers, " | ");
      case Answer:
        return item.hasGuess ? q(core::escapeControlChars(item.guessAnswer))
                             : QObject::tr("(missing)");
      default:
        break;
    }
    if (m < metricCount()) {
      const double v = item.values[std::size_t(m)];
      return role == SortRole ? QVariant(v) : QVariant(QString::number(v, 'f', 3));
    }
    QStringList pages;
    if (m == metricCount()) {
      for (const auto& p : item.guessProvenance) pages << kiltPageText(p);
    } else {
      for (const auto& set : item.goldProvenance) {
        QStringList one;
        for (const auto& p : set) one << kiltPageText(p);
        pages << one.join(QStringLiteral(" + "));
      }
    }
    return pages.join(m == metricCount() ? QStringLiteral(", ") : QStringLiteral(" | "));
  }

 private:
  std::shared_ptr<const core::eval::KiltEvaluation> m_e;
};

// Filters on id, input, answers and pages; numeric columns sort by value.
class KiltItemProxy : public TextFilterProxyModel {
 public:
  explicit KiltItemProxy(QObject* parent) : TextFilterProxyModel(KiltItemModel::SortRole, parent) {}

 protected:
  bool filterAcceptsRow(int row, const QModelIndex&) const override {
    const auto* model = static_cast<const KiltItemModel*>(sourceModel());
    const auto* e = model ? model->evaluation() : nullptr;
    if (!e) return false;
    const TextMatcher& m = matcher();
    if (m.isEmpty()) return true;
    const auto& item = e->items[std::size_t(row)];
    if (m.matches(item.id) || m.matches(item.input) || m.matches(item.guessAnswer)) return true;
    for (const auto& a : item.goldAnswers)
      if (m.matches(a)) return true;
    for (const auto& p : item.guessProvenance)
      if (m.matches(p.wikipediaId) || m.matches(p.title)) return true;
    for (const auto& set : item.goldProvenance)
      for (const auto& p : set)
        if (m.matches(p.wikipediaId) || m.matches(p.title)) return true;
    return false;
  }
};

KiltView::KiltView(Workbench* workbench, QWidget* parent)
    : Page(parent),
      m_workbench(workbench),
      m_pool(new QThreadPool(this)),
      m_gold(new QLineEdit),
      m_guess(new QLineEdit),
      m_ks(new QLineEdit(QStringLiteral("1,5"))),
      m_keys(new QComboBox),
      m_resamples(new QSpinBox),
      m_run(new QPushButton(tr("Evaluate"))),
      m_fromRun(new QPushButton(tr("From a run…"))),
      m_status(new QLabel),
      m_summary(new QTableWidget),
      m_filter(new QLineEdit),
      m_items(new QTableView),
      m_detail(new QTextBrowser),
      m_model(new KiltItemModel(this)),
      m_proxy(new KiltItemProxy(this)) {
  m_pool->setMaxThreadCount(1);
  m_gold->setPlaceholderText(tr("KILT task file (*-kilt.jsonl)"));
  m_guess->setPlaceholderText(tr("KILT predictions file (JSON lines or concatenated objects)"));
  m_keys->addItems({tr("wikipedia_id (page)"), tr("wikipedia_id + section"),
                    tr("wikipedia_id + start/end paragraph")});
  m_resamples->setRange(0, 100000);
  m_resamples->setValue(1000);
  m_resamples->setSpecialValueText(tr("no CIs"));
  m_resamples->setToolTip(tr("bootstrap resamples of each mean's 95% CI"));

  auto browse = [this](QLineEdit* target, const QString& caption) {
    auto* b = new QPushButton(tr("Browse…"));
    connect(b, &QPushButton::clicked, this, [this, target, caption] {
      const QString f = QFileDialog::getOpenFileName(this, caption, target->text());
      if (!f.isEmpty()) target->setText(f);
    });
    return b;
  };
  auto fileRow = [](QLineEdit* edit, QPushButton* button) {
    auto* row = new QHBoxLayout;
    row->addWidget(edit, 1);
    row->addWidget(button);
    return row;
  };
  auto* form = new QFormLayout;
  form->addRow(tr("Gold:"), fileRow(m_gold, browse(m_gold, tr("KILT task file"))));
  auto* predictionsRow = fileRow(m_guess, browse(m_guess, tr("KILT predictions")));
  m_fromRun->setToolTip(
      tr("Write a KILT predictions file from one of the dataset's runs (the "
         "pages of each query's top k documents), then evaluate it"));
  connect(m_fromRun, &QPushButton::clicked, this, [this] { chooseRunForPredictions(); });
  predictionsRow->addWidget(m_fromRun);
  form->addRow(tr("Predictions:"), predictionsRow);
  auto* settings = new QHBoxLayout;
  settings->addWidget(new QLabel(tr("k:")));
  m_ks->setMaximumWidth(90);
  settings->addWidget(m_ks);
  settings->addWidget(new QLabel(tr("rank keys:")));
  settings->addWidget(m_keys);
  settings->addWidget(new QLabel(tr("B:")));
  settings->addWidget(m_resamples);
  settings->addStretch(1);
  settings->addWidget(m_run);
  form->addRow(settings);
  connect(m_run, &QPushButton::clicked, this, [this] { evaluate(); });

  m_summary->setColumnCount(5);
  m_summary->setHorizontalHeaderLabels(
      {tr("group"), tr("metric"), tr("mean"), tr("95% CI"), tr("n")});
  m_summary->verticalHeader()->hide();
  m_summary->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_summary->horizontalHeader()->setStretchLastSection(false);

  m_proxy->setSourceModel(m_model);
  m_items->setModel(m_proxy);
  m_items->setSortingEnabled(true);
  m_items->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_items->setSelectionMode(QAbstractItemView::SingleSelection);
  m_items->verticalHeader()->hide();
  m_items->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  m_filter->setPlaceholderText(tr("Filter items (id, question, answers, pages)…"));
  m_filter->setClearButtonEnabled(true);
  connect(m_filter, &QLineEdit::textChanged, this, [this](const QString& t) { setFilterText(t); });
  connect(m_items->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid()) showDetail(m_proxy->mapToSource(current).row());
          });
  m_detail->setOpenLinks(false);

  auto* itemsBox = new QWidget;
  auto* itemsLayout = new QVBoxLayout(itemsBox);
  itemsLayout->setContentsMargins(0, 0, 0, 0);
  itemsLayout->addWidget(m_filter);
  itemsLayout->addWidget(m_items);
  auto* lower = new QSplitter(Qt::Horizontal);
  lower->addWidget(itemsBox);
  lower->addWidget(m_detail);
  lower->setStretchFactor(0, 3);
  lower->setStretchFactor(1, 2);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(m_summary);
  split->addWidget(lower);
  split->setStretchFactor(0, 2);
  split->setStretchFactor(1, 3);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(m_status);
  layout->addWidget(split, 1);
  m_status->setWordWrap(true);
  m_status->setText(
      tr("Choose a KILT task file and a predictions file, or load a dataset with "
         "a \"kilt\" and a \"kilt-predictions\" part."));

  connect(m_workbench, &Workbench::datasetChanged, this, [this] { takeFilesFromDataset(); });
  takeFilesFromDataset();
}

KiltView::~KiltView() {
  if (m_cancel) m_cancel->store(true);
  m_pool->waitForDone();
}

QIcon KiltView::icon() const { return style()->standardIcon(QStyle::SP_DialogApplyButton); }

void KiltView::takeFilesFromDataset() {
  const auto ds = m_workbench->dataset();
  if (!ds) return;
  QString gold, guess;
  for (const auto& part : ds->parts) {
    if (part.format == core::Format::Kilt && gold.isEmpty()) gold = q(part.path.string());
    if (part.format == core::Format::KiltPredictions && guess.isEmpty())
      guess = q(part.path.string());
  }
  if (!gold.isEmpty()) m_gold->setText(gold);
  if (!guess.isEmpty()) m_guess->setText(guess);
  if (!gold.isEmpty() && !guess.isEmpty()) evaluate();
}

// A retriever's run (one of the dataset's, e.g. made on the Retrieval page) as KILT predictions:
// provenance only, the pages of each query's top k documents (k = the largest of the k field,
// at least 5), written beside the dataset's files, then scored. So a KILT evaluation of a
// ragscope run needs no other tool; the CLI does the same with `retrieve --kilt-out`.
void KiltView::chooseRunForPredictions() {
  const auto ds = m_workbench->dataset();
  if (!ds || ds->runs.empty()) {
    m_status->setText(tr("Load a dataset with a run (or make one on the Retrieval page) first."));
    return;
  }
  QMenu menu(this);
  for (std::size_t i = 0; i < ds->runs.size(); ++i)
    menu.addAction(q(core::escapeControlChars(ds->runs[i].tag)))->setData(int(i));
  QAction* chosen = menu.exec(m_fromRun->mapToGlobal(QPoint(0, m_fromRun->height())));
  if (!chosen) return;
  const std::size_t index = std::size_t(chosen->data().toInt());
  const QString folder =
      ds->parts.empty() ? QString() : q(ds->parts.front().path.parent_path().string());
  const QString suggested =
      QDir(folder).filePath(q(ds->runs[index].tag) + QStringLiteral(".kilt-predictions.jsonl"));
  const QString path = m_predictionsPathChooser
                           ? m_predictionsPathChooser(suggested)
                           : QFileDialog::getSaveFileName(this, tr("KILT predictions"), suggested);
  if (!path.isEmpty()) writePredictionsFromRun(index, path);
}

bool KiltView::writePredictionsFromRun(std::size_t runIndex, const QString& path) {
  const auto ds = m_workbench->dataset();
  if (!ds || runIndex >= ds->runs.size() || m_running) return false;
  if (const QString why = refusedOutput(path, workbenchInputs(*m_workbench)); !why.isEmpty()) {
    m_status->setText(tr("Cannot write the predictions: %1").arg(why));
    return false;
  }
  std::vector<int> ks;
  core::eval::parseKiltKs(m_ks->text().toStdString(), ks);
  std::size_t k = 5;
  for (int v : ks) k = std::max(k, std::size_t(std::max(v, 0)));
  m_running = true;
  m_run->setEnabled(false);
  m_fromRun->setEnabled(false);
  m_status->setText(tr("Writing KILT predictions from run %1…")
                        .arg(q(core::escapeControlChars(ds->runs[runIndex].tag))));
  runInBackground(
      this, m_pool,
      [ds, runIndex, k, file = path.toStdString()] {
        std::string error;
        const auto predictions =
            core::eval::kiltPredictionsFor(*ds, &ds->runs[runIndex], k, nullptr);
        core::exporting::writeKiltPredictions(file, predictions, &error);
        return error;
      },
      [this, path](const std::string& error) {
        m_running = false;
        m_run->setEnabled(true);
        m_fromRun->setEnabled(true);
        if (!error.empty()) {
          m_status->setText(
              tr("Cannot write the predictions: %1").arg(q(core::escapeControlChars(error))));
          emit evaluationFinished(false);
          return;
        }
        m_guess->setText(path);
        evaluate();
      });
  return true;
}

void KiltView::setFiles(const QString& gold, const QString& guess) {
  m_gold->setText(gold);
  m_guess->setText(guess);
}
void KiltView::setKs(const QString& ks) { m_ks->setText(ks); }
void KiltView::setRankKeys(int setting) { m_keys->setCurrentIndex(std::clamp(setting, 0, 2)); }
void KiltView::setResamples(int b) { m_resamples->setValue(b); }
void KiltView::setFilterText(const QString& text) {
  if (m_filter->text() != text) m_filter->setText(text);
  m_proxy->setFilterText(text);
}
QString KiltView::statusText() const { return m_status->text(); }

bool KiltView::evaluate() {
  if (m_running) return false;
  core::eval::KiltEvalOptions options;
  if (auto p = core::eval::parseKiltKs(m_ks->text().toStdString(), options.ks); !p.empty()) {
    m_status->setText(tr("k: %1").arg(q(p)));
    return false;
  }
  static const std::vector<std::string> kKeySettings[] = {
      {"wikipedia_id"},
      {"wikipedia_id", "section"},
      {"wikipedia_id", "start_paragraph_id", "end_paragraph_id"}};
  options.rankKeys = kKeySettings[std::clamp(m_keys->currentIndex(), 0, 2)];
  options.resamples = std::size_t(m_resamples->value() >= 2 ? m_resamples->value() : 0);
  const std::string gold = m_gold->text().toStdString(), guess = m_guess->text().toStdString();
  if (gold.empty() || guess.empty()) {
    m_status->setText(tr("Choose both a KILT task file and a predictions file."));
    return false;
  }
  m_cancel = std::make_shared<std::atomic<bool>>(false);
  options.cancel = m_cancel.get();
  m_running = true;
  m_run->setEnabled(false);
  m_status->setText(tr("Evaluating…"));
  auto cancel = m_cancel;  // kept alive by the task
  runInBackground(
      this, m_pool,
      [gold, guess, options, cancel] {
        return core::eval::evaluateKiltFiles(gold, guess, options);
      },
      [this](core::Loaded<core::eval::KiltEvaluation> result) {
        m_running = false;
        m_run->setEnabled(true);
        const auto& r = result.report;
        QStringList messages;
        for (std::size_t i = 0; i < r.diagnostics.size() && i < 5; ++i)
          messages << q(core::escapeControlChars(r.diagnostics[i].toString()));
        if (!r.ok() || r.hasErrors()) {
          m_status->setText(tr("Cannot evaluate: %1").arg(messages.join(QStringLiteral("; "))));
          emit evaluationFinished(false);
          return;
        }
        m_evaluation = std::make_shared<const core::eval::KiltEvaluation>(std::move(result.value));
        showEvaluation();
        QString status = tr("%n item(s) of %1 scored against %2", nullptr, int(m_evaluation->n()))
                             .arg(q(m_evaluation->guessPath), q(m_evaluation->goldPath));
        if (!messages.isEmpty())
          status += QStringLiteral(" — ") + messages.join(QStringLiteral("; "));
        m_status->setText(status);
        emit evaluationFinished(true);
      });
  return true;
}

void KiltView::showEvaluation() {
  const auto& e = *m_evaluation;
  m_summary->setRowCount(int(e.metrics.size()));
  QString lastGroup;
  for (std::size_t i = 0; i < e.metrics.size(); ++i) {
    const auto& m = e.metrics[i];
    const QString group = q(m.group);
    auto cell = [&](int c, const QString& text, bool number) {
      auto* item = new QTableWidgetItem(text);
      if (number) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      m_summary->setItem(int(i), c, item);
    };
    cell(0, group == lastGroup ? QString() : group, false);
    lastGroup = group;
    cell(1, q(m.name), false);
    cell(2, QString::number(m.mean, 'f', 4), true);
    cell(3,
         m.ciLow && m.ciHigh
             ? QStringLiteral("[%1, %2]").arg(*m.ciLow, 0, 'f', 4).arg(*m.ciHigh, 0, 'f', 4)
             : QStringLiteral("–"),
         true);
    cell(4, QString::number(e.n()), true);
  }
  m_summary->resizeColumnsToContents();
  m_model->setEvaluation(m_evaluation);
  m_items->resizeColumnsToContents();
  for (int c = 0; c < m_model->columnCount(); ++c)
    m_items->setColumnWidth(c, std::min(m_items->columnWidth(c), 260));
  m_detail->clear();
}

void KiltView::selectRow(int row) {
  const QModelIndex index = m_proxy->index(row, 0);
  if (!index.isValid()) return;
  m_items->selectionModel()->setCurrentIndex(
      index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  showDetail(m_proxy->mapToSource(index).row());
}

namespace {

// One page of a provenance list: its id, title, paragraphs, whether it is in the gold (for a
// guess page) and, when the knowledge source is loaded, the text of the range. Runs off the GUI
// thread (showDetail): a page's text may have to be read from the corpus file.
QString kiltPageLine(const core::eval::KiltPageRef& p, bool inGold, const core::Dataset* ds) {
  QString line = QStringLiteral("<b>%1</b>").arg(kiltSafe(p.wikipediaId));
  if (!p.title.empty()) line += QStringLiteral(" %1").arg(kiltSafe(p.title));
  if (p.startParagraph >= 0)
    line += p.endParagraph > p.startParagraph
                ? KiltView::tr(" — paragraphs %1–%2").arg(p.startParagraph).arg(p.endParagraph)
                : KiltView::tr(" — paragraph %1").arg(p.startParagraph);
  if (inGold) line += QStringLiteral(" <span style='color:#2e7d32'>✓ gold page</span>");
  if (ds && !ds->corpus.empty()) {
    if (auto doc = ds->corpus.find(p.wikipediaId)) {
      core::Provenance prov;
      prov.docId = p.wikipediaId;
      prov.startParagraph = std::max(0, p.startParagraph);
      prov.endParagraph = p.startParagraph >= 0 ? p.endParagraph : 1;
      const auto cut = core::provenanceExcerpt(*doc, prov);
      const std::string text = cut.error.empty() ? cut.text : cut.error;
      line += QStringLiteral("<div style='margin-left:12px;color:#444'>%1</div>")
                  .arg(kiltSafe(text.substr(0, 600)) + (text.size() > 600 ? "…" : ""));
    }
  }
  return line;
}

// The whole detail of one item, as HTML (off the GUI thread).
QString kiltDetailHtml(const core::eval::KiltEvaluation& e, std::size_t row,
                       const core::Dataset* ds) {
  const auto& item = e.items[row];
  std::set<std::string> goldPages;
  for (const auto& set : item.goldProvenance)
    for (const auto& p : set) goldPages.insert(p.wikipediaId);

  QString html = QStringLiteral("<h3>%1</h3>").arg(kiltSafe(item.id));
  if (!item.input.empty())
    html += QStringLiteral("<p>%1</p>").arg(kiltSafe(item.input.substr(0, 2000)));
  html += KiltView::tr("<p><b>Gold answers:</b> %1</p>")
              .arg(kiltJoined(item.goldAnswers, " | ").toHtmlEscaped());
  html += item.hasGuess
              ? KiltView::tr("<p><b>Answer:</b> %1</p>").arg(kiltSafe(item.guessAnswer))
              : KiltView::tr("<p><b>Answer:</b> <i>no prediction for this id (scored 0)</i></p>");
  QStringList scores;
  for (std::size_t m = 0; m < e.metrics.size(); ++m)
    scores << QStringLiteral("%1 %2").arg(q(e.metrics[m].name)).arg(item.values[m], 0, 'f', 3);
  html += QStringLiteral("<p style='color:#555'>%1</p>").arg(scores.join(QStringLiteral(" · ")));
  html += KiltView::tr("<h4>Guess provenance (rank order)</h4>");
  if (item.guessProvenance.empty()) html += KiltView::tr("<p><i>none</i></p>");
  html += QStringLiteral("<ol>");
  for (std::size_t i = 0; i < item.guessProvenance.size() && i < 20; ++i) {
    const auto& p = item.guessProvenance[i];
    html +=
        QStringLiteral("<li>%1</li>").arg(kiltPageLine(p, goldPages.count(p.wikipediaId) > 0, ds));
  }
  html += QStringLiteral("</ol>");
  html += KiltView::tr("<h4>Gold provenance (one evidence set per output)</h4>");
  for (std::size_t s = 0; s < item.goldProvenance.size() && s < 10; ++s) {
    html += KiltView::tr("<p>Set %1:</p><ul>").arg(s + 1);
    for (const auto& p : item.goldProvenance[s])
      html += QStringLiteral("<li>%1</li>").arg(kiltPageLine(p, false, ds));
    html += QStringLiteral("</ul>");
  }
  return html;
}

}  // namespace

// The detail is built on the view's pool: the last selection wins (an older build finishing
// later is dropped by its ticket).
void KiltView::showDetail(int sourceRow) {
  if (!m_evaluation || sourceRow < 0 || std::size_t(sourceRow) >= m_evaluation->items.size())
    return;
  const int ticket = ++m_detailTicket;
  m_detail->setHtml(tr("<p><i>Reading…</i></p>"));
  runInBackground(
      this, m_pool,
      [evaluation = m_evaluation, dataset = m_workbench->dataset(), row = std::size_t(sourceRow)] {
        return kiltDetailHtml(*evaluation, row, dataset.get());
      },
      [this, ticket](const QString& html) {
        if (ticket != m_detailTicket) return;
        m_detail->setHtml(html);
        emit detailShown();
      });
}

}  // namespace ragscope::ui
