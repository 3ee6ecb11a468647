#include "ui/pages/retrieverchoice.h"

#include <QStringList>

#include "core/eval/api/job.h"
#include "ui/textutil.h"
#include "ui/workbench.h"

namespace ragscope::ui {

namespace {

using RetrieverKind = core::RetrieverSpec::Kind;

// What the retriever does on its first run, over every member of a hybrid.
struct RetrieverSteps {
  bool bm25 = false;        // builds (or reuses) a Xapian index of the corpus
  bool embeds = false;      // embeds the corpus into a FAISS index (dense)
  bool sendsQuery = false;  // sends the queries to a server (es, http, an embeddings endpoint)
};

void collectRetrieverSteps(const core::RetrieverSpec& spec, RetrieverSteps& steps) {
  switch (spec.kind) {
    case RetrieverKind::Bm25:
      steps.bm25 = true;
      break;
    case RetrieverKind::Dense:
      steps.embeds = true;
      break;
    case RetrieverKind::Elasticsearch:
    case RetrieverKind::Http:
      break;
    case RetrieverKind::Hybrid:
      for (const auto& member : spec.members) collectRetrieverSteps(member, steps);
      break;
  }
  steps.sendsQuery = steps.sendsQuery || !core::retrieverTrustEndpoints(spec).empty();
}

}  // namespace

int retrieverChoiceCount(const Workbench& workbench) {
  return 1 + int(workbench.retrievers().size());
}

core::RetrieverSpec retrieverChoiceSpec(const Workbench& workbench, int choice) {
  const auto& saved = workbench.retrievers();
  if (choice >= 1 && std::size_t(choice - 1) < saved.size()) return saved[std::size_t(choice - 1)];
  return {};
}

QString retrieverName(const core::RetrieverSpec& spec) {
  return q(spec.name.empty() ? std::string(core::retrieverKindName(spec.kind)) : spec.name);
}

QString describeRetrieverChoice(const core::RetrieverSpec& spec) {
  return QObject::tr("%1: %2").arg(retrieverName(spec), q(core::describeRetriever(spec)));
}

QString retrievedRunTag(const core::RetrieverSpec& spec, std::size_t k) {
  return QStringLiteral("%1-top%2").arg(retrieverName(spec)).arg(k);
}

QString describeRetrievalIndexes(const core::eval::RetrievedRun& run) {
  QStringList parts;
  if (!run.index.dir.empty())
    parts << QObject::tr("index %1 %2")
                 .arg(run.index.reused ? QObject::tr("reused from") : QObject::tr("built in"),
                      q(run.index.dir.string()));
  if (!run.dense.dir.empty()) {
    QString dense =
        QObject::tr("vector index %1 %2")
            .arg(run.dense.reused ? QObject::tr("reused from") : QObject::tr("built in"),
                 q(run.dense.dir.string()));
    if (!run.dense.reused)
      dense += QObject::tr(", %n embedding call(s) sent", "", int(run.dense.calls)) +
               QObject::tr(", %n from the cache", "", int(run.dense.fromCache));
    parts << dense;
  }
  return parts.isEmpty() ? QString()
                         : QStringLiteral(" (%1)").arg(parts.join(QStringLiteral("; ")));
}

QString retrievalStepNote(const core::RetrieverSpec& spec, std::size_t k) {
  RetrieverSteps steps;
  collectRetrieverSteps(spec, steps);
  QStringList how;
  if (spec.kind == RetrieverKind::Hybrid)
    how << QObject::tr("%n member run(s) fused", "", int(spec.members.size()));
  if (steps.bm25)
    how << QObject::tr("the BM25 index is built once and reused while the corpus is unchanged");
  if (steps.embeds)
    how << QObject::tr(
        "the first run embeds the corpus into a FAISS index (progress and Cancel in the Jobs "
        "dock), reused while the corpus and the model are unchanged");
  if (steps.sendsQuery)
    how << QObject::tr("the queries are sent to the retriever's endpoint, confirmed first");
  return QObject::tr("%1 retrieves the top %2 of every query first (%3)")
      .arg(retrieverName(spec))
      .arg(k)
      .arg(how.join(QStringLiteral("; ")));
}

}  // namespace ragscope::ui
