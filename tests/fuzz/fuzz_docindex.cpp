// A side index (core/data/docindex.cpp) as a file planted beside a corpus, or damaged on disk, may
// hold anything: each input is resealed (stamp and checksums made right) so that it gets past the
// checksum, then opened over a small corpus file. Whatever it holds, nothing may read outside the
// map or the corpus file: every document, paragraph range, lookup and prefix search is exercised.
// max_len: 65536
// seed: tests/fuzz/seeds/docindex

#include <filesystem>

#include "core/data/storedcorpus.h"
#include "core/data/textfile.h"
#include "fuzzsupport.h"

using namespace ragscope;

namespace {

// The corpus the seed's side index describes (tests/fuzz/seeds/docindex was written over it).
constexpr std::string_view kCorpus =
    R"({"wikipedia_id": "1", "wikipedia_title": "One", "text": ["One\n", "First \"p\".\n", "Second.\n"]})"
    "\n"
    R"({"wikipedia_id": "22", "wikipedia_title": "Two", "text": ["Two\n", "caf\u00e9\n"], "anchors": []})"
    "\n"
    R"({"wikipedia_id": "333", "wikipedia_title": "Three", "text": ["Three\n"]})"
    "\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto corpus = fuzz::writeScratch("docindex/kilt_knowledgesource.json", kCorpus);
  std::string error;
  auto file = core::TextFile::open(corpus, error);
  fuzz::check(file != nullptr, "the corpus opens");
  const auto stamp = file->stamp();
  fuzz::check(stamp.has_value(), "the corpus has a stamp");
  std::string bytes(fuzz::bytes(data, size));
  core::DocIndex::reseal(bytes, *stamp);
  const auto indexPath =
      fuzz::writeScratch("docindex/kilt_knowledgesource.json.ragscope-docs", bytes);
  std::string why;
  auto index = core::DocIndex::open(indexPath, core::CorpusLayout::KiltPages, *stamp, why);
  if (!index) {
    fuzz::check(!why.empty(), "a refused side index says why");
    return 0;
  }
  file->attachIndex(index);
  core::Corpus c;
  c.addStored(file);
  for (std::size_t i = 0; i < c.size(); ++i) {
    const core::Document d = c.at(i);
    fuzz::touch(d.id);
    fuzz::touch(d.title);
    fuzz::touch(d.textPrefix(64));
    const std::size_t n = d.paragraphCount();
    std::string e;
    for (std::size_t p = 0; p < n && p < 16; ++p) {
      if (auto t = d.paragraphRange(p, p, e)) fuzz::touch(*t);
      if (auto t = d.paragraphRange(0, p, e)) fuzz::touch(*t);
    }
    if (auto found = c.find(d.id))
      fuzz::touch(found->id);  // an inconsistent table may miss it: no harm
  }
  for (std::string_view prefix : {"", "1", "T", "t", "zz"}) {
    for (std::size_t at : c.withPrefix(prefix, false, 8))
      fuzz::check(at < c.size(), "id prefix hit in range");
    for (std::size_t at : c.withPrefix(prefix, true, 8))
      fuzz::check(at < c.size(), "title prefix hit in range");
  }
  fuzz::touch(index->diagnostics());
  return 0;
}
