#pragma once
// A configured retriever off the GUI thread: "test" (one query: hits, latency, error) and "run"
// (every query of the dataset: core::runRetrieveJob, the code path of `ragscope-cli retrieve`),
// with progress and cancel. One job at a time per object; finished signals carry the core result.
// A dense retriever (or a hybrid with one) first embeds the corpus through the run engine and
// builds its vector index (core/retrieval/corpusembedding.h): that phase is reported as Embed
// (calls done / total) and announced to the Jobs dock (RetrieverJobHub), which shows it with
// Cancel beside the LLM jobs; a cancelled embedding keeps every batch finished, so the next run
// sends only what is missing.

#include <QMetaType>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <array>
#include <filesystem>
#include <memory>
#include <stop_token>
#include <utility>

#include "core/retrieval/retrievejob.h"
#include "core/retrieval/retrieverspec.h"

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
  // Index: documents indexed (BM25) or vectors added (dense); Embed: embedding calls of the
  // corpus; Retrieve: queries.
  enum class Phase { Index, Retrieve, Embed };

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
  // "dense-e5 · test" or "hybrid · retrieve": the retriever's name and what the job does.
  QString title() const { return m_title; }
  // The latest progress of `phase` in this job (done, total), as it reached the GUI thread;
  // (0, 0) before any. The Jobs dock starts from it when it takes the job over.
  std::pair<quint64, quint64> lastProgress(Phase phase) const { return m_last[int(phase)]; }

 signals:
  void progress(ragscope::ui::RetrieverJob::Phase phase, quint64 done, quint64 total);
  void tested(std::shared_ptr<const ragscope::core::RetrieverProbe> probe);
  void finished(std::shared_ptr<const ragscope::core::RetrieveJobResult> result);

 private:
  void begin(const core::RetrieverSpec& spec, const QString& what);

  QThreadPool m_pool;
  std::stop_source m_stop;
  bool m_running = false;
  bool m_announced = false;  // this job's embedding was announced to the Jobs dock
  std::array<std::pair<quint64, quint64>, 3> m_last{};
  QString m_title;
};

// Every RetrieverJob that starts embedding a corpus announces itself here (once per job, on the
// GUI thread), as RunJobHub announces LLM jobs: the Jobs dock follows it.
class RetrieverJobHub : public QObject {
  Q_OBJECT
 public:
  static RetrieverJobHub* instance();

 signals:
  void embeddingStarted(ragscope::ui::RetrieverJob* job);
};

// The same for every phase: "Embedding the corpus: 3 of 12 calls", "Building the index: …".
void showRetrieverProgress(QProgressBar* bar, QLabel* status, RetrieverJob::Phase phase,
                           quint64 done, quint64 total);

}  // namespace ragscope::ui

Q_DECLARE_METATYPE(std::shared_ptr<const ragscope::core::RetrieverProbe>)
Q_DECLARE_METATYPE(std::shared_ptr<const ragscope::core::RetrieveJobResult>)
