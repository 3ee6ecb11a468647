#include "core/store/project.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include "core/data/jsonguard.h"
#include "core/util/atomicfile.h"
#include "core/util/inputfile.h"
#include "core/util/jsonstrict.h"
#include "core/util/outputcheck.h"

namespace ragscope::core {

namespace fs = std::filesystem;
using nlohmann::json;
// Written with keys in a fixed, readable order (json's objects are sorted by key).
using OrderedJson = nlohmann::ordered_json;

namespace {

// Project files are a few KiB; anything this large is not one, and we refuse to buffer it.
constexpr std::uintmax_t kMaxProjectBytes = std::uintmax_t{16} << 20;
// A project file is three levels deep; deeper input is hostile or garbage, and is rejected before
// the parser sees it.
constexpr int kMaxProjectJsonDepth = 64;

std::string errnoText(int err) { return std::strerror(err); }

std::uint64_t lineOfByte(std::string_view text, std::size_t byte) {
  byte = std::min(byte, text.size());
  std::uint64_t line = 1;
  for (std::size_t i = 0; i < byte; ++i)
    if (text[i] == '\n') ++line;
  return line;
}

const char* projectJsonType(const json& j) { return j.type_name(); }

// Collects problems with one project file; every one names the file and the JSON field.
class Checker {
 public:
  Checker(std::string file, LoadReport& report) : m_file(std::move(file)), m_report(report) {}

  void error(std::string field, std::string problem, std::uint64_t line = 0) {
    m_report.add({Severity::Error, m_file, line, std::move(field), std::move(problem)},
                 LoadOptions{}.maxStoredDiagnostics);
    m_report.stopped = true;
  }
  void warning(std::string field, std::string problem) {
    m_report.add({Severity::Warning, m_file, 0, std::move(field), std::move(problem)},
                 LoadOptions{}.maxStoredDiagnostics);
  }

  // Unknown keys are kept out of the model but never dropped silently: the user may have a typo.
  void warnUnknownKeys(const json& obj, const std::string& prefix,
                       std::initializer_list<std::string_view> known) {
    for (const auto& [key, value] : obj.items()) {
      bool isKnown = false;
      for (auto k : known) isKnown = isKnown || key == k;
      if (!isKnown) warning(prefix.empty() ? key : prefix + "." + key, "unknown field ignored");
    }
  }

  // A required string member; false (with an error) when absent or of the wrong type.
  bool requireString(const json& obj, const char* key, const std::string& field, std::string& out) {
    const auto it = obj.find(key);
    if (it == obj.end()) {
      error(field, "missing");
      return false;
    }
    if (!it->is_string()) {
      error(field, std::string("expected a string, found ") + projectJsonType(*it));
      return false;
    }
    out = it->get<std::string>();
    return true;
  }

