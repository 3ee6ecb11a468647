#include "app/cli/options.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace ragscope::cli {

namespace {

constexpr std::size_t kWidth = 100;         // the help's columns, as the sources' .clang-format
constexpr std::size_t kMaxLabelWidth = 24;  // a longer option label puts its text on the next line
constexpr std::size_t kShownValueChars = 40;  // a pasted megabyte of digits is not echoed whole

std::string shown(const std::string& value) {
  return value.size() > kShownValueChars ? value.substr(0, kShownValueChars) + "..." : value;
}

std::string got(const std::string& value) { return ", got '" + shown(value) + "'"; }

std::string numberText(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::vector<std::string> splitNames(std::string_view names) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < names.size()) {
    std::size_t comma = names.find(',', start);
    if (comma == std::string_view::npos) comma = names.size();
    std::string_view name = names.substr(start, comma - start);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (!name.empty()) out.emplace_back(name);
    start = comma + 1;
  }
  return out;
}

bool isLongOption(std::string_view a) { return a.size() > 2 && a.substr(0, 2) == "--"; }

// How an error names the option the user typed: a long option as typed, a short one as getopt
// says it ("option -l"), since "-l: ..." reads as a stray dash.
std::string display(const std::string& name) {
  return isLongOption(name) ? name : "option " + name;
}

}  // namespace

bool parseInteger(std::string_view text, std::int64_t min, std::uint64_t max, bool& negative,
                  std::uint64_t& magnitude) {
  negative = !text.empty() && text.front() == '-';
  if (negative) text.remove_prefix(1);
  if (text.empty() || text.size() > 20) return false;
  std::uint64_t v = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (v > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return false;  // overflow
    v = v * 10 + digit;
  }
  magnitude = v;
  if (negative && v == 0) negative = false;  // "-0"
  if (negative) {
    if (min >= 0) return false;
    // -min as unsigned, without overflowing at INT64_MIN.
    const std::uint64_t limit = static_cast<std::uint64_t>(-(min + 1)) + 1;
    return v <= limit;
  }
  return (min <= 0 || v >= static_cast<std::uint64_t>(min)) && v <= max;
}

bool parseUnsigned(std::string_view text, std::uint64_t& out) {
  bool negative = false;
  return parseInteger(text, 0, std::numeric_limits<std::uint64_t>::max(), negative, out);
}

bool parseFiniteDouble(std::string_view text, double& out) {
  // strtod also reads leading spaces, "inf", "nan" and hexadecimal; only plain decimal numbers
  // are values here.
  if (text.empty() || text.find_first_not_of("0123456789.eE+-") != std::string_view::npos)
    return false;
  const std::string s(text);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || end != s.c_str() + s.size() || !std::isfinite(v)) return false;
  out = v;
  return true;
}

bool NumberBounds::contains(double v) const {
  if (min && (minOpen ? !(v > *min) : !(v >= *min))) return false;
  if (max && (maxOpen ? !(v < *max) : !(v <= *max))) return false;
  return true;
}

std::string NumberBounds::describe() const {
  if (min && max) {
    if (!minOpen && !maxOpen)
      return "a number from " + numberText(*min) + " to " + numberText(*max);
    if (minOpen && maxOpen)
      return "a number strictly between " + numberText(*min) + " and " + numberText(*max);
    return std::string("a number ") + (minOpen ? "> " : ">= ") + numberText(*min) + " and " +
           (maxOpen ? "< " : "<= ") + numberText(*max);
  }
  if (min) return std::string("a number ") + (minOpen ? "> " : ">= ") + numberText(*min);
  if (max) return std::string("a number ") + (maxOpen ? "< " : "<= ") + numberText(*max);
  return "a finite number";
}

std::string wrapText(std::string_view text, std::size_t width, std::size_t indent,
                     std::size_t startColumn) {
  std::string out;
  std::size_t column = startColumn;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    const std::string_view line = text.substr(start, nl - start);
    if (start > 0) {
      out += '\n';
      out.append(indent, ' ');
      column = indent;
    }
    // Leading spaces of an explicit line are kept (a list inside a description).
    std::size_t pos = 0;
    while (pos < line.size() && line[pos] == ' ') ++pos;
    out.append(pos, ' ');
    column += pos;
    const std::size_t lineIndent = indent + pos;
    bool first = true;
    while (pos < line.size()) {
      std::size_t end = line.find(' ', pos);
      if (end == std::string_view::npos) end = line.size();
      const std::string_view word = line.substr(pos, end - pos);
      if (!word.empty()) {
        if (!first && column + 1 + word.size() > width) {
          out += '\n';
          out.append(lineIndent, ' ');
          column = lineIndent;
        } else if (!first) {
          out += ' ';
          ++column;
        }
        out += word;
        column += word.size();
        first = false;
      }
      pos = end + 1;
    }
    start = nl + 1;
  }
  return out;
}

