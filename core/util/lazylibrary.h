#pragma once
// Libraries opened on first use instead of at start-up. A command that reads no PDF, writes no
// PDF and makes no HTTP request then starts without poppler, Qt GUI or libcurl and the ~90
// libraries they pull in (see core/util/README.md, "Libraries loaded on demand"):
//   - ragscope's own modules (MODULE libraries built beside the executables, each with one
//     extern "C" entry point): the PDF text reader over poppler (core/data/pdftextmodule.h) and
//     the PDF report writer over Qt GUI (ui/report/pdfmodule.h);
//   - system libraries with a C API, by soname: libcurl (core/util/curlapi.h).
// A library that cannot be opened is an error message naming it and where it was looked for,
// never a crash. Opened libraries stay loaded for the life of the process (never dlclose'd:
// sanitizer reports keep their stacks, and function pointers handed out stay valid).
//
//   std::string error;
//   void* module = openModule("libragscope_pdftext.so", &error);
//   auto* entry = module ? findSymbol(module, "ragscope_pdftext_v1", "libragscope_pdftext.so",
//   &error)
//                        : nullptr;

#include <string>
#include <string_view>
#include <vector>

namespace ragscope::core {

// The folders searched for a module, in order: only $RAGSCOPE_MODULE_DIR when that is set
// (packagers, tests); else the running executable's folder, then the build tree's module folder
// (where tests, which live in another folder of the build tree, find them).
std::vector<std::string> moduleFolders();

// dlopen()s the module file `fileName` from the first of moduleFolders() that holds it.
// nullptr + *error ("cannot load NAME: ... (looked in A, B)") when none does or it fails to load
// (a library it needs is missing: the dynamic linker's message names that one).
void* openModule(std::string_view fileName, std::string* error);

// dlopen()s a system library by its soname through the dynamic linker's usual search.
// nullptr + *error naming it when it is not installed.
void* openSystemLibrary(const std::string& soname, std::string* error);

// The address of `symbol` in an opened library; nullptr + *error naming library and symbol.
void* findSymbol(void* library, const char* symbol, std::string_view libraryName,
                 std::string* error);

}  // namespace ragscope::core
