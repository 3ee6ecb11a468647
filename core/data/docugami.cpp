// Docugami KG-RAG SEC 10-Q (core/data/README.md, "Docugami"): qna_data.csv (questions, long
// answers whose SOURCE(S) line names the gold PDFs) plus the 10-Q PDFs of docs/ as a page-aware
// chunked corpus.

#include "core/data/docugami.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <unordered_set>

#include "core/data/chunker.h"
#include "core/data/csvreader.h"
#include "core/data/linereader.h"
#include "core/data/loaders.h"
#include "core/data/pdftext.h"

namespace ragscope::core {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kSourcesPrefix = "SOURCE(S):";

bool startsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    char a = s[i], b = prefix[i];
    if (a >= 'a' && a <= 'z') a = static_cast<char>(a - 'a' + 'A');
    if (b >= 'a' && b <= 'z') b = static_cast<char>(b - 'a' + 'A');
    if (a != b) return false;
  }
  return true;
}

std::size_t findNoCase(std::string_view s, std::string_view needle) {
  if (needle.size() > s.size()) return std::string_view::npos;
  for (std::size_t i = 0; i + needle.size() <= s.size(); ++i)
    if (startsWithNoCase(s.substr(i), needle)) return i;
  return std::string_view::npos;
}

std::string_view stripQuotes(std::string_view s) {
  s = trim(s);
  while (!s.empty() && (s.front() == '"' || s.front() == '\'')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == '"' || s.back() == '\'' || s.back() == '.')) s.remove_suffix(1);
  return trim(s);
}

std::string joined(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

class Reporter {
 public:
  Reporter(LoadReport& report, const LoadOptions& options) : m_report(report), m_options(options) {}
  void add(Severity severity, std::string file, std::uint64_t line, std::string field,
           std::string problem) {
    m_report.add(Diagnostic{severity, std::move(file), line, std::move(field), std::move(problem)},
                 m_options.maxStoredDiagnostics);
  }
  void warn(const std::string& file, std::uint64_t line, std::string field, std::string problem) {
    add(Severity::Warning, file, line, std::move(field), std::move(problem));
  }
  // An error that spoils one record or file: true when loading must stop (OnError::Stop).
  bool error(const std::string& file, std::uint64_t line, std::string field, std::string problem) {
    add(Severity::Error, file, line, std::move(field), std::move(problem));
    if (m_options.onError == OnError::Stop) {
      m_report.stopped = true;
      return true;
    }
    ++m_report.skipped;
    return m_report.tooManyErrors(m_options, file, line);
  }
  // An error that ends this file whatever onError says (no header, cannot open).
  void fatal(const std::string& file, std::uint64_t line, std::string field, std::string problem) {
    add(Severity::Error, file, line, std::move(field), std::move(problem));
    m_report.stopped = true;
  }

 private:
  LoadReport& m_report;
  const LoadOptions& m_options;
};

// Joins the worker threads however the consuming loop exits.
struct WorkerGroup {
  std::vector<std::thread> threads;
  std::atomic<bool>* cancel = nullptr;
  ~WorkerGroup() {
    if (cancel) cancel->store(true);
    for (auto& t : threads)
      if (t.joinable()) t.join();
  }
};

}  // namespace

SourcesLine parseSources(std::string_view answer) {
  SourcesLine out;
  std::unordered_set<std::string> seen;
  std::size_t pos = 0;
  while (pos <= answer.size()) {
    std::size_t nl = answer.find('\n', pos);
    if (nl == std::string_view::npos) nl = answer.size();
    std::string_view line = trim(answer.substr(pos, nl - pos));
    pos = nl + 1;
    if (startsWithNoCase(line, kSourcesPrefix)) {
      out.found = true;
      std::string_view rest = line.substr(kSourcesPrefix.size());
      std::size_t start = 0;
      while (start <= rest.size()) {
        std::size_t comma = rest.find(',', start);
        if (comma == std::string_view::npos) comma = rest.size();
        std::string_view item = trim(rest.substr(start, comma - start));
        start = comma + 1;
        if (item.empty()) continue;
        std::size_t ext = findNoCase(item, ".pdf");
        if (ext != std::string_view::npos) {
          std::string doc(stripQuotes(item.substr(0, ext + 4)));
          if (!doc.empty() && seen.insert(doc).second) out.documents.push_back(std::move(doc));
        } else {
          std::string_view other = stripQuotes(item);
          if (!other.empty()) out.otherItems.emplace_back(other);
        }
      }
    }
    if (nl == answer.size()) break;
  }
  return out;
}

