#pragma once
// File > Export view…: the table the user is looking at (the current page's focused table, else
// its largest visible one), as shown (sorted, filtered), written as CSV or JSON through core's
// writers (core/export: formula-safe text cells, numbers as numbers, UTF-8). The cells are read
// on the GUI thread (models live there) into a plain table; writing the file happens off it.
//
//   auto table = readView(*view);                 // GUI thread
//   QtConcurrent::run([=] { return writeViewTable(table, path, ViewFormat::Csv); });

#include <QString>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/util/outputcheck.h"

class QAbstractItemModel;
class QAbstractItemView;
class QWidget;

namespace ragscope::ui {

struct ViewTable {
  std::vector<std::string> header;
  // A cell is text, a number (models give doubles or integers for numeric columns), or empty.
  using Cell = std::variant<std::monostate, std::string, double>;
  std::vector<std::vector<Cell>> rows;
};

enum class ViewFormat { Csv, Json };

// The model's top-level rows and columns as displayed (DisplayRole; EditRole for numbers).
ViewTable readModel(const QAbstractItemModel& model);
// The table view of `page` to export: the focused one, else the largest visible; null if none.
QAbstractItemView* exportableView(QWidget* page);
// Writes atomically; false with *error naming the file.
bool writeViewTable(const ViewTable& table, const std::string& path, ViewFormat format,
                    std::string* error);

// The whole of File > Export view…: the page's view read, a file asked for (unless `path` is
// given; .json writes JSON, anything else CSV), written off the GUI thread; `done` is called on
// the GUI thread with the outcome as a sentence. False when the page has no table (or the user
// chose no file): nothing started. A file among `inputs` (what the workbench reads,
// ui/outputguard.h) is refused: `done` says why, nothing is written.
bool exportPageView(QWidget* page, QWidget* dialogParent, const QString& path,
                    std::function<void(bool ok, const QString& message)> done,
                    const std::vector<core::NamedPath>& inputs = {});

}  // namespace ragscope::ui
