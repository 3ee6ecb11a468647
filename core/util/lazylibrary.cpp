#include "core/util/lazylibrary.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>

namespace ragscope::core {

namespace {

// dlerror() is per thread, but two threads opening at once would still interleave dlopen and
// dlerror of different calls on some libcs: one lock for the whole open-and-ask.
std::mutex& loaderMutex() {
  static std::mutex m;
  return m;
}

std::string lastDlError() {
  const char* why = dlerror();
  return why ? why : "unknown dynamic loader error";
}

std::string executableFolder() {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

}  // namespace

std::vector<std::string> moduleFolders() {
  if (const char* dir = std::getenv("RAGSCOPE_MODULE_DIR"); dir && *dir) return {dir};
  std::vector<std::string> folders;
  if (std::string exe = executableFolder(); !exe.empty()) folders.push_back(std::move(exe));
#ifdef RAGSCOPE_MODULE_BUILD_DIR
  if (folders.empty() || folders.front() != RAGSCOPE_MODULE_BUILD_DIR)
    folders.emplace_back(RAGSCOPE_MODULE_BUILD_DIR);
#endif
  return folders;
}

void* openModule(std::string_view fileName, std::string* error) {
  const auto folders = moduleFolders();
  std::string looked;
  for (const auto& folder : folders) {
    const std::filesystem::path candidate = std::filesystem::path(folder) / fileName;
    looked += (looked.empty() ? "" : ", ") + folder;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(candidate, ec)) continue;
    // A module that is there but does not load (a library it needs is missing, a broken file)
    // is the error to report, not the folders searched after it.
    return openSystemLibrary(candidate.string(), error);
  }
  if (error)
    *error = "cannot load " + std::string(fileName) + ": not found (looked in " +
             (looked.empty() ? std::string("no folder") : looked) +
             "; RAGSCOPE_MODULE_DIR names another folder)";
  return nullptr;
}

void* openSystemLibrary(const std::string& soname, std::string* error) {
  std::lock_guard lock(loaderMutex());
  // RTLD_LOCAL: the library's symbols (Qt's, poppler's, a second copy of the engine's in the
  // PDF writer) never stand in for the executable's own.
  void* handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle && error) *error = "cannot load " + soname + ": " + lastDlError();
  return handle;
}

void* findSymbol(void* library, const char* symbol, std::string_view libraryName,
                 std::string* error) {
  std::lock_guard lock(loaderMutex());
  dlerror();
  void* address = dlsym(library, symbol);
  if (!address && error)
    *error = std::string(libraryName) + " has no " + symbol + " (" + lastDlError() +
             "): an older or foreign build";
  return address;
}

}  // namespace ragscope::core
