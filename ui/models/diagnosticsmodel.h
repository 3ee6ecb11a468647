#pragma once
// Load diagnostics as a table: severity, file, line, field, problem.

#include <QAbstractTableModel>
#include <vector>

#include "core/data/diagnostic.h"

namespace ragscope::ui {

class DiagnosticsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Severity, File, Line, Field, Problem, ColumnCount };
  static constexpr int SortRole = Qt::UserRole;

  explicit DiagnosticsModel(QObject* parent = nullptr);

  // Replaces the list (a new load replaces the previous load's problems).
  void setDiagnostics(std::vector<core::Diagnostic> diagnostics);
  // Adds problems found later (e.g. by an evaluation) in one batch.
  void append(const std::vector<core::Diagnostic>& more);
  void clear();
  const core::Diagnostic* diagnostic(int row) const;
  int errorCount() const { return m_errors; }
  int warningCount() const { return int(m_items.size()) - m_errors; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::vector<core::Diagnostic> m_items;
  int m_errors = 0;
};

}  // namespace ragscope::ui
