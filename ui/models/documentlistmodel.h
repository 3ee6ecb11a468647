#pragma once
// The corpus as a table (id, title, source document, page, size), read in place from the dataset.

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <array>
#include <memory>

#include "core/data/dataset.h"
#include "ui/models/textmatch.h"

namespace ragscope::ui {

class DocumentListModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Id, Source, Page, Title, Chars, Preview, ColumnCount };
  static constexpr int SortRole = Qt::UserRole;

  explicit DocumentListModel(QObject* parent = nullptr);

  void setDataset(std::shared_ptr<const core::Dataset> dataset);
  const core::Document* document(int row) const;
  // Row of the document with this id (or of the first chunk of this source file); -1 if none.
  int rowForId(std::string_view id) const;
  // True when no document has a value in this column (the view hides it).
  bool isColumnEmpty(int column) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  std::shared_ptr<const core::Dataset> m_dataset;
  std::array<bool, ColumnCount> m_hasData{};
};

class DocumentFilterProxyModel : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit DocumentFilterProxyModel(QObject* parent = nullptr);
  // Case-insensitive substring over id, title and source file.
  void setFilterText(const QString& text);

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

 private:
  TextMatcher m_matcher;
  QString m_filterText;
};

}  // namespace ragscope::ui
