#pragma once
// The one command-line layer of ragscope-cli. A command declares its options (names, value name,
// type and bounds, description) and positional arguments on a CommandLine, then parses its
// arguments with it; the layer does the rest the same way for every command:
//   - `--opt value` and `--opt=value` for every long option; short options as getopt takes them
//     (`-l 2`, `-l2`, flags combined: `-qc`); `--` ends the options; `-` is a positional argument;
//   - values checked by type: paths (not empty), integers and finite numbers within their bounds
//     ("inf" and "nan" are refused everywhere), one of a list of choices;
//   - one error style on stderr, exit code 2:
//       ragscope-cli eval: --B: expected 0 (no CIs) or an integer from 2 to 1000000, got 'x'
//       Run 'ragscope-cli eval --help' for usage.
//   - `-h` / `--help` prints the help generated from the declarations (usage line, the options in
//     their sections with value names and descriptions, the command's prose before and after).
//
//   CommandLine cli("runs");
//   cli.intro("Lists the run stores in DIR ...");
//   cli.positionals("DIR", dirs, 1);
//   cli.flag("--json", json, "print JSON");
//   if (auto exit = cli.parse(args)) return *exit;   // 0 after --help, 2 after a usage error
//
// Every path option says what the command does with it (.input(), .output(), .inputAndOutput()),
// and so do positional arguments (positionalRoles). Before parse() returns to the command, the
// paths given are checked against each other (core/util/outputcheck.h): an output that is one of
// the command's inputs (the same file, a link to it, or an input store's SQLite side file), or
// two outputs on one file, is a usage error naming both, and the command never starts.
//   cli.path("--out", "FILE", out, "where to write").output();
//   cli.path("--labels", "PATH", labels, "...").input(labelsStoreToo);  // derived paths too

#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/outputcheck.h"

namespace ragscope::cli {

using Args = std::vector<std::string>;

// What a path option or positional argument names for the command. NotAFile: a positional that
// is no path (dataset doc's ID).
enum class PathRole { Input, Output, InputAndOutput, NotAFile };

// The paths a value stands for, when it is not simply one path read or written as the option's
// role says: a project file and the labels store beside it, "@FILE", "GOLD,GUESS".
using DerivedPaths = std::function<std::vector<core::NamedPath>(const std::string& value)>;

// A positional argument's role and its name in messages ("RUN.db").
struct PositionalRole {
  PathRole role;
  std::string name;
};

// Whole-text number parsing, shared by the option types and by commands that read numbers out of
// a value (`--paragraphs 3-7`). Each is false on anything but the whole text being the number.
bool parseInteger(std::string_view text, std::int64_t min, std::uint64_t max, bool& negative,
                  std::uint64_t& magnitude);
bool parseUnsigned(std::string_view text, std::uint64_t& out);  // no sign, no spaces
bool parseFiniteDouble(std::string_view text, double& out);     // refuses inf, nan, overflow

// The bounds of a number option, each end open or closed or absent.
struct NumberBounds {
  std::optional<double> min, max;
  bool minOpen = false, maxOpen = false;

  static NumberBounds atLeast(double min) { return {min, std::nullopt, false, false}; }
  static NumberBounds above(double min) { return {min, std::nullopt, true, false}; }
  static NumberBounds between(double min, double max) { return {min, max, false, false}; }
  static NumberBounds strictlyBetween(double min, double max) { return {min, max, true, true}; }
  bool contains(double v) const;
  std::string describe() const;  // "a number >= 0", "a number strictly between 0 and 1", ...
};

class CommandLine {
 public:
  // One declared option; returned by the declaring calls for the few settings that follow.
  struct Option {
    std::vector<std::string> names;  // as typed: "-m", "--measure"
    std::string valueName;           // empty: a flag
    std::string description;
    std::string section;
    bool hidden = false;
    std::function<void()> set;                                   // flags
    std::function<std::string(const std::string& value)> apply;  // values: the problem, or ""
    std::size_t seen = 0;

    std::optional<PathRole> role;  // path options: what the command does with the path
    DerivedPaths derived;          // set: the paths the value stands for (instead of itself)

    // Not listed in --help (an alias kept for old command lines).
    Option& hide() {
      hidden = true;
      return *this;
    }
    // What the command does with the path (see the check at the top).
    Option& input(DerivedPaths paths = {}) { return setRole(PathRole::Input, std::move(paths)); }
    Option& output(DerivedPaths paths = {}) { return setRole(PathRole::Output, std::move(paths)); }
    Option& inputAndOutput(DerivedPaths paths = {}) {
      return setRole(PathRole::InputAndOutput, std::move(paths));
    }

   private:
    Option& setRole(PathRole r, DerivedPaths paths) {
      role = r;
      derived = std::move(paths);
      return *this;
    }
  };

  // `command` as typed after ragscope-cli: "eval", "dataset info".
  explicit CommandLine(std::string command);

  // The usage line's text after "usage: ragscope-cli COMMAND"; by default it is generated from
  // the declarations ("[options] QRELS RUN...").
  void synopsis(std::string text);
  // Prose printed before and after the option sections.
  void intro(std::string text);
  void epilogue(std::string text);
  // Options declared from here on are listed under `title` ("LLM job options").
  void section(std::string title);
  // Appended to "unknown option '-x'" for a single-letter option (eval: trec_eval's options are
  // single letters, so "-x" is most likely one ragscope does not implement).
  void unknownOptionNote(std::string note);

