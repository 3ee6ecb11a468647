#include "core/export/json.h"

#include "core/util/atomicfile.h"

namespace ragscope::core::exporting {

namespace {

template <class Json>
std::string text(const Json& value, int indent) {
  return value.dump(indent, ' ', /*ensure_ascii=*/false, Json::error_handler_t::replace);
}

template <class Json>
bool write(std::ostream& out, const Json& value, int indent) {
  out << text(value, indent) << '\n';
  return out.good();
}

template <class Json>
bool writeFile(const std::filesystem::path& path, const Json& value, std::string* error, int indent,
               bool fsyncFile) {
  // Serialised before the temporary file exists: nothing to clean up if it were to fail.
  const std::string content = text(value, indent);
  return writeFileAtomically(
      path, [&](std::ostream& out) { return static_cast<bool>(out << content << '\n'); }, error,
      fsyncFile);
}

}  // namespace

std::string jsonText(const nlohmann::json& value, int indent) { return text(value, indent); }
std::string jsonText(const nlohmann::ordered_json& value, int indent) {
  return text(value, indent);
}

bool writeJson(std::ostream& out, const nlohmann::json& value, int indent) {
  return write(out, value, indent);
}
bool writeJson(std::ostream& out, const nlohmann::ordered_json& value, int indent) {
  return write(out, value, indent);
}

bool writeJsonFile(const std::filesystem::path& path, const nlohmann::json& value,
                   std::string* error, int indent, bool fsyncFile) {
  return writeFile(path, value, error, indent, fsyncFile);
}
bool writeJsonFile(const std::filesystem::path& path, const nlohmann::ordered_json& value,
                   std::string* error, int indent, bool fsyncFile) {
  return writeFile(path, value, error, indent, fsyncFile);
}

}  // namespace ragscope::core::exporting