CommandLine::CommandLine(std::string command) : m_command(std::move(command)) {}

void CommandLine::synopsis(std::string text) { m_synopsis = std::move(text); }
void CommandLine::intro(std::string text) { m_intro = std::move(text); }
void CommandLine::epilogue(std::string text) { m_epilogue = std::move(text); }
void CommandLine::section(std::string title) { m_section = std::move(title); }
void CommandLine::unknownOptionNote(std::string note) { m_unknownNote = std::move(note); }

CommandLine::Option& CommandLine::add(std::string_view names, std::string valueName,
                                      std::string description) {
  Option& o = m_options.emplace_back();
  o.names = splitNames(names);
  o.valueName = std::move(valueName);
  o.description = std::move(description);
  o.section = m_section;
  return o;
}

CommandLine::Option& CommandLine::flag(std::string_view names, bool& target,
                                       std::string description, bool value) {
  Option& o = add(names, {}, std::move(description));
  o.set = [&target, value] { target = value; };
  return o;
}

namespace {

// The value check and store of the text and path options: a list appends, anything else is
// assigned; a path refuses an empty value.
template <class T>
std::function<std::string(const std::string&)> storeInto(T& target, bool path) {
  return [&target, path](const std::string& v) -> std::string {
    if (path && v.empty()) return "expected a path, got an empty value";
    if constexpr (requires { target.push_back(v); })
      target.push_back(v);
    else
      target = v;
    return {};
  };
}

// The same for the number options: finite and within the bounds.
template <class T>
std::function<std::string(const std::string&)> storeNumber(T& target, NumberBounds bounds) {
  return [&target, bounds](const std::string& v) -> std::string {
    double d = 0;
    if (!parseFiniteDouble(v, d) || !bounds.contains(d))
      return "expected " + bounds.describe() + got(v);
    target = d;
    return {};
  };
}

}  // namespace

CommandLine::Option& CommandLine::text(std::string_view names, std::string valueName,
                                       std::string& target, std::string description) {
  return custom(names, std::move(valueName), storeInto(target, false), std::move(description));
}

CommandLine::Option& CommandLine::text(std::string_view names, std::string valueName,
                                       std::optional<std::string>& target,
                                       std::string description) {
  return custom(names, std::move(valueName), storeInto(target, false), std::move(description));
}

CommandLine::Option& CommandLine::texts(std::string_view names, std::string valueName,
                                        std::vector<std::string>& target, std::string description) {
  return custom(names, std::move(valueName), storeInto(target, false), std::move(description));
}

CommandLine::Option& CommandLine::path(std::string_view names, std::string valueName,
                                       std::string& target, std::string description) {
  return custom(names, std::move(valueName), storeInto(target, true), std::move(description));
}

CommandLine::Option& CommandLine::path(std::string_view names, std::string valueName,
                                       std::optional<std::string>& target,
                                       std::string description) {
  return custom(names, std::move(valueName), storeInto(target, true), std::move(description));
}

CommandLine::Option& CommandLine::path(std::string_view names, std::string valueName,
                                       std::filesystem::path& target, std::string description) {
  return custom(names, std::move(valueName), storeInto(target, true), std::move(description));
}

CommandLine::Option& CommandLine::paths(std::string_view names, std::string valueName,
                                        std::vector<std::string>& target, std::string description) {
  return custom(names, std::move(valueName), storeInto(target, true), std::move(description));
}

CommandLine::Option& CommandLine::integerOption(std::string_view names, std::string valueName,
                                                std::int64_t min, std::uint64_t max,
                                                std::string description, std::string zeroMeans,
                                                std::function<void(bool, std::uint64_t)> store) {
  std::string expected = "expected ";
  if (!zeroMeans.empty()) expected += "0 (" + zeroMeans + ") or ";
  expected += "an integer ";
  expected += max == std::numeric_limits<std::uint64_t>::max()
                  ? ">= " + std::to_string(min)
                  : "from " + std::to_string(min) + " to " + std::to_string(max);
  return custom(
      names, std::move(valueName),
      [=](const std::string& v) {
        bool negative = false;
        std::uint64_t magnitude = 0;
        const bool zero = !zeroMeans.empty() && v == "0";
        if (!zero && !parseInteger(v, min, max, negative, magnitude)) return expected + got(v);
        store(negative, magnitude);
        return std::string();
      },
      std::move(description));
}

CommandLine::Option& CommandLine::number(std::string_view names, std::string valueName,
                                         double& target, NumberBounds bounds,
                                         std::string description) {
  return custom(names, std::move(valueName), storeNumber(target, bounds), std::move(description));
}

