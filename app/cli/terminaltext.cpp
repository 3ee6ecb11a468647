#include "app/cli/terminaltext.h"

#include <unistd.h>

#include <iostream>

#include "core/util/textescape.h"

namespace ragscope::cli {

EscapingStreambuf::~EscapingStreambuf() { emit(true); }

EscapingStreambuf::int_type EscapingStreambuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  m_pending += traits_type::to_char_type(c);
  emit(false);
  return c;
}

std::streamsize EscapingStreambuf::xsputn(const char* s, std::streamsize n) {
  m_pending.append(s, static_cast<std::size_t>(n));
  emit(false);
  return n;
}

int EscapingStreambuf::sync() {
  emit(false);
  return m_target->pubsync();
}

void EscapingStreambuf::emit(bool final) {
  const std::size_t ready = final ? m_pending.size() : core::completeUtf8Prefix(m_pending);
  if (ready == 0) return;
  const std::string text = core::escapeControlChars(std::string_view(m_pending).substr(0, ready),
                                                    core::LineBreaks::Keep);
  m_target->sputn(text.data(), static_cast<std::streamsize>(text.size()));
  m_pending.erase(0, ready);
}

TerminalText::TerminalText() {
  m_errTarget = std::cerr.rdbuf();
  m_err = std::make_unique<EscapingStreambuf>(m_errTarget);
  std::cerr.rdbuf(m_err.get());
  // Output for files and pipes is data (a run, a table, JSON): escaped only for the eyes.
  if (isatty(STDOUT_FILENO) != 0) {
    m_outTarget = std::cout.rdbuf();
    m_out = std::make_unique<EscapingStreambuf>(m_outTarget);
    std::cout.rdbuf(m_out.get());
  }
}

TerminalText::~TerminalText() {
  std::cerr.flush();
  std::cerr.rdbuf(m_errTarget);
  m_err.reset();  // passes on what it still holds
  if (m_out) {
    std::cout.flush();
    std::cout.rdbuf(m_outTarget);
    m_out.reset();
    std::cout.flush();
  }
  std::cerr.flush();
}

}  // namespace ragscope::cli
