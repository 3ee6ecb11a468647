// Human labels in the workbench (issue 27, core/labels/README.md): on a copy of the demo project,
// claim verdicts set by keyboard in the claim inspector (judge vs human side by side, the
// "disagrees with the judge" filter, a comment), claims and unjudged documents labelled by
// keyboard through the labelling queue (progress, skip, previous), a document graded in the
// retrieval ranked list showing in the query detail at once, an eRAG document label, and the
// agreement view following the labels live. Every label is checked where it lands: the project's
// labels store reopened with core's LabelStore (values, annotator, comments, history).
// Screenshots go to $RAGSCOPE_SCREENSHOT_DIR when it is set.

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTextDocument>
#include <QtTest>
#include <filesystem>

#include "core/eval/jobs/claimverdicts.h"
#include "core/eval/jobs/judgejob.h"
#include "core/labels/labelqueue.h"
#include "core/labels/labelstore.h"
#include "ui/labelbook.h"
#include "ui/models/rankedlistmodel.h"
#include "ui/pages/agreementview.h"
#include "ui/pages/claiminspector.h"
#include "ui/pages/claimsresultsview.h"
#include "ui/pages/datasetpage.h"
#include "ui/pages/eragresultsview.h"
#include "ui/pages/labelqueue.h"
#include "ui/pages/ppisummary.h"
#include "ui/pages/querydetail.h"
#include "ui/pages/retrievalpage.h"
#include "ui/workbench.h"

using namespace ragscope;
using core::labels::Label;
using core::labels::LabelStore;
using core::labels::Target;
using core::labels::TargetKind;
namespace fs = std::filesystem;

namespace {

constexpr int kTimeoutMs = 60000;
const std::string kClaimsScope = "runs/claims-offline.db";  // as the demo project lists it
const std::string kDataset = "Harbor City demo";

void shoot(QWidget* w, const QString& name) {
  const QString dir = qEnvironmentVariable("RAGSCOPE_SCREENSHOT_DIR");
  if (dir.isEmpty()) return;
  QDir().mkpath(dir);
  QVERIFY(w->grab().save(QDir(dir).filePath(name + QStringLiteral(".png"))));
}

void copyTree(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

// The store's current labels, read by core as the CLI reads them.
std::vector<Label> storedLabels(const fs::path& store) {
  LabelStore s;
  std::string error;
  if (!s.openReadOnly(store, &error)) {
    qWarning("%s", error.c_str());
    return {};
  }
  return s.current();
}

const Label* findLabel(const std::vector<Label>& labels, const Target& target) {
  for (const auto& l : labels)
    if (l.target == target) return &l;
  return nullptr;
}

}  // namespace

class TestLabelsGui : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void init();
  void claimVerdictsInTheInspector();
  void claimsThroughTheQueue();
  void claimPremiseInInspectorAndQueue();
  void documentsThroughTheQueue();
  void rankedListGradeShowsInTheQueryDetail();
  void eragDocumentLabel();
  void agreementFollowsTheLabels();
  void storeWithoutAProject();

 private:
  // Waits until the book has stored everything asked of it.
  bool settle() {
    return QTest::qWaitFor([this] { return m_wb->labelBook()->pending() == 0; }, kTimeoutMs);
  }
  std::shared_ptr<const core::eval::JudgeReport> claimsReport() {
    return std::make_shared<const core::eval::JudgeReport>(
        core::eval::readJudgeReport(m_claimsStore.toStdString(), {}));
  }

  QTemporaryDir m_dir;
  fs::path m_project;
  QString m_claimsStore;
  std::unique_ptr<ui::Workbench> m_wb;
  std::unique_ptr<ui::DatasetPage> m_datasetPage;
  std::unique_ptr<ui::RetrievalPage> m_retrieval;
};

