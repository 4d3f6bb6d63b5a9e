// Every plugin source includes this first. GCC's system.h poisons identifiers that standard
// headers use, so all standard and library headers the plugin needs come before the GCC ones.
#ifndef LOOPRACE_PLUGIN_GCC_HEADERS_H
#define LOOPRACE_PLUGIN_GCC_HEADERS_H

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "profile_grammar.h"

// clang-format off
// GCC's headers depend on their order.
#include "gcc-plugin.h"
#include "plugin-version.h"
#include "context.h"
#include "tree.h"
#include "tree-pass.h"
#include "function.h"
#include "basic-block.h"
#include "cfgloop.h"
#include "gimple.h"
#include "gimple-iterator.h"
#include "gimple-ssa.h"
#include "ssa.h"
#include "tree-ssanames.h"
#include "tree-cfg.h"
#include "tree-into-ssa.h"
#include "tree-scalar-evolution.h"
#include "tree-ssa-loop-niter.h"
#include "stringpool.h"
#include "attribs.h"
#include "diagnostic-core.h"
#include "langhooks.h"
#include "target.h"
#include "cgraph.h"
#include "rtl.h"
#include "rtl-iter.h"
#include "memmodel.h"
#include "emit-rtl.h"
#include "predict.h"
#include "output.h"
#include "options.h"
// clang-format on

namespace looprace {

// The pass_data of one of the plugin's passes, its fields named once here: what kind of pass,
// its name in dumps, what it needs; no timer, properties provided or todo flags.
constexpr pass_data plugin_pass(opt_pass_type type, const char* name,
                                unsigned int properties_required = 0,
                                optgroup_flags_t optinfo_flags = OPTGROUP_NONE) {
  return {
      .type = type,
      .name = name,
      .optinfo_flags = optinfo_flags,
      .tv_id = TV_NONE,
      .properties_required = properties_required,
      .properties_provided = 0,
      .properties_destroyed = 0,
      .todo_flags_start = 0,
      .todo_flags_finish = 0,
  };
}

}  // namespace looprace

#endif  // LOOPRACE_PLUGIN_GCC_HEADERS_H