std::vector<std::string> parseSourcesLine(std::string_view answer) {
  return parseSources(answer).documents;
}

bool globMatch(std::string_view pattern, std::string_view name) {
  // Iterative wildcard match with one backtrack point: linear-ish, no recursion on hostile input.
  std::size_t p = 0, n = 0;
  std::size_t starP = std::string_view::npos, starN = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      starP = p++;
      starN = n;
    } else if (starP != std::string_view::npos) {
      p = starP + 1;
      n = ++starN;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<fs::path> listPdfFiles(const fs::path& folder, std::string* error) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::directory_iterator it(folder, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::error_code ec2;
    if (!it->is_regular_file(ec2)) continue;
    std::string ext = it->path().extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](char c) {
      return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    });
    if (ext == ".pdf") out.push_back(it->path());
  }
  if (ec && error) *error = ec.message();
  std::sort(out.begin(), out.end(), [](const fs::path& a, const fs::path& b) {
    return a.filename().string() < b.filename().string();
  });
  return out;
}

LoadReport loadPdfCorpus(const std::vector<fs::path>& allFiles, Corpus& into,
                         const LoadOptions& options, std::uint64_t progressBase,
                         std::uint64_t progressTotal) {
  LoadReport report;
  Reporter rep(report, options);

  if (options.chunkSize > 0 && options.chunkOverlap >= options.chunkSize)
    rep.warn("", 0, "chunkOverlap",
             "overlap " + std::to_string(options.chunkOverlap) +
                 " is not smaller than the chunk size " + std::to_string(options.chunkSize) +
                 ": using " + std::to_string(options.chunkSize - 1));

  // Loading a second question file of the same folder must not duplicate the corpus.
  std::unordered_set<std::string> present;
  for (std::size_t i = 0; i < into.inMemorySize(); ++i)  // PDF chunks are always held in memory
    if (const Document& d = into.inMemory(i); !d.parentId.empty()) present.insert(d.parentId);
  std::vector<fs::path> files;
  std::vector<std::uint64_t> sizes;
  for (const auto& f : allFiles) {
    if (present.count(f.filename().string())) {
      rep.warn(f.string(), 0, "pdf", "already in the corpus: not loaded again");
      continue;
    }
    files.push_back(f);
    std::error_code ec;
    auto sz = fs::file_size(f, ec);
    sizes.push_back(ec ? 0 : sz);
  }
  if (progressTotal == 0) {
    progressTotal = progressBase;
    for (auto s : sizes) progressTotal += s;
  }

  struct Slot {
    PdfText text;
    bool done = false;
  };
  std::vector<Slot> slots(files.size());
  std::mutex mutex;
  std::condition_variable ready;
  std::atomic<std::size_t> nextIndex{0};
  std::atomic<bool> cancel{false};

  auto work = [&] {
    for (;;) {
      if (cancel.load()) return;
      std::size_t i = nextIndex.fetch_add(1);
      if (i >= files.size()) return;
      PdfTextOptions po;
      po.cancel = &cancel;
      PdfText text = extractPdfText(files[i], po);
      {
        std::lock_guard lock(mutex);
        slots[i].text = std::move(text);
        slots[i].done = true;
      }
      ready.notify_all();
    }
  };

  // Two workers at most: the machine is shared and 20 PDFs take ~3 s on one core. The calling
  // thread consumes results in file order, so output order and progress calls are deterministic
  // and the progress callback always runs on the caller's thread.
  WorkerGroup group;
  group.cancel = &cancel;
  const std::size_t wanted = std::min<std::size_t>(
      {std::size_t{2}, std::max<std::size_t>(1, std::thread::hardware_concurrency()),
       files.size()});
  for (std::size_t t = 0; t < wanted; ++t) {
    try {
      group.threads.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // fewer threads (or none: see below) still produce the same output
    }
  }
  if (group.threads.empty()) work();

  std::uint64_t done = progressBase;
  for (std::size_t i = 0; i < files.size(); ++i) {
    PdfText text;
    {
      std::unique_lock lock(mutex);
      ready.wait(lock, [&] { return slots[i].done; });
      text = std::move(slots[i].text);
    }
    const std::string file = files[i].string();
    const std::string name = files[i].filename().string();
    for (const auto& w : text.warnings) rep.warn(file, 0, "pdf", w);
    if (text.cancelled) {
      report.cancelled = true;
      break;
    }
    if (!text.ok) {
      if (rep.error(file, 0, "pdf", text.error)) break;
    } else {
      std::size_t emptyPages = 0;
      for (std::size_t p = 0; p < text.pages.size(); ++p) {
        const std::string& page = text.pages[p];
        const int pageNo = static_cast<int>(p) + 1;
        auto spans = chunkText(page, options.chunkSize, options.chunkOverlap);
        if (spans.empty()) ++emptyPages;
        for (std::size_t n = 0; n < spans.size(); ++n) {
          Document d;
          d.id = makeChunkId(name, pageNo, static_cast<int>(n));
          d.title = name + " p." + std::to_string(pageNo);
          d.text = page.substr(spans[n].begin, spans[n].end - spans[n].begin);
          d.parentId = name;
          d.page = pageNo;
          d.chunk = static_cast<int>(n);
          into.add(std::move(d));
          ++report.records;
        }
      }
      if (emptyPages == text.pages.size())
        rep.warn(file, 0, "pdf",
                 "no text on any of its " + std::to_string(emptyPages) +
                     " pages (scanned images?): nothing to retrieve");
    }
    done += sizes[i];
    if (options.progress && !options.progress(done, progressTotal)) {
      report.cancelled = true;
      break;
    }
  }
  return report;
}