void TestLabelsGui::initTestCase() {
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName(QStringLiteral("ragscope-tests"));
  QCoreApplication::setApplicationName(QStringLiteral("tst_labelsgui"));
  QSettings().clear();
  QVERIFY(m_dir.isValid());
  const fs::path root(m_dir.path().toStdString());
  copyTree(fs::path(RAGSCOPE_SOURCE_DIR) / "resources/demo", root / "demo");
  m_project = root / "demo" / "demo.ragscope.json";
  m_claimsStore = QString::fromStdString((root / "demo" / kClaimsScope).string());

  m_wb = std::make_unique<ui::Workbench>();
  m_wb->setOutsidePartsPolicy(ui::Workbench::OutsidePartsPolicy::Refuse);
  // The pages that show labels exist before the project opens, as in the main window.
  m_datasetPage = std::make_unique<ui::DatasetPage>(m_wb.get());
  m_retrieval = std::make_unique<ui::RetrievalPage>(m_wb.get());
  QSignalSpy loaded(m_wb.get(), &ui::Workbench::loadFinished);
  QVERIFY(m_wb->openProject(QString::fromStdString(m_project.string()),
                            QString::fromStdString(kDataset)));
  QVERIFY(loaded.wait(kTimeoutMs));
  QVERIFY(loaded.front().at(0).toBool());
  // The store follows the project: "<stem>.labels.db" beside it, not made before a first label.
  QCOMPARE(m_wb->labelBook()->storePath(),
           QString::fromStdString((root / "demo" / "demo.ragscope.labels.db").string()));
  QVERIFY(!fs::exists(root / "demo" / "demo.ragscope.labels.db"));
  QCOMPARE(m_wb->labelBook()->runScope(m_claimsStore), kClaimsScope);
  QCOMPARE(m_wb->labelBook()->datasetScope(), kDataset);
  m_wb->labelBook()->setAnnotator(QStringLiteral("ana"));
}

void TestLabelsGui::init() { QVERIFY(settle()); }

