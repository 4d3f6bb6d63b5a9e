// What a loop looks like at GCC's RTL unroller, after inlining and every GIMPLE loop
// optimization: the features verify records report (docs/formats.md section 3b, `rtl`) and the
// inputs a model (model_grammar.h) decides from.
#ifndef LOOPRACE_PLUGIN_RTL_FEATURES_H
#define LOOPRACE_PLUGIN_RTL_FEATURES_H

#include "gcc_headers.h"

namespace looprace {

struct RtlFeatures {
  // The body, inner loops included, by kind of instruction.
  long long insns = 0;     // real instructions (GCC's num_loop_insns)
  long long loads = 0;     // instructions reading memory
  long long stores = 0;    // instructions writing memory
  long long fp = 0;        // setting a floating-point register (scalar or vector)
  long long vector = 0;    // setting a vector register: the loop was vectorized
  long long divides = 0;   // holding a division or modulo
  long long branches = 0;  // jumps
  long long calls = 0;     // calls inlining left
  // The loop's shape.
  long long blocks = 0;
  long long exits = 0;
  long long depth = 0;       // 1 for an outermost loop
  long long niter = -1;      // constant iteration count the unroller sees (-1: not constant)
  long long est_niter = -1;  // GCC's estimated latch executions (-1: none)
  long long max_niter = -1;  // GCC's bound on latch executions (-1: none)
};

// Measures loop at RTL. desc is the loop's iv description when one is at hand (nullptr
// otherwise); nothing is computed or cached here.
RtlFeatures measure_rtl_loop(class loop* loop, const class niter_desc* desc);

// A loop at RTL before the unroller: where it is (as -fopt-info-loop reports it) and its
// features.
struct RtlLoop {
  std::string file;
  int line = 0;
  int column = 0;
  std::string inlined_from;  // assembler name of the function whose body held it; "" if none
  RtlFeatures features;
};

// Describes loop, leaving GCC's state as it found it except for the iv analysis: the caller
// ends its walk over a function's loops with iv_analysis_done().
RtlLoop describe_rtl_loop(class loop* loop);

// The features as the JSON object of a verify record, keys without the `rtl_` prefix.
nlohmann::ordered_json rtl_json(const RtlFeatures& features);

}  // namespace looprace

#endif  // LOOPRACE_PLUGIN_RTL_FEATURES_H
