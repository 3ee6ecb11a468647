#pragma once
// The corpus as a table (id, title, source document, page, size, text), read in place from the
// dataset. Rows are the whole corpus, or the documents a prefix search found (showPositions): a
// big corpus is not put behind DocumentFilterProxyModel, whose mapping, filter and sort touch
// every row (see ui/models/documentsearch.h).

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "core/data/dataset.h"
#include "ui/models/textfilterproxy.h"

namespace ragscope::ui {

class PreviewCache;

class DocumentListModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Id, Source, Page, Title, Chars, Preview, ColumnCount };
  static constexpr int SortRole = Qt::UserRole;

  explicit DocumentListModel(QObject* parent = nullptr);

  // Shows every document of the dataset's corpus.
  void setDataset(std::shared_ptr<const core::Dataset> dataset);
  // Shows only these corpus positions, in this order; showAll() goes back to the whole corpus.
  void showPositions(std::vector<std::size_t> positions);
  void showAll();
  bool showsAll() const { return !m_positions.has_value(); }

  // The corpus position shown in `row` (the row itself when showing all).
  std::size_t positionAt(int row) const;
  std::optional<core::Document> document(int row) const;
  // Row of the document with this id (or of the first chunk of this source file); -1 if it is not
  // among the rows shown.
  int rowForId(std::string_view id) const;
  // True when no document has a value in this column (the view hides it).
  bool isColumnEmpty(int column) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  // The text preview (up to PreviewCache::kPreviewBytes) of corpus position p; nullopt while a
  // side-indexed record is being read off the GUI thread.
  std::optional<QString> preview(std::size_t position, std::size_t bytes) const;

  std::shared_ptr<const core::Dataset> m_dataset;
  std::optional<std::vector<std::size_t>> m_positions;
  std::array<bool, ColumnCount> m_hasData{};
  PreviewCache* m_previews;
};

// The filter text matches id, title and source file.
class DocumentFilterProxyModel : public TextFilterProxyModel {
  Q_OBJECT
 public:
  explicit DocumentFilterProxyModel(QObject* parent = nullptr);

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
};

}  // namespace ragscope::ui