void TestLabelsGui::claimVerdictsInTheInspector() {
  ui::LabelBook* book = m_wb->labelBook();
  ui::ClaimsResultsView view;
  view.resize(1300, 900);
  view.setLabelBook(book);
  const auto report = claimsReport();
  QVERIFY2(report->error.empty(), report->error.c_str());
  view.setReport(report, m_claimsStore);
  view.show();
  // An answer whose two claims the judge splits: claim 0 supported, claim 1 not (the demo's
  // answers have one or two claims).
  const core::eval::JudgedQuery* query = nullptr;
  for (const auto& q : report->queries) {
    if (q.responseClaims.claims.size() != 2) continue;
    const auto v0 = core::eval::responseClaimVsChunks(q, 0);
    const auto v1 = core::eval::responseClaimVsChunks(q, 1);
    if (v0 && v1 && core::claims::isSupported(*v0) && *v1 == core::claims::Label::Unsupported) {
      query = &q;
      break;
    }
  }
  QVERIFY(query);
  QVERIFY(view.selectAnswer(QString::fromStdString(query->qid)));
  ui::ClaimInspector* inspector = view.inspector();
  QCOMPARE(inspector->query(), query);
  QTableWidget* claims = inspector->claimTable();
  // The human column sits beside the judge's verdict.
  QCOMPARE(claims->horizontalHeader()->visualIndex(ui::ClaimInspector::kHumanColumn), 2);
  QCOMPARE(claims->horizontalHeaderItem(ui::ClaimInspector::kHumanColumn)->text(),
           QStringLiteral("human vs chunks"));

  claims->setFocus();
  claims->setCurrentCell(0, 4);
  // Claim 0: unsupported, against the judge's "supported"; the key moves on to claim 1: "?",
  // cannot tell.
  QTest::keyClick(claims, Qt::Key_U);
  QCOMPARE(claims->currentRow(), 1);
  QTest::keyClick(claims, Qt::Key_Question);
  QVERIFY(settle());
  const auto labels = book->snapshot();
  QCOMPARE(labels->current.size(), std::size_t(2));
  const Target t0{TargetKind::Claim, kClaimsScope, query->qid, "response:0"};
  QVERIFY(labels->of(t0, "ana"));
  QCOMPARE(labels->of(t0, "ana")->value, std::string("unsupported"));
  QCOMPARE(labels->of(t0, "ana")->context, query->responseClaims.claims[0]);

  // Judge vs human side by side: claim 0 marked as a disagreement, claim 1 abstains.
  const QString human0 = claims->item(0, ui::ClaimInspector::kHumanColumn)->text();
  QVERIFY2(human0.startsWith(QStringLiteral("≠")), qPrintable(human0));
  QVERIFY(human0.contains(QStringLiteral("unsupported")));
  QVERIFY(claims->item(0, 1)->text().contains(QStringLiteral("supported")));  // the judge's
  const QString human1 = claims->item(1, ui::ClaimInspector::kHumanColumn)->text();
  QVERIFY(!human1.startsWith(QStringLiteral("≠")));
  QVERIFY(human1.contains(QStringLiteral("cannot tell")));
  QVERIFY2(inspector->labelStatus()->text().contains(QStringLiteral("2 of 2 claims, 1 disagree")),
           qPrintable(inspector->labelStatus()->text()));

  view.tabs()->setCurrentIndex(view.answersTab());
  shoot(&view, QStringLiteral("claim-inspector-human-verdicts"));
  // The filter keeps only the disagreement.
  inspector->disagreementFilter()->setChecked(true);
  QCOMPARE(inspector->visibleClaims(), 1);
  QVERIFY(!claims->isRowHidden(0));
  QVERIFY(claims->isRowHidden(1));
  shoot(&view, QStringLiteral("claim-inspector-disagreements-only"));
  inspector->disagreementFilter()->setChecked(false);
  QCOMPARE(inspector->visibleClaims(), 2);

  // The gold answer's claims take the same keys ("gold:<i>" targets, beside "in the answer").
  QTableWidget* gold = inspector->goldTable();
  QVERIFY(gold->rowCount() >= 1);
  QCOMPARE(gold->horizontalHeader()->visualIndex(ui::ClaimInspector::kGoldHumanColumn), 2);
  gold->setFocus();
  gold->setCurrentCell(0, 3);
  QTest::keyClick(gold, Qt::Key_N);
  QVERIFY(settle());
  const Target g0{TargetKind::Claim, kClaimsScope, query->qid, "gold:0"};
  QVERIFY(book->snapshot()->of(g0, "ana"));
  QCOMPARE(book->snapshot()->of(g0, "ana")->value, std::string("neutral"));
  QCOMPARE(book->snapshot()->of(g0, "ana")->context, query->goldClaims.claims[0]);
  QVERIFY(gold->item(0, ui::ClaimInspector::kGoldHumanColumn)->text().contains("neutral"));

  // A comment on claim 0: '/' opens the field, Enter stores the verdict again with it.
  claims->setFocus();
  claims->setCurrentCell(0, 4);
  QTest::keyClick(claims, Qt::Key_Slash);
  QVERIFY(inspector->commentEdit()->hasFocus());
  QTest::keyClicks(inspector->commentEdit(), QStringLiteral("the chunk says the opposite"));
  QTest::keyClick(inspector->commentEdit(), Qt::Key_Return);
  QVERIFY(settle());

  // In the store, as core reads it: the latest of each, by "ana"; the first verdict in history.
  const fs::path store = book->storePath().toStdString();
  const auto stored = storedLabels(store);
  QCOMPARE(stored.size(), std::size_t(3));
  const Label* first = findLabel(stored, t0);
  QVERIFY(first);
  QCOMPARE(first->annotator, std::string("ana"));
  QCOMPARE(first->value, std::string("unsupported"));
  QCOMPARE(first->comment, std::string("the chunk says the opposite"));
  const Label* second =
      findLabel(stored, {TargetKind::Claim, kClaimsScope, query->qid, "response:1"});
  QVERIFY(second);
  QCOMPARE(second->value, std::string("cannot_tell"));
  LabelStore reader;
  std::string error;
  QVERIFY(reader.openReadOnly(store, &error));
  QCOMPARE(reader.history(t0).size(), std::size_t(2));  // the verdict, then with the comment
  QVERIFY(reader.history(t0).front().comment.empty());
}