CommandLine::Option& CommandLine::number(std::string_view names, std::string valueName,
                                         std::optional<double>& target, NumberBounds bounds,
                                         std::string description) {
  return custom(names, std::move(valueName), storeNumber(target, bounds), std::move(description));
}

CommandLine::Option& CommandLine::choice(std::string_view names, std::vector<std::string> choices,
                                         std::string& target, std::string description,
                                         std::string valueName) {
  std::string bar, comma;
  for (const auto& c : choices) {
    bar += (bar.empty() ? "" : "|") + c;
    comma += (comma.empty() ? "" : ", ") + c;
  }
  if (valueName.empty()) valueName = bar;
  return custom(
      names, std::move(valueName),
      [&target, choices, comma](const std::string& v) {
        if (std::find(choices.begin(), choices.end(), v) == choices.end())
          return "expected one of " + comma + got(v);
        target = v;
        return std::string();
      },
      std::move(description));
}

CommandLine::Option& CommandLine::custom(std::string_view names, std::string valueName,
                                         std::function<std::string(const std::string&)> apply,
                                         std::string description) {
  Option& o = add(names, std::move(valueName), std::move(description));
  o.apply = std::move(apply);
  return o;
}

void CommandLine::positionals(std::string valueName, std::vector<std::string>& target,
                              std::size_t max) {
  m_positionalName = std::move(valueName);
  m_positionals = &target;
  m_maxPositionals = max;
}

void CommandLine::positionalRoles(std::vector<PositionalRole> roles) {
  m_positionalRoles = std::move(roles);
}

namespace {

core::PathUse useOf(PathRole role) {
  switch (role) {
    case PathRole::Output:
      return core::PathUse::Written;
    case PathRole::InputAndOutput:
      return core::PathUse::ReadAndWritten;
    default:
      return core::PathUse::Read;
  }
}

// How a message names an option: its long name when it has one ("--out" for -o).
std::string longName(const std::vector<std::string>& names, const std::string& typed) {
  for (const auto& n : names)
    if (isLongOption(n)) return n;
  return typed;
}

}  // namespace

std::optional<int> CommandLine::checkPaths(const std::vector<core::NamedPath>& more) const {
  std::vector<core::NamedPath> all = m_paths;
  all.insert(all.end(), more.begin(), more.end());
  if (auto clash = core::outputOverInput(all)) return usageError(*clash);
  return std::nullopt;
}

CommandLine::Option* CommandLine::find(std::string_view name) {
  for (Option& o : m_options)
    if (std::find(o.names.begin(), o.names.end(), name) != o.names.end()) return &o;
  return nullptr;
}

const CommandLine::Option* CommandLine::find(std::string_view name) const {
  return const_cast<CommandLine*>(this)->find(name);
}

bool CommandLine::given(std::string_view name) const { return count(name) > 0; }

std::size_t CommandLine::count(std::string_view name) const {
  const Option* o = find(name);
  return o ? o->seen : 0;
}

int CommandLine::usageError(const std::string& message) const {
  std::cerr << "ragscope-cli " << m_command << ": " << message << "\n"
            << "Run 'ragscope-cli " << m_command << " --help' for usage.\n";
  return 2;
}

