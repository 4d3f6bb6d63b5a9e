// Code layout randomization per function (layout bias: a layout that happens to favour one
// variant biases its measurement). With layout-seed=S every function gets P bytes of nops
// before its entry label, never executed, P = a hash of S and the function's assembler name,
// 0..63: each function, and all code after it, moves by its own amount from one seed to the
// next, instead of the whole program shifting by one amount.
#ifndef LOOPRACE_PLUGIN_LAYOUT_PADDING_H
#define LOOPRACE_PLUGIN_LAYOUT_PADDING_H

#include "gcc_headers.h"

namespace looprace {

// The padding of a function: 0..63 bytes.
unsigned layout_padding(std::uint64_t seed, const char* assembler_name);

// The RTL pass that sets it; runs after "expand", which sets the patch area from
// -fpatchable-function-entry and the attribute: a function that has one keeps its own.
opt_pass* make_layout_padding_pass(gcc::context* context, std::uint64_t seed);

}  // namespace looprace

#endif  // LOOPRACE_PLUGIN_LAYOUT_PADDING_H
