#include "ui/models/runlistmodel.h"

#include <QBrush>
#include <QColor>
#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "core/eval/engine/batchrun.h"
#include "core/llm/llmjson.h"
#include "core/llm/providerfactory.h"

namespace ragscope::ui {

namespace {

QColor statusColour(const QString& status) {
  if (status.startsWith(QLatin1String("done with"))) return QColor(0xa0, 0x60, 0x00);
  if (status.startsWith(QLatin1String("done"))) return QColor(0x1b, 0x7a, 0x2e);
  if (status.startsWith(QLatin1String("failed"))) return QColor(0xb0, 0x1c, 0x1c);
  if (status.startsWith(QLatin1String("paused")) || status == QLatin1String("cancelled"))
    return QColor(0x8a, 0x5a, 0x00);
  if (status.startsWith(QLatin1String("running"))) return QColor(0x1f, 0x5f, 0xb0);
  return {};
}

}  // namespace

RunListModel::RunListModel(QObject* parent) : QAbstractTableModel(parent) {
  m_pool.setMaxThreadCount(1);
}

RunListModel::~RunListModel() {
  if (m_watcher) m_watcher->disconnect(this);
  m_pool.waitForDone();
}

int RunListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(m_rows.size());
}
int RunListModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const RunRow& r = m_rows[std::size_t(index.row())];
  const QLocale locale;
  const bool live = r.live;
  const std::size_t total = live ? r.progress.total : r.counts.total;
  const std::size_t done = live ? r.progress.done : r.counts.done + r.counts.errors;
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case Run:
        return QFileInfo(r.path).fileName();
      case Job:
        return r.heuristic ? tr("%1 (heuristic)").arg(r.kind) : r.kind;
      case Status:
        if (!r.error.isEmpty()) return tr("unreadable");
        if (live && total > 0)
          return tr("running %1 %").arg(100.0 * double(done) / double(total), 0, 'f', 0);
        // Not running in this window yet stored as running: another process, or a run killed
        // mid-way (which resume continues).
        if (!r.batch.isEmpty()) return r.batch;
        if (r.status == QLatin1String("running")) return tr("running elsewhere or interrupted");
        return r.status;
      case Done:
        return QStringLiteral("%1 / %2").arg(locale.toString(qulonglong(done)),
                                             locale.toString(qulonglong(total)));
      case Errors:
        return locale.toString(qulonglong(live ? r.progress.errors : r.counts.errors));
      case Tokens: {
        const qint64 p = live ? r.progress.promptTokens : r.counts.promptTokens;
        const qint64 c = live ? r.progress.completionTokens : r.counts.completionTokens;
        return QStringLiteral("%1 + %2").arg(locale.toString(p), locale.toString(c));
      }
      case Cost:
        return QStringLiteral("$%1").arg(live ? r.progress.costUsd : r.counts.costUsd, 0, 'f', 4);
      case Updated:
        return r.updated;
      default:
        return {};
    }
  }
  if (role == Qt::ToolTipRole) {
    if (!r.error.isEmpty()) return r.error;
    if (index.column() == Job && r.heuristic)
      return tr("Outputs of the offline heuristic providers, not of an LLM");
    return QDir::toNativeSeparators(r.path);
  }
  if (role == Qt::ForegroundRole && index.column() == Status) {
    const QColor c = statusColour(live ? QStringLiteral("running") : r.status);
    if (c.isValid()) return QBrush(c);
  }
  if (role == Qt::TextAlignmentRole && index.column() >= Done && index.column() <= Cost)
    return int(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant RunListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Run:
      return tr("Run store");
    case Job:
      return tr("Job");
    case Status:
      return tr("Status");
    case Done:
      return tr("Done");
    case Errors:
      return tr("Errors");
    case Tokens:
      return tr("Tokens (in + out)");
    case Cost:
      return tr("Cost");
    case Updated:
      return tr("Updated (UTC)");
    default:
      return {};
  }
}

void RunListModel::setFolder(const QString& folder) {
  m_folder = folder;
  refresh();
}

