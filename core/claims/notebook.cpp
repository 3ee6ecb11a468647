#include "core/claims/notebook.h"

namespace ragscope::core::claims {

ClaimScore supportScore(std::span<const Label> labels) {
  ClaimScore s;
  s.total = labels.size();
  for (Label l : labels) {
    if (l == Label::Unparsed)
      ++s.unparsed;
    else if (l == Label::Error)
      ++s.errors;
    else if (isSupported(l))
      ++s.supported;
    else
      ++s.unsupported;
  }
  if (s.scored() > 0) {
    s.state = ScoreState::Scored;
    s.value = static_cast<double>(s.supported) / static_cast<double>(s.scored());
  } else if (s.total == 0) {
    s.state = ScoreState::Empty;
  } else {
    s.state = s.unparsed > 0 ? ScoreState::Unparsed : ScoreState::Error;
  }
  return s;
}

MarkerCounts countSupportedMarkers(std::string_view reply) {
  constexpr std::string_view marker = "SUPPORTED=";
  MarkerCounts c;
  for (std::size_t at = reply.find(marker); at != std::string_view::npos;
       at = reply.find(marker, at + marker.size())) {
    const std::size_t digit = at + marker.size();
    if (digit >= reply.size()) break;
    if (reply[digit] == '1') ++c.supported;
    if (reply[digit] == '0') ++c.unsupported;
  }
  return c;
}

double notebookScore(const MarkerCounts& counts) {
  const std::size_t n = counts.supported + counts.unsupported;
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  return static_cast<double>(counts.supported) / static_cast<double>(n);
}

}  // namespace ragscope::core::claims