  // `names` is a comma-separated list: "-m, --measure". `valueName` names the value in --help and
  // in the usage line ("N", "PATH").
  Option& flag(std::string_view names, bool& target, std::string description, bool value = true);
  Option& text(std::string_view names, std::string valueName, std::string& target,
               std::string description);
  Option& text(std::string_view names, std::string valueName, std::optional<std::string>& target,
               std::string description);
  // A repeatable option: each occurrence appends its value.
  Option& texts(std::string_view names, std::string valueName, std::vector<std::string>& target,
                std::string description);
  // Like text, but an empty value is a usage error.
  Option& path(std::string_view names, std::string valueName, std::string& target,
               std::string description);
  Option& path(std::string_view names, std::string valueName, std::optional<std::string>& target,
               std::string description);
  Option& path(std::string_view names, std::string valueName, std::filesystem::path& target,
               std::string description);
  Option& paths(std::string_view names, std::string valueName, std::vector<std::string>& target,
                std::string description);
  // A whole number in [min, max]; `zeroMeans` also allows 0 outside the range and says what it
  // means ("no CIs"): "expected 0 (no CIs) or an integer from 2 to 1000000".
  template <class T>
  Option& integer(std::string_view names, std::string valueName, T& target, std::int64_t min,
                  std::uint64_t max, std::string description, std::string zeroMeans = {}) {
    return integerOption(names, std::move(valueName), min, max, std::move(description),
                         std::move(zeroMeans), [&target](bool negative, std::uint64_t magnitude) {
                           target = negative ? static_cast<T>(-static_cast<std::int64_t>(magnitude))
                                             : static_cast<T>(magnitude);
                         });
  }
  Option& number(std::string_view names, std::string valueName, double& target, NumberBounds bounds,
                 std::string description);
  Option& number(std::string_view names, std::string valueName, std::optional<double>& target,
                 NumberBounds bounds, std::string description);
  // One of `choices`; the value name defaults to "a|b|c".
  Option& choice(std::string_view names, std::vector<std::string> choices, std::string& target,
                 std::string description, std::string valueName = {});
  // Any other value check: `apply` returns the problem with the value ("" when it is fine).
  Option& custom(std::string_view names, std::string valueName,
                 std::function<std::string(const std::string& value)> apply,
                 std::string description);

  // Positional arguments go to `target` in order, at most `max` of them (more: "unexpected
  // argument"). Several commands append options and positionals to one list (retrieve's paths).
  void positionals(std::string valueName, std::vector<std::string>& target,
                   std::size_t max = std::numeric_limits<std::size_t>::max());
  // What the positional arguments are, in order; the last entry covers the rest. Every command
  // with positionals declares them (tests/tst_hardeningfiles.cpp checks).
  void positionalRoles(std::vector<PositionalRole> roles);

  // Parses args[first...]. Returns the exit code when the command must end here: 0 after --help
  // (printed on stdout), 2 after a usage error (printed on stderr); nothing to go on.
  std::optional<int> parse(const Args& args, std::size_t first = 1);

  // Whether an option was on the command line, by any of its names.
  bool given(std::string_view name) const;
  std::size_t count(std::string_view name) const;

  // Prints a usage error in the layer's style; returns 2. For the checks a command makes after
  // parsing (an option that needs another, a value only the command can judge).
  int usageError(const std::string& message) const;

  // The paths of the command line with their use, as parse() checked them.
  const std::vector<core::NamedPath>& paths() const { return m_paths; }
  // The same check with paths the command learns only after parsing (what a file it reads
  // names): 2 after a usage error naming the clash, nothing when there is none.
  std::optional<int> checkPaths(const std::vector<core::NamedPath>& more) const;

  std::string help() const;

 private:
  Option& add(std::string_view names, std::string valueName, std::string description);
  Option& integerOption(std::string_view names, std::string valueName, std::int64_t min,
                        std::uint64_t max, std::string description, std::string zeroMeans,
                        std::function<void(bool, std::uint64_t)> store);
  Option* find(std::string_view name);
  const Option* find(std::string_view name) const;
  std::string usageLine() const;

  std::string m_command;
  std::string m_synopsis;
  std::string m_intro, m_epilogue, m_section = "Options", m_unknownNote;
  std::deque<Option> m_options;  // a deque: the references handed out stay valid
  std::vector<std::string>* m_positionals = nullptr;
  std::string m_positionalName;
  std::size_t m_maxPositionals = 0;
  std::vector<PositionalRole> m_positionalRoles;
  std::vector<core::NamedPath> m_paths;  // filled by parse()
};

// Wraps `text` at `width` columns, continuation lines indented by `indent` spaces; the first line
// starts at `startColumn` (what the caller printed before it). Explicit newlines are kept, and so
// are the leading spaces of each explicit line (a list inside a description).
std::string wrapText(std::string_view text, std::size_t width, std::size_t indent,
                     std::size_t startColumn = 0);

}  // namespace ragscope::cli
