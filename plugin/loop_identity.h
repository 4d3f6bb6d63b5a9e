// Stable loop identity (docs/formats.md section 1): function assembler name + file + line:col
// of the loop's controlling test + ordinal, hashed with FNV-1a 64.
#ifndef LOOPRACE_PLUGIN_LOOP_IDENTITY_H
#define LOOPRACE_PLUGIN_LOOP_IDENTITY_H

#include "gcc_headers.h"

namespace looprace {

struct LoopIdentity {
  class loop* loop = nullptr;  // valid only inside the early pass that identified it
  std::uint64_t hash = 0;
  std::string id;  // hash as 16 lower-case hex digits
  std::string file;
  int line = 0;
  int column = 0;
  location_t location = UNKNOWN_LOCATION;
  std::string function;  // assembler name
  std::string name;      // readable name
  int fn_line = 0;
  int depth = 0;
  int ordinal = 0;
  int index = 0;
  int loops = 0;
};

// FNV-1a 64 of text: small, stable across hosts and GCC versions.
std::uint64_t fnv1a64(std::string_view text);

// Formats a 64-bit id as the 16 lower-case hex digits used everywhere.
std::string format_loop_id(std::uint64_t hash);

// True when path equals suffix or ends with "/" + suffix (a "./" prefix is ignored on both).
bool path_has_suffix(std::string_view path, std::string_view suffix);

// Identifies every loop of fun in preorder. Needs loops initialized (read-only is enough) with
// recorded exits; changes nothing, so it must run before any CFG modification.
std::vector<LoopIdentity> identify_loops(function* fun);

}  // namespace looprace

#endif  // LOOPRACE_PLUGIN_LOOP_IDENTITY_H
