#pragma once
// A synthetic KILT knowledge source in the dump's exact layout, for the tests and benchmarks of big
// corpora: one page per line, {"_id", "wikipedia_id", "wikipedia_title", "text": [paragraphs, each
// ending in "\n", the first the title], "anchors": [...], "categories", "history": {...},
// "wikidata_info": {...}}. Pages average `pageBytes` (the real dump: 35.7 GB / 5.9M pages, about
// 6 KB). Texts mix plain ASCII with raw UTF-8, \uXXXX escapes (a surrogate pair too), escaped
// quotes, backslashes and slashes, so a reader that cuts corners gets some page wrong.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

namespace ragscope::test {

struct KiltSourceStats {
  std::uint64_t pages = 0;
  std::uint64_t bytes = 0;
  std::uint64_t paragraphs = 0;
};

namespace kiltsource {

// xorshift64*: fast, seeded, the same pages on every machine.
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545F4914F6CDD1Dull;
  }
  std::uint32_t below(std::uint32_t n) { return static_cast<std::uint32_t>(next() % n); }
};

inline const char* const kWords[] = {"the",
                                     "of",
                                     "and",
                                     "in",
                                     "was",
                                     "river",
                                     "born",
                                     "album",
                                     "station",
                                     "football",
                                     "village",
                                     "county",
                                     "species",
                                     "released",
                                     "Z\\u00fcrich",
                                     "caf\xc3\xa9",
                                     "na\xc3\xafve",
                                     "\\\"quoted\\\"",
                                     "back\\\\slash",
                                     "1/2",
                                     "a\\/b",
                                     "\\u00e9t\\u00e9",
                                     "\\ud83d\\ude00",
                                     "\xe6\x9d\xb1\xe4\xba\xac",
                                     "population",
                                     "district",
                                     "founded",
                                     "member",
                                     "university",
                                     "church",
                                     "league",
                                     "season",
                                     "railway",
                                     "north",
                                     "south",
                                     "east",
                                     "west",
                                     "city",
                                     "town",
                                     "war",
                                     "first",
                                     "second",
                                     "during",
                                     "after",
                                     "before",
                                     "which",
                                     "also",
                                     "known",
                                     "called",
                                     "named",
                                     "built",
                                     "played",
                                     "served",
                                     "became",
                                     "early",
                                     "later",
                                     "public",
                                     "school",
                                     "music",
                                     "film",
                                     "series",
                                     "army",
                                     "party",
                                     "national",
                                     "state",
                                     "world",
                                     "team",
                                     "club"};

inline void words(std::string& out, Rng& rng, int n) {
  for (int i = 0; i < n; ++i) {
    if (i) out.push_back(' ');
    out += kWords[rng.below(sizeof kWords / sizeof kWords[0])];
  }
}

}  // namespace kiltsource

// Appends one page (a JSON line) for page number `n`; returns its paragraph count.
inline int appendKiltPage(std::string& out, std::uint64_t n, kiltsource::Rng& rng,
                          std::uint32_t pageBytes) {
  using namespace kiltsource;
  const std::string id = std::to_string(1000 + n * 7);
  std::string title = "Page ";
  title += std::to_string(n);
  if (n % 5 == 0) title += " (\\\"disambiguation\\\")";
  if (n % 11 == 0) title += " Z\\u00fcrich";
  out += "{\"_id\": \"" + id + "\", \"wikipedia_id\": \"" + id + "\", \"wikipedia_title\": \"" +
         title + "\", \"text\": [\"" + title + "\\n\"";
  const std::size_t start = out.size();
  int paragraphs = 1;
  // Text is about two thirds of a real page; anchors, history and the rest the remainder.
  while (out.size() - start < pageBytes * 2 / 3) {
    out += ", \"";
    if (rng.below(9) == 0)
      out += "Section::::History.";
    else
      words(out, rng, 8 + static_cast<int>(rng.below(90)));
    out += "\\n\"";
    ++paragraphs;
  }
  out += "], \"anchors\": [";
  const std::size_t anchorsStart = out.size();
  for (int a = 0; out.size() - anchorsStart < pageBytes / 4; ++a) {
    if (a) out += ", ";
    out += "{\"paragraph_id\": " +
           std::to_string(1 + rng.below(static_cast<std::uint32_t>(paragraphs))) +
           ", \"start\": " + std::to_string(rng.below(400)) +
           ", \"end\": " + std::to_string(400 + rng.below(40)) + ", \"text\": \"";
    words(out, rng, 2);
    out +=
        "\", \"href\": \"Some%20Page\", \"wikipedia_title\": \"Some Page\", \"wikipedia_id\": \"" +
        std::to_string(rng.below(6000000)) + "\"}";
  }
  out +=
      "], \"categories\": \"Living people,Villages in Zurich\", \"history\": {\"revid\": " +
      std::to_string(900000000 + n) +
      ", \"timestamp\": \"2019-07-01T12:00:00Z\", \"parentid\": " + std::to_string(800000000 + n) +
      ", \"pageid\": " + id +
      ", \"url\": \"https://en.wikipedia.org/w/index.php?title=Page&oldid=1\"}, \"wikidata_info\": "
      "{\"wikidata_id\": \"Q" +
      std::to_string(n + 1) + "\", \"wikidata_label\": \"page\", \"description\": \"a page\"}}\n";
  return paragraphs;
}

// Writes pages until the file holds at least `targetBytes` (or `maxPages` pages, when not 0).
inline KiltSourceStats writeKiltSource(const std::filesystem::path& path, std::uint64_t targetBytes,
                                       std::uint32_t pageBytes = 6000, std::uint64_t maxPages = 0,
                                       std::uint64_t seed = 42) {
  KiltSourceStats stats;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return stats;
  kiltsource::Rng rng{seed * 0x9E3779B97F4A7C15ull + 1};
  std::string buf;
  buf.reserve(std::size_t{8} << 20);
  while (stats.bytes < targetBytes && (maxPages == 0 || stats.pages < maxPages)) {
    const std::size_t before = buf.size();
    stats.paragraphs +=
        static_cast<std::uint64_t>(appendKiltPage(buf, stats.pages, rng, pageBytes));
    stats.bytes += buf.size() - before;
    ++stats.pages;
    if (buf.size() >= (std::size_t{4} << 20)) {
      std::fwrite(buf.data(), 1, buf.size(), f);
      buf.clear();
    }
  }
  std::fwrite(buf.data(), 1, buf.size(), f);
  std::fclose(f);
  return stats;
}

}  // namespace ragscope::test
