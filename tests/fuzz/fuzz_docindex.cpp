// A side index (core/data/docindex.cpp) as a file planted beside a corpus, or damaged on disk, may
// hold anything: each input is resealed (stamp and checksums made right) so that it gets past the
// checksum, then opened over a small corpus file. Whatever it holds, nothing may read outside the
// map or the corpus file: every document, paragraph range, lookup and prefix search is exercised.
// And it can never make ragscope show a text that is not the document's: every text or paragraph
// range read through it (each read checks its record, core/data/recordcheck.h) must be what a
// plain JSON parse of the corpus gives for that id, with that title; a read that fails must have
// refuted the index or name the range.
// max_len: 65536
// seed: tests/fuzz/seeds/docindex

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

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

struct TruePage {
  std::string title;
  std::vector<std::string> paragraphs;  // each without its final "\n", as they are joined
};

// The corpus as a plain JSON parse reads it, by id.
const std::map<std::string, TruePage>& truth() {
  static const std::map<std::string, TruePage> pages = [] {
    std::map<std::string, TruePage> out;
    std::size_t at = 0;
    while (at < kCorpus.size()) {
      const std::size_t nl = kCorpus.find('\n', at);
      const auto page = nlohmann::json::parse(kCorpus.substr(at, nl - at));
      TruePage p;
      p.title = page["wikipedia_title"].get<std::string>();
      for (const auto& t : page["text"]) {
        std::string one;
        core::appendParagraph(one, t.get<std::string>(), true);
        p.paragraphs.push_back(one);
      }
      out[page["wikipedia_id"].get<std::string>()] = p;
      at = nl + 1;
    }
    return out;
  }();
  return pages;
}

std::string joinedRange(const TruePage& p, std::size_t first, std::size_t last) {
  std::string out;
  for (std::size_t i = first; i <= last; ++i) {
    if (i > first) out += "\n";
    out += p.paragraphs[i];
  }
  return out;
}

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
  // A text read through the index is the document's own, or the read failed and said why.
  auto checkRead = [&](const core::Document& d, const std::optional<std::string>& text,
                       const std::string& e, std::size_t first, std::size_t last, bool whole) {
    if (!text) {
      fuzz::check(index->refuted() || e.find("not in the document") != std::string::npos ||
                      e.find("do not fit") != std::string::npos,
                  "a failed read refutes the index or names the range");
      return;
    }
    const auto it = truth().find(d.id);
    fuzz::check(it != truth().end(), "a text is read only under an id the corpus has");
    fuzz::check(d.title == it->second.title, "the title of a read document is its own");
    const std::size_t n = it->second.paragraphs.size();
    if (whole) {
      fuzz::check(*text == (n == 0 ? std::string() : joinedRange(it->second, 0, n - 1)),
                  "the text read is the document's own");
      return;
    }
    fuzz::check(first <= last && last < n, "the range read is in the page");
    fuzz::check(*text == joinedRange(it->second, first, last),
                "the paragraphs read are the document's own");
  };
  for (std::size_t i = 0; i < c.size(); ++i) {
    const core::Document d = c.at(i);
    fuzz::touch(d.id);
    fuzz::touch(d.title);
    fuzz::touch(d.textPrefix(64));
    std::string e;
    const auto whole = core::readStoredText(d.stored, e);
    checkRead(d, whole, e, 0, 0, true);
    const std::size_t n = d.paragraphCount();
    for (std::size_t p = 0; p < n && p < 16; ++p) {
      e.clear();
      auto one = d.paragraphRange(p, p, e);
      checkRead(d, one, e, p, p, false);
      e.clear();
      auto upTo = d.paragraphRange(0, p, e);
      checkRead(d, upTo, e, 0, p, false);
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
