#pragma once
// Text previews of documents whose record lives in a side-indexed corpus file (a big KILT
// knowledge source or BEIR corpus.jsonl). Such a text is JSON, decoded whole from a pread of its
// record: not something a table's data() may do on the GUI thread for every painted row. The cache
// reads the rows a view asks about on a worker, says when they came in, and keeps them for the
// next paints.

#include <QHash>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "core/data/dataset.h"

namespace ragscope::ui {

class PreviewCache : public QObject {
  Q_OBJECT
 public:
  static constexpr std::size_t kPreviewBytes = 1000;  // what a tooltip shows at most

  explicit PreviewCache(QObject* parent = nullptr);
  ~PreviewCache() override;

  // Forgets every preview; reads under way for the previous dataset are dropped when they end.
  void setDataset(std::shared_ptr<const core::Dataset> dataset);
  // The first kPreviewBytes of corpus position `position`'s text, or nullopt while it is being
  // read (ready() follows).
  std::optional<QString> preview(std::size_t position);

 signals:
  // These positions' previews came in.
  void ready(const std::vector<std::size_t>& positions);

 private:
  void fetch();

  QThreadPool m_pool;
  std::shared_ptr<const core::Dataset> m_dataset;
  QHash<quint64, QString> m_previews;
  std::vector<std::size_t> m_wanted;  // asked for, newest last, not yet being read
  QHash<quint64, bool> m_pending;     // asked for or being read
  quint64 m_generation = 0;
  bool m_scheduled = false;
  bool m_reading = false;
};

}  // namespace ragscope::ui
