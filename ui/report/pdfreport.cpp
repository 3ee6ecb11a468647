#include "ui/report/pdfreport.h"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QDate>
#include <QFileInfo>
#include <QPainter>
#include <QPdfWriter>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextTable>
#include <algorithm>
#include <cmath>
#include <map>

#include "ui/report/reportcharts.h"
#include "ui/report/safefile.h"

namespace ragscope::ui::report {

namespace {

using core::exporting::Report;
using core::exporting::ReportMetric;
using core::exporting::ReportRun;

constexpr double kHeader = 24;  // points above the text: the running header
constexpr double kFooter = 20;  // below: the page number

QString q(const std::string& s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

// Data text for a table cell or line: control characters other than tab and newline shown as
// U+FFFD (a NUL would end the text early), long text cut with a note.
QString cell(const std::string& s, int limit = 600) {
  QString t = q(s);
  for (auto& c : t)
    if (c.unicode() < 0x20 && c != '\t' && c != '\n') c = QChar(0xFFFD);
  if (t.size() > limit)
    t = t.left(limit) + QString(" ... [%1 more characters]").arg(t.size() - limit);
  return t;
}

QString number(const std::optional<double>& v) {
  return v ? QString::number(*v, 'f', 4) : QString("-");
}

// The document being written: text styles and the few block kinds the report uses.
class Writer {
 public:
  Writer(QTextDocument& doc, ChartObjects& charts) : m_cursor(&doc), m_charts(charts) {
    m_body.setFontStyleStrategy(QFont::PreferNoShaping);  // no ligatures (see writePdfReport)
    m_small = m_body;
    m_body.setFontPointSize(9.5);
    m_small.setFontPointSize(8);
    m_bold = m_body;
    m_bold.setFontWeight(QFont::Bold);
  }

  void heading(const QString& text, int level) {
    QTextBlockFormat b;
    b.setTopMargin(level == 1 ? 14 : 10);
    b.setBottomMargin(4);
    b.setHeadingLevel(level);
    b.setPageBreakPolicy(QTextFormat::PageBreak_Auto);
    QTextCharFormat c = m_bold;
    c.setFontPointSize(level == 1 ? 15 : level == 2 ? 12 : 10.5);
    m_cursor.insertBlock(b, c);
    m_cursor.insertText(text, c);
  }
  void paragraph(const QString& text, bool small = false) {
    QTextBlockFormat b;
    b.setBottomMargin(3);
    m_cursor.insertBlock(b, small ? m_small : m_body);
    m_cursor.insertText(text, small ? m_small : m_body);
  }
  void pageBreak() {
    QTextBlockFormat b;
    b.setPageBreakPolicy(QTextFormat::PageBreak_AlwaysBefore);
    m_cursor.insertBlock(b, m_body);
  }
  void chart(QSizeF size, PaintFn paint) {
    QTextBlockFormat b;
    b.setTopMargin(4);
    b.setBottomMargin(6);
    m_cursor.insertBlock(b, m_body);
    m_charts.insert(m_cursor, size, std::move(paint));
  }
  // A table with a header row that repeats on every page the table crosses.
  void table(const QStringList& header, const std::vector<QStringList>& rows,
             const std::vector<double>& widths) {
    QTextTableFormat f;
    f.setHeaderRowCount(1);
    f.setCellPadding(2.5);
    f.setCellSpacing(0);
    f.setBorder(0.5);
    f.setBorderBrush(QColor(170, 170, 170));
    f.setBorderCollapse(true);
    f.setWidth(QTextLength(QTextLength::PercentageLength, 100));
    QList<QTextLength> columns;
    for (const double w : widths) columns << QTextLength(QTextLength::PercentageLength, w);
    f.setColumnWidthConstraints(columns);
    QTextTable* t =
        m_cursor.insertTable(static_cast<int>(rows.size()) + 1, static_cast<int>(header.size()), f);
    auto put = [&](int r, int c, const QString& text, const QTextCharFormat& fmt) {
      QTextTableCell cellAt = t->cellAt(r, c);
      if (r == 0) {
        QTextCharFormat shade = cellAt.format();
        shade.setBackground(QColor(232, 236, 242));
        cellAt.setFormat(shade);
      }
      QTextCursor in = cellAt.firstCursorPosition();
      in.insertText(text, fmt);
    };
    QTextCharFormat head = m_small;
    head.setFontWeight(QFont::Bold);
    for (int c = 0; c < header.size(); ++c) put(0, c, header[c], head);
    for (std::size_t r = 0; r < rows.size(); ++r)
      for (int c = 0; c < rows[r].size() && c < header.size(); ++c)
        put(static_cast<int>(r) + 1, c, rows[r][c], m_small);
    m_cursor.movePosition(QTextCursor::End);
  }

 private:
  QTextCursor m_cursor;
  ChartObjects& m_charts;
  QTextCharFormat m_body, m_small, m_bold;
};

// The settings' top-level values as "key: value" lines (objects and long arrays summarised).
QStringList settingLines(const nlohmann::json& settings) {
  QStringList out;
  if (!settings.is_object()) return out;
  for (const auto& [key, value] : settings.items()) {
    std::string text = value.is_string()
                           ? value.get<std::string>()
                           : value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (text.size() > 160) text = text.substr(0, 160) + " ...";
    out << q(key) + ": " + cell(text, 200);
  }
  return out;
}

// The metrics charted: means with an interval (a sum such as num_ret would squash the scale).
std::vector<const ReportMetric*> headlineMetrics(const ReportRun& run) {
  std::vector<const ReportMetric*> out;
  for (const auto& m : run.metrics)
    if (m.mean && m.ciLow && out.size() < 14) out.push_back(&m);
  return out;
}

// The run's main metric (core::exporting::mainMetric), or null.
const ReportMetric* mainMetricOf(const ReportRun& run) {
  const std::string name = core::exporting::mainMetric(run);
  for (const auto& m : run.metrics)
    if (m.name == name) return &m;
  return nullptr;
}

void writeComparisons(Writer& w, const Report& report) {
  if (report.comparisons.empty()) return;
  w.pageBreak();
  w.heading("Paired comparisons", 1);
  w.paragraph(
      "The first run of each kind (a) against each later one (b), on a's main metric, over the "
      "queries both "
      "have: the mean difference (a - b) with its paired bootstrap 95% CI, the sign-flip "
      "randomization "
      "test and the paired t-test (two-sided p).",
      true);
  std::vector<QStringList> rows;
  for (const auto& c : report.comparisons)
    rows.push_back(
        {q(c.runA) + " - " + q(c.runB), q(c.metric), QString::number(c.n),
         QString::number(c.meanA, 'f', 4), QString::number(c.meanB, 'f', 4),
         QString::number(c.meanDiff, 'f', 4),
         c.ciLow && c.ciHigh ? "[" + number(c.ciLow) + ", " + number(c.ciHigh) + "]" : "-",
         QString::number(c.pRandomization, 'g', 3), QString::number(c.pT, 'g', 3),
         QString("%1/%2/%3").arg(c.wins).arg(c.ties).arg(c.losses)});
  w.table({"a - b", "metric", "n", "mean a", "mean b", "a - b", "95% CI", "p (rand.)", "p (t)",
           "wins/ties/losses"},
          rows, {18, 9, 5, 8, 8, 9, 15, 9, 8, 11});
  for (const auto& c : report.comparisons) {
    if (c.distribution.empty()) continue;
    ReportMetric m;
    m.name = c.runA + " - " + c.runB + " (" + c.metric + ")";
    m.mean = c.meanDiff;
    m.ciLow = c.ciLow;
    m.ciHigh = c.ciHigh;
    m.distribution = c.distribution;
    w.chart({500, 130}, [m](QPainter& p, const QRectF& r) { paintDistribution(p, r, m); });
  }
}

// The per-query values of `metric` in a run, by qid.
std::map<std::string, double> valuesOf(const ReportRun& run, const std::string& metric) {
  std::map<std::string, double> out;
  for (const auto& v : run.values)
    if (v.metric == metric && v.value) out[v.qid] = *v.value;
  return out;
}

// The end-to-end run that goes with an eRAG run: named alike ("erag-good" / "e2e-good"), else
// the only one.
const ReportRun* e2eFor(const Report& report, const ReportRun& erag) {
  std::vector<const ReportRun*> e2e;
  for (const auto& r : report.runs)
    if (r.kind == "e2e") e2e.push_back(&r);
  std::string twin = erag.name;
  if (const auto at = twin.find("erag"); at != std::string::npos) twin.replace(at, 4, "e2e");
  for (const auto* r : e2e)
    if (r->name == twin) return r;
  return e2e.size() == 1 ? e2e.front() : nullptr;
}

void writeCharts(Writer& w, const Report& report, const ReportRun& run, const ReportMetric* main,
                 const PdfReportOptions& options);
void writeLowest(Writer& w, const ReportRun& run, const ReportMetric* main,
                 const PdfReportOptions& options);
void writeUnsupported(Writer& w, const ReportRun& run, const PdfReportOptions& options);
void writeHumanLabels(Writer& w, const ReportRun& run);

void writeRun(Writer& w, const Report& report, const ReportRun& run,
              const PdfReportOptions& options) {
  const auto has = [&](const char* section) { return options.sections.count(section) > 0; };
  w.heading(q(run.name) + "  (" + q(run.kind) +
                (run.mode.empty() ? "" : ", " + q(run.mode) + " mode") + ")",
            1);
  w.paragraph("Source: " + cell(run.source), true);
  if (has("settings") && !run.conventions.empty()) {
    w.heading("Conventions", 3);
    for (const auto& c : run.conventions) w.paragraph(cell(c), true);
  }
  if (has("settings") && !run.notes.empty()) {
    w.heading("Notes", 3);
    for (const auto& n : run.notes) w.paragraph(cell(n), true);
  }
  const QStringList settings = settingLines(run.settings);
  if (has("settings") && !settings.isEmpty()) {
    w.heading("Settings", 3);
    w.paragraph(settings.join("\n"), true);
  }
  w.heading("Summary", 2);
  std::vector<QStringList> rows;
  for (const auto& m : run.metrics) {
    const QString ci =
        m.ciLow && m.ciHigh ? "[" + number(m.ciLow) + ", " + number(m.ciHigh) + "]" : "-";
    QString states = QString("%1 scored").arg(m.scored);
    if (m.unparsed) states += QString(", %1 unparsed").arg(m.unparsed);
    if (m.errors) states += QString(", %1 error").arg(m.errors);
    if (m.empty) states += QString(", %1 empty").arg(m.empty);
    if (m.incomplete) states += QString(", %1 incomplete").arg(m.incomplete);
    rows.push_back(
        {q(m.name), number(m.mean), ci, QString("%1 / %2").arg(m.n).arg(m.total), states});
  }
  w.table({"metric", "mean", "95% CI", "n / total", "queries by state"}, rows,
          {40, 10, 20, 10, 20});

  const ReportMetric* main = mainMetricOf(run);
  if (has("charts")) writeCharts(w, report, run, main, options);
  if (has("lowest")) writeLowest(w, run, main, options);
  if (has("claims")) writeUnsupported(w, run, options);
  if (has("labels")) writeHumanLabels(w, run);
}

void writeCharts(Writer& w, const Report& report, const ReportRun& run, const ReportMetric* main,
                 const PdfReportOptions& options) {
  const auto headline = headlineMetrics(run);
  if (!headline.empty())
    w.chart({500, 18.0 * static_cast<double>(headline.size()) + 22},
            [headline](QPainter& p, const QRectF& r) { paintIntervals(p, r, headline); });
  if (main && !main->distribution.empty()) {  // the main metric's; the others are in the table
    const ReportMetric metric = *main;
    w.chart({500, 150},
            [metric](QPainter& p, const QRectF& r) { paintDistribution(p, r, metric); });
  }
  if (!run.documents.empty()) {
    const auto documents = run.documents;
    std::size_t queries = 0;
    std::map<std::string, int> seen;
    for (const auto& d : documents) queries += seen[d.qid]++ == 0;
    const double rows = static_cast<double>(std::min(queries, options.heatmapRows));
    const std::size_t maxRows = options.heatmapRows;
    w.chart({500, std::min(10.0, 400.0 / rows) * rows + 28},
            [documents, maxRows](QPainter& p, const QRectF& r) {
              paintHeatmap(p, r, documents, maxRows);
            });
    if (const ReportRun* e2e = e2eFor(report, run); e2e && !e2e->metrics.empty() && main) {
      const auto x = valuesOf(run, main->name);
      const auto y = valuesOf(*e2e, e2e->metrics.front().name);
      std::vector<std::pair<double, double>> points;
      for (const auto& [qid, v] : x)
        if (const auto it = y.find(qid); it != y.end()) points.emplace_back(v, it->second);
      const std::string xl = "eRAG " + main->name + " (" + run.name + ")";
      const std::string yl = "end-to-end " + e2e->metrics.front().name + " (" + e2e->name + ")";
      w.chart({320, 220}, [points, xl, yl](QPainter& p, const QRectF& r) {
        paintScatter(p, r, points, xl, yl);
      });
    }
  }
  if (!run.claims.empty()) {
    const auto claims = run.claims;
    w.chart({500, 110}, [claims](QPainter& p, const QRectF& r) { paintVerdicts(p, r, claims); });
  }
}

void writeLowest(Writer& w, const ReportRun& run, const ReportMetric* main,
                 const PdfReportOptions& options) {
  if (main && options.lowestQueries > 0) {
    const std::string metric = main->name;
    std::vector<std::pair<double, std::string>> scored;
    for (const auto& [qid, v] : valuesOf(run, metric)) scored.emplace_back(v, qid);
    std::sort(scored.begin(), scored.end());
    if (!scored.empty()) {
      w.heading("Lowest-scoring queries by " + q(metric), 2);
      std::vector<QStringList> low;
      for (std::size_t i = 0; i < scored.size() && i < options.lowestQueries; ++i) {
        const auto question = run.questions.find(scored[i].second);
        low.push_back({cell(scored[i].second, 120),
                       question == run.questions.end() ? QString("-") : cell(question->second, 400),
                       QString::number(scored[i].first, 'f', 4)});
      }
      w.table({"query", "question", q(metric)}, low, {16, 68, 16});
    }
  }
}

void writeUnsupported(Writer& w, const ReportRun& run, const PdfReportOptions& options) {
  std::vector<const core::exporting::ReportClaim*> unsupported;
  for (const auto& c : run.claims)
    if (c.side == "response" && c.premise == "chunks" && c.verdict != "supported")
      unsupported.push_back(&c);
  if (!unsupported.empty()) {
    w.heading("Claims not supported by the retrieved chunks", 2);
    std::vector<QStringList> rows2;
    for (std::size_t i = 0; i < unsupported.size() && i < options.maxClaims; ++i) {
      const auto& c = *unsupported[i];
      rows2.push_back({cell(c.qid, 80), cell(c.claim, 400), q(c.verdict),
                       c.evidence.empty() ? "-" : cell(c.evidence, 400)});
    }
    w.table({"query", "claim", "verdict", "closest evidence"}, rows2, {12, 38, 12, 38});
    if (unsupported.size() > options.maxClaims)
      w.paragraph(QString("%1 more in the claim CSV or the JSON export.")
                      .arg(unsupported.size() - options.maxClaims),
                  true);
  }
}

// The human labels of a run (core/eval/reports/humanlabelsreport.h): counts per kind and annotator,
// agreement, and each judged metric's judge-only, human-only and prediction-powered means.
void writeHumanLabels(Writer& w, const ReportRun& run) {
  if (!run.humanLabels) return;
  const auto& h = *run.humanLabels;
  w.heading("Human labels", 2);
  w.paragraph("Labels store: " + cell(h.store), true);
  if (!h.counts.empty()) {
    std::vector<QStringList> rows;
    for (const auto& c : h.counts)
      rows.push_back({q(c.kind), cell(c.annotator, 120), QString::number(c.labels)});
    w.table({"kind", "annotator", "current labels"}, rows, {30, 45, 25});
  }
  if (!h.agreement.empty()) {
    w.heading("Agreement", 3);
    for (const auto& a : h.agreement) w.paragraph(cell(a), true);
  }
  if (!h.ppi.empty()) {
    w.heading("Prediction-powered estimates (95% intervals)", 3);
    auto withCi = [](const std::optional<double>& m, const std::optional<double>& lo,
                     const std::optional<double>& hi) {
      if (!m) return QString("-");
      return number(m) + (lo && hi ? "\n[" + number(lo) + ", " + number(hi) + "]" : QString());
    };
    std::vector<QStringList> rows;
    for (const auto& p : h.ppi)
      rows.push_back({q(p.metric) + "\n" + cell(p.description, 120),
                      QString("%1 / %2").arg(p.labelled).arg(p.items),
                      withCi(p.judgeMean, p.judgeLow, p.judgeHigh),
                      withCi(p.humanMean, p.humanLow, p.humanHigh),
                      p.estimate ? withCi(p.estimate, p.ciLow, p.ciHigh) : cell(p.problem, 200),
                      p.lambda ? QString::number(*p.lambda, 'f', 3) : QString("-")});
    w.table({"metric (items)", "labelled / items", "judge only", "human only", "PPI++", "lambda"},
            rows, {26, 12, 17, 17, 19, 9});
  }
  for (const auto& n : h.notes) w.paragraph(cell(n), true);
}

// The PDF, drawn into `device`; `path` names it in messages.
bool renderPdfReport(const Report& report, QIODevice* device, const QString& path,
                     const PdfReportOptions& options, std::string* error) {
  const QString date =
      options.date.isEmpty() ? QDate::currentDate().toString(Qt::ISODate) : options.date;
  QPdfWriter writer(device);
  writer.setResolution(72);  // one unit = one point
  writer.setPageSize(QPageSize(QPageSize::A4));
  writer.setPageMargins(QMarginsF(40, 36, 40, 36), QPageLayout::Point);
  writer.setTitle(QString("ragscope report: ") + q(report.title));
  writer.setCreator("ragscope " + q(report.version));

  QTextDocument doc;
  doc.documentLayout()->setPaintDevice(&writer);
  QFont base("DejaVu Sans");
  base.setPointSizeF(9.5);
  // No ligatures: "offline" must stay o-f-f-l-i-n-e in the PDF's text, so that search, copy and
  // pdftotext find what the data says. PreferNoShaping drops them for scripts that do not need
  // shaping (Latin) and keeps shaping for those that do.
  base.setStyleStrategy(QFont::PreferNoShaping);
  doc.setDefaultFont(base);
  const QRectF page = writer.pageLayout().paintRect(QPageLayout::Point);
  doc.setPageSize(QSizeF(page.width(), page.height() - kHeader - kFooter));
  doc.setDocumentMargin(0);
  ChartObjects charts;
  charts.registerWith(&doc);
  Writer w(doc, charts);

  // Title page.
  w.heading(q(report.title), 1);
  w.paragraph("ragscope report");
  w.paragraph("Date: " + date);
  w.paragraph("ragscope version: " + q(report.version));
  if (!report.datasets.empty()) {
    QStringList names;
    for (const auto& d : report.datasets) names << cell(d, 200);
    w.paragraph("Datasets: " + names.join("; "));
  }
  std::vector<QStringList> runs;
  for (const auto& r : report.runs)
    runs.push_back({q(r.name), q(r.kind), r.mode.empty() ? "-" : q(r.mode),
                    QString::number(r.metrics.size()),
                    cell(QFileInfo(q(r.source)).fileName().toStdString(), 80)});
  w.heading("Runs", 2);
  w.table({"run", "kind", "mode", "metrics", "file"}, runs, {28, 14, 14, 12, 32});
  if (!report.problems.empty()) {
    w.heading("Sources that could not be read", 2);
    for (const auto& p : report.problems) w.paragraph(cell(p), true);
  }
  for (const auto& run : report.runs) {
    w.pageBreak();
    writeRun(w, report, run, options);
  }
  if (options.sections.count("comparisons")) writeComparisons(w, report);
  // Method appendix.
  const bool appendix = options.sections.count("appendix") > 0;
  if (appendix) {
    w.pageBreak();
    w.heading("Method appendix", 1);
  }
  for (const auto& run : report.runs) {
    if (!appendix) break;
    w.heading(q(run.name) + " (" + q(run.kind) + ")", 3);
    std::vector<QStringList> rows;
    for (const auto& [k, v] : run.method) rows.push_back({q(k), cell(v, 300)});
    std::size_t unparsed = 0, errors = 0;
    for (const auto& m : run.metrics) {
      unparsed += m.unparsed;
      errors += m.errors;
    }
    rows.push_back(
        {"unparsed / failed (query x metric)", QString("%1 / %2").arg(unparsed).arg(errors)});
    w.table({"item", "value"}, rows, {30, 70});
  }

  QPainter painter;
  if (!painter.begin(&writer)) {
    if (error) *error = path.toStdString() + ": cannot be written";
    return false;
  }
  const int pages = doc.pageCount();
  const double bodyHeight = doc.pageSize().height();
  QFont small = base;
  small.setPointSizeF(7.5);
  for (int i = 0; i < pages; ++i) {
    if (i > 0) writer.newPage();
    painter.setFont(small);
    painter.setPen(QColor(110, 110, 110));
    const QRectF head(0, 0, page.width(), kHeader - 8);
    painter.drawText(head, Qt::AlignLeft | Qt::AlignTop,
                     "ragscope report: " + q(report.title).left(80));
    painter.drawText(head, Qt::AlignRight | Qt::AlignTop, date);
    painter.drawLine(QPointF(0, kHeader - 6), QPointF(page.width(), kHeader - 6));
    painter.drawText(QRectF(0, page.height() - kFooter + 6, page.width(), kFooter - 6),
                     Qt::AlignCenter, QString("page %1 of %2").arg(i + 1).arg(pages));
    painter.save();
    painter.translate(0, kHeader - i * bodyHeight);
    const QRectF clip(0, i * bodyHeight, page.width(), bodyHeight);
    painter.setClipRect(clip);
    QAbstractTextDocumentLayout::PaintContext ctx;
    ctx.clip = clip;
    ctx.palette.setColor(QPalette::Text, Qt::black);
    doc.documentLayout()->draw(&painter, ctx);
    painter.restore();
  }
  if (!painter.end()) {
    if (error) *error = path.toStdString() + ": writing the PDF failed";
    return false;
  }
  return true;
}

}  // namespace

bool writePdfReport(const Report& report, const QString& path, const PdfReportOptions& options,
                    std::string* error) {
  // Drawn in memory, then written by the one safe writer (never through a link at the name).
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (!renderPdfReport(report, &buffer, path, options, error)) return false;
  buffer.close();
  return writeBytesSafely(path, bytes, error);
}

}  // namespace ragscope::ui::report
