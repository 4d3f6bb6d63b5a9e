// Loop selectors as written by users: an id, a readable location file:line:col (file matched
// as a path suffix), or '*' for every loop.
#ifndef LOOPRACE_PLUGIN_LOOP_SELECTION_H
#define LOOPRACE_PLUGIN_LOOP_SELECTION_H

#include "gcc_headers.h"
#include "loop_identity.h"

namespace looprace {

struct LoopSelector {
  std::string text;  // as written, for diagnostics
  std::string id;
  std::optional<profile::Location> location;
  bool all = false;
};

// Parses one selector; nullopt when it is neither an id, a location nor '*' (or 'all').
std::optional<LoopSelector> parse_selector(std::string_view text);

// True when selector names the loop.
bool selector_matches(const LoopSelector& selector, const LoopIdentity& loop);

// Splits a comma-separated argument value; empty items are kept so they can be reported.
std::vector<std::string_view> split_list(std::string_view value);

}  // namespace looprace

#endif  // LOOPRACE_PLUGIN_LOOP_SELECTION_H
