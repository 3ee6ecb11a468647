#pragma once
// Judge vs human on the Claims page: human labels loaded from a qid,label CSV (compared with the
// judging run on screen, each metric an aspect) or from RAGChecker's meta-evaluation files (a
// human file and a baseline judge file), compared in the background by core (the same code as
// `ragscope-cli agreement`). Shows per aspect Pearson, Spearman, Kendall tau-b and Cohen's kappa
// x 100 with their bootstrap CIs, the human ceiling (annotator vs annotator) where there are two
// annotators, and a scatter of the judge's score against the human label for the selected aspect.

#include <QString>
#include <QWidget>
#include <memory>

#include "core/eval/agreementinputs.h"
#include "core/eval/judgejob.h"

class QLabel;
class QTableWidget;

namespace ragscope::ui {

namespace charts {
class ChartWidget;
}

class AgreementView : public QWidget {
  Q_OBJECT
 public:
  explicit AgreementView(QWidget* parent = nullptr);

  // The judging run human labels are compared with (may be null).
  void setReport(std::shared_ptr<const core::eval::JudgeReport> report);

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

 private:
  void start(std::function<core::eval::AgreementOutcome()> work, const QString& what);
  void show(std::shared_ptr<const core::eval::AgreementOutcome> outcome);

  std::shared_ptr<const core::eval::JudgeReport> m_report;
  std::shared_ptr<const core::eval::AgreementOutcome> m_outcome;
  int m_generation = 0;
  QLabel* m_status = nullptr;
  QTableWidget* m_table = nullptr;
  charts::ChartWidget* m_scatter = nullptr;
};

}  // namespace ragscope::ui
