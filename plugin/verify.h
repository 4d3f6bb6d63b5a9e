// Verify records (docs/formats.md section 3b): per loop that had a factor requested, the
// number of body copies GCC really produced and, when it differs, why. Joined by location,
// like -fopt-info-loop messages: the RTL loop's location (get_loop_location, what the unroller
// reports) is the loop test the identity was taken from.
#ifndef LOOPRACE_PLUGIN_VERIFY_H
#define LOOPRACE_PLUGIN_VERIFY_H

#include "gcc_headers.h"
#include "loop_identity.h"

namespace looprace {

class FactorVerifier {
 public:
  // Remembers a loop whose factor was requested (early pass).
  void expect(const LoopIdentity& loop, int requested);

  bool empty() const { return expected_.empty(); }

  // Notes that fun reached the post-IPA pipeline, so a loop of it that never shows up at RTL
  // was removed by GIMPLE optimizations (complete unrolling) rather than never emitted.
  void note_function_compiled(function* fun);

  // Reads what the RTL unroller decided for every loop of fun (after "loop2_unroll").
  void observe_rtl_loops(function* fun);

  // One JSON line per expected loop.
  std::string records() const;

 private:
  struct Observation {
    std::string function;  // where this copy of the loop was compiled
    int copies = 1;
    bool innermost = true;
    bool cold = false;
    enum lpt_dec decision = LPT_NONE;
    long long constant_niter = -1;
  };
  struct Expectation {
    std::string id;
    std::string function;
    int requested = 0;
    std::vector<Observation> observations;
  };
  std::vector<Expectation> expected_;
  std::map<std::tuple<std::string, int, int>, std::vector<std::size_t>> by_location_;
  std::set<std::string> compiled_functions_;
};

// The RTL pass placed after "loop2_unroll" that feeds verifier.observe_rtl_loops.
opt_pass* make_verify_pass(gcc::context* context, FactorVerifier& verifier);

}  // namespace looprace

#endif  // LOOPRACE_PLUGIN_VERIFY_H
