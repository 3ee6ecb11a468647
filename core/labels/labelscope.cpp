#include "core/labels/labelscope.h"

namespace ragscope::core::labels {

namespace fs = std::filesystem;

namespace {

// Absolute, with symbolic links resolved as far as the path exists; the normal absolute path
// when that fails.
fs::path scopeCanonical(const fs::path& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) absolute = path;
  fs::path canonical = fs::weakly_canonical(absolute, ec);
  return ec ? absolute.lexically_normal() : canonical;
}

}  // namespace

fs::path labelsFolder(const fs::path& labelsStore) {
  const fs::path parent = labelsStore.parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

fs::path scopePath(std::string_view scope, const fs::path& folder) {
  const fs::path p{std::string(scope)};
  if (p.is_absolute() || folder.empty()) return p.lexically_normal();
  return (folder / p).lexically_normal();
}

bool sameStoreFile(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) {
    const bool same = fs::equivalent(a, b, ec);
    if (!ec) return same;
  }
  return scopeCanonical(a) == scopeCanonical(b);
}

std::string scopeOfStore(const fs::path& folder, const fs::path& store) {
  const fs::path where = scopeCanonical(store);
  if (folder.empty()) return where.string();
  const fs::path base = scopeCanonical(folder);
  const fs::path relative = where.lexically_relative(base);
  if (!relative.empty() && relative.is_relative() && *relative.begin() != ".." && relative != ".")
    return relative.generic_string();
  return where.string();
}

ScopeMatcher::ScopeMatcher(fs::path folder, fs::path store)
    : m_folder(std::move(folder)), m_store(std::move(store)) {}

bool ScopeMatcher::operator()(std::string_view scope) const {
  if (scope.empty()) return false;
  if (const auto it = m_known.find(scope); it != m_known.end()) return it->second;
  const bool same = sameStoreFile(scopePath(scope, m_folder), m_store);
  m_known.emplace(std::string(scope), same);
  return same;
}

}  // namespace ragscope::core::labels
