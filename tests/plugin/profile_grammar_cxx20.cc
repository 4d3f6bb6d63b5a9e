// Compiles plugin/profile_grammar.h as C++20, the driver's language, and instantiates its
// functions there.
#include "profile_grammar.h"

namespace {
[[maybe_unused]] std::string round_trip(std::string_view text) {
  auto parsed = looprace::profile::parse(text);
  auto* profile = std::get_if<looprace::profile::Profile>(&parsed);
  return profile ? looprace::profile::format_profile(*profile) : std::string();
}
}  // namespace
