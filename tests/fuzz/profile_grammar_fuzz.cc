// libFuzzer target: the profile grammar (plugin/profile_grammar.h), which GCC runs on every
// profile it is given. Any input: no crash, no hang, no sanitizer report; a profile that parses
// is written back and parses again to the same text (what `looprace race` does to the lines of
// other loops when it rewrites a profile).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "profile_grammar.h"

namespace lp = looprace::profile;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  lp::ParseResult parsed = lp::parse(text);
  if (auto* error = std::get_if<lp::ParseError>(&parsed)) {
    if (error->line < 1 || error->message.empty()) __builtin_trap();  // a diagnostic names its line
    return 0;
  }
  const std::string written = lp::format_profile(std::get<lp::Profile>(parsed));
  lp::ParseResult again = lp::parse(written);
  if (!std::holds_alternative<lp::Profile>(again)) __builtin_trap();
  if (lp::format_profile(std::get<lp::Profile>(again)) != written) __builtin_trap();
  return 0;
}
