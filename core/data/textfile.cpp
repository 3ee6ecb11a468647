#include "core/data/textfile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "core/data/recordcheck.h"

namespace ragscope::core {

std::shared_ptr<TextFile> TextFile::open(const std::filesystem::path& path, std::string& error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = path.string() + ": cannot open: " + std::strerror(errno);
    return nullptr;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    error = path.string() + ": not a regular file";
    ::close(fd);
    return nullptr;
  }
  return std::shared_ptr<TextFile>(
      new TextFile(fd, path, static_cast<std::uint64_t>(st.st_size), st.st_mtim));
}

TextFile::TextFile(int fd, std::filesystem::path path, std::uint64_t size, std::timespec modified)
    : m_fd(fd),
      m_path(std::move(path)),
      m_size(size),
      m_modified(modified),
      m_identity(m_path.string() + "|" + std::to_string(size) + "|" +
                 std::to_string(modified.tv_sec) + "." + std::to_string(modified.tv_nsec)) {}

TextFile::~TextFile() { ::close(m_fd); }

bool TextFile::unchanged() const {
  struct stat st {};
  return ::fstat(m_fd, &st) == 0 && static_cast<std::uint64_t>(st.st_size) == m_size &&
         st.st_mtim.tv_sec == m_modified.tv_sec && st.st_mtim.tv_nsec == m_modified.tv_nsec;
}

std::optional<std::string> TextFile::read(std::uint64_t offset, std::uint32_t length,
                                          std::string& error) const {
  if (!unchanged()) {
    error = m_path.string() + " has changed since it was loaded: load the dataset again";
    return std::nullopt;
  }
  if (offset > m_size || length > m_size - offset) {
    error = m_path.string() + ": text at byte " + std::to_string(offset) +
            " lies past the end of the file";
    return std::nullopt;
  }
  std::string out(length, '\0');
  std::size_t got = 0;
  while (got < length) {
    const ssize_t n =
        ::pread(m_fd, out.data() + got, length - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = m_path.string() +
              ": read error: " + (n < 0 ? std::strerror(errno) : "unexpected end of file");
      return std::nullopt;
    }
    got += static_cast<std::size_t>(n);
  }
  return out;
}

}  // namespace ragscope::core

// ---- stored texts ----------------------------------------------------------------------------

namespace ragscope::core {

namespace {

// Joins the strings of a JSON array of paragraphs; nullopt when `bytes` is not one.
std::optional<std::string> joinJsonParagraphs(std::string_view bytes, std::string& error) {
  try {
    const nlohmann::json array = nlohmann::json::parse(bytes);
    if (!array.is_array()) throw std::runtime_error("not an array");
    std::string out;
    for (std::size_t i = 0; i < array.size(); ++i) {
      if (!array[i].is_string())
        throw std::runtime_error("paragraph " + std::to_string(i) + " is not a string");
      appendParagraph(out, array[i].get_ref<const std::string&>(), i == 0);
    }
    return out;
  } catch (const std::exception& e) {
    error = std::string("the stored paragraphs are not what the side index says (") + e.what() +
            "): load the dataset again";
    return std::nullopt;
  }
}

std::vector<std::string_view> lines(std::string_view text) {
  std::vector<std::string_view> out;
  if (text.empty()) return out;
  std::size_t at = 0;
  while (true) {
    const std::size_t nl = text.find('\n', at);
    out.push_back(text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at));
    if (nl == std::string_view::npos) return out;
    at = nl + 1;
  }
}

std::string rangeOutOf(std::size_t first, std::size_t last, std::size_t count) {
  return "paragraphs " + std::to_string(first) + "-" + std::to_string(last) +
         " are not in the document (it has " + std::to_string(count) + ", numbered from 0)";
}

}  // namespace

// The bytes of a stored text: through the side index, from its record once checked
// (recordcheck.h); else as placed.
static std::optional<std::string> storedBytes(const StoredText& stored, std::string& error) {
  const DocIndex* index = stored.file->index();
  if (stored.encoding == TextEncoding::Raw || !index)
    return stored.file->read(stored.offset, stored.length, error);
  auto record = readCheckedRecord(*stored.file, stored.item, error);
  if (!record) return std::nullopt;
  const DocIndexEntry& e = index->entry(stored.item);
  return record->substr(e.textOffset, e.textLength);
}