std::vector<RunRow> RunListModel::scan(const QString& folder) {
  std::vector<RunRow> rows;
  const QFileInfoList files =
      QDir(folder).entryInfoList({QStringLiteral("*.db")}, QDir::Files, QDir::Name);
  for (const QFileInfo& f : files) {
    const std::filesystem::path path = f.absoluteFilePath().toStdString();
    if (!core::store::RunStore::looksLikeRunStore(path)) continue;
    RunRow row;
    row.path = f.absoluteFilePath();
    core::store::RunStore store;
    std::string err;
    if (!store.openReadOnly(path, &err)) {
      row.error = QString::fromStdString(err);
    } else {
      const auto record = store.run();
      row.kind = QString::fromStdString(record.kind);
      row.status = QString::fromStdString(record.status);
      row.updated = QString::fromStdString(record.updated);
      row.endpoint = record.endpoint;
      row.settings = record.settings;
      row.counts = store.counts();
      row.heuristic = row.counts.heuristic > 0 ||
                      core::llm::isOfflineEndpoint(core::llm::endpointFromJson(record.endpoint));
      // A batch submitted and not imported: shown after a restart too (the state is the
      // store's); Resume polls it and imports it.
      for (const auto& b : core::eval::readBatchState(store).batches)
        if (!b.imported && !b.id.empty())
          row.batch = tr("batch %1 %2, %3 / %4")
                          .arg(QString::fromStdString(b.id), QString::fromStdString(b.status))
                          .arg(b.counts.completed + b.counts.failed)
                          .arg(b.lines);
    }
    rows.push_back(std::move(row));
  }
  // Newest first: that is the one people look for.
  std::stable_sort(rows.begin(), rows.end(),
                   [](const RunRow& a, const RunRow& b) { return a.updated > b.updated; });
  return rows;
}

void RunListModel::refresh() {
  if (m_folder.isEmpty()) return;
  if (m_watcher) {
    m_again = true;  // the folder changed while reading: read it once more afterwards
    return;
  }
  m_watcher = new QFutureWatcher<std::vector<RunRow>>(this);
  auto* watcher = m_watcher;
  connect(watcher, &QFutureWatcher<std::vector<RunRow>>::finished, this, [this, watcher] {
    std::vector<RunRow> rows = watcher->result();
    m_watcher = nullptr;
    watcher->deleteLater();
    // Live jobs keep their overlay.
    for (RunRow& r : rows)
      for (const RunRow& old : m_rows)
        if (old.live && old.path == r.path) {
          r.live = true;
          r.progress = old.progress;
        }
    for (const RunRow& old : m_rows)
      if (old.live && std::none_of(rows.begin(), rows.end(),
                                   [&](const RunRow& r) { return r.path == old.path; }))
        rows.insert(rows.begin(), old);
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
    emit refreshed();
    if (m_again) {
      m_again = false;
      refresh();
    }
  });
  watcher->setFuture(QtConcurrent::run(&m_pool, [folder = m_folder] { return scan(folder); }));
}

const RunRow* RunListModel::row(int r) const {
  return r >= 0 && r < rowCount() ? &m_rows[std::size_t(r)] : nullptr;
}

int RunListModel::rowOf(const QString& path) const {
  const QString abs = QFileInfo(path).absoluteFilePath();
  for (std::size_t i = 0; i < m_rows.size(); ++i)
    if (m_rows[i].path == abs) return int(i);
  return -1;
}

void RunListModel::setLive(const QString& path, const QString& kind,
                           const core::eval::Progress& progress, bool heuristic) {
  int r = rowOf(path);
  if (r < 0) {
    RunRow row;
    row.path = QFileInfo(path).absoluteFilePath();
    row.kind = kind;
    row.status = QStringLiteral("running");
    beginInsertRows({}, 0, 0);
    m_rows.insert(m_rows.begin(), std::move(row));
    endInsertRows();
    r = 0;
  }
  RunRow& row = m_rows[std::size_t(r)];
  row.live = true;
  row.heuristic = row.heuristic || heuristic;
  row.progress = progress;
  emit dataChanged(index(r, 0), index(r, ColumnCount - 1));
}

void RunListModel::setFinished(const QString& path, const QString& status,
                               const core::store::RunCounts& counts) {
  const int r = rowOf(path);
  if (r < 0) return;
  RunRow& row = m_rows[std::size_t(r)];
  row.live = false;
  row.status = status;
  row.counts = counts;
  emit dataChanged(index(r, 0), index(r, ColumnCount - 1));
}

}  // namespace ragscope::ui
