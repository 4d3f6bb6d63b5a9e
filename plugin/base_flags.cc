// What factor 0 means for the function being compiled.
#include "base_flags.h"

namespace looprace {

// Reads global_options, which GCC switches to each function's own settings (optimize
// attributes) before running passes on it.
std::string base_flags() {
  std::string flags;
  if (optimize_debug)
    flags = "-Og";
  else if (optimize_fast)
    flags = "-Ofast";
  else if (optimize_size == 2)
    flags = "-Oz";
  else if (optimize_size)
    flags = "-Os";
  else
    flags = "-O" + std::to_string(optimize);
  if (flag_unroll_all_loops)
    flags += " -funroll-all-loops";
  else if (flag_unroll_loops)
    flags += " -funroll-loops";
  if (ix86_arch_string && std::strcmp(ix86_arch_string, "x86-64") != 0)
    flags += std::string(" -march=") + ix86_arch_string;
  if (flag_generate_lto || in_lto_p) flags += " -flto";
  return flags;
}

}  // namespace looprace