std::optional<std::string> readStoredText(const StoredText& stored, std::string& error) {
  auto bytes = storedBytes(stored, error);
  if (!bytes || stored.encoding == TextEncoding::Raw) return bytes;
  if (stored.encoding == TextEncoding::JsonParagraphs) return joinJsonParagraphs(*bytes, error);
  try {
    const nlohmann::json value = nlohmann::json::parse(*bytes);
    if (value.is_string()) return value.get<std::string>();
  } catch (const nlohmann::json::exception&) {
  }
  error = "the stored text is not the JSON string the side index says: load the dataset again";
  return std::nullopt;
}

std::size_t storedParagraphCount(const StoredText& stored) {
  if (stored.encoding == TextEncoding::JsonParagraphs && stored.file->index())
    return stored.file->index()->paragraphs(stored.item).size();
  std::string error;
  const auto text = readStoredText(stored, error);
  return text ? lines(*text).size() : 0;
}

std::optional<std::string> readStoredParagraphs(const StoredText& stored, std::size_t first,
                                                std::size_t last, std::string& error) {
  const DocIndex* index = stored.file->index();
  if (stored.encoding != TextEncoding::JsonParagraphs || !index) {
    const auto text = readStoredText(stored, error);
    if (!text) return std::nullopt;
    return paragraphsOf(*text, first, last, error);
  }
  const auto starts = index->paragraphs(stored.item);
  if (first > last || last >= starts.size()) {
    error = rangeOutOf(first, last, starts.size());
    return std::nullopt;
  }
  // The page's record, checked against its entry (paragraph starts included): the starts below
  // are then the scanner's own.
  auto text = storedBytes(stored, error);
  if (!text) return std::nullopt;
  // From the first paragraph's opening quote to the next paragraph's (or the closing bracket).
  const std::uint64_t from = starts[first];
  const std::uint64_t to = last + 1 < starts.size() ? starts[last + 1] : text->size() - 1;
  if (text->empty() || from >= to || to >= text->size()) {
    error = "the side index's paragraph offsets do not fit the page: load the dataset again";
    return std::nullopt;
  }
  auto bytes = std::optional<std::string>(text->substr(from, to - from));
  while (!bytes->empty() &&
         (bytes->back() == ',' || bytes->back() == ' ' || bytes->back() == '\t' ||
          bytes->back() == '\r' || bytes->back() == '\n'))
    bytes->pop_back();
  return joinJsonParagraphs("[" + *bytes + "]", error);
}

std::optional<std::string> paragraphsOf(std::string_view text, std::size_t first, std::size_t last,
                                        std::string& error,
                                        const std::vector<std::size_t>* starts) {
  if (starts) {
    // A KILT page's own paragraphs: paragraph i ends at the "\n" joining it to paragraph i + 1.
    const std::size_t count = starts->size();
    if (first > last || last >= count) {
      error = rangeOutOf(first, last, count);
      return std::nullopt;
    }
    const std::size_t from = (*starts)[first];
    const std::size_t to = last + 1 < count ? (*starts)[last + 1] - 1 : text.size();
    if (from > to || to > text.size()) {
      error = "the paragraph starts do not fit the text";
      return std::nullopt;
    }
    return std::string(text.substr(from, to - from));
  }
  const auto all = lines(text);
  if (first > last || last >= all.size()) {
    error = rangeOutOf(first, last, all.size());
    return std::nullopt;
  }
  std::string out;
  for (std::size_t i = first; i <= last; ++i) {
    if (i > first) out.push_back('\n');
    out.append(all[i]);
  }
  return out;
}

std::size_t paragraphCountOf(std::string_view text, const std::vector<std::size_t>* starts) {
  return starts ? starts->size() : lines(text).size();
}

}  // namespace ragscope::core
