#include "ui/viewexport.h"

#include <QAbstractItemModel>
#include <QAbstractItemView>
#include <QApplication>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QTableView>
#include <QTreeView>
#include <QtConcurrent>
#include <nlohmann/json.hpp>

#include "core/export/csv.h"
#include "core/export/json.h"
#include "core/util/atomicfile.h"
#include "ui/outputguard.h"

namespace ragscope::ui {

namespace {

ViewTable::Cell cellOf(const QVariant& display, const QVariant& edit) {
  // A numeric column keeps its number (EditRole is the raw value where models give one; the
  // display text may be rounded or formatted).
  for (const QVariant* v : {&edit, &display}) {
    switch (v->typeId()) {
      case QMetaType::Double:
      case QMetaType::Float:
      case QMetaType::Int:
      case QMetaType::UInt:
      case QMetaType::LongLong:
      case QMetaType::ULongLong:
      case QMetaType::Long:
      case QMetaType::ULong:
        return v->toDouble();
      default:
        break;
    }
  }
  if (!display.isValid() || display.isNull()) return std::monostate{};
  return display.toString().toStdString();
}

}  // namespace

ViewTable readModel(const QAbstractItemModel& model) {
  ViewTable t;
  const int columns = model.columnCount();
  for (int c = 0; c < columns; ++c)
    t.header.push_back(model.headerData(c, Qt::Horizontal).toString().toStdString());
  const int rows = model.rowCount();
  t.rows.reserve(static_cast<std::size_t>(rows));
  for (int r = 0; r < rows; ++r) {
    std::vector<ViewTable::Cell> row;
    row.reserve(static_cast<std::size_t>(columns));
    for (int c = 0; c < columns; ++c) {
      const QModelIndex i = model.index(r, c);
      row.push_back(cellOf(i.data(Qt::DisplayRole), i.data(Qt::EditRole)));
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

QAbstractItemView* exportableView(QWidget* page) {
  if (!page) return nullptr;
  QAbstractItemView* best = nullptr;
  int bestArea = 0;
  for (auto* view : page->findChildren<QAbstractItemView*>()) {
    if (!view->isVisible() || !view->model() ||
        !(qobject_cast<QTableView*>(view) || qobject_cast<QTreeView*>(view)))
      continue;
    if (view->hasFocus() || view->isAncestorOf(QApplication::focusWidget())) return view;
    const int area = view->width() * view->height();
    if (area > bestArea) {
      best = view;
      bestArea = area;
    }
  }
  return best;
}

bool writeViewTable(const ViewTable& table, const std::string& path, ViewFormat format,
                    std::string* error) {
  return core::writeFileAtomically(
      path,
      [&](std::ostream& out) {
        if (format == ViewFormat::Csv) {
          core::exporting::CsvWriter w(out, core::exporting::CsvWriter::LineEnd::CrLf);
          for (const auto& h : table.header) w.text(h);
          w.endRow();
          for (const auto& row : table.rows) {
            for (const auto& cell : row) {
              if (const auto* s = std::get_if<std::string>(&cell))
                w.text(*s);
              else if (const auto* d = std::get_if<double>(&cell))
                w.number(*d);
              else
                w.empty();
            }
            w.endRow();
          }
          return w.ok();
        }
        // JSON: an array of objects keyed by the column headers, in column order.
        nlohmann::ordered_json rows = nlohmann::ordered_json::array();
        for (const auto& row : table.rows) {
          nlohmann::ordered_json o = nlohmann::ordered_json::object();
          for (std::size_t c = 0; c < row.size() && c < table.header.size(); ++c) {
            const std::string key =
                table.header[c].empty() ? "column " + std::to_string(c + 1) : table.header[c];
            if (const auto* s = std::get_if<std::string>(&row[c]))
              o[key] = *s;
            else if (const auto* d = std::get_if<double>(&row[c]))
              o[key] = *d;
            else
              o[key] = nullptr;
          }
          rows.push_back(std::move(o));
        }
        return core::exporting::writeJson(out, rows, 2);
      },
      error);
}

bool exportPageView(QWidget* page, QWidget* dialogParent, const QString& path,
                    std::function<void(bool ok, const QString& message)> done,
                    const std::vector<core::NamedPath>& inputs) {
  QAbstractItemView* view = exportableView(page);
  if (!view) {
    done(false, QObject::tr("This page shows no table to export."));
    return false;
  }
  QString file = path;
  if (file.isEmpty())
    file = QFileDialog::getSaveFileName(dialogParent, QObject::tr("Export the table as"), QString(),
                                        QObject::tr("CSV (*.csv);;JSON (*.json)"));
  if (file.isEmpty()) return false;
  if (const QString why = refusedOutput(file, inputs); !why.isEmpty()) {
    done(false, QObject::tr("Not exported: %1").arg(why));
    return false;
  }
  const ViewFormat format = file.endsWith(QLatin1String(".json"), Qt::CaseInsensitive)
                                ? ViewFormat::Json
                                : ViewFormat::Csv;
  auto table = std::make_shared<const ViewTable>(readModel(*view->model()));
  auto* watcher = new QFutureWatcher<std::string>(dialogParent);
  QObject::connect(
      watcher, &QFutureWatcherBase::finished, dialogParent, [watcher, file, table, done] {
        const std::string error = watcher->result();
        watcher->deleteLater();
        if (!error.empty())
          done(false, QObject::tr("Not exported: %1").arg(QString::fromStdString(error)));
        else
          done(true, QObject::tr("%n row(s) exported to %1", nullptr, int(table->rows.size()))
                         .arg(QFileInfo(file).fileName()));
      });
  watcher->setFuture(QtConcurrent::run([table, target = file.toStdString(), format] {
    std::string error;
    writeViewTable(*table, target, format, &error);
    return error;
  }));
  return true;
}

}  // namespace ragscope::ui
