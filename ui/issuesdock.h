#pragma once
// The one place problems are listed: every diagnostic of the latest load, sortable, with a
// double-click (or Enter) that asks the window to jump to the record the problem is about.

#include <QDockWidget>

#include "core/data/diagnostic.h"

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace ragscope::ui {

class DiagnosticsModel;

class IssuesDock : public QDockWidget {
  Q_OBJECT
 public:
  explicit IssuesDock(QWidget* parent = nullptr);

  void setReport(const core::LoadReport& report);
  DiagnosticsModel* model() const { return m_model; }
  QTableView* view() const { return m_view; }
  // Emits jumpRequested for the diagnostic shown at `row` of the view (used by tests too).
  void activateRow(int row);
  // "3 errors, 1 warning" (empty when there is nothing).
  QString summary() const { return m_summaryText; }

 signals:
  void jumpRequested(const ragscope::core::Diagnostic& diagnostic);
  void summaryChanged(const QString& summary);

 private:
  DiagnosticsModel* m_model;
  QSortFilterProxyModel* m_proxy;
  QTableView* m_view;
  QLabel* m_summary;
  QString m_summaryText;
};

}  // namespace ragscope::ui