 private:
  std::string m_file;
  LoadReport& m_report;
};

bool readWholeFile(const fs::path& file, std::string& out, Checker& check) {
  std::error_code ec;
  const auto status = fs::status(file, ec);
  if (ec || !fs::exists(status)) {
    check.error({}, "cannot open: " + (ec ? ec.message() : std::string("no such file")));
    return false;
  }
  if (fs::is_directory(status)) {
    check.error({}, "is a folder, not a project file");
    return false;
  }
  // Refuses devices, FIFOs and /proc files (which never end or block) before reading a byte.
  std::string error;
  std::uint64_t size = 0;
  std::FILE* in = openForReading(file, error, size);
  if (!in) {
    check.error({}, error);
    return false;
  }
  if (size > kMaxProjectBytes) {
    std::fclose(in);
    check.error({}, "too large for a project file (" + std::to_string(size) + " bytes)");
    return false;
  }
  out.assign(static_cast<std::size_t>(size), '\0');
  out.resize(std::fread(out.data(), 1, out.size(), in));
  const bool failed = std::ferror(in) != 0;
  const int err = errno;
  std::fclose(in);
  if (failed) {
    check.error({}, "read error: " + errnoText(err));
    return false;
  }
  // A UTF-8 BOM is common from Windows editors; the JSON parser would reject it.
  if (out.size() >= 3 && static_cast<unsigned char>(out[0]) == 0xEF &&
      static_cast<unsigned char>(out[1]) == 0xBB && static_cast<unsigned char>(out[2]) == 0xBF)
    out.erase(0, 3);
  return true;
}

void parseDatasets(const json& array, Project& project, Checker& check) {
  for (std::size_t i = 0; i < array.size(); ++i) {
    const std::string prefix = "datasets[" + std::to_string(i) + "]";
    const json& d = array[i];
    if (!d.is_object()) {
      check.error(prefix, std::string("expected an object, found ") + projectJsonType(d));
      continue;
    }
    check.warnUnknownKeys(d, prefix, {"name", "parts"});
    ProjectDataset ds;
    check.requireString(d, "name", prefix + ".name", ds.name);
    const auto parts = d.find("parts");
    if (parts == d.end()) {
      check.error(prefix + ".parts", "missing");
    } else if (!parts->is_array()) {
      check.error(prefix + ".parts",
                  std::string("expected an array, found ") + projectJsonType(*parts));
    } else {
      for (std::size_t j = 0; j < parts->size(); ++j) {
        const std::string partField = prefix + ".parts[" + std::to_string(j) + "]";
        const json& p = (*parts)[j];
        if (!p.is_object()) {
          check.error(partField, std::string("expected an object, found ") + projectJsonType(p));
          continue;
        }
        check.warnUnknownKeys(p, partField, {"path", "format"});
        ProjectDataset::Part part;
        if (check.requireString(p, "path", partField + ".path", part.path) && part.path.empty())
          check.error(partField + ".path", "empty");
        const auto format = p.find("format");
        if (format != p.end() && !format->is_null()) {
          if (!format->is_string())
            check.error(partField + ".format", std::string("expected a string or null, found ") +
                                                   projectJsonType(*format));
          else if (!format->get_ref<const std::string&>().empty())
            part.format = format->get<std::string>();
        }
        ds.parts.push_back(std::move(part));
      }
    }
    project.datasets.push_back(std::move(ds));
  }
}

OrderedJson toJson(const Project& project, const fs::path& target) {
  // When saving to another folder ("save as"), relative paths are rebased so they still name the
  // same files.
  const fs::path oldBase = project.file.empty()
                               ? fs::path{}
                               : fs::absolute(project.file).parent_path().lexically_normal();
  const fs::path newBase = fs::absolute(target).parent_path().lexically_normal();
  const bool rebase = !oldBase.empty() && oldBase != newBase;
  auto rebased = [&](const std::string& path) {
    if (!rebase || fs::path(path).is_absolute()) return path;
    const fs::path absolute = (oldBase / path).lexically_normal();
    const fs::path relative = absolute.lexically_relative(newBase);
    return relative.empty() ? absolute.generic_string() : relative.generic_string();
  };

  OrderedJson datasets = OrderedJson::array();
  for (const auto& ds : project.datasets) {
    OrderedJson parts = OrderedJson::array();
    for (const auto& part : ds.parts) {
      OrderedJson p = OrderedJson::object();
      p["path"] = rebased(part.path);
      if (part.format) p["format"] = *part.format;
      parts.push_back(std::move(p));
    }
    OrderedJson d = OrderedJson::object();
    d["name"] = ds.name;
    d["parts"] = std::move(parts);
    datasets.push_back(std::move(d));
  }
  OrderedJson root = OrderedJson::object();
  root["version"] = project.version;
  root["name"] = project.name;
  root["description"] = project.description;
  root["datasets"] = std::move(datasets);
  // Written only when there are some: projects without stored runs keep their old shape.
  if (!project.runStores.empty()) {
    OrderedJson runs = OrderedJson::array();
    for (const auto& store : project.runStores) runs.push_back(rebased(store));
    root["runs"] = std::move(runs);
  }
  if (!project.retrievers.empty()) {
    OrderedJson retrievers = OrderedJson::array();
    for (const auto& r : project.retrievers)
      retrievers.push_back(OrderedJson::parse(retrieverSpecToJson(r).dump()));
    root["retrievers"] = std::move(retrievers);
  }
  return root;
}

}  // namespace

fs::path Project::resolve(const ProjectDataset::Part& part) const { return resolve(part.path); }

fs::path Project::resolve(const std::string& path) const {
  const fs::path p(path);
  if (p.is_absolute() || file.empty()) return p.lexically_normal();
  return (file.parent_path() / p).lexically_normal();
}

PartCheck Project::checkPart(const std::string& path) const {
  PartCheck out;
  const fs::path where = resolve(path);
  std::error_code ec;
  const fs::path absolute = fs::absolute(where, ec);
  out.resolved = fs::weakly_canonical(ec ? where : absolute, ec);
  if (ec) out.resolved = absolute.lexically_normal();
  if (fs::is_directory(where, ec)) {
    if (isSystemPath(where)) {
      out.place = PartPlace::Special;
      out.problem = "is a system folder; ragscope never reads under /proc, /sys or /dev";
      return out;
    }
  } else if (auto why = specialFileProblem(where)) {
    out.place = PartPlace::Special;
    out.problem = *why;
    return out;
  } else if (isSystemPath(where)) {  // not there (yet): still never read
    out.place = PartPlace::Special;
    out.problem = "is under /proc, /sys or /dev; ragscope never reads there";
    return out;
  }
  // The folder as the file system has it, so a symlink inside it that leads out counts as out.
  // folderOf, not file.parent_path(): a bare "NAME.json" has an empty parent path, which once
  // made every part count as inside (core/util/outputcheck.h).
  const fs::path base = file.empty() ? fs::current_path(ec) : folderOf(file);
  fs::path folder = fs::weakly_canonical(fs::absolute(base, ec), ec);
  if (ec) folder = fs::absolute(base).lexically_normal();
  const auto [f, r] =
      std::mismatch(folder.begin(), folder.end(), out.resolved.begin(), out.resolved.end());
  out.place = f == folder.end() ? PartPlace::Inside : PartPlace::Outside;
  return out;
}

std::vector<fs::path> Project::outsideParts(const ProjectDataset& ds) const {
  std::vector<fs::path> out;
  for (const auto& part : ds.parts) {
    PartCheck check = checkPart(part.path);
    if (check.place == PartPlace::Outside) out.push_back(std::move(check.resolved));
  }
  return out;
}

std::vector<DatasetPart> Project::datasetParts(const ProjectDataset& ds, LoadReport& report) const {
  // Name the dataset by its index when it belongs to this project, so the message points at the
  // field in the file.
  std::string prefix = "dataset '" + ds.name + "'";
  for (std::size_t i = 0; i < datasets.size(); ++i)
    if (&datasets[i] == &ds) prefix = "datasets[" + std::to_string(i) + "]";
  const std::string fileName = file.string();
  const auto maxStored = LoadOptions{}.maxStoredDiagnostics;

  std::vector<DatasetPart> out;
  for (std::size_t j = 0; j < ds.parts.size(); ++j) {
    const auto& part = ds.parts[j];
    const std::string field = prefix + ".parts[" + std::to_string(j) + "]";
    const fs::path path = resolve(part);
    std::optional<Format> format;
    if (part.format) {
      format = formatFromName(*part.format);
      if (!format) {
        std::string known;
        for (Format f : allFormats())
          known += (known.empty() ? "" : ", ") + std::string(formatName(f));
        report.add({Severity::Error, fileName, 0, field + ".format",
                    "unknown format '" + *part.format + "' (known: " + known + ")"},
                   maxStored);
        continue;
      }
    }
    const PartCheck where = checkPart(part.path);
    if (where.place == PartPlace::Special) {
      report.add({Severity::Error, fileName, 0, field + ".path",
                  "not read: " + path.string() + " " + where.problem},
                 maxStored);
      continue;
    }
    // A missing file is reported against the project field that names it, which tells the user
    // what to fix better than a loader's "cannot open" would.
    std::error_code ec;
    if (!fs::exists(path, ec)) {
      report.add({Severity::Error, fileName, 0, field + ".path", "not found: " + path.string()},
                 maxStored);
      continue;
    }
    if (where.place == PartPlace::Outside)
      report.add({Severity::Warning, fileName, 0, field + ".path",
                  "outside the project folder: " + where.resolved.string()},
                 maxStored);
    // No format named: left empty, so loadDataset() detects it (and treats folders as bundles).
    out.push_back(DatasetPart{path, format});
  }
  return out;
}

void Project::putDataset(ProjectDataset dataset) {
  for (auto& ds : datasets)
    if (ds.name == dataset.name) {
      ds = std::move(dataset);
      return;
    }
  datasets.push_back(std::move(dataset));
}

ProjectDataset makeProjectDataset(std::string name, const std::vector<DatasetPart>& parts,
                                  const fs::path& projectFile) {
  const fs::path base = fs::absolute(projectFile).parent_path().lexically_normal();
  ProjectDataset ds;
  ds.name = std::move(name);
  for (const auto& part : parts) {
    const fs::path absolute = fs::absolute(part.path).lexically_normal();
    const fs::path relative = absolute.lexically_relative(base);
    ProjectDataset::Part p;
    p.path = relative.empty() ? absolute.generic_string() : relative.generic_string();
    if (part.format) p.format = std::string(formatName(*part.format));
    ds.parts.push_back(std::move(p));
  }
  return ds;
}

Loaded<Project> readProject(const fs::path& file) {
  Loaded<Project> result;
  result.value.file = file;
  Checker check(file.string(), result.report);

  std::string text;
  if (!readWholeFile(file, text, check)) return result;

  if (const auto deepAt = jsonDepthExceededAt(text, kMaxProjectJsonDepth)) {
    check.error({}, "JSON nested deeper than " + std::to_string(kMaxProjectJsonDepth) + " levels",
                lineOfByte(text, *deepAt));
    return result;
  }

  // Strict (core/util/jsonstrict.h): a member given twice would let the file name one path to
  // a reader and another to ragscope (json::parse keeps the last).
  json root;
  if (JsonStrictError why; !parseJsonStrict(text, root, &why, kMaxProjectJsonDepth)) {
    // why.byte is 1-based and points just past the offending character (or repeated name).
    const std::size_t at = why.byte > 0 ? why.byte - 1 : 0;
    if (why.repeated) {
      check.error(why.field, why.problem, lineOfByte(text, at));
    } else if (why.byte > 0) {
      std::string what = why.problem;
      // Drop nlohmann's "[json.exception.parse_error.101] " prefix: the user needs the sentence.
      if (const auto pos = what.find("] "); pos != std::string::npos) what.erase(0, pos + 2);
      check.error({}, "invalid JSON: " + what, lineOfByte(text, at));
    } else {
      // out_of_range 406: a number beyond a double ("1e400"), placed at the number it quotes.
      const auto place = describeJsonParseError(text, 1, 0, why.problem);
      check.error({}, place.problem, place.line);
    }
    return result;
  }

  if (!root.is_object()) {
    check.error({}, std::string("expected a JSON object, found ") + projectJsonType(root));
    return result;
  }

  // The version is checked first: a newer file may use fields this build knows nothing of, and
  // half-reading it would be worse than refusing it.
  const auto version = root.find("version");
  if (version == root.end()) {
    check.error("version", "missing (expected " + std::to_string(Project::kVersion) + ")");
    return result;
  }
  if (!version->is_number_integer()) {
    check.error("version", std::string("expected an integer, found ") + projectJsonType(*version));
    return result;
  }
  const auto v = version->get<long long>();
  if (v != Project::kVersion) {
    check.error("version", "unsupported project version " + std::to_string(v) +
                               " (this ragscope reads version " +
                               std::to_string(Project::kVersion) + ")");
    return result;
  }
  result.value.version = static_cast<int>(v);

  check.warnUnknownKeys(root, {},
                        {"version", "name", "description", "datasets", "runs", "retrievers"});
  check.requireString(root, "name", "name", result.value.name);
  if (const auto d = root.find("description"); d != root.end() && !d->is_null()) {
    if (d->is_string())
      result.value.description = d->get<std::string>();
    else
      check.error("description", std::string("expected a string, found ") + projectJsonType(*d));
  }
  const auto datasets = root.find("datasets");
  if (datasets == root.end())
    check.error("datasets", "missing");
  else if (!datasets->is_array())
    check.error("datasets", std::string("expected an array, found ") + projectJsonType(*datasets));
  else
    parseDatasets(*datasets, result.value, check);

  if (const auto runs = root.find("runs"); runs != root.end() && !runs->is_null()) {
    if (!runs->is_array()) {
      check.error("runs",
                  std::string("expected an array of paths, found ") + projectJsonType(*runs));
    } else {
      for (std::size_t i = 0; i < runs->size(); ++i) {
        const json& r = (*runs)[i];
        const std::string field = "runs[" + std::to_string(i) + "]";
        if (!r.is_string())
          check.error(field, std::string("expected a path, found ") + projectJsonType(r));
        else if (r.get_ref<const std::string&>().empty())
          check.error(field, "empty");
        else
          result.value.runStores.push_back(r.get<std::string>());
      }
    }
  }

  if (const auto retrievers = root.find("retrievers");
      retrievers != root.end() && !retrievers->is_null()) {
    if (!retrievers->is_array()) {
      check.error("retrievers",
                  std::string("expected an array, found ") + projectJsonType(*retrievers));
    } else {
      for (std::size_t i = 0; i < retrievers->size(); ++i) {
        std::string why;
        if (auto spec = retrieverSpecFromJson((*retrievers)[i], &why))
          result.value.retrievers.push_back(std::move(*spec));
        else
          check.error("retrievers[" + std::to_string(i) + "]", why);
      }
    }
  }

  result.report.records = result.value.datasets.size();
  return result;
}

std::optional<std::string> writeProject(const Project& project, const fs::path& file) {
  std::string text;
  try {
    text = toJson(project, file).dump(2) + "\n";
  } catch (const json::exception& e) {
    // dump() throws on invalid UTF-8 in a name or path.
    return file.string() + ": cannot serialise project: " + e.what();
  }

  std::string error;
  const bool ok = writeFileAtomically(
      file,
      [&](std::ostream& out) {
        out << text;
        return true;
      },
      &error, /*fsyncFile=*/true);
  if (!ok) return error;
  return std::nullopt;
}

std::optional<fs::path> findDemoProject() {
  const fs::path relative = fs::path("demo") / "demo.ragscope.json";
  std::vector<fs::path> roots;

  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && !exe.empty()) {
    const fs::path bin = exe.parent_path();
    roots.push_back(bin / ".." / "share" / "ragscope" / "resources");  // installed layout
  }
#ifdef RAGSCOPE_RESOURCES_DIR
  roots.emplace_back(RAGSCOPE_RESOURCES_DIR);  // the source tree this binary was built from
#endif
  if (!ec && !exe.empty()) roots.push_back(exe.parent_path() / ".." / ".." / "resources");

  for (const auto& root : roots) {
    const fs::path candidate = (root / relative).lexically_normal();
    std::error_code existsError;
    if (fs::is_regular_file(candidate, existsError)) return candidate;
  }
  return std::nullopt;
}

}  // namespace ragscope::core
