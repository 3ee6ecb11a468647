// Time and memory of building the embedded BM25 (Xapian) index over an MS MARCO-sized passage
// collection, with one indexing thread and with one per core (IndexBuildOptions::threads).
//
//   bench_bm25_index [PASSAGES] [--threads N | --reference] [--file collection.tsv] [--keep]
//
// Without --file, writes a seeded synthetic collection of PASSAGES (default 1,000,000) lines
// `pid<TAB>passage` of ~387 bytes (MS MARCO's mean) into a temp folder and loads it with the
// project's loader, which leaves the texts in the file (as for the real 2.9 GiB collection), so
// indexing reads them back with pread. Then builds the index three times: the reference build
// (the one-database loop openOrBuildIndex ran before it was parallel), openOrBuildIndex with 1
// thread, and with one per core (--threads N: only openOrBuildIndex with N threads, 0 = all
// cores; --reference: only the reference), and prints seconds, CPU seconds, documents/s, index
// bytes and peak RSS, and projects them to the 8,841,823 passages of the full collection.
//
// Each build runs in a child process forked after loading, so that its peak RSS (from wait4's
// rusage) is its own and not the maximum of the builds before it; the corpus the child inherits
// counts in it, as it would in a real run.

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xapian.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/data/loaders.h"
#include "core/retrieval/xapianindex.h"

namespace {

namespace fs = std::filesystem;
using namespace ragscope::core;

constexpr double kFullCollection = 8841823.0;  // MS MARCO v1 passages

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double currentRssMiB() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

// English-like text: the stopwords as the commonest words (they are a fifth of English text and
// are not indexed), then word-like strings drawn by Zipf's law (rank r with weight 1/r), plus a
// share of rare strings and numbers. At 4,297 passages it gives about the distinct terms of the
// DL19 subset of MS MARCO (a little more: that subset is on 43 topics only).
constexpr std::size_t kVocabulary = 20000;
constexpr double kRareShare = 0.01;
constexpr double kNumberShare = 0.025;

struct Vocabulary {
  std::vector<std::string> words;
  std::vector<double> cumulative;  // P(rank <= r), for drawing by binary search

  const std::string& draw(double u) const {
    const auto at = static_cast<std::size_t>(
        std::lower_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin());
    return words[std::min(at, words.size() - 1)];
  }
};

const std::string kLetters = "etaoinshrdlcumwfgypbvkjxqz";

// Letters in about English frequencies (the min of two uniform picks favours the first ones).
std::string randomWord(std::mt19937_64& rng, std::size_t length) {
  std::string w;
  for (std::size_t k = 0; k < length; ++k)
    w += kLetters[std::min<std::size_t>(rng() % 26, rng() % 26)];
  return w;
}

Vocabulary makeVocabulary(std::mt19937_64& rng) {
  Vocabulary v;
  v.words = {"the",  "of",  "and",   "to",    "a",    "in",   "is",   "for",   "or",
             "that", "are", "as",    "with",  "be",   "by",   "it",   "on",    "this",
             "an",   "at",  "not",   "was",   "from", "have", "they", "their", "will",
             "such", "if",  "these", "there", "into", "then", "but",  "no"};
  std::geometric_distribution<int> extra(0.35);
  while (v.words.size() < kVocabulary) {
    // Frequent words short, rarer ones longer, as in English.
    const std::size_t length =
        2 + static_cast<std::size_t>(std::min(extra(rng), 10)) + (v.words.size() > 5000 ? 2 : 0);
    v.words.push_back(randomWord(rng, length));
  }
  double sum = 0;
  for (std::size_t r = 1; r <= v.words.size(); ++r) v.cumulative.push_back(sum += 1.0 / double(r));
  for (double& c : v.cumulative) c /= sum;
  return v;
}

// One passage of about `target` bytes, in sentences.
void appendPassage(std::string& line, std::size_t target, const Vocabulary& words,
                   std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const std::size_t start = line.size();
  bool sentenceStart = true;
  while (line.size() - start < target) {
    const std::size_t at = line.size();
    const double u = unit(rng);
    if (u < kNumberShare)
      line += std::to_string(rng() % 5000);
    else if (u < kNumberShare + kRareShare)
      line += randomWord(rng, 5 + rng() % 6);
    else
      line += words.draw(unit(rng));
    if (sentenceStart && line[at] >= 'a' && line[at] <= 'z')
      line[at] = static_cast<char>(line[at] - 'a' + 'A');
    sentenceStart = rng() % 12 == 0;
    line += sentenceStart ? ". " : " ";
  }
  line.back() = '.';
}

// `passages` lines "pid<TAB>passage\n", ~387 bytes each on average.
std::uint64_t writeCollection(const fs::path& path, std::size_t passages) {
  std::mt19937_64 rng(20240601);
  const auto words = makeVocabulary(rng);
  std::normal_distribution<double> length(378.0, 120.0);
  std::ofstream out(path, std::ios::binary);
  std::string line;
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < passages; ++i) {
    line = std::to_string(i);
    line += '\t';
    appendPassage(line, static_cast<std::size_t>(std::clamp(length(rng), 40.0, 1500.0)), words,
                  rng);
    line += '\n';
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
    bytes += line.size();
  }
  return bytes;
}

