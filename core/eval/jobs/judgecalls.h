#pragma once
// The judge calls behind one judged answer, read back from its judging run store for inspection:
// each call's key (what it asked: "extract:response:q1", "assess:faith:0:q1", the repair retry
// "repair:assess:faith:0:q1"), the exact prompt sent, the raw reply, its state and failure. The
// claim inspector shows them beside the verdicts they were read into. Opens the store read-only
// (viewing writes nothing); a small SQLite read, still to be called off the GUI thread.
//
//   auto calls = judgeCallsOf("claims.db", "q7", &error);
//   for (const auto& c : calls) c.key, c.prompt, c.reply, c.status ...

#include <filesystem>
#include <string>
#include <vector>

namespace ragscope::core::eval {

struct JudgeCall {
  std::string key;
  std::string prompt;  // the chat messages as sent, "role: content" blocks; other kinds in words
  std::string reply;   // the raw reply text (empty while pending or when the call failed)
  std::string status;  // "done", "error", "pending", "cancelled"
  std::string error;   // why the call failed
  int attempts = 0;
  bool fromCache = false;
  bool heuristic = false;
};

// Every call of `qid` in the store at `path`, in the store's order (extractions, assessments, then
// repairs as they were planned). Empty with *error set when the store cannot be read.
std::vector<JudgeCall> judgeCallsOf(const std::filesystem::path& path, const std::string& qid,
                                    std::string* error);

}  // namespace ragscope::core::eval