void TestLabelsGui::claimsThroughTheQueue() {
  ui::LabelBook* book = m_wb->labelBook();
  const std::size_t before = book->snapshot()->current.size();
  const auto report = claimsReport();
  auto* queue = ui::LabelQueue::claimsQueue(book, report, m_claimsStore, nullptr);
  QScopedPointer<ui::LabelQueue> owner(queue);
  queue->setAttribute(Qt::WA_DeleteOnClose, false);
  queue->setOrder(core::labels::QueueOrder::StratifiedByJudge);
  queue->setSize(5);
  queue->setSeed(11);
  queue->show();
  QSignalSpy built(queue, &ui::LabelQueue::built);
  queue->build();
  QVERIFY(built.wait(kTimeoutMs));
  QCOMPARE(built.front().at(0).toInt(), 5);
  const auto items = queue->items();
  // Labelled before (the inspector's response claims) are left out.
  for (const auto& item : items) QVERIFY(!book->snapshot()->of(item.target, "ana"));
  QCOMPARE(queue->progressLabel()->text(), QStringLiteral("1 / 5 · 0 labelled"));

  QWidget* view = queue->itemView();
  QTest::keyClick(view, Qt::Key_S);      // item 0: supported, on to 1
  QTest::keyClick(view, Qt::Key_Space);  // item 1 skipped, on to 2
  QTest::keyClick(view, Qt::Key_C);      // item 2: contradiction, on to 3
  QTest::keyClick(view, Qt::Key_Left);   // back to 2
  QTest::keyClick(view, Qt::Key_Left);   // back to 1 (skipped)
  QCOMPARE(queue->position(), 1);
  QTest::keyClick(view, Qt::Key_N);      // item 1: neutral, on to 2
  QTest::keyClick(view, Qt::Key_Right);  // 3
  QTest::keyClick(view, Qt::Key_Slash);  // a comment for item 3's verdict
  QTest::keyClicks(queue->commentEdit(), QStringLiteral("vague"));
  QTest::keyClick(queue->commentEdit(), Qt::Key_Return);  // back to the item
  QTest::keyClick(view, Qt::Key_T);                       // item 3: cannot tell
  QVERIFY(settle());
  QCOMPARE(queue->position(), 4);
  QCOMPARE(queue->progressLabel()->text(), QStringLiteral("5 / 5 · 4 labelled"));
  shoot(queue, QStringLiteral("labelling-queue-claims"));

  const auto stored = storedLabels(book->storePath().toStdString());
  QCOMPARE(stored.size(), before + 4);
  const std::vector<std::string> expected = {"supported", "neutral", "contradiction",
                                             "cannot_tell"};
  for (std::size_t i = 0; i < 4; ++i) {
    const Label* l = findLabel(stored, items[i].target);
    QVERIFY2(l, items[i].target.key().c_str());
    QCOMPARE(l->value, expected[i]);
    QCOMPARE(l->annotator, std::string("ana"));
    QCOMPARE(l->context, items[i].context);
  }
  QCOMPARE(findLabel(stored, items[3].target)->comment, std::string("vague"));
  QVERIFY(!findLabel(stored, items[4].target));
}

