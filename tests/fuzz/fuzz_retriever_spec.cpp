// Retriever specs as project files hold them (core/retrieval/retrieverspec.h:
// retrieverSpecFromJson; dense and hybrid since issue 36): any JSON is read strictly, a spec read
// is written and read back the same, and a refusal is one printable line naming a field. The
// input is also read as a `--retriever` argument (parseRetrieverArg: "hybrid:A+B", "dense:URL").
// max_len: 16384
// dict: json
// seed: tests/fuzz/seeds/retriever_spec

#include <nlohmann/json.hpp>
#include <string>

#include "core/retrieval/retrieverspec.h"
#include "core/util/textescape.h"
#include "fuzzsupport.h"

using namespace ragscope;

namespace {

void checkSpec(const core::RetrieverSpec& spec) {
  const nlohmann::json written = core::retrieverSpecToJson(spec);
  std::string error;
  const auto back = core::retrieverSpecFromJson(written, &error);
  fuzz::check(back.has_value(), "a spec written reads back");
  if (back) fuzz::check(core::retrieverSpecToJson(*back) == written, "the same spec reads back");
  fuzz::touch(core::describeRetriever(spec));
  for (const auto& endpoint : core::retrieverTrustEndpoints(spec)) fuzz::touch(endpoint.baseUrl);
  if (auto e = core::retrieverTrustEndpoint(spec)) fuzz::touch(e->baseUrl);
}

// A `dense:URL` argument names no model: the command line adds it (--embed-model), and a spec
// without one is refused wherever it is used, a project file included. The argument's spec is
// checked as the command line completes it.
void addModel(core::RetrieverSpec& spec) {
  if (spec.kind == core::RetrieverSpec::Kind::Dense && spec.url != "offline" &&
      spec.embedModel.empty())
    spec.embedModel = "model";
  for (auto& member : spec.members) addModel(member);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input = fuzz::bytes(data, size);
  if (fuzz::hasOverflowingNumber(input)) return -1;  // issue 12 item 1 (elsewhere)
  std::string error;
  if (auto arg = core::parseRetrieverArg(input, &error)) {
    addModel(*arg);
    checkSpec(*arg);
  } else {
    fuzz::touch(error);
  }

  const auto json = nlohmann::json::parse(input, nullptr, false);
  if (json.is_discarded()) return 0;
  error.clear();
  if (auto spec = core::retrieverSpecFromJson(json, &error)) {
    checkSpec(*spec);
  } else {
    fuzz::check(error.rfind("retriever: ", 0) == 0, "a refusal starts with 'retriever: '");
    fuzz::check(error.find('\n') == std::string::npos, "a refusal is one line");
  }
  return 0;
}
