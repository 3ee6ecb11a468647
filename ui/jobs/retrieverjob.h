#pragma once
// A configured retriever off the GUI thread: "test" (one query: hits, latency, error) and "run"
// (every query of the dataset: core::runRetrieveJob, the code path of `ragscope-cli retrieve`),
// with progress and cancel. One job at a time per object; finished signals carry the core result.

#include <QMetaType>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <filesystem>
#include <memory>
#include <stop_token>

#include "core/retrieval/retrievejob.h"

class QLabel;
class QProgressBar;

namespace ragscope::ui {

// A retrieval step's progress, shown alike on every page: the bar in per mille (busy while the
// total is unknown; none: text only) and one line of text.
void showRetrievalProgress(QProgressBar* bar, QLabel* status, bool indexing, quint64 done,
                           quint64 total);

class RetrieverJob : public QObject {
  Q_OBJECT
 public:
  enum class Phase { Index, Retrieve };

  explicit RetrieverJob(QObject* parent = nullptr);
  ~RetrieverJob() override;  // cancels and waits

  // One query (k hits).
  // `apiKey`: the key in memory (keychain), or empty to use the spec's environment variable.
  void test(core::RetrieverSpec spec, std::shared_ptr<const core::Dataset> dataset,
            std::filesystem::path firstPath, QString query, int k,
            std::function<std::string()> apiKey = {});
  // Every query; the run goes to options.out (resumable there for es/http).
  void run(core::RetrieverSpec spec, std::shared_ptr<const core::Dataset> dataset,
           std::filesystem::path firstPath, core::RetrieveJobOptions options);
  void cancel();
  bool isRunning() const { return m_running; }

 signals:
  void progress(ragscope::ui::RetrieverJob::Phase phase, quint64 done, quint64 total);
  void tested(std::shared_ptr<const ragscope::core::RetrieverProbe> probe);
  void finished(std::shared_ptr<const ragscope::core::RetrieveJobResult> result);

 private:
  QThreadPool m_pool;
  std::stop_source m_stop;
  bool m_running = false;
};

}  // namespace ragscope::ui

Q_DECLARE_METATYPE(std::shared_ptr<const ragscope::core::RetrieverProbe>)
Q_DECLARE_METATYPE(std::shared_ptr<const ragscope::core::RetrieveJobResult>)
