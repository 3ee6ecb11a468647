#pragma once
// Reads `trec_eval -q` files for the compare and contrastive pages off the GUI thread (a file of
// all_trec values over thousands of queries is tens of MB). Requests queue on one owned thread and
// each is answered by loaded(), in order; nothing is cancelled by a later request.

#include <QObject>
#include <QStringList>
#include <QThreadPool>

#include "core/data/diagnostic.h"
#include "ui/models/runvalues.h"

namespace ragscope::ui {

class PerQueryFilesJob : public QObject {
  Q_OBJECT
 public:
  explicit PerQueryFilesJob(QObject* parent = nullptr);
  ~PerQueryFilesJob() override;

  // `reportEmpty`: a file without values is listed among the problems too.
  void start(const QStringList& files, const core::LoadOptions& options, bool reportEmpty);
  bool isRunning() const { return m_pending > 0; }

 signals:
  void loaded(const ragscope::ui::PerQueryRuns& result);

 private:
  QThreadPool m_pool;
  int m_pending = 0;
};

}  // namespace ragscope::ui