// What a child's build sends back through a pipe.
struct BuildFigures {
  bool ok = false;
  double seconds = 0;
  std::uint64_t bytes = 0;
  std::uint64_t documents = 0;
};

// One build to measure: the reference build, or openOrBuildIndex with `threads`.
struct Config {
  unsigned threads = 0;
  bool reference = false;
};

BuildFigures buildIndex(const Corpus& corpus, const fs::path& dir, unsigned threads) {
  IndexBuildOptions o;
  o.threads = threads;
  o.forceRebuild = true;
  const auto t0 = std::chrono::steady_clock::now();
  const IndexBuildResult r = openOrBuildIndex(corpus, dir, o);
  BuildFigures f;
  f.seconds = secondsSince(t0);
  f.ok = r.ok;
  f.bytes = r.bytes;
  f.documents = r.documents;
  if (!r.ok) std::fprintf(stderr, "build failed: %s\n", r.error.c_str());
  return f;
}

// The build as openOrBuildIndex made it before it used several threads: one database, every
// document in turn on one thread, Xapian flushing its buffer every 10,000 documents (its
// default); the same analysis. No manifest: writing one takes no measurable time.
BuildFigures referenceBuild(const Corpus& corpus, const fs::path& dir) {
  const auto t0 = std::chrono::steady_clock::now();
  BuildFigures f;
  try {
    fs::create_directories(dir);
    Xapian::WritableDatabase db((dir / "xapian").string(),
                                Xapian::DB_CREATE_OR_OVERWRITE | Xapian::DB_NO_SYNC);
    Xapian::TermGenerator gen;
    gen.set_stemmer(Xapian::Stem("english"));
    gen.set_stemming_strategy(Xapian::TermGenerator::STEM_SOME);
    Xapian::SimpleStopper stopper(englishStopwords().begin(), englishStopwords().end());
    gen.set_stopper(&stopper);
    gen.set_stopper_strategy(Xapian::TermGenerator::STOP_STEMMED);
    for (std::size_t i = 0; i < corpus.size(); ++i) {
      const Document& d = corpus.at(i);
      Xapian::Document doc;
      doc.set_data(d.id);
      if (d.id.size() <= 240) doc.add_boolean_term("Q" + d.id);
      gen.set_document(doc);
      if (!d.title.empty()) {
        gen.index_text_without_positions(d.title);
        gen.increase_termpos();
      }
      gen.index_text_without_positions(d.fullText());
      db.add_document(doc);
    }
    db.commit();
    db.close();
  } catch (const Xapian::Error& e) {
    std::fprintf(stderr, "reference build failed: %s\n", e.get_description().c_str());
    return f;
  }
  f.seconds = secondsSince(t0);
  f.ok = true;
  f.documents = corpus.size();
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) f.bytes += entry.file_size();
  return f;
}

// What the parent measures of a child's build.
struct Measured {
  BuildFigures figures;
  long peakKiB = 0;
  double cpuSeconds = 0;  // user + system over all threads: what contention does not inflate
};

double seconds(const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; }

// Runs buildIndex in a forked child; nullopt when it failed.
std::optional<Measured> buildInChild(const Corpus& corpus, const fs::path& dir,
                                     const Config& config) {
  int fds[2];
  if (::pipe(fds) != 0) return std::nullopt;
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid < 0) return std::nullopt;
  if (pid == 0) {
    ::close(fds[0]);
    const BuildFigures f =
        config.reference ? referenceBuild(corpus, dir) : buildIndex(corpus, dir, config.threads);
    const bool written = ::write(fds[1], &f, sizeof f) == static_cast<ssize_t>(sizeof f);
    std::fflush(nullptr);
    ::_exit(written && f.ok ? 0 : 1);  // no destructors: freeing the corpus is not measured
  }
  ::close(fds[1]);
  BuildFigures f;
  const bool read = ::read(fds[0], &f, sizeof f) == static_cast<ssize_t>(sizeof f);
  ::close(fds[0]);
  int status = 0;
  rusage usage{};
  ::wait4(pid, &status, 0, &usage);
  if (!read || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return Measured{f, usage.ru_maxrss, seconds(usage.ru_utime) + seconds(usage.ru_stime)};
}

