#include "core/retrieval/retrievecheckpoint.h"

#include <unistd.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "core/util/atomicfile.h"
#include "core/util/inputfile.h"
#include "core/util/jsonstrict.h"

namespace ragscope::core {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kMagic = "ragscope-retrieve-checkpoint";
constexpr int kVersion = 1;

// One answer as a line. Invalid UTF-8 in an id is replaced rather than thrown on: the id is then
// not the same bytes, so such a query is simply asked again on resume (no answer under its id).
std::string answerLine(const std::string& queryId, const std::vector<ScoredDoc>& docs) {
  json list = json::array();
  for (const auto& d : docs) list.push_back({d.id, d.score});
  return json{{"q", queryId}, {"docs", list}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

RetrieveCheckpoint::RetrieveCheckpoint(fs::path path, const std::string& settingsKey,
                                       std::string* note)
    : m_path(std::move(path)) {
  // The checkpoint's name comes from the run's, which a project file may choose: a symlink, FIFO
  // or device there is refused untouched (never read, never written through).
  if (auto why = unsafeWriteTarget(m_path)) {
    m_error = m_path.string() + ": " + *why + ", so it is not used as the retrieval checkpoint";
    return;
  }
  bool keep = false;
  std::error_code ec;
  if (fs::exists(m_path, ec)) {
    std::string why;
    std::vector<std::pair<std::string, std::vector<ScoredDoc>>> read;
    std::string readError;
    const auto text =
        readBoundedFile(m_path, kMaxCheckpointBytes, "a retrieval checkpoint", readError);
    if (!text) why = readError;
    std::istringstream in(text ? *text : std::string());
    std::string line;
    std::size_t lineNo = 0;
    while (text && std::getline(in, line)) {
      ++lineNo;
      const bool lastLine = in.peek() == std::char_traits<char>::eof();
      // Strict (core/util/jsonstrict.h): a line repeating "docs" must not pick the ranking.
      json j;
      JsonStrictError strict;
      const bool parsed = parseJsonStrict(line, j, &strict);
      if (lineNo == 1) {
        if (!j.is_object() || j.value("format", "") != kMagic ||
            j.value("version", 0) != kVersion) {
          why = "not a retrieval checkpoint";
          break;
        }
        if (j.value("settings", "") != settingsKey) {
          why = "made with other settings";
          break;
        }
        keep = true;
        continue;
      }
      try {
        if (!parsed)
          throw std::runtime_error(strict.repeated ? describeJsonStrictError(strict) : "not JSON");
        std::vector<ScoredDoc> docs;
        for (const auto& d : j.at("docs"))
          docs.push_back({d.at(0).get<std::string>(), d.at(1).get<double>(), {}});
        read.emplace_back(j.at("q").get<std::string>(), std::move(docs));
      } catch (const std::exception& e) {
        // A line cut short by a crash is the last one; anything else means the file was edited.
        if (lastLine) break;
        why = "line " + std::to_string(lineNo) + ": " + e.what();
        keep = false;
        break;
      }
    }
    if (keep) {
      for (auto& [q, docs] : read) m_answers[q] = std::move(docs);
      if (note && !m_answers.empty())
        *note = m_path.string() + ": resuming: " + std::to_string(m_answers.size()) +
                " queries already answered";
    } else if (note) {
      *note = m_path.string() + ": " + (why.empty() ? std::string("unreadable") : why) +
              "; starting over";
    }
  }
  // Rewritten from what was kept, so a torn last line never sits in the middle of the file; then
  // reopened for appending (private: it holds the service's answers).
  std::string err;
  const bool written = writeFileAtomically(
      m_path,
      [&](std::ostream& out) {
        out << json{{"format", kMagic}, {"version", kVersion}, {"settings", settingsKey}}.dump()
            << '\n';
        for (const auto& [q, docs] : m_answers) out << answerLine(q, docs) << '\n';
        return static_cast<bool>(out);
      },
      &err, /*fsyncFile=*/false, FileAccess::Private);
  if (written) m_fd = openForAppend(m_path, /*create=*/false, FileAccess::Private, &err);
  if (!written || m_fd < 0) m_error = "cannot write the checkpoint: " + err;
}

RetrieveCheckpoint::~RetrieveCheckpoint() {
  if (m_fd >= 0) ::close(m_fd);
}

const std::vector<ScoredDoc>* RetrieveCheckpoint::answer(const std::string& queryId) const {
  // Read-only after construction except through record(), which adds no entries to this map.
  const auto it = m_answers.find(queryId);
  return it == m_answers.end() ? nullptr : &it->second;
}

bool RetrieveCheckpoint::record(const std::string& queryId, const std::vector<ScoredDoc>& docs,
                                std::string* error) {
  const std::string line = answerLine(queryId, docs) + '\n';
  std::lock_guard lock(m_mutex);
  if (m_fd < 0 || !writeAll(m_fd, line)) {
    if (m_error.empty())
      m_error = m_path.string() + ": cannot write the checkpoint (the run is not resumable)";
    if (error) *error = m_error;
    return false;
  }
  return true;
}

void RetrieveCheckpoint::remove() {
  std::lock_guard lock(m_mutex);
  if (m_fd < 0) return;  // never opened: whatever is at the name is not ours to delete
  ::close(m_fd);
  m_fd = -1;
  std::error_code ec;
  fs::remove(m_path, ec);
}

std::vector<ScoredDoc> CheckpointedRetriever::search(const Query& query, std::size_t k,
                                                     std::string* error) {
  if (const auto* known = m_checkpoint.answer(query.id)) {
    std::vector<ScoredDoc> docs = *known;
    if (docs.size() > k) docs.resize(k);
    return docs;
  }
  std::string why;
  std::vector<ScoredDoc> docs = m_inner.search(query, k, &why);
  if (!why.empty()) {
    if (error) *error = std::move(why);
    return {};
  }
  // A checkpoint that cannot be written costs only the resume; the answer is still good, and the
  // job reports the checkpoint's error().
  m_checkpoint.record(query.id, docs, nullptr);
  return docs;
}

}  // namespace ragscope::core
