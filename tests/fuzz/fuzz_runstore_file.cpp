// Run stores as files (core/store/runstore.cpp and every reader of a store, see runstorecheck.h):
// the input is the SQLite file itself, so flipped bytes, cut files and foreign databases all
// arrive as they would from a shared folder.
// max_len: 262144
// seed: resources/demo/runs

#include "fuzzsupport.h"
#include "runstorecheck.h"

using namespace ragscope;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::removeScratch("store");  // with the -wal / -shm files of the previous input
  const auto path = fuzz::writeScratch("store/run.db", fuzz::bytes(data, size));
  fuzz::exerciseRunStore(path);
  return 0;
}
