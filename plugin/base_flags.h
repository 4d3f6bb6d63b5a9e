// The settings a compilation gives the code around a loop that decide what factor 0 (GCC's own
// choice) is: the optimization level, -funroll-loops / -funroll-all-loops, -march and LTO. A
// profile raced on one base is a set of measured choices for that base; applied to another,
// its factors may no longer be the best, so the table records the base and the profile carries
// it (docs/formats.md sections 3 and 5).
#ifndef LOOPRACE_PLUGIN_BASE_FLAGS_H
#define LOOPRACE_PLUGIN_BASE_FLAGS_H

#include "gcc_headers.h"

namespace looprace {

// The current function's settings as flags, e.g. "-O2" or "-O3 -funroll-loops -march=native".
std::string base_flags();

}  // namespace looprace

#endif  // LOOPRACE_PLUGIN_BASE_FLAGS_H
