#include "core/trecrag/nuggetfile.h"

#include <nlohmann/json.hpp>
#include <unordered_map>

#include "core/data/jsonfields.h"
#include "core/data/jsonlines.h"

namespace ragscope::core::trecrag {

namespace {

// A wrong spelling, quoted for the message (bounded: the value is from elsewhere).
std::string quoted(const nlohmann::json& value) {
  std::string s = value.is_string()
                      ? value.get<std::string>()
                      : value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (s.size() > 60) s = s.substr(0, 60) + "...";
  return value.is_string() ? "'" + s + "'" : s;
}

}  // namespace

std::optional<Importance> importanceFromName(std::string_view name) {
  if (name == "vital") return Importance::Vital;
  if (name == "okay") return Importance::Okay;
  return std::nullopt;
}

std::optional<Assignment> assignmentFromName(std::string_view name) {
  if (name == "support") return Assignment::Support;
  if (name == "partial_support") return Assignment::PartialSupport;
  if (name == "not_support") return Assignment::NotSupport;
  return std::nullopt;
}

const char* importanceName(Importance importance) {
  return importance == Importance::Vital ? "vital" : "okay";
}

const char* assignmentName(Assignment assignment) {
  switch (assignment) {
    case Assignment::Support:
      return "support";
    case Assignment::PartialSupport:
      return "partial_support";
    case Assignment::NotSupport:
      break;
  }
  return "not_support";
}

Loaded<std::vector<NuggetQuery>> readAssignedNuggets(const std::filesystem::path& path,
                                                     const LoadOptions& options) {
  Loaded<std::vector<NuggetQuery>> out;
  std::unordered_map<std::string, std::uint64_t> lineOfQid;
  out.report = readJsonRecords(
      path, options,
      [&](nlohmann::json& record, const JsonRecordPlace& place, RecordProblems& problems) {
        if (!record.is_object()) {
          problems.error("record", "expected a JSON object, got " + core::jsonTypeName(record));
          return;
        }
        NuggetQuery q;
        q.line = place.line;
        auto qid = jsonId(record, "qid", problems, /*required=*/true);
        if (!qid) return;  // jsonId named the problem (missing, empty, not an id)
        if (auto query = jsonString(record, "query", problems, /*required=*/false))
          q.query = std::move(*query);
        const auto nuggets = record.find("nuggets");
        if (nuggets == record.end())
          return problems.error("nuggets", "missing (expected an array of nuggets)");
        if (!nuggets->is_array())
          return problems.error("nuggets",
                                "expected an array, got " + core::jsonTypeName(*nuggets));
        for (std::size_t i = 0; i < nuggets->size(); ++i) {
          const nlohmann::json& n = (*nuggets)[i];
          const std::string at = indexedField("nuggets", i);
          if (!n.is_object()) {
            problems.error(at, "expected an object, got " + core::jsonTypeName(n));
            continue;
          }
          Nugget nugget;
          const auto text = n.find("text");
          if (text == n.end() || !text->is_string()) {
            problems.error(at + ".text",
                           text == n.end() ? "missing"
                                           : "expected a string, got " + core::jsonTypeName(*text));
          } else {
            nugget.text = text->get<std::string>();
          }
          const auto importance = n.find("importance");
          const auto imp = importance != n.end() && importance->is_string()
                               ? importanceFromName(importance->get_ref<const std::string&>())
                               : std::nullopt;
          if (!imp)
            problems.error(
                at + ".importance",
                (importance == n.end() ? std::string("missing") : quoted(*importance) + " is not") +
                    " an importance (\"vital\" or \"okay\")");
          else
            nugget.importance = *imp;
          const auto assignment = n.find("assignment");
          const auto as = assignment != n.end() && assignment->is_string()
                              ? assignmentFromName(assignment->get_ref<const std::string&>())
                              : std::nullopt;
          if (!as)
            problems.error(
                at + ".assignment",
                (assignment == n.end() ? std::string("missing") : quoted(*assignment) + " is not") +
                    " an assignment (\"support\", \"partial_support\" or "
                    "\"not_support\")");
          else
            nugget.assignment = *as;
          q.nuggets.push_back(std::move(nugget));
        }
        if (problems.hasErrors()) return;
        const auto [first, fresh] = lineOfQid.emplace(*qid, place.line);
        if (!fresh)
          return problems.error("qid", "'" + *qid + "' appears again (first on line " +
                                           std::to_string(first->second) + "): one line per query");
        q.qid = std::move(*qid);
        out.value.push_back(std::move(q));
      },
      JsonLayout::Lines);
  if (out.report.ok() && !out.report.hasErrors() && out.value.empty())
    out.report.add({Severity::Error, path.string(), 0, "", "no queries (an empty file)"},
                   options.maxStoredDiagnostics);
  return out;
}

}  // namespace ragscope::core::trecrag
