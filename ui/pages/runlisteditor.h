#pragma once
// The "Runs:" input the Retrieval page and its Qrels agreement tab share: a checkable list of the
// loaded dataset's runs plus run files the user adds ("Add run files…", "Remove" for files only).
// A dataset change replaces the dataset's items and keeps the added files; chosen() gives the
// checked runs as a request takes them (dataset run indexes, file paths).

#include <QStringList>
#include <QWidget>
#include <cstddef>
#include <vector>

class QListWidget;

namespace ragscope::core {
struct Dataset;
}

namespace ragscope::ui {

class RunListEditor : public QWidget {
  Q_OBJECT
 public:
  // The checked runs, in list order: the dataset's by index, the files by path.
  struct Choice {
    std::vector<std::size_t> datasetRuns;  // indices into dataset->runs
    QStringList files;
  };

  // visibleLines: how many items the list shows before it scrolls.
  explicit RunListEditor(int visibleLines, QWidget* parent = nullptr);

  // Replaces the dataset's items with the runs of `dataset` (none when null), first and checked;
  // added files stay after them, checked or not as the user left them.
  void setDatasetRuns(const core::Dataset* dataset);
  // Appends run files, checked.
  void addRunFiles(const QStringList& files);
  Choice chosen() const;

  QListWidget* list() const { return m_list; }

 private:
  QListWidget* m_list;
};

}  // namespace ragscope::ui
