#include "core/data/pdftext.h"
#include "core/data/inputfile.h"

#include <poppler-document.h>
#include <poppler-global.h>
#include <poppler-page.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <new>
#include <system_error>
#include <utility>

namespace ragscope::core {

namespace {

// poppler reports problems through one process-wide callback without saying which document they
// concern. Every extraction runs on one thread from start to end, so a thread-local sink ties each
// message to the file being read on that thread.
struct MessageSink {
  static constexpr std::size_t kKept = 5;
  std::vector<std::pair<std::string, int>> kept;  // first distinct messages, with repeat counts
  std::uint64_t total = 0;
  std::string last;
};
thread_local MessageSink* t_sink = nullptr;

// A hostile file can make poppler complain thousands of times: keep a few, count the rest.
void popplerMessage(const std::string& message, void*) {
  if (!t_sink) {
    std::fprintf(stderr, "poppler: %s\n", message.c_str());
    return;
  }
  ++t_sink->total;
  t_sink->last = message;
  for (auto& [m, n] : t_sink->kept)
    if (m == message) {
      ++n;
      return;
    }
  if (t_sink->kept.size() < MessageSink::kKept) t_sink->kept.emplace_back(message, 1);
}

void installMessageHandler() {
  static std::once_flag once;
  std::call_once(once, [] { poppler::set_debug_error_function(&popplerMessage, nullptr); });
}

struct SinkScope {
  explicit SinkScope(MessageSink* s) { t_sink = s; }
  ~SinkScope() { t_sink = nullptr; }
  SinkScope(const SinkScope&) = delete;
  SinkScope& operator=(const SinkScope&) = delete;
};

std::string toUtf8(const poppler::ustring& s) {
  poppler::byte_array bytes = s.to_utf8();
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace

std::string compactLayoutText(std::string_view text) {
  std::string out;
  out.reserve(text.size() / 2);
  int pendingBlankLines = 0;
  bool anyLine = false;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find_first_of("\n\f", pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;

    std::string compact;
    std::size_t i = 0;
    while (i < line.size()) {
      char c = line[i];
      if (c == ' ' || c == '\t' || c == '\r') {
        std::size_t j = i;
        while (j < line.size() && (line[j] == ' ' || line[j] == '\t' || line[j] == '\r')) ++j;
        if (!compact.empty() && j < line.size()) compact.append(j - i >= 2 ? "  " : " ");
        i = j;
      } else {
        compact.push_back(c);
        ++i;
      }
    }
    if (compact.empty()) {
      if (anyLine) ++pendingBlankLines;
    } else {
      if (anyLine) out.append(pendingBlankLines > 0 ? "\n\n" : "\n");
      out += compact;
      anyLine = true;
      pendingBlankLines = 0;
    }
    if (nl == text.size()) break;
  }
  return out;
}

PdfText extractPdfText(const std::filesystem::path& path, const PdfTextOptions& options) {
  PdfText result;
  installMessageHandler();
  MessageSink sink;
  SinkScope scope(&sink);

  // Only for a file that opened: for one that did not, the error already quotes poppler's last
  // word and the rest is noise about the garbage.
  auto collectMessages = [&] {
    std::uint64_t shown = 0;
    for (const auto& [m, n] : sink.kept) {
      result.warnings.push_back("poppler: " + m +
                                (n > 1 ? " (" + std::to_string(n) + " times)" : ""));
      shown += static_cast<std::uint64_t>(n);
    }
    if (sink.total > shown)
      result.warnings.push_back("poppler: " + std::to_string(sink.total - shown) +
                                " further messages");
  };

  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    result.error = "not a regular file";
    return result;
  }
  if (auto why = specialFileProblem(path)) {  // a link to /proc or /dev: never handed to poppler
    result.error = *why;
    return result;
  }
  if (std::filesystem::file_size(path, ec) == 0 && !ec) {
    result.error = "empty file, not a PDF";
    return result;
  }

  try {
    std::unique_ptr<poppler::document> doc(poppler::document::load_from_file(path.string()));
    if (!doc) {
      result.error = "not a readable PDF";
      if (!sink.last.empty()) result.error += " (poppler: " + sink.last + ")";
      return result;
    }
    if (doc->is_locked()) {
      result.error = "encrypted PDF: a password is needed to read its text";
      return result;
    }
    const int pageCount = doc->pages();
    if (pageCount <= 0) {
      result.error = "the PDF has no pages (damaged, or not a PDF)";
      if (!sink.last.empty()) result.error += " (poppler: " + sink.last + ")";
      return result;
    }
    result.pages.reserve(pageCount > 0 ? static_cast<std::size_t>(pageCount) : 0);
    for (int i = 0; i < pageCount; ++i) {
      if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
        result.cancelled = true;
        break;
      }
      std::unique_ptr<poppler::page> page(doc->create_page(i));
      if (!page) {
        result.warnings.push_back("page " + std::to_string(i + 1) + " could not be read: no text");
        result.pages.emplace_back();
        continue;
      }
      poppler::ustring text;
      switch (options.layout) {
        case PdfLayout::Physical:
          text = page->text(poppler::rectf(), poppler::page::physical_layout);
          break;
        case PdfLayout::Raw:
          text = page->text(poppler::rectf(), poppler::page::raw_order_layout);
          break;
        case PdfLayout::Reading:
          text = page->text(poppler::rectf(), poppler::page::non_raw_non_physical_layout);
          break;
      }
      std::string utf8 = toUtf8(text);
      result.pages.push_back(options.compact ? compactLayoutText(utf8) : std::move(utf8));
    }
    result.ok = !result.cancelled;
  } catch (const std::bad_alloc&) {
    result.ok = false;
    result.pages.clear();
    result.error = "out of memory while reading the PDF";
  } catch (const std::exception& e) {
    result.ok = false;
    result.pages.clear();
    result.error = std::string("PDF reader failed: ") + e.what();
  }
  if (result.ok) collectMessages();
  return result;
}

int pdfPageCount(const std::filesystem::path& path, std::string* error) {
  installMessageHandler();
  MessageSink sink;
  SinkScope scope(&sink);
  try {
    std::unique_ptr<poppler::document> doc(poppler::document::load_from_file(path.string()));
    if (!doc) {
      if (error)
        *error = "not a readable PDF" + (sink.last.empty() ? "" : " (poppler: " + sink.last + ")");
      return -1;
    }
    if (doc->is_locked()) {
      if (error) *error = "encrypted PDF: a password is needed";
      return -1;
    }
    return doc->pages();
  } catch (const std::exception& e) {
    if (error) *error = std::string("PDF reader failed: ") + e.what();
    return -1;
  }
}

}  // namespace ragscope::core