std::optional<int> CommandLine::parse(const Args& args, std::size_t first) {
  bool optionsEnded = false;
  std::size_t positionalCount = 0;
  auto positional = [&](const std::string& a) -> std::optional<int> {
    if (!m_positionals || positionalCount >= m_maxPositionals)
      return usageError("unexpected argument '" + a + "'");
    m_positionals->push_back(a);
    if (!m_positionalRoles.empty()) {
      const PositionalRole& r =
          m_positionalRoles[std::min(positionalCount, m_positionalRoles.size() - 1)];
      if (r.role != PathRole::NotAFile) m_paths.push_back({r.name, a, useOf(r.role)});
    }
    ++positionalCount;
    return std::nullopt;
  };
  auto unknown = [&](const std::string& name) {
    const bool note = !m_unknownNote.empty() && !isLongOption(name);
    return usageError("unknown option '" + name + "'" + (note ? " (" + m_unknownNote + ")" : ""));
  };
  // The next argument as a value: anything, a leading '-' included (`-l -1`), except a declared
  // long option, which means the value was left out (`--dataset --retriever bm25`).
  auto takeNext = [&](std::size_t& i, std::string& value) {
    if (i + 1 >= args.size()) return false;
    const std::string& next = args[i + 1];
    if (isLongOption(next) && (next == "--help" || find(next.substr(0, next.find('=')))))
      return false;
    value = args[++i];
    return true;
  };
  auto applyValue = [&](Option& o, const std::string& name,
                        const std::string& value) -> std::optional<int> {
    ++o.seen;
    if (const std::string problem = o.apply(value); !problem.empty())
      return usageError(display(name) + ": " + problem);
    if (o.role && *o.role != PathRole::NotAFile) {
      if (o.derived) {
        for (auto& p : o.derived(value)) m_paths.push_back(std::move(p));
      } else {
        m_paths.push_back({longName(o.names, name), value, useOf(*o.role)});
      }
    }
    return std::nullopt;
  };
  auto needsValue = [&](const Option& o, const std::string& name) {
    return usageError(display(name) + " needs a value (" + o.valueName + ")");
  };

  for (std::size_t i = first; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (optionsEnded || a == "-" || a.size() < 2 || a[0] != '-') {
      if (auto exit = positional(a)) return exit;
      continue;
    }
    if (a == "--") {
      optionsEnded = true;
      continue;
    }
    if (a[1] == '-') {
      const std::size_t eq = a.find('=');
      const std::string name = a.substr(0, eq);
      if (name == "--help") {
        std::cout << help();
        return 0;
      }
      Option* o = find(name);
      if (!o) return unknown(name);
      if (!o->apply) {
        if (eq != std::string::npos) return usageError(name + " takes no value");
        ++o->seen;
        o->set();
        continue;
      }
      std::string value;
      if (eq != std::string::npos)
        value = a.substr(eq + 1);
      else if (!takeNext(i, value))
        return needsValue(*o, name);
      if (auto exit = applyValue(*o, name, value)) return exit;
      continue;
    }
    // Short options, as getopt reads them: flags combined (-qc), then at most one option with a
    // value, glued (-l2, -mP.5,10) or in the next argument.
    for (std::size_t k = 1; k < a.size(); ++k) {
      const std::string name = std::string("-") + a[k];
      Option* o = find(name);
      if (!o && name == "-h") {
        std::cout << help();
        return 0;
      }
      if (!o) return unknown(name);
      if (!o->apply) {
        ++o->seen;
        o->set();
        continue;
      }
      std::string value = a.substr(k + 1);
      if (value.empty() && !takeNext(i, value)) return needsValue(*o, name);
      if (auto exit = applyValue(*o, name, value)) return exit;
      break;
    }
  }
  // Before the command does anything: no output over one of its inputs, no two outputs on one
  // file (core/util/outputcheck.h).
  return checkPaths({});
}

std::string CommandLine::usageLine() const {
  std::string synopsis = m_synopsis;
  if (synopsis.empty()) {
    synopsis = "[options]";
    if (m_positionals && !m_positionalName.empty()) synopsis += " " + m_positionalName;
  }
  const std::string head = "usage: ragscope-cli " + m_command + " ";
  return head + wrapText(synopsis, kWidth, head.size(), head.size()) + "\n";
}

std::string CommandLine::help() const {
  struct Row {
    std::string label, description;
  };
  std::vector<std::pair<std::string, std::vector<Row>>> sections;
  auto rowsOf = [&](const std::string& title) -> std::vector<Row>& {
    for (auto& [t, rows] : sections)
      if (t == title) return rows;
    return sections.emplace_back(title, std::vector<Row>{}).second;
  };
  rowsOf("Options");  // first, with -h/--help, even when a command declares none of its own
  for (const Option& o : m_options) {
    if (o.hidden) continue;
    std::string label;
    for (const auto& n : o.names) label += (label.empty() ? "" : ", ") + n;
    if (!o.valueName.empty()) label += " " + o.valueName;
    rowsOf(o.section).push_back({label, o.description});
  }
  rowsOf("Options").push_back({"-h, --help", "print this help"});

  std::size_t labelWidth = 0;
  for (const auto& [title, rows] : sections)
    for (const Row& r : rows)
      if (r.label.size() <= kMaxLabelWidth) labelWidth = std::max(labelWidth, r.label.size());
  const std::size_t column = 2 + labelWidth + 2;

  std::string out = usageLine();
  if (!m_intro.empty()) out += "\n" + m_intro + (m_intro.back() == '\n' ? "" : "\n");
  for (const auto& [title, rows] : sections) {
    if (rows.empty()) continue;
    out += "\n" + title + ":\n";
    for (const Row& r : rows) {
      std::string line = "  " + r.label;
      if (r.label.size() > labelWidth) {
        out += line + "\n";
        line.clear();
      }
      line.resize(column, ' ');
      out += line + wrapText(r.description, kWidth, column, column) + "\n";
    }
  }
  if (!m_epilogue.empty()) out += "\n" + m_epilogue + (m_epilogue.back() == '\n' ? "" : "\n");
  return out;
}

}  // namespace ragscope::cli
