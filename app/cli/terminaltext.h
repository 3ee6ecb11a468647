#pragma once
// The CLI's one choke point for what reaches a terminal. Error messages quote servers, files and
// judges; a quote with ESC sequences could clear the screen, set the window title or hide what
// was printed. While a TerminalText lives, std::cerr (always) and std::cout (when it is a
// terminal: output piped into a file or a program stays byte for byte) pass through
// core::escapeControlChars with line breaks kept, so no control character from anywhere gets
// to the terminal as one. Text the engine already escaped passes unchanged.
//
//   int main(int argc, char** argv) {
//     ragscope::cli::TerminalText guard;
//     ...
//   }

#include <memory>
#include <ostream>
#include <streambuf>
#include <string>

namespace ragscope::cli {

// A streambuf that escapes control characters and invalid UTF-8 on the way to `target`, keeping
// tab, CR and LF (the CLI's own progress lines use CR). Unbuffered: each write is passed on at
// once, except for the last bytes of a UTF-8 sequence that a write cut short.
class EscapingStreambuf : public std::streambuf {
 public:
  explicit EscapingStreambuf(std::streambuf* target) : m_target(target) {}
  ~EscapingStreambuf() override;

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  void emit(bool final);

  std::streambuf* m_target;
  std::string m_pending;  // bytes not yet passed on: at most an unfinished UTF-8 sequence
};

class TerminalText {
 public:
  TerminalText();
  ~TerminalText();
  TerminalText(const TerminalText&) = delete;
  TerminalText& operator=(const TerminalText&) = delete;

 private:
  std::unique_ptr<EscapingStreambuf> m_err, m_out;
  std::streambuf* m_errTarget = nullptr;
  std::streambuf* m_outTarget = nullptr;
};

}  // namespace ragscope::cli
