// The PDF text module over poppler-cpp (core/data/pdftextmodule.h): built as its own MODULE
// library, never into ragscope_core (core/CMakeLists.txt), and opened by core/data/pdftext.cpp
// on the first PDF read.

#include "core/data/pdftextmodule.h"

#include <poppler-document.h>
#include <poppler-global.h>
#include <poppler-page.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

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

void extract(const std::filesystem::path& path, PdfLayout layout, const std::atomic<bool>* cancel,
             PdfText* out) {
  PdfText& result = *out;
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

  try {
    std::unique_ptr<poppler::document> doc(poppler::document::load_from_file(path.string()));
    if (!doc) {
      result.error = "not a readable PDF";
      if (!sink.last.empty()) result.error += " (poppler: " + sink.last + ")";
      return;
    }
    if (doc->is_locked()) {
      result.error = "encrypted PDF: a password is needed to read its text";
      return;
    }
    const int pageCount = doc->pages();
    if (pageCount <= 0) {
      result.error = "the PDF has no pages (damaged, or not a PDF)";
      if (!sink.last.empty()) result.error += " (poppler: " + sink.last + ")";
      return;
    }
    result.pages.reserve(static_cast<std::size_t>(pageCount));
    for (int i = 0; i < pageCount; ++i) {
      if (cancel && cancel->load(std::memory_order_relaxed)) {
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
      switch (layout) {
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
      result.pages.push_back(toUtf8(text));
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
}

int pageCount(const std::filesystem::path& path, std::string* error) {
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

}  // namespace

}  // namespace ragscope::core

extern "C" __attribute__((visibility("default"))) const ragscope::core::PdfTextBackend*
ragscope_pdftext_backend_v1() {
  static const ragscope::core::PdfTextBackend backend{&ragscope::core::extract,
                                                      &ragscope::core::pageCount};
  return &backend;
}
