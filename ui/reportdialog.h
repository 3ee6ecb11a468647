#pragma once
// File > Report…: the project's results (its retrieval runs and run stores, and the stores made
// this session) written as a PDF report, one JSON document or CSV at one grain, off the GUI
// thread with progress and cancel. The same collection and writers as `ragscope-cli report`
// (core/eval/resultsreport, core/export, ui/report), so both give the same files.
//
//   ReportDialog dialog(workbench, this);
//   dialog.exec();

#include <QDialog>
#include <QFutureWatcher>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QCheckBox;

namespace ragscope::ui {

class Workbench;

class ReportDialog : public QDialog {
  Q_OBJECT

 public:
  explicit ReportDialog(Workbench* workbench, QWidget* parent = nullptr);
  ~ReportDialog() override;

  // For tests and the self-test: the output file, its format ("pdf", "json", "csv-summary",
  // "csv-query", "csv-document", "csv-claim"), resamples, and whether the file opens when done.
  void setOutput(const QString& file, const QString& format);
  void setResamples(int resamples);
  void setOpenWhenDone(bool open);
  // PDF parts to include (ui/report/pdfreport.h's pdfSections()); all by default.
  void setSections(const QStringList& sections);
  // Starts writing; false (with the reason shown) when nothing is chosen or no file is named.
  bool write();
  bool isWriting() const;
  QString statusText() const;

 signals:
  void written(bool ok, const QString& file);

 private:
  struct Outcome {
    std::string error;     // non-empty: nothing written
    std::string problems;  // sources that could not be read, one per line
    int runs = 0;
    bool cancelled = false;
  };
  void browse();
  void finish();
  void setBusy(bool busy);

  Workbench* m_workbench;
  QListWidget* m_sources;
  QComboBox* m_format;
  QLineEdit* m_file;
  QSpinBox* m_resamples;
  QCheckBox* m_open;
  QWidget* m_sectionBox;
  std::vector<QCheckBox*> m_sectionChecks;
  QProgressBar* m_progress;
  QLabel* m_status;
  QDialogButtonBox* m_buttons;
  QPushButton* m_write;
  QFutureWatcher<Outcome> m_watcher;
  std::shared_ptr<std::atomic<bool>> m_cancel;
};

}  // namespace ragscope::ui
