#pragma once
// The response cache (core/llm/README.md, "Response cache"): content-addressed, on disk (SQLite,
// WAL), shared by every run and project of the user, so a repeated or resumed evaluation makes no
// repeated call. The key is the SHA-256 of the provider's cache identity (endpoint kind, base URL,
// model, parameters) and the exact request body it would send. Only successful responses are
// stored.
//
//   ResponseCache cache;
//   if (!cache.open(ResponseCache::defaultPath(), &err)) ...;
//   auto provider = std::make_unique<CachingProvider>(std::move(http), cache);   //
//   cachingprovider.h

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/llm/provider.h"
#include "core/util/sqlitedb.h"

namespace ragscope::core::llm {

class ResponseCache {
 public:
  // $XDG_CACHE_HOME/ragscope/responses.sqlite, else ~/.cache/ragscope/responses.sqlite.
  static std::filesystem::path defaultPath();
  static std::string key(const Provider& provider, const LlmRequest& request);
  static std::string key(std::string_view identity, std::string_view body);

  // Creates the file (and its folder) when missing. Safe to share between processes.
  bool open(const std::filesystem::path& path, std::string* error);
  // True for an existing ragscope response cache (a SQLite file holding only its table), checked
  // read-only: a path a run store names is used as the cache only when this is true, so a store
  // never makes ragscope create a file of its choosing.
  static bool isCacheFile(const std::filesystem::path& path);
  bool isOpen() const;
  const std::filesystem::path& path() const { return m_path; }

  // Thread-safe. The returned response has fromCache = true and no cost (nothing was spent).
  std::optional<LlmResponse> lookup(const std::string& key);
  // The stored replies of many keys in one read transaction, unparsed (fromStored() parses one,
  // on any thread). Hits and misses are counted by the caller through countLookups().
  std::vector<std::optional<std::string>> lookupStored(const std::vector<std::string>& keys);
  static std::optional<LlmResponse> fromStored(const std::string& stored);
  void countLookups(std::uint64_t hits, std::uint64_t misses) {
    m_hits += hits;
    m_misses += misses;
  }
  // Stores an Ok response; anything else is ignored. Thread-safe.
  bool store(const std::string& key, std::string_view identity, const LlmResponse& response);

  std::uint64_t hits() const { return m_hits; }
  std::uint64_t misses() const { return m_misses; }
  std::uint64_t stores() const { return m_stores; }
  std::uint64_t entryCount();

 private:
  mutable std::mutex m_mutex;
  SqliteDb m_db;
  SqliteStatement m_select;
  SqliteStatement m_insert;
  std::filesystem::path m_path;
  std::atomic<std::uint64_t> m_hits{0};
  std::atomic<std::uint64_t> m_misses{0};
  std::atomic<std::uint64_t> m_stores{0};
};

}  // namespace ragscope::core::llm