void printFigures(const std::string& label, const Measured& m, double loadedRssMiB) {
  const BuildFigures& f = m.figures;
  const double peakMiB = double(m.peakKiB) / 1024.0;
  const double docsPerSecond = double(f.documents) / f.seconds;
  const double scale = kFullCollection / double(f.documents);
  std::printf(
      "%-28s %7.1f s (cpu %6.1f s)  %5.0f docs/s  index %6.1f MiB  peak RSS %6.1f MiB "
      "(build adds %.1f MiB to the loaded corpus)\n",
      label.c_str(), f.seconds, m.cpuSeconds, docsPerSecond, double(f.bytes) / (1024.0 * 1024.0),
      peakMiB, peakMiB - loadedRssMiB);
  // Linear: time and index size grow about linearly (the reference build's time faster: its
  // single database slows down as it grows); so does the corpus in memory, while the build's own
  // memory is bounded per worker, so it is carried over as measured.
  std::printf(
      "   projected to %.0f passages: %.0f s (%.1f min), index %.2f GiB, "
      "peak RSS ~%.0f MiB\n",
      kFullCollection, f.seconds * scale, f.seconds * scale / 60.0,
      double(f.bytes) * scale / (1024.0 * 1024.0 * 1024.0),
      loadedRssMiB * scale + (peakMiB - loadedRssMiB));
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t passages = 1000000;
  std::optional<unsigned> onlyThreads;
  fs::path file;
  bool keep = false;
  bool reference = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--file" && i + 1 < argc)
      file = argv[++i];
    else if (a == "--threads" && i + 1 < argc)
      onlyThreads = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    else if (a == "--reference")
      reference = true;
    else if (a == "--keep")
      keep = true;
    else
      passages = std::strtoull(a.c_str(), nullptr, 10);
  }

  const fs::path dir =
      fs::temp_directory_path() / ("ragscope-bench-bm25-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  if (file.empty()) {
    file = dir / "collection.tsv";
    const auto t0 = std::chrono::steady_clock::now();
    const auto bytes = writeCollection(file, passages);
    std::printf("generated %zu passages, %.1f MiB (%.0f bytes a line) in %.1f s -> %s\n", passages,
                double(bytes) / (1024.0 * 1024.0),
                double(bytes) / double(std::max<std::size_t>(passages, 1)), secondsSince(t0),
                file.c_str());
  }

  Dataset dataset;
  const auto t0 = std::chrono::steady_clock::now();
  const LoadReport report = loadMsmarcoCollection(file, dataset, LoadOptions{});
  const Corpus& corpus = dataset.corpus;
  if (!report.ok() || corpus.empty()) {
    std::fprintf(stderr, "could not load %s\n", file.c_str());
    return 1;
  }
  const double loadedRss = currentRssMiB();
  std::printf("loaded %zu passages in %.1f s (texts %s), RSS %.1f MiB; %u cores\n", corpus.size(),
              secondsSince(t0), corpus.at(0).stored.file ? "left in the file" : "in memory",
              loadedRss, std::max(1u, std::thread::hardware_concurrency()));

  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::vector<Config> configs;
  if (reference)
    configs = {{1, true}};
  else if (onlyThreads)
    configs = {{*onlyThreads, false}};
  else
    configs = {{1, true}, {1, false}, {0, false}};
  int status = 0;
  for (const Config& config : configs) {
    const unsigned threads = config.threads ? config.threads : cores;
    const std::string label =
        config.reference ? std::string("reference (1 database)")
                         : std::to_string(threads) + (threads == 1 ? " thread" : " threads");
    const fs::path indexDir = dir / "index";
    const auto built = buildInChild(corpus, indexDir, config);
    if (!built) {
      std::fprintf(stderr, "the build with %s failed\n", label.c_str());
      status = 1;
      continue;
    }
    printFigures(label, *built, loadedRss);
    std::error_code ec;
    if (!keep) fs::remove_all(indexDir, ec);
  }
  if (!keep) {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  return status;
}