// Ids are "r<row>": the 1-based position of the data row in the file (header excluded; a bad row
// still takes its number), so r17 is the 17th question whichever rows around it fail to load.
LoadReport loadDocugami(const fs::path& path, Dataset& into, const LoadOptions& options) {
  LoadReport report;
  Reporter rep(report, options);

  std::error_code ec;
  fs::path csvPath, docsDir;
  if (fs::is_directory(path, ec)) {
    csvPath = path / "qna_data.csv";
    docsDir = path / "docs";
    if (!fs::exists(csvPath, ec)) {
      rep.fatal(path.string(), 0, "", "folder has no qna_data.csv");
      return report;
    }
  } else {
    csvPath = path;
    docsDir = path.parent_path() / "docs";
  }
  const std::string file = csvPath.string();

  std::vector<fs::path> pdfs;
  std::set<std::string> pdfNames;
  const bool haveDocs = fs::is_directory(docsDir, ec);
  if (haveDocs) {
    std::string listError;
    pdfs = listPdfFiles(docsDir, &listError);
    if (!listError.empty())
      rep.warn(docsDir.string(), 0, "docs", "cannot list all files: " + listError);
    for (const auto& p : pdfs) pdfNames.insert(p.filename().string());
    if (pdfs.empty()) rep.warn(docsDir.string(), 0, "docs", "no PDF files: the corpus is empty");
  } else {
    rep.warn(file, 0, "docs",
             "no docs/ folder beside the questions: questions loaded without a corpus, gold "
             "documents not checked");
  }

  std::uint64_t total = 0;
  {
    auto sz = fs::file_size(csvPath, ec);
    total += ec ? 0 : sz;
    for (const auto& p : pdfs) {
      auto s = fs::file_size(p, ec);
      total += ec ? 0 : s;
    }
  }

  CsvReader csv(csvPath, options.maxLineBytes);
  if (!csv.isOpen()) {
    rep.fatal(file, 0, "", csv.openError());
    return report;
  }
  std::vector<std::string> header;
  switch (csv.readHeader(header)) {
    case CsvReader::Status::End:
      rep.fatal(file, 0, "header", "empty file: no header line");
      return report;
    case CsvReader::Status::Error:
      rep.fatal(file, csv.error().line, "header", csv.error().problem);
      return report;
    case CsvReader::Status::Record:
      break;
  }

  const std::vector<std::string> required = {"Question", "Source Docs", "Question Type",
                                             "Source Chunk Type", "Answer"};
  std::vector<std::optional<std::size_t>> column(required.size());
  bool duplicate = false;
  for (std::size_t i = 0; i < header.size(); ++i) {
    std::string_view name = trim(header[i]);
    auto it = std::find(required.begin(), required.end(), name);
    if (it == required.end()) {
      rep.warn(file, 1, "header", "extra column '" + std::string(name) + "' ignored");
      continue;
    }
    auto& slot = column[static_cast<std::size_t>(it - required.begin())];
    if (slot) {
      // The same name with other blanks around it: as much a duplicate as the CSV reader refuses.
      rep.add(Severity::Error, file, 1, "header",
              "duplicate column name '" + std::string(name) + "' (columns " +
                  std::to_string(*slot + 1) + " and " + std::to_string(i + 1) + ")");
      duplicate = true;
    } else {
      slot = i;
    }
  }
  bool missing = duplicate;
  for (std::size_t c = 0; c < required.size(); ++c) {
    if (!column[c]) {
      rep.add(Severity::Error, file, 1, "header",
              "missing column '" + required[c] + "' (expected " + joined(required, ", ") + ")");
      missing = true;
    }
  }
  if (missing) {
    report.stopped = true;
    return report;
  }
  const std::size_t iQuestion = *column[0], iGlob = *column[1], iType = *column[2],
                    iChunk = *column[3], iAnswer = *column[4];

  std::unordered_set<std::string> existingIds;
  for (const auto& q : into.queries) existingIds.insert(q.id);

  std::vector<std::string> fields;
  std::uint64_t row = 0;
  std::uint64_t lastProgress = 0;
  constexpr std::uint64_t kProgressStep = std::uint64_t{4} << 20;
  for (;;) {
    auto st = csv.next(fields);
    if (st == CsvReader::Status::End) break;
    ++row;
    if (st == CsvReader::Status::Error) {
      const auto& e = csv.error();
      if (rep.error(file, e.line, e.field, e.problem)) return report;
      if (!csv.canContinue()) break;
      continue;
    }
    const std::uint64_t line = csv.recordLine();

    Query q;
    q.id = "r" + std::to_string(row);
    q.text = std::string(trim(fields[iQuestion]));
    q.line = line;
    if (q.text.empty()) {
      if (rep.error(file, line, "Question", "empty question")) return report;
      continue;
    }
    if (existingIds.count(q.id))
      rep.warn(file, line, "id",
               "query id " + q.id + " is already loaded (from another part): both kept");
    q.task = std::string(trim(fields[iType]));
    const std::string glob(trim(fields[iGlob]));
    const std::string chunkType(trim(fields[iChunk]));
    q.attributes.emplace_back("Source Docs", glob);
    q.attributes.emplace_back("Source Chunk Type", chunkType);

    if (haveDocs && !glob.empty()) {
      std::vector<std::string> matches;
      for (const auto& name : pdfNames)
        if (globMatch(glob, name)) matches.push_back(name);
      if (matches.empty())
        rep.warn(file, line, "Source Docs", "'" + glob + "' matches no PDF in " + docsDir.string());
      q.attributes.emplace_back("Source Docs files", joined(matches, ", "));
    }

    const std::string& answer = fields[iAnswer];
    GoldOutput gold;
    gold.answer = answer;
    gold.hasAnswer = !trim(answer).empty();
    if (!gold.hasAnswer) {
      q.flags.push_back("empty answer");
      rep.warn(file, line, "Answer", "empty answer");
    }
    SourcesLine sources = parseSources(answer);
    if (!sources.found) {
      if (gold.hasAnswer) {
        q.flags.push_back("no SOURCE(S) line");
        rep.warn(file, line, "Answer",
                 "no SOURCE(S) line (answer may be cut off): question " + q.id +
                     " has no gold documents");
      }
    } else if (sources.documents.empty()) {
      q.flags.push_back("SOURCE(S) line names no PDF");
      rep.warn(file, line, "Answer",
               "SOURCE(S) line names no PDF file: question " + q.id + " has no gold documents");
    }
    for (const auto& doc : sources.documents) {
      if (haveDocs && !pdfNames.count(doc))
        rep.warn(file, line, "Answer",
                 "SOURCE(S) names '" + doc + "', which is not in " + docsDir.string());
      Provenance p;
      p.docId = doc;
      p.title = doc;
      gold.provenance.push_back(std::move(p));
    }
    if (!sources.otherItems.empty())
      q.attributes.emplace_back("SOURCE(S) sections", joined(sources.otherItems, "; "));
    q.gold.push_back(std::move(gold));
    into.queries.push_back(std::move(q));
    ++report.records;

    if (options.progress && csv.bytesRead() - lastProgress >= kProgressStep) {
      lastProgress = csv.bytesRead();
      if (!options.progress(csv.bytesRead(), total)) {
        report.cancelled = true;
        return report;
      }
    }
  }

  const std::uint64_t csvBytes = csv.bytesRead();
  if (options.progress && !options.progress(csvBytes, total)) {
    report.cancelled = true;
    return report;
  }
  if (pdfs.empty()) return report;
  std::uint64_t pdfTotal = 0;
  for (const auto& p : pdfs) {
    auto s = fs::file_size(p, ec);
    pdfTotal += ec ? 0 : s;
  }
  LoadReport corpusReport =
      loadPdfCorpus(pdfs, into.corpus, options, csvBytes, csvBytes + pdfTotal);
  report.merge(corpusReport, options.maxStoredDiagnostics);
  return report;
}

}  // namespace ragscope::core
