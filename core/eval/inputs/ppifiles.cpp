#include "core/eval/inputs/ppifiles.h"

#include <charconv>
#include <cmath>
#include <map>
#include <optional>

#include "core/data/csvreader.h"

namespace ragscope::core::eval {

namespace {

// One id,value file: id -> (value, line), in file order of first appearance.
struct PpiCsvValues {
  std::map<std::string, std::pair<double, std::uint64_t>, std::less<>> byId;
  std::vector<std::string> order;
};

constexpr std::size_t kPpiMaxRecordBytes = 1 << 20;

std::optional<double> ppiParseValue(const std::string& text) {
  std::string_view t = text;
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) t.remove_prefix(1);
  while (!t.empty() && (t.back() == ' ' || t.back() == '\t' || t.back() == '\r'))
    t.remove_suffix(1);
  if (!t.empty() && t.front() == '+') t.remove_prefix(1);
  if (t.empty()) return std::nullopt;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || ptr != t.data() + t.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

bool readPpiCsv(const std::filesystem::path& path, PpiCsvValues& out, std::string& error) {
  const std::string file = path.string();
  CsvReader csv(path, kPpiMaxRecordBytes);
  if (!csv.isOpen()) {
    error = file + ": " + csv.openError();
    return false;
  }
  auto csvProblem = [&]() {
    const CsvError& e = csv.error();
    error = file + ":" + std::to_string(e.line) + ": " + e.field + ": " + e.problem;
    return false;
  };
  std::vector<std::string> header, fields;
  const auto st = csv.readHeader(header);
  if (st == CsvReader::Status::End) {
    error = file + ": the file is empty (expected a header id,value)";
    return false;
  }
  if (st == CsvReader::Status::Error) return csvProblem();
  std::optional<std::size_t> idCol, valueCol;
  for (std::size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "id") idCol = i;
    if (header[i] == "value") valueCol = i;
  }
  if (!idCol || !valueCol) {
    error = file + ":1: header: expected the columns id and value";
    return false;
  }
  while (true) {
    const auto s = csv.next(fields);
    if (s == CsvReader::Status::End) break;
    if (s == CsvReader::Status::Error) return csvProblem();
    const std::uint64_t line = csv.recordLine();
    const std::string where = file + ":" + std::to_string(line) + ": ";
    const std::string& id = fields[*idCol];
    if (id.empty()) {
      error = where + "id: empty";
      return false;
    }
    const auto value = ppiParseValue(fields[*valueCol]);
    if (!value) {
      error = where + "value: \"" + fields[*valueCol] + "\" is not a finite number";
      return false;
    }
    const auto [it, inserted] = out.byId.try_emplace(id, *value, line);
    if (!inserted) {
      error = where + "id: \"" + id + "\" is also on line " + std::to_string(it->second.second);
      return false;
    }
    out.order.push_back(id);
  }
  return true;
}

}  // namespace

PpiFiles readPpiFiles(const std::filesystem::path& predictions,
                      const std::filesystem::path& labels) {
  PpiFiles out;
  PpiCsvValues f, y;
  if (!readPpiCsv(predictions, f, out.error) || !readPpiCsv(labels, y, out.error)) return out;
  std::vector<std::string> unknown;
  for (const auto& id : y.order)
    if (!f.byId.contains(id)) unknown.push_back(id);
  if (!unknown.empty()) {
    std::string list;
    for (std::size_t i = 0; i < unknown.size() && i < 10; ++i)
      list += (i ? ", " : "") + ("\"" + unknown[i] + "\" (line " +
                                 std::to_string(y.byId.at(unknown[i]).second) + ")");
    if (unknown.size() > 10) list += " and " + std::to_string(unknown.size() - 10) + " more";
    out.error = labels.string() + ": " + std::to_string(unknown.size()) + " id(s) not in " +
                predictions.string() + ": " + list;
    return out;
  }
  for (const auto& id : f.order) {
    const double fv = f.byId.at(id).first;
    if (const auto it = y.byId.find(id); it != y.byId.end()) {
      out.input.labelledF.push_back(fv);
      out.input.labelledY.push_back(it->second.first);
      out.labelledIds.push_back(id);
    } else {
      out.input.unlabelledF.push_back(fv);
      out.unlabelledIds.push_back(id);
    }
  }
  return out;
}

}  // namespace ragscope::core::eval