void TestLabelsGui::claimPremiseInInspectorAndQueue() {
  // Issue 35, item 10: a verdict against the gold answer is recorded as such, shown apart from
  // the verdicts against the chunks, and only correctness' estimate uses it.
  ui::LabelBook* book = m_wb->labelBook();
  ui::ClaimsResultsView view;
  view.resize(1300, 900);
  view.setLabelBook(book);
  const auto report = claimsReport();
  view.setReport(report, m_claimsStore);
  view.show();
  // The answer whose claim 0 ana judged against the chunks (claimVerdictsInTheInspector).
  const core::eval::JudgedQuery* query = nullptr;
  for (const auto& q : report->queries)
    if (!q.responseClaims.claims.empty() &&
        book->snapshot()->of({TargetKind::Claim, kClaimsScope, q.qid, "response:0"}, "ana") &&
        core::eval::responseClaimVsGold(q, 0) &&
        core::claims::isResolved(*core::eval::responseClaimVsGold(q, 0))) {
      query = &q;
      break;
    }
  QVERIFY(query);
  QVERIFY(view.selectAnswer(QString::fromStdString(query->qid)));
  ui::ClaimInspector* inspector = view.inspector();
  QTableWidget* claims = inspector->claimTable();
  const QString vsChunks = claims->item(0, ui::ClaimInspector::kHumanColumn)->text();
  QVERIFY2(vsChunks != QStringLiteral("–"), qPrintable(vsChunks));  // a verdict vs the chunks
  // Against the gold answer: the column names it, and the chunk verdict is not shown as one.
  QComboBox* premise = inspector->premiseChoice();
  premise->setCurrentIndex(premise->findData(int(core::labels::ClaimPremise::GoldAnswer)));
  QCOMPARE(inspector->labelPremise(), core::labels::ClaimPremise::GoldAnswer);
  QCOMPARE(claims->horizontalHeaderItem(ui::ClaimInspector::kHumanColumn)->text(),
           QStringLiteral("human vs gold"));
  // Beside the judge's verdict against the gold answer (column 2, "vs gold answer").
  QCOMPARE(claims->horizontalHeader()->visualIndex(ui::ClaimInspector::kHumanColumn),
           claims->horizontalHeader()->visualIndex(2) + 1);
  QCOMPARE(claims->item(0, ui::ClaimInspector::kHumanColumn)->text(), QStringLiteral("–"));
  claims->setFocus();
  claims->setCurrentCell(0, 4);
  QTest::keyClick(claims, Qt::Key_S);
  QVERIFY(settle());
  const Target vsGold{TargetKind::Claim, kClaimsScope, query->qid, "response:0",
                      core::labels::ClaimPremise::GoldAnswer};
  QVERIFY(book->snapshot()->of(vsGold, "ana"));
  QCOMPARE(book->snapshot()->of(vsGold, "ana")->value, std::string("supported"));
  QVERIFY(claims->item(0, ui::ClaimInspector::kHumanColumn)->text().contains("supported"));
  view.tabs()->setCurrentIndex(view.answersTab());
  shoot(&view, QStringLiteral("claim-inspector-vs-gold"));
  // Back to the chunks: the earlier verdict is there, untouched.
  inspector->setLabelPremise(core::labels::ClaimPremise::Chunks);
  QCOMPARE(claims->item(0, ui::ClaimInspector::kHumanColumn)->text(), vsChunks);
  QCOMPARE(claims->horizontalHeader()->visualIndex(ui::ClaimInspector::kHumanColumn), 2);

  // The PPI table: correctness has this one label, faithfulness the verdicts against the chunks.
  view.ppiSummary()->refresh();
  const auto* correctness = view.ppiSummary()->estimate("correctness");
  const auto* faithfulness = view.ppiSummary()->estimate("faithfulness");
  QVERIFY(correctness && faithfulness);
  QCOMPARE(correctness->items.labelled(), std::size_t(1));
  QVERIFY(faithfulness->items.labelled() >= 2);
  QVERIFY(correctness->items.otherPremise >= 2);

  // The queue against the gold answer: the claims judged against the chunks are still to do;
  // the item asks the gold answer's question and its label records it.
  auto* queue = ui::LabelQueue::claimsQueue(book, report, m_claimsStore, nullptr);
  QScopedPointer<ui::LabelQueue> owner(queue);
  queue->setAttribute(Qt::WA_DeleteOnClose, false);
  QVERIFY(queue->premiseChoice()->isVisibleTo(queue));
  queue->setPremise(core::labels::ClaimPremise::GoldAnswer);
  queue->setOrder(core::labels::QueueOrder::Random);
  queue->setSize(1000);
  queue->show();
  QSignalSpy built(queue, &ui::LabelQueue::built);
  queue->build();
  QVERIFY(built.wait(kTimeoutMs));
  std::size_t responseClaims = 0;
  for (const auto& q : report->queries) responseClaims += q.responseClaims.claims.size();
  QCOMPARE(queue->items().size(), responseClaims - 1);  // all but the one labelled vs the gold
  for (const auto& item : queue->items())
    QCOMPARE(item.target.premise, std::optional(core::labels::ClaimPremise::GoldAnswer));
  const QString shown = queue->itemView()->toPlainText();
  QVERIFY2(shown.contains(QStringLiteral("Is this claim supported by the gold answer?")),
           qPrintable(shown.left(400)));
  QVERIFY2(shown.contains(QStringLiteral("The premise: the gold answer")),
           qPrintable(shown.left(600)));
  shoot(queue, QStringLiteral("labelling-queue-vs-gold"));
  const Target first = queue->items().front().target;
  QTest::keyClick(queue->itemView(), Qt::Key_U);
  QVERIFY(settle());
  const auto stored = storedLabels(book->storePath().toStdString());
  const Label* l = findLabel(stored, first);
  QVERIFY(l);
  QCOMPARE(l->target.premise, std::optional(core::labels::ClaimPremise::GoldAnswer));
  QCOMPARE(l->value, std::string("unsupported"));
}

