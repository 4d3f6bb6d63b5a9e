// Verify records (docs/formats.md section 3b): per loop that had a factor requested, the
// number of body copies GCC really produced and, when it differs, why; and the calls its body
// still makes at the RTL unroller, after inlining. The RTL unroller's own
// decision (loop->lpt_decision) is read right after "loop2_unroll". RTL loops are tied to ids
// by the loop itself where it survived from the early pass (same function, same loop number)
// and otherwise, for inlined and cloned copies, by location as -fopt-info-loop reports it.
#ifndef LOOPRACE_PLUGIN_VERIFY_H
#define LOOPRACE_PLUGIN_VERIFY_H

#include "gcc_headers.h"
#include "loop_identity.h"
#include "loop_index.h"
#include "rtl_features.h"

namespace looprace {

class FactorVerifier {
 public:
  // Remembers a loop whose factor was requested (early pass), by name or by a model.
  void expect(const LoopIdentity& loop, int requested, bool by_model = false);

  bool empty() const { return expected_.empty(); }

  // Notes that fun reached the post-IPA pipeline, so a loop of it that never shows up at RTL
  // was removed by GIMPLE optimizations (complete unrolling) rather than never emitted.
  void note_function_compiled(function* fun);

  // Before "loop2_unroll": the location of each loop, taken before unrolling rewrites it, and
  // the functions inlined into fun (their loops live on, or vanished, in fun).
  void note_rtl_locations(function* fun);

  // After "loop2_unroll": what the unroller decided for every loop of fun.
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
    RtlFeatures body;  // the loop before unrolling, after inlining
  };
  struct Expectation {
    std::string id;
    std::string function;
    int requested = 0;
    bool by_model = false;
    std::vector<Observation> observations;
  };

  // What the unrollers did to one expected loop, as its record tells it.
  struct Outcome {
    int applied = 1;
    std::string how;
    std::vector<int> copies;           // applied, per function holding a copy of the loop
    int calls = -1;                    // most calls left in any copy; -1: no copy reached RTL
    bool innermost = true;             // every copy is innermost at RTL (inlining can nest loops)
    const RtlFeatures* rtl = nullptr;  // the reported copy's body
  };

  // The expectations an RTL loop of fun is a copy of.
  std::vector<std::size_t> expectations_of(function* fun, class loop* loop) const;
  // The outcome of a loop no copy of which reached the RTL unroller.
  Outcome outcome_before_rtl(const Expectation& expectation) const;
  // The outcome of a loop the RTL unroller saw, from its copies there.
  static Outcome outcome_at_rtl(const Expectation& expectation);
  // Why the RTL unroller made fewer copies of `body` than `requested`.
  static std::string why_fewer(const Observation& body, int requested);

  std::vector<Expectation> expected_;
  LoopIndex loops_;                           // expected_ by loop
  std::set<std::string> compiled_functions_;  // and those inlined into a compiled function
  std::map<int, std::string> rtl_origins_;    // the function each was inlined from, or ""
  std::map<int, LoopPlace> rtl_places_;       // of the function being compiled, by loop->num
  std::map<int, RtlFeatures> rtl_bodies_;     // each of its loops' features, by loop->num
};

// The RTL passes around "loop2_unroll" that feed the verifier.
opt_pass* make_verify_locations_pass(gcc::context* context, FactorVerifier& verifier);
opt_pass* make_verify_pass(gcc::context* context, FactorVerifier& verifier);

}  // namespace looprace

#endif  // LOOPRACE_PLUGIN_VERIFY_H
