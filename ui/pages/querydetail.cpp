#include "ui/pages/querydetail.h"

#include <QCoreApplication>
#include <QObject>
#include <QUrl>
#include <algorithm>
#include <map>
#include <vector>

#include "core/data/provenance.h"
#include "ui/labelbook.h"
#include "ui/models/documentsearch.h"

namespace ragscope::ui {

namespace {

QString esc(std::string_view s) {
  return QString::fromUtf8(s.data(), qsizetype(s.size())).toHtmlEscaped();
}

// Escaped text with line breaks kept; cut at `max` characters.
QString escText(std::string_view s, int max) {
  QString text = QString::fromUtf8(s.data(), qsizetype(std::min(s.size(), std::size_t(max) * 4)));
  bool cut = text.size() > max || s.size() > std::size_t(max) * 4;
  if (text.size() > max) text.truncate(max);
  QString out = text.toHtmlEscaped();
  out.replace(QLatin1Char('\n'), QStringLiteral("<br>"));
  if (cut) out += QStringLiteral(" <span style='color:#888'>[…]</span>");
  return out;
}

std::size_t codePoints(std::string_view utf8) {
  return std::size_t(std::count_if(utf8.begin(), utf8.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

QString docAnchor(std::string_view id) {
  return QStringLiteral("<a href='%1'>%2</a>").arg(documentLink(id), esc(id));
}

QString section(const QString& title) {
  return QStringLiteral("<h3 style='margin-top:14px; margin-bottom:4px'>%1</h3>").arg(title);
}

QString muted(const QString& html) {
  return QStringLiteral("<span style='color:#777'>%1</span>").arg(html);
}

QString excerptBlock(const QString& html) {
  return QStringLiteral(
             "<div style='margin-left:16px; margin-bottom:6px; color:#333; "
             "background-color:#f6f6f4; padding:4px'>%1</div>")
      .arg(html);
}

// Texts read from corpus files while one query's detail is built. It is built on the GUI thread
// when the query is selected: a judged list of sixty documents of a big BEIR corpus must not mean
// sixty preads there. Documents held in memory cost nothing.
class ReadBudget {
 public:
  explicit ReadBudget(int reads) : m_left(reads) {}
  bool take(const core::Document& doc) {
    if (!doc.stored.file) return true;
    if (m_left <= 0) return false;
    --m_left;
    return true;
  }

 private:
  int m_left;
};

// Text of a document, or a summary of the chunks of a source file (Docugami PDFs).
QString corpusText(const core::Corpus& corpus, std::string_view id, int excerpt,
                   ReadBudget& budget) {
  if (const auto doc = corpus.find(id)) {
    QString head;
    if (doc->page > 0) head = muted(QObject::tr("page %1: ").arg(doc->page));
    if (!budget.take(*doc))
      return excerptBlock(head +
                          muted(QObject::tr("(text not read here: open the document to read it)")));
    return excerptBlock(head + escText(doc->textPrefix(std::size_t(excerpt) * 4 + 4), excerpt));
  }
  // Chunks are held in memory and come from PDF folders (thousands): a corpus of millions of
  // passages is not scanned for a parent on every query selected.
  if (corpus.inMemorySize() > kBigCorpusDocuments) return {};
  int chunks = 0, firstPage = 0, lastPage = 0;
  const core::Document* first = nullptr;
  for (std::size_t i = 0; i < corpus.inMemorySize(); ++i) {
    const core::Document& d = corpus.inMemory(i);
    if (d.parentId != id) continue;
    if (!first) first = &d;
    ++chunks;
    firstPage = firstPage == 0 ? d.page : std::min(firstPage, d.page);
    lastPage = std::max(lastPage, d.page);
  }
  if (!first) return {};
  return excerptBlock(
      muted(QObject::tr("in the corpus: %n chunk(s), pages %1–%2; first chunk (%3): ", nullptr,
                        chunks)
                .arg(firstPage)
                .arg(lastPage)
                .arg(docAnchor(first->id))) +
      escText(first->fullText(), excerpt));
}

// Where in a page a provenance points: "paragraphs 3–4", and the character offsets if given.
QStringList provenancePlace(const core::Provenance& p) {
  QStringList where;
  if (p.startParagraph < 0) return where;
  const int last = std::max(p.startParagraph, p.endParagraph);
  where << (last > p.startParagraph
                ? QObject::tr("paragraphs %1–%2").arg(p.startParagraph).arg(last)
                : QObject::tr("paragraph %1").arg(p.startParagraph));
  const QString start =
      p.startCharacter >= 0 ? QString::number(p.startCharacter) : QStringLiteral("…");
  const QString end = p.endCharacter >= 0 ? QString::number(p.endCharacter) : QStringLiteral("…");
  if (p.startCharacter >= 0 || p.endCharacter >= 0)
    where << (last > p.startParagraph
                  ? QObject::tr("from character %1 of paragraph %2 to character %3 of paragraph %4")
                        .arg(start)
                        .arg(p.startParagraph)
                        .arg(end)
                        .arg(last)
                  : QObject::tr("characters %1–%2").arg(start, end));
  return where;
}

// The text of exactly the paragraphs (and characters) a provenance names, when its page is in the
// corpus; otherwise the page's opening, as for any document.
QString provenanceText(const core::Corpus& corpus, const core::Provenance& p, int excerpt,
                       ReadBudget& budget) {
  const auto doc = p.startParagraph >= 0 ? corpus.find(p.docId) : std::nullopt;
  if (!doc) return corpusText(corpus, p.docId, excerpt, budget);
  if (!budget.take(*doc))
    return excerptBlock(muted(QObject::tr("(text not read here: open the document to read it)")));
  const core::ProvenanceExcerpt cut = core::provenanceExcerpt(*doc, p);
  if (!cut.error.empty())  // the error, then the page's opening
    return excerptBlock(muted(esc(cut.error)) + QStringLiteral("<br>") +
                        escText(doc->textPrefix(std::size_t(excerpt) * 4 + 4), excerpt));
  const QString ellipsis = muted(QStringLiteral("…"));
  return excerptBlock((cut.cutAtStart ? ellipsis : QString()) + escText(cut.text, excerpt * 4) +
                      (cut.cutAtEnd ? ellipsis : QString()));
}

// The human grade of a document and the links that set it: "human 2 (ana) · grade 0 1 2 3".
QString humanGradeHtml(const QueryDetailOptions& opt, const std::string& qid,
                       std::string_view doc) {
  if (!opt.labels) return {};
  const core::labels::Target target{core::labels::TargetKind::Relevance, opt.labelScope, qid,
                                    std::string(doc)};
  QString out;
  if (const core::labels::Label* shown = opt.labels->shown(target, opt.annotator)) {
    QString who =
        shown->annotator == opt.annotator ? QString() : QStringLiteral(" ") + esc(shown->annotator);
    const std::size_t n = opt.labels->of(target).size();
    if (n > 1) who += QObject::tr(" +%1").arg(n - 1);
    out = QStringLiteral("<span style='background-color:#dcecff'>&nbsp;%1&nbsp;</span>")
              .arg(QObject::tr("human %1%2").arg(esc(shown->value), who));
  } else {
    out = muted(QObject::tr("human: none"));
  }
  QStringList links;
  for (int g = 0; g <= 3; ++g)
    links << QStringLiteral("<a href='%1'>%2</a>").arg(gradeLink(g, doc)).arg(g);
  return QStringLiteral("· ") + out + QStringLiteral(" ") + muted(QObject::tr("· set ")) +
         links.join(QLatin1Char(' '));
}

}  // namespace

QString gradeLink(int grade, std::string_view docId) {
  return QStringLiteral("grade:%1:").arg(grade) +
         QString::fromLatin1(
             QUrl::toPercentEncoding(QString::fromUtf8(docId.data(), qsizetype(docId.size()))));
}

bool gradeFromLink(const QString& link, int* grade, std::string* docId) {
  if (!link.startsWith(QLatin1String("grade:")) || link.size() < 9 || link[7] != QLatin1Char(':'))
    return false;
  const int g = link[6].digitValue();
  if (g < 0 || g > 3) return false;
  *grade = g;
  *docId = QUrl::fromPercentEncoding(link.mid(8).toLatin1()).toStdString();
  return !docId->empty();
}

QString documentLink(std::string_view docId) {
  return QStringLiteral("doc:") + QString::fromLatin1(QUrl::toPercentEncoding(
                                      QString::fromUtf8(docId.data(), qsizetype(docId.size()))));
}

std::string documentIdFromLink(const QString& link) {
  if (!link.startsWith(QLatin1String("doc:"))) return {};
  return QUrl::fromPercentEncoding(link.mid(4).toLatin1()).toStdString();
}

QString documentHeadingHtml(const core::Document& doc, std::optional<std::size_t> characters) {
  QString html = QStringLiteral("<b>%1</b>").arg(esc(doc.id));
  if (!doc.title.empty()) html += QStringLiteral(" — %1").arg(esc(doc.title));
  QStringList where;
  if (!doc.parentId.empty()) where << esc(doc.parentId);
  if (doc.page > 0) where << QObject::tr("page %1").arg(doc.page);
  if (doc.chunk >= 0) where << QObject::tr("chunk %1").arg(doc.chunk + 1);
  if (!characters && !doc.stored.file) characters = codePoints(doc.text);
  if (characters) where << QObject::tr("%L1 characters").arg(qulonglong(*characters));
  html += QStringLiteral("<br><span style='color:#666'>%1</span>")
              .arg(where.join(QStringLiteral(" · ")));
  return html;
}

QString queryDetailHtml(const core::Dataset& dataset, const core::Query& q,
                        const std::unordered_map<std::string, std::size_t>& examples,
                        const QueryDetailOptions& opt) {
  ReadBudget budget(opt.maxStoredReads);
  QString html;
  html += QStringLiteral("<p style='color:#666; margin:0'>%1 %2%3%4</p>")
              .arg(QObject::tr("Query"), esc(q.id),
                   q.task.empty() ? QString() : QStringLiteral(" · ") + esc(q.task),
                   q.line ? QObject::tr(" · line %1").arg(q.line) : QString());
  html += QStringLiteral("<p style='font-size:large; margin-top:4px'>%1</p>")
              .arg(escText(q.text, 20000));

  if (opt.labels)
    html += QStringLiteral("<p style='margin:0'>%1</p>")
                .arg(muted(QObject::tr("Human grades: Tab to a document and press 0–3, or click a "
                                       "grade beside it.")));
  if (!q.flags.empty()) {
    html += section(QObject::tr("Flags"));
    html += QStringLiteral("<ul style='color:#b35c00'>");
    for (const auto& f : q.flags) html += QStringLiteral("<li>%1</li>").arg(esc(f));
    html += QStringLiteral("</ul>");
  }

  // Gold answers.
  const std::vector<std::string> answers = q.goldAnswers();
  html += section(QObject::tr("Gold answers (%1)").arg(answers.size()));
  if (answers.empty()) {
    html += QStringLiteral("<p>%1</p>").arg(muted(QObject::tr("none")));
  } else {
    html += QStringLiteral("<ol>");
    for (const auto& a : answers) html += QStringLiteral("<li>%1</li>").arg(escText(a, 8000));
    html += QStringLiteral("</ol>");
  }

  // Provenance, per gold output.
  bool anyProvenance = false;
  for (const auto& g : q.gold) anyProvenance = anyProvenance || !g.provenance.empty();
  if (anyProvenance) {
    html += section(QObject::tr("Provenance"));
    html += QStringLiteral("<ul>");
    for (std::size_t gi = 0; gi < q.gold.size(); ++gi) {
      for (const auto& p : q.gold[gi].provenance) {
        QString item = docAnchor(p.docId);
        if (!p.title.empty()) item += QStringLiteral(" <b>%1</b>").arg(esc(p.title));
        QStringList where;
        if (q.gold.size() > 1) where << QObject::tr("output %1").arg(gi + 1);
        if (!p.section.empty()) where << esc(p.section);
        where << provenancePlace(p);
        if (!where.isEmpty())
          item += QStringLiteral(" ") + muted(where.join(QStringLiteral(" · ")));
        const QString text = provenanceText(dataset.corpus, p, opt.excerptChars, budget);
        item += text.isEmpty() && !dataset.corpus.empty()
                    ? QStringLiteral("<br>") + muted(QObject::tr("not in the loaded corpus"))
                    : text;
        html += QStringLiteral("<li>%1</li>").arg(item);
      }
    }
    html += QStringLiteral("</ul>");
  }

  // Judged documents (qrels), best grades first.
  const auto judgedIt = dataset.qrels.byQuery.find(q.id);
  if (judgedIt != dataset.qrels.byQuery.end()) {
    std::vector<const core::Judgment*> judged;
    for (const auto& j : judgedIt->second) judged.push_back(&j);
    std::stable_sort(judged.begin(), judged.end(),
                     [](const auto* a, const auto* b) { return a->rel > b->rel; });
    std::map<int, int> grades;
    for (const auto* j : judged) ++grades[j->rel];
    QStringList gradeText;
    for (auto it = grades.rbegin(); it != grades.rend(); ++it)
      gradeText << QObject::tr("%1× grade %2").arg(it->second).arg(it->first);
    html += section(QObject::tr("Judged documents (%1)").arg(judged.size()));
    html += QStringLiteral("<p>%1</p><ul>").arg(muted(gradeText.join(QStringLiteral(", "))));
    int shown = 0;
    for (const auto* j : judged) {
      if (shown++ >= opt.maxJudged) break;
      html += QStringLiteral("<li>%1 <b>%2</b> %3%4</li>")
                  .arg(docAnchor(j->docId), QObject::tr("grade %1").arg(j->rel),
                       humanGradeHtml(opt, q.id, j->docId),
                       corpusText(dataset.corpus, j->docId, opt.excerptChars / 2, budget));
    }
    html += QStringLiteral("</ul>");
    if (int(judged.size()) > opt.maxJudged)
      html += QStringLiteral("<p>%1</p>")
                  .arg(muted(QObject::tr("… and %1 more").arg(int(judged.size()) - opt.maxJudged)));
  }

  // Top of each run, with the qrels grade of each retrieved document.
  int runsShown = 0;
  for (const auto& run : dataset.runs) {
    const core::Ranking* ranking = run.find(q.id);
    if (!ranking || runsShown++ >= opt.maxRuns) continue;
    std::vector<const core::RunEntry*> entries;
    for (const auto& e : ranking->entries) entries.push_back(&e);
    // Display order only (trec_eval's tie rule lives in the evaluator): score, then docno desc.
    std::stable_sort(entries.begin(), entries.end(), [](const auto* a, const auto* b) {
      if (a->score != b->score) return a->score > b->score;
      return a->docId() > b->docId();
    });
    html += section(QObject::tr("Run %1 — top %2 of %3")
                        .arg(esc(run.tag))
                        .arg(std::min<int>(opt.maxRunEntries, int(entries.size())))
                        .arg(entries.size()));
    html += QStringLiteral("<table cellspacing='0' cellpadding='2'>");
    for (int i = 0; i < int(entries.size()) && i < opt.maxRunEntries; ++i) {
      const auto* e = entries[std::size_t(i)];
      QString grade = muted(QObject::tr("unjudged"));
      if (judgedIt != dataset.qrels.byQuery.end()) {
        for (const auto& j : judgedIt->second)
          if (j.docId == e->docId()) grade = QObject::tr("grade %1").arg(j.rel);
      }
      QString title;
      if (const auto d = dataset.corpus.find(e->docId())) {
        if (!d->title.empty())
          title = escText(d->title, 90);
        else if (budget.take(*d))
          title = escText(d->textPrefix(400), 90);
      }
      html += QStringLiteral(
                  "<tr><td align='right'>%1.</td><td>%2</td><td align='right'>%3</td>"
                  "<td>%4</td><td>%5</td><td>%6</td></tr>")
                  .arg(i + 1)
                  .arg(docAnchor(e->docId()))
                  .arg(e->score, 0, 'g', 6)
                  .arg(grade, humanGradeHtml(opt, q.id, e->docId()), title);
    }
    html += QStringLiteral("</table>");
  }

  // Every human grade of this query's documents, listed or not above (a grade given deep in a
  // ranked list shows here too).
  if (opt.labels) {
    std::map<std::string, std::vector<const core::labels::Label*>> graded;
    for (const auto& l : opt.labels->current)
      if (l.target.kind == core::labels::TargetKind::Relevance &&
          l.target.scope == opt.labelScope && l.target.qid == q.id)
        graded[l.target.item].push_back(&l);
    if (!graded.empty()) {
      html += section(QObject::tr("Human grades (%1)").arg(graded.size()));
      html += QStringLiteral("<ul>");
      for (const auto& [doc, labels] : graded) {
        QStringList who;
        for (const auto* l : labels) {
          QString one = QObject::tr("%1: %2").arg(esc(l->annotator), esc(l->value));
          if (!l->comment.empty()) one += QStringLiteral(" (") + esc(l->comment) + QLatin1Char(')');
          who << one;
        }
        html +=
            QStringLiteral("<li>%1 %2</li>").arg(docAnchor(doc), who.join(QStringLiteral(" · ")));
      }
      html += QStringLiteral("</ul>");
    }
  }

  // Generation side (RAG JSONL, RAGChecker).
  if (const auto it = examples.find(q.id); it != examples.end()) {
    const core::Example& ex = dataset.examples[it->second];
    if (!ex.response.empty()) {
      html += section(QObject::tr("Response"));
      html += QStringLiteral("<p>%1</p>").arg(escText(ex.response, 20000));
    }
    if (!ex.reference.empty() && answers.empty()) {
      html += section(QObject::tr("Reference"));
      html += QStringLiteral("<p>%1</p>").arg(escText(ex.reference, 20000));
    }
    if (!ex.contexts.empty()) {
      html += section(QObject::tr("Retrieved contexts (%1)").arg(ex.contexts.size()));
      html += QStringLiteral("<ol>");
      for (const auto& c : ex.contexts) {
        html += QStringLiteral("<li>%1%2</li>")
                    .arg(c.id.empty() ? QString() : muted(esc(c.id)) + QStringLiteral("<br>"),
                         excerptBlock(escText(c.text, opt.excerptChars * 2)));
      }
      html += QStringLiteral("</ol>");
    }
  }

  if (!q.attributes.empty()) {
    html += section(QObject::tr("Attributes"));
    html += QStringLiteral("<table cellspacing='0' cellpadding='2'>");
    for (const auto& [key, value] : q.attributes)
      html += QStringLiteral("<tr><td style='color:#666'>%1</td><td>%2</td></tr>")
                  .arg(esc(key), escText(value, 2000));
    html += QStringLiteral("</table>");
  }
  return html;
}

}  // namespace ragscope::ui
