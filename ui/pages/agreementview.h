#pragma once
// Judge vs human on the Claims page: human labels loaded from a qid,label CSV (compared with the
// judging run on screen, each metric an aspect) or from RAGChecker's meta-evaluation files (a
// human file and a baseline judge file), compared in the background by core (the same code as
// `ragscope-cli agreement`). Shows per aspect Pearson, Spearman, Kendall tau-b and Cohen's kappa
// x 100 with their bootstrap CIs, the human ceiling (annotator vs annotator) where there are two
// annotators, and a scatter of the judge's score against the human label for the selected aspect.
// "From the project's labels" compares the judge with the labels made in the workbench instead
// (core/labels/labelagreement.h, as `ragscope-cli agreement --labels`): per kind, run and
// annotator the pairs, accuracy and Cohen's kappa with the confusion matrix of verdicts, and the
// agreement between annotators (kappa, Krippendorff's alpha); recomputed in the background each
// time a label is stored, anywhere in the workbench.

#include <QString>
#include <QWidget>
#include <memory>

#include "core/eval/inputs/agreementinputs.h"
#include "core/eval/jobs/judgejob.h"
#include "core/labels/labelagreement.h"

class QLabel;
class QSplitter;
class QTableWidget;
class QTextBrowser;

namespace ragscope::ui {

namespace charts {
class ChartWidget;
}
class LabelBook;

class AgreementView : public QWidget {
  Q_OBJECT
 public:
  explicit AgreementView(QWidget* parent = nullptr);

  // The judging run human labels are compared with (may be null), read from `store`.
  void setReport(std::shared_ptr<const core::eval::JudgeReport> report, const QString& store = {});
  // The workbench's labels, for "From the project's labels" (null: that mode is off).
  void setLabelBook(LabelBook* book);
  // Scripted use: switches to the project's labels; liveUpdated() follows each computation.
  bool showProjectLabels();
  bool isLive() const { return m_live; }
  const core::labels::LabelAgreementReport* liveReport() const { return m_liveReport.get(); }
  QTableWidget* liveTable() const { return m_liveTable; }
  QTextBrowser* confusionView() const { return m_confusion; }

  // Scripted use; finished() follows.
  bool loadHumanCsv(const QString& path);
  bool loadMetaEvaluation(const QString& humanJson, const QString& baselineJson,
                          const QString& name = QStringLiteral("ragchecker"));
  void selectAspect(int row);

  const core::eval::AgreementOutcome* outcome() const { return m_outcome.get(); }
  QTableWidget* table() const { return m_table; }
  charts::ChartWidget* scatter() const { return m_scatter; }
  QLabel* statusLabel() const { return m_status; }

 signals:
  void finished(bool ok);
  void liveUpdated();

 private:
  void start(std::function<core::eval::AgreementOutcome()> work, const QString& what);
  void show(std::shared_ptr<const core::eval::AgreementOutcome> outcome);
  void setLive(bool on);
  void computeLive();
  void showLive(std::shared_ptr<const core::labels::LabelAgreementReport> report);
  void showConfusion(int row);

  std::shared_ptr<const core::eval::JudgeReport> m_report;
  std::shared_ptr<const core::eval::AgreementOutcome> m_outcome;
  int m_generation = 0;
  QLabel* m_status = nullptr;
  QTableWidget* m_table = nullptr;
  charts::ChartWidget* m_scatter = nullptr;
  QSplitter* m_csvPane = nullptr;
  // From the project's labels.
  QString m_store;
  LabelBook* m_book = nullptr;
  bool m_live = false;
  bool m_liveRunning = false, m_liveDirty = false;
  int m_liveGeneration = 0;
  std::shared_ptr<const core::labels::LabelSources> m_sources;  // read once per run and project
  std::shared_ptr<const core::labels::LabelAgreementReport> m_liveReport;
  std::vector<int> m_liveRows;  // per table row: index into judgeVsHuman, or -1
  QSplitter* m_livePane = nullptr;
  QTableWidget* m_liveTable = nullptr;
  QTextBrowser* m_confusion = nullptr;
};

}  // namespace ragscope::ui
