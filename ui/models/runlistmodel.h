#pragma once
// The run stores of a folder as a table: file, job, status, done/total, errors, tokens, cost,
// last update. The folder is read off the GUI thread (refresh() returns at once; refreshed() says
// when the rows are in), and jobs running in this session overlay their live progress on their
// row, so "running 40 %" shows without re-reading the store. Runs made with the offline heuristic
// providers say so in their Job column ("erag (heuristic)"), as core/llm/README.md asks wherever
// their output appears.

#include <QAbstractTableModel>
#include <QFutureWatcher>
#include <QString>
#include <QThreadPool>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/eval/engine/runengine.h"
#include "core/store/runstore.h"

namespace ragscope::ui {

struct RunRow {
  QString path;
  QString kind;
  QString status;
  core::store::RunCounts counts;
  QString updated;
  nlohmann::json endpoint;  // llm::toJson(EndpointConfig): key names only
  nlohmann::json settings;
  QString error;           // unreadable store
  bool heuristic = false;  // the offline heuristic providers answered (endpoint "offline")
  bool live = false;       // a job of this session is running on it
  // Its batch at the Batch API not yet imported, as the store last saw it ("batch_12
  // in_progress, 120 / 2,925"); empty when none (core/eval/engine/batchrun.h).
  QString batch;
  core::eval::Progress progress;
};

class RunListModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Run, Job, Status, Done, Errors, Tokens, Cost, Updated, ColumnCount };

  explicit RunListModel(QObject* parent = nullptr);
  ~RunListModel() override;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  QString folder() const { return m_folder; }
  void setFolder(const QString& folder);
  // Re-reads the folder in the background; refreshed() follows.
  void refresh();
  bool isRefreshing() const { return m_watcher != nullptr; }

  const RunRow* row(int r) const;
  int rowOf(const QString& path) const;
  // Live progress of a job on `path` (adds the row when the store is new); status e.g. "running".
  void setLive(const QString& path, const QString& kind, const core::eval::Progress& progress,
               bool heuristic = false);
  // The job ended: the row shows `status` and the final counts until the next refresh.
  void setFinished(const QString& path, const QString& status,
                   const core::store::RunCounts& counts);

  // Reads one folder (blocking; the worker's function, public for tests).
  static std::vector<RunRow> scan(const QString& folder);

 signals:
  void refreshed();

 private:
  QString m_folder;
  std::vector<RunRow> m_rows;
  QThreadPool m_pool;
  QFutureWatcher<std::vector<RunRow>>* m_watcher = nullptr;
  bool m_again = false;
};

}  // namespace ragscope::ui
