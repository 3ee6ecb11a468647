#pragma once
// Answer normalisation of the SQuAD v1.1 evaluation script, which KILT's eval_downstream.py
// copies (normalize_answer): lower-case, drop every character of Python's string.punctuation
// (the 32 ASCII marks !"#$%&'()*+,-./:;<=>?@[\]^_`{|}~; Unicode punctuation such as "’" or "–"
// stays), replace the whole words a/an/the by a space (regex \b(a|an|the)\b), then split on
// whitespace and join with single spaces.
//
// Python's str.lower() is Unicode-aware. lowerUtf8() maps the scripts that matter for QA data:
// ASCII, Latin-1 Supplement, Latin Extended-A, Latin Extended Additional (Vietnamese ...),
// Greek (with Python's final-sigma rule: Σ -> ς after a cased letter when no cased letter
// follows), Cyrillic U+0400-U+052F,
// fullwidth A-Z, and the special cases İ -> i + U+0307, K (Kelvin) -> k, Å (Angstrom) -> å.
// Capitals elsewhere (Latin Extended-B, Armenian, Georgian, Deseret ...) are left as they are.
// Whitespace is Python's str.split() set (ASCII whitespace, \x1c-\x1f, U+0085, U+00A0, U+1680,
// U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000). \b uses Python's Unicode word
// characters, approximated as: ASCII letters/digits/underscore, and every non-ASCII code point
// except whitespace and the punctuation/symbol blocks (Latin-1 marks, General Punctuation,
// arrows/maths/box drawing, CJK punctuation, fullwidth ASCII marks, emoji) and the combining
// mark blocks (U+0300-U+036F ...; Python's isalnum() is false for marks).
// Checked against Python 3 on every code point of the mapped ranges, 20,000 random mixed strings
// and all answers/inputs of KILT's hotpotqa and wow dev files: identical output.
// Invalid UTF-8 bytes pass through unchanged and count as word characters.

#include <string>
#include <string_view>
#include <vector>

namespace ragscope::core {

// Python's text.lower() for the ranges listed above.
std::string lowerUtf8(std::string_view text);

// SQuAD/KILT normalize_answer(text).
std::string normalizeAnswer(std::string_view text);

// normalizeAnswer(text).split(): the tokens of token F1.
std::vector<std::string> normalizedTokens(std::string_view text);

// Python's str.split() (no argument) on UTF-8 text.
std::vector<std::string> splitPythonWhitespace(std::string_view text);

// Python's str.strip() (no argument) on UTF-8 text.
std::string_view stripPythonWhitespace(std::string_view text);

// One UTF-8 code point at text[pos]; sets length (>= 1). Returns -1 for an invalid sequence
// (length 1 then), so callers can copy the byte unchanged.
long decodeUtf8(std::string_view text, std::size_t pos, std::size_t& length);
void appendUtf8(std::string& out, long codePoint);
bool isPythonWhitespace(long codePoint);

}  // namespace ragscope::core
