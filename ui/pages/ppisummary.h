#pragma once
// The human labels beside a results summary (Claims, eRAG): for each judged metric of the run,
// the judge-only mean over its items, the human-only mean over the labelled ones and the
// prediction-powered estimate (PPI++, core/stats/README.md), each with its 95% interval, and
// lambda. Follows the workbench's LabelBook: a label added anywhere updates it at once. The
// items come from the run's report already in memory (core/eval/inputs/ppiinputs.h), so nothing
// here reads a store; rebuilding them is a pass over the claims.
//
//   m_ppi = new PpiSummary;  m_ppi->setLabelBook(book);
//   m_ppi->setSource([report, store](const auto& labels, const auto& folder) {
//     return core::eval::claimPpiItems(*report, {folder, store}, labels); });

#include <QWidget>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/eval/inputs/ppiinputs.h"

class QLabel;
class QStandardItemModel;
class QTableView;

namespace ragscope::ui {

class LabelBook;

class PpiSummary : public QWidget {
  Q_OBJECT
 public:
  explicit PpiSummary(QWidget* parent = nullptr);

  // The items for the labels; `labelsFolder` is where their relative scopes lead (the labels
  // store's folder, core/labels/labelscope.h).
  using ItemsFn = std::function<std::vector<core::eval::PpiItems>(
      const std::vector<core::labels::Label>&, const std::filesystem::path& labelsFolder)>;
  void setLabelBook(LabelBook* book);
  // The run's items for a set of labels; an empty function clears the table.
  void setSource(ItemsFn items);
  void refresh();

  QStandardItemModel* model() const { return m_model; }
  QTableView* view() const { return m_view; }
  QLabel* note() const { return m_note; }
  const std::vector<core::eval::PpiEstimate>& estimates() const { return m_estimates; }
  const core::eval::PpiEstimate* estimate(const std::string& metric) const;

 signals:
  void estimatesChanged();

 private:
  LabelBook* m_book = nullptr;
  ItemsFn m_items;
  std::vector<core::eval::PpiEstimate> m_estimates;
  QLabel* m_title = nullptr;
  QLabel* m_note = nullptr;
  QStandardItemModel* m_model = nullptr;
  QTableView* m_view = nullptr;
};

// "0.7135  [0.4627, 0.9644]", "–" when undefined: a mean with its interval in one cell.
QString meanWithInterval(double mean, double low, double high);

}  // namespace ragscope::ui
