#include "ui/models/diagnosticsmodel.h"

#include <QApplication>
#include <QFileInfo>
#include <QStyle>
#include <algorithm>

#include "ui/textutil.h"

namespace ragscope::ui {

DiagnosticsModel::DiagnosticsModel(QObject* parent) : QAbstractTableModel(parent) {}

void DiagnosticsModel::setDiagnostics(std::vector<core::Diagnostic> diagnostics) {
  beginResetModel();
  m_items = std::move(diagnostics);
  m_errors = int(std::count_if(m_items.begin(), m_items.end(), [](const core::Diagnostic& d) {
    return d.severity == core::Severity::Error;
  }));
  endResetModel();
}

void DiagnosticsModel::append(const std::vector<core::Diagnostic>& more) {
  if (more.empty()) return;
  const int first = int(m_items.size());
  beginInsertRows({}, first, first + int(more.size()) - 1);
  for (const auto& d : more) {
    if (d.severity == core::Severity::Error) ++m_errors;
    m_items.push_back(d);
  }
  endInsertRows();
}

void DiagnosticsModel::clear() { setDiagnostics({}); }

const core::Diagnostic* DiagnosticsModel::diagnostic(int row) const {
  return row >= 0 && std::size_t(row) < m_items.size() ? &m_items[std::size_t(row)] : nullptr;
}

int DiagnosticsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(m_items.size());
}

int DiagnosticsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiagnosticsModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const core::Diagnostic& d = m_items[std::size_t(index.row())];
  const bool error = d.severity == core::Severity::Error;
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case Severity:
          return error ? tr("error") : tr("warning");
        case File:
          return QFileInfo(q(d.file)).fileName();
        case Line:
          return d.line > 0 ? QVariant(qulonglong(d.line)) : QVariant(QString());
        case Field:
          return q(d.field);
        case Problem:
          return q(d.problem);
      }
      break;
    case SortRole:
      switch (index.column()) {
        case Severity:
          return error ? 0 : 1;
        case File:
          return q(d.file);
        case Line:
          return qulonglong(d.line);
        case Field:
          return q(d.field);
        case Problem:
          return q(d.problem);
      }
      break;
    case Qt::DecorationRole:
      // Icons need a QApplication (the model also runs under QCoreApplication in tools).
      if (index.column() == Severity && qobject_cast<QApplication*>(QCoreApplication::instance()))
        return QApplication::style()->standardIcon(error ? QStyle::SP_MessageBoxCritical
                                                         : QStyle::SP_MessageBoxWarning);
      break;
    case Qt::ToolTipRole:
      return q(d.toString());
    case Qt::TextAlignmentRole:
      if (index.column() == Line) return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      break;
    default:
      break;
  }
  return {};
}

QVariant DiagnosticsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
    return QAbstractTableModel::headerData(section, orientation, role);
  switch (section) {
    case Severity:
      return tr("Severity");
    case File:
      return tr("File");
    case Line:
      return tr("Line");
    case Field:
      return tr("Field");
    case Problem:
      return tr("Problem");
  }
  return {};
}

}  // namespace ragscope::ui
