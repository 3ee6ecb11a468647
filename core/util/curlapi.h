#pragma once
// libcurl, opened on the first HTTP request instead of at start-up: libcurl and the TLS, SSH,
// LDAP and Kerberos libraries it needs cost a command that makes no request milliseconds it
// never uses (see core/util/README.md, "Libraries loaded on demand"). Every libcurl function
// ragscope calls is in this one table and is called through it; the build refuses a direct
// curl_*() call anywhere else in core/ (core/CMakeLists.txt). The header <curl/curl.h> still
// gives the types and constants, so the options set are checked by the compiler as before.
//
//   std::string error;
//   const CurlApi* curl = curlApi(&error);
//   if (!curl) return fail(error);      // "cannot load libcurl.so.4: ... No such file ..."
//   CURL* easy = curl->easy_init();
//   if (!applyTransportPolicy(easy)) ...  // core/util/httpsafety.h, on every handle
//   curl->easy_setopt(easy, CURLOPT_URL, url.c_str());

#include <curl/curl.h>

#include <string>

namespace ragscope::core {

// Each member has the exact type of the libcurl function it points to (decltype of the
// declaration in <curl/curl.h>).
struct CurlApi {
  decltype(&::curl_global_init) global_init;
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_perform) easy_perform;
  decltype(&::curl_easy_getinfo) easy_getinfo;
  decltype(&::curl_easy_reset) easy_reset;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_easy_strerror) easy_strerror;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
  decltype(&::curl_multi_init) multi_init;
  decltype(&::curl_multi_cleanup) multi_cleanup;
  decltype(&::curl_multi_add_handle) multi_add_handle;
  decltype(&::curl_multi_remove_handle) multi_remove_handle;
  decltype(&::curl_multi_perform) multi_perform;
  decltype(&::curl_multi_info_read) multi_info_read;
  decltype(&::curl_multi_timeout) multi_timeout;
  decltype(&::curl_multi_poll) multi_poll;
  decltype(&::curl_multi_wakeup) multi_wakeup;
  decltype(&::curl_getdate) getdate;
};

// The file opened: $RAGSCOPE_LIBCURL when set, else the soname the build was configured with
// (RAGSCOPE_CURL_SONAME, "libcurl.so.4").
std::string curlLibraryName();

// The table, with libcurl opened and curl_global_init() run on the first call (thread-safe;
// later calls cost an atomic load). nullptr + *error naming the library when it cannot be
// opened or lacks a function (a libcurl older than 7.68, which has no curl_multi_wakeup).
const CurlApi* curlApi(std::string* error = nullptr);

}  // namespace ragscope::core