void TestLabelsGui::documentsThroughTheQueue() {
  ui::LabelBook* book = m_wb->labelBook();
  const auto dataset = m_wb->dataset();
  QVERIFY(dataset && dataset->runs.size() == 2);
  std::vector<std::shared_ptr<const core::Run>> runs;
  for (const auto& r : dataset->runs) runs.emplace_back(dataset, &r);
  const std::shared_ptr<const core::Qrels> qrels(dataset, &dataset->qrels);
  auto* queue = ui::LabelQueue::documentsQueue(book, dataset, runs, qrels, nullptr);
  QScopedPointer<ui::LabelQueue> owner(queue);
  queue->setAttribute(Qt::WA_DeleteOnClose, false);
  queue->setRun(1);  // the weak run: more unjudged documents near the top
  queue->setDepth(10);
  queue->setSize(3);
  queue->setOrder(core::labels::QueueOrder::TopRanksFirst);
  queue->show();
  QSignalSpy built(queue, &ui::LabelQueue::built);
  queue->build();
  QVERIFY(built.wait(kTimeoutMs));
  const auto items = queue->items();
  QCOMPARE(items.size(), std::size_t(3));
  // Each one unjudged by the qrels and within the top 10, top ranks first.
  for (std::size_t i = 0; i < items.size(); ++i) {
    QCOMPARE(items[i].target.kind, TargetKind::Relevance);
    QCOMPARE(items[i].target.scope, kDataset);
    const auto it = dataset->qrels.byQuery.find(items[i].target.qid);
    if (it != dataset->qrels.byQuery.end())
      for (const auto& j : it->second) QVERIFY(j.docId != items[i].target.item);
    QVERIFY(items[i].rank >= 1 && items[i].rank <= 10);
    if (i) QVERIFY(items[i - 1].rank <= items[i].rank);
  }
  QVERIFY(queue->itemView()->toPlainText().contains(QStringLiteral("unjudged")));
  QWidget* view = queue->itemView();
  QTest::keyClick(view, Qt::Key_2);
  QTest::keyClick(view, Qt::Key_0);
  QTest::keyClick(view, Qt::Key_5);  // not a grade: nothing happens
  QCOMPARE(queue->position(), 2);
  QTest::keyClick(view, Qt::Key_3);
  QVERIFY(settle());
  QCOMPARE(queue->progressLabel()->text(), QStringLiteral("3 / 3 · 3 labelled"));
  QTest::keyClick(view, Qt::Key_Left);
  shoot(queue, QStringLiteral("labelling-queue-documents"));
  const auto stored = storedLabels(book->storePath().toStdString());
  const std::vector<std::string> grades = {"2", "0", "3"};
  for (std::size_t i = 0; i < 3; ++i) {
    const Label* l = findLabel(stored, items[i].target);
    QVERIFY(l);
    QCOMPARE(l->value, grades[i]);
    QCOMPARE(l->annotator, std::string("ana"));
  }
}

