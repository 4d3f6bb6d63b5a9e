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

#endif  // LOOPRACE_PLUGIN_GCC_HEADERS_H
