#include "core/util/curlapi.h"

#include <cstdlib>

#include "core/util/lazylibrary.h"

#ifndef RAGSCOPE_CURL_SONAME
#define RAGSCOPE_CURL_SONAME "libcurl.so.4"
#endif

namespace ragscope::core {

namespace {

struct Loaded {
  CurlApi api{};
  bool ok = false;
  std::string error;
};

// Resolves every member of the table; false + *error at the first one missing.
template <typename Fn>
bool resolve(void* library, const std::string& name, const char* symbol, Fn& member,
             std::string* error) {
  member = reinterpret_cast<Fn>(findSymbol(library, symbol, name, error));
  return member != nullptr;
}

Loaded load() {
  Loaded l;
  const std::string name = curlLibraryName();
  void* lib = openSystemLibrary(name, &l.error);
  if (!lib) return l;
  CurlApi& a = l.api;
  std::string* e = &l.error;
  const bool all = resolve(lib, name, "curl_global_init", a.global_init, e) &&
                   resolve(lib, name, "curl_easy_init", a.easy_init, e) &&
                   resolve(lib, name, "curl_easy_setopt", a.easy_setopt, e) &&
                   resolve(lib, name, "curl_easy_perform", a.easy_perform, e) &&
                   resolve(lib, name, "curl_easy_getinfo", a.easy_getinfo, e) &&
                   resolve(lib, name, "curl_easy_reset", a.easy_reset, e) &&
                   resolve(lib, name, "curl_easy_cleanup", a.easy_cleanup, e) &&
                   resolve(lib, name, "curl_easy_strerror", a.easy_strerror, e) &&
                   resolve(lib, name, "curl_slist_append", a.slist_append, e) &&
                   resolve(lib, name, "curl_slist_free_all", a.slist_free_all, e) &&
                   resolve(lib, name, "curl_multi_init", a.multi_init, e) &&
                   resolve(lib, name, "curl_multi_cleanup", a.multi_cleanup, e) &&
                   resolve(lib, name, "curl_multi_add_handle", a.multi_add_handle, e) &&
                   resolve(lib, name, "curl_multi_remove_handle", a.multi_remove_handle, e) &&
                   resolve(lib, name, "curl_multi_perform", a.multi_perform, e) &&
                   resolve(lib, name, "curl_multi_info_read", a.multi_info_read, e) &&
                   resolve(lib, name, "curl_multi_timeout", a.multi_timeout, e) &&
                   resolve(lib, name, "curl_multi_poll", a.multi_poll, e) &&
                   resolve(lib, name, "curl_multi_wakeup", a.multi_wakeup, e) &&
                   resolve(lib, name, "curl_getdate", a.getdate, e);
  if (!all) return l;
  // Once per process, before any handle exists (libcurl's rule); its TLS back end starts here.
  if (const CURLcode rc = a.global_init(CURL_GLOBAL_DEFAULT); rc != CURLE_OK) {
    l.error = name + ": curl_global_init failed (" + a.easy_strerror(rc) + ")";
    return l;
  }
  l.ok = true;
  return l;
}

}  // namespace

std::string curlLibraryName() {
  if (const char* name = std::getenv("RAGSCOPE_LIBCURL"); name && *name) return name;
  return RAGSCOPE_CURL_SONAME;
}

const CurlApi* curlApi(std::string* error) {
  // A function-local static: initialised once, by the first caller, while the others wait.
  static const Loaded loaded = load();
  if (!loaded.ok && error) *error = loaded.error;
  return loaded.ok ? &loaded.api : nullptr;
}

}  // namespace ragscope::core