void TestLabelsGui::rankedListGradeShowsInTheQueryDetail() {
  ui::LabelBook* book = m_wb->labelBook();
  // The query detail shows a query; the grade is given on the retrieval page.
  QVERIFY(m_datasetPage->selectQueryRow(0));
  const core::Query& query = m_wb->dataset()->queries.front();
  QTextBrowser* detail = m_datasetPage->detailView();
  QVERIFY(detail->toPlainText().contains(QStringLiteral("Human grades: Tab to a document")));

  QSignalSpy finished(m_retrieval.get(), &ui::RetrievalPage::evaluationFinished);
  QVERIFY(m_retrieval->evaluate());
  QVERIFY(finished.wait(kTimeoutMs));
  QVERIFY(finished.front().at(0).toBool());
  QVERIFY(m_retrieval->showQuery(1, QString::fromStdString(query.id)));
  QTableView* ranked = m_retrieval->rankedView();
  ranked->setFocus();
  // The first unjudged document of the ranking: graded 2 by key.
  const QAbstractItemModel* model = ranked->model();
  int row = -1;
  for (int r = 0; r < model->rowCount() && row < 0; ++r)
    if (model->index(r, ui::RankedListModel::Grade).data().toString() == "unjudged") row = r;
  QVERIFY(row >= 0);
  const QString doc = model->index(row, ui::RankedListModel::DocId).data().toString();
  ranked->setCurrentIndex(model->index(row, ui::RankedListModel::DocId));
  QTest::keyClick(ranked, Qt::Key_2);
  QVERIFY(settle());
  QCOMPARE(ranked->currentIndex().row(), row + 1);  // graded, on to the next
  const QString human = model->index(row, ui::RankedListModel::Human).data().toString();
  QVERIFY2(human.startsWith(QStringLiteral("2")), qPrintable(human));
  // Still unjudged in the qrels: the grade is the human's only.
  QCOMPARE(model->index(row, ui::RankedListModel::Grade).data().toString(),
           QStringLiteral("unjudged"));
  // At once in the query detail, nothing reselected.
  QVERIFY(detail->toPlainText().contains(QStringLiteral("Human grades (")));
  QVERIFY2(detail->toHtml().contains(QStringLiteral("human 2")), "no human grade in the detail");
  QVERIFY(detail->toPlainText().contains(doc));
  const auto stored = storedLabels(book->storePath().toStdString());
  const Label* l =
      findLabel(stored, {TargetKind::Relevance, kDataset, query.id, doc.toStdString()});
  QVERIFY(l);
  QCOMPARE(l->value, std::string("2"));
  // Two more down the list, and a judged document the human grades otherwise (marked ≠).
  QTest::keyClick(ranked, Qt::Key_1);
  QTest::keyClick(ranked, Qt::Key_0);
  ranked->setCurrentIndex(model->index(0, ui::RankedListModel::DocId));
  const bool topRelevant =
      model->index(0, ui::RankedListModel::Grade).data().toString().contains("relevant");
  QTest::keyClick(ranked, topRelevant ? Qt::Key_0 : Qt::Key_3);
  QVERIFY(settle());
  QVERIFY(model->index(0, ui::RankedListModel::Human).data().toString().startsWith("≠"));
  m_retrieval->resize(1300, 900);
  m_retrieval->show();
  shoot(m_retrieval.get(), QStringLiteral("ranked-list-human-grades"));
  m_datasetPage->resize(1100, 800);
  m_datasetPage->show();
  shoot(m_datasetPage.get(), QStringLiteral("query-detail-human-grades"));

  // In the detail itself: the document link that has the keyboard (as Tab leaves it) takes a
  // grade key. The first judged document's link: graded 3.
  QTextCursor found;
  for (QTextBlock b = detail->document()->begin(); b.isValid() && found.isNull(); b = b.next())
    for (auto it = b.begin(); !it.atEnd(); ++it) {
      const QString href = it.fragment().charFormat().anchorHref();
      if (!href.startsWith(QStringLiteral("doc:"))) continue;
      found = QTextCursor(detail->document());
      found.setPosition(it.fragment().position());
      found.setPosition(it.fragment().position() + it.fragment().length(), QTextCursor::KeepAnchor);
      break;
    }
  QVERIFY(!found.isNull());
  const std::string linked = ui::documentIdFromLink(found.charFormat().anchorHref());
  detail->setFocus();
  detail->setTextCursor(found);
  QTest::keyClick(detail, Qt::Key_3);
  QVERIFY(settle());
  const auto afterKey = storedLabels(book->storePath().toStdString());
  const Label* byKey = findLabel(afterKey, {TargetKind::Relevance, kDataset, query.id, linked});
  QVERIFY2(byKey, linked.c_str());
  QCOMPARE(byKey->value, std::string("3"));
  // The detail was drawn again with the grade, the same link still has the keyboard.
  QCOMPARE(ui::documentIdFromLink(detail->textCursor().charFormat().anchorHref()), linked);

  // The detail's grade links name the grade and the document (percent-encoded).
  const QString link = ui::gradeLink(1, doc.toStdString());
  int grade = -1;
  std::string linkedDoc;
  QVERIFY(ui::gradeFromLink(link, &grade, &linkedDoc));
  QCOMPARE(grade, 1);
  QCOMPARE(linkedDoc, doc.toStdString());
}

void TestLabelsGui::eragDocumentLabel() {
  ui::LabelBook* book = m_wb->labelBook();
  const fs::path store = fs::path(m_project).parent_path() / "runs/erag-good.db";
  core::eval::ResultOptions options;
  options.bootstrap.resamples = 0;
  options.correlationResamples = 0;
  auto results = std::make_shared<const core::eval::EvaluationResults>(
      core::eval::readEvaluation(store, {}, options));
  QVERIFY2(results->error.empty(), results->error.c_str());
  ui::EragResultsView view;
  view.setLabelBook(book);
  view.setResults(results, m_wb->dataset());
  QVERIFY(view.drillDown(0, 0));
  QVERIFY(view.drillView()->toPlainText().contains(QStringLiteral("Human label: none")));
  view.heatmapView()->setFocus();
  QTest::keyClick(view.heatmapView(), Qt::Key_1);
  QVERIFY(settle());
  QVERIFY2(
      view.drillView()->toPlainText().simplified().contains(QStringLiteral("Human label 1 (ana)")),
      qPrintable(view.drillView()->toPlainText().left(300)));
  const auto stored = storedLabels(book->storePath().toStdString());
  std::size_t erag = 0;
  for (const auto& l : stored)
    if (l.target.kind == TargetKind::EragDoc) {
      ++erag;
      QCOMPARE(l.target.scope, std::string("runs/erag-good.db"));
      QCOMPARE(l.value, std::string("1"));
    }
  QCOMPARE(erag, std::size_t(1));
}

