// The first open of a big KILT knowledge source (core/data/corpusscan.cpp: the record scanner and
// the side index) against the in-memory loader on the same bytes: the same pages with the same
// texts and paragraphs, the same problems on the same lines and fields; then a reopen through the
// side index gives the same again.
// max_len: 32768
// dict: json
// seed: tests/fuzz/seeds/kilt_knowledge_source
// seed: data/kilt/tests/test_data

#include <filesystem>

#include "core/data/loaders.h"
#include "core/data/storedcorpus.h"
#include "fuzzsupport.h"

using namespace ragscope;

namespace {

void checkSame(const core::Corpus& stored, const core::Corpus& memory) {
  fuzz::check(stored.size() == memory.size(), "same number of pages");
  for (std::size_t i = 0; i < memory.size(); ++i) {
    const core::Document a = stored.at(i), b = memory.at(i);
    fuzz::check(a.id == b.id && a.title == b.title, "same id and title");
    fuzz::check(a.fullText() == b.fullText(), "same text");
    const std::size_t n = b.paragraphCount();
    fuzz::check(a.paragraphCount() == n, "same paragraph count");
    std::string e1, e2;
    for (std::size_t p = 0; p < n && p < 8; ++p)
      fuzz::check(a.paragraphRange(p, n - 1, e1) == b.paragraphRange(p, n - 1, e2),
                  "same paragraphs");
  }
}

void checkSameProblems(const core::LoadReport& a, const core::LoadReport& b) {
  fuzz::check(a.records == b.records && a.errors == b.errors && a.warnings == b.warnings &&
                  a.stopped == b.stopped,
              "same counts");
  fuzz::check(a.diagnostics.size() == b.diagnostics.size(), "same number of diagnostics");
  for (std::size_t i = 0; i < a.diagnostics.size() && i < b.diagnostics.size(); ++i)
    fuzz::check(a.diagnostics[i].line == b.diagnostics[i].line &&
                    a.diagnostics[i].field == b.diagnostics[i].field,
                "same lines and fields");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = fuzz::writeScratch("kilt_knowledgesource.json", fuzz::bytes(data, size));
  std::error_code ec;
  std::filesystem::remove(core::sideIndexBeside(path), ec);
  core::LoadOptions memoryOptions = fuzz::loadOptions();
  memoryOptions.textInFileFrom = UINT64_MAX;
  core::LoadOptions storedOptions = fuzz::loadOptions();
  storedOptions.textInFileFrom = 1;

  core::Dataset memory;
  const auto m = core::loadKiltKnowledgeSource(path, memory, memoryOptions);
  core::Dataset stored;
  const auto s = core::loadKiltKnowledgeSource(path, stored, storedOptions);
  fuzz::checkReport(s);
  if (size == 0) return 0;  // an empty file is no corpus to either
  checkSameProblems(s, m);
  checkSame(stored.corpus, memory.corpus);

  // A file that could not be read through (CR-only line ends, ...) leaves no side index.
  if (!std::filesystem::exists(core::sideIndexBeside(path))) return 0;
  core::Dataset reopened;
  core::StoredCorpusInfo info;
  const auto r = core::loadStoredCorpus(path, core::CorpusLayout::KiltPages, reopened.corpus,
                                        storedOptions, &info);
  fuzz::check(info.reused, "the side index is reused");
  checkSameProblems(r, s);
  checkSame(reopened.corpus, memory.corpus);
  return 0;
}