void TestLabelsGui::agreementFollowsTheLabels() {
  ui::LabelBook* book = m_wb->labelBook();
  ui::ClaimsResultsView view;
  view.setLabelBook(book);
  const auto report = claimsReport();
  view.setReport(report, m_claimsStore);
  ui::AgreementView* agreement = view.agreement();
  QSignalSpy updated(agreement, &ui::AgreementView::liveUpdated);
  QVERIFY(agreement->showProjectLabels());
  QVERIFY(updated.wait(kTimeoutMs));
  // Ana's verdicts on answer claims against the chunks (one group per premise).
  auto claimRow = [&]() -> const core::labels::JudgeHumanAgreement* {
    for (const auto& a : agreement->liveReport()->judgeVsHuman)
      if (a.kind == TargetKind::Claim && a.annotator == "ana" && !a.goldClaims &&
          a.premise == core::labels::ClaimPremise::Chunks)
        return &a;
    return nullptr;
  };
  QVERIFY(claimRow());
  const std::size_t before = claimRow()->labels;
  QCOMPARE(before, std::size_t(6));  // 2 in the inspector, 4 through the queue
  // One more verdict in the inspector: the view follows without being asked.
  const core::eval::JudgedQuery* unlabelled = nullptr;
  for (const auto& q : report->queries)
    if (!q.responseClaims.claims.empty() &&
        !book->snapshot()->of({TargetKind::Claim, kClaimsScope, q.qid, "response:0"}, "ana")) {
      unlabelled = &q;
      break;
    }
  QVERIFY(unlabelled);
  QVERIFY(view.selectAnswer(QString::fromStdString(unlabelled->qid)));
  updated.clear();
  view.inspector()->setHumanVerdict(0, "supported");
  QVERIFY(
      QTest::qWaitFor([&] { return claimRow() && claimRow()->labels == before + 1; }, kTimeoutMs));
  QVERIFY(agreement->liveTable()->rowCount() >= 2);  // claims and relevance at least
  QVERIFY(!agreement->confusionView()->toPlainText().isEmpty());
  view.resize(1200, 800);
  view.show();
  view.tabs()->setCurrentIndex(view.agreementTab());
  shoot(&view, QStringLiteral("agreement-live"));
}

void TestLabelsGui::storeWithoutAProject() {
  // A dataset opened without a project keeps its labels in the user's data folder, one store
  // per dataset name; a label made there fails loudly when it cannot be stored.
  ui::Workbench wb;
  ui::RecentDataset spec;
  spec.name = QStringLiteral("qrels only/ä");
  spec.parts = {{QString::fromStdString((m_project.parent_path() / "qrels.txt").string()),
                 QStringLiteral("trec-qrels")}};
  QSignalSpy loaded(&wb, &ui::Workbench::loadFinished);
  QVERIFY(wb.openDataset(spec));
  QVERIFY(loaded.wait(kTimeoutMs));
  QVERIFY(loaded.front().at(0).toBool());
  const QString expected = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
                           QStringLiteral("/labels/qrels_only_ä.labels.db");
  QCOMPARE(wb.labelBook()->storePath(), expected);
  QCOMPARE(wb.labelBook()->datasetScope(), std::string("qrels only/ä"));
  // A store outside the labels' folder is named by its absolute path, never its file name
  // alone (issue 35, item 11).
  QCOMPARE(wb.labelBook()->runScope(QStringLiteral("/somewhere/claims.db")),
           std::string("/somewhere/claims.db"));
  // A label the store refuses (a grade out of range) is reported, nothing stored.
  QSignalSpy failed(wb.labelBook(), &ui::LabelBook::labelFailed);
  Label bad;
  bad.target = {TargetKind::Relevance, "qrels only/ä", "q01", "hc01"};
  bad.value.assign(1, '7');  // (a literal here trips GCC 12's -Wrestrict false positive)
  bad.annotator = "ana";
  wb.labelBook()->add(bad);
  QVERIFY(failed.wait(kTimeoutMs));
  QVERIFY2(failed.front().at(0).toString().contains(QStringLiteral("7")),
           qPrintable(failed.front().at(0).toString()));
  QVERIFY(wb.labelBook()->snapshot()->current.empty());
  QVERIFY(!QFileInfo::exists(expected));  // a refused label creates no store
}

QTEST_MAIN(TestLabelsGui)
#include "tst_labelsgui.moc"
