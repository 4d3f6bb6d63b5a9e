// Verify records: what the unrollers really did to each loop with a requested factor.
#include "verify.h"

namespace looprace {

namespace {

std::string assembler_name(tree decl) { return IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(decl)); }

std::string assembler_name(function* fun) { return assembler_name(fun->decl); }

// The functions whose bodies were inlined into the scope tree under block. GCC keeps the outer
// scope of every inlined body even without debug info (tree-ssa-live.cc), as long as any of its
// code survives.
void add_inlined_functions(tree block, std::set<std::string>& names) {
  for (; block; block = BLOCK_CHAIN(block)) {
    if (inlined_function_outer_scope_p(block)) {
      tree origin = block_ultimate_origin(block);
      if (origin && TREE_CODE(origin) == FUNCTION_DECL) names.insert(assembler_name(origin));
    }
    add_inlined_functions(BLOCK_SUBBLOCKS(block), names);
  }
}

}  // namespace

void FactorVerifier::expect(const LoopIdentity& loop, int requested, bool by_model) {
  std::size_t index = expected_.size();
  loops_.add(loop.function, loop.loop->num, {loop.file, loop.line, loop.column}, index);
  expected_.push_back({loop.id, loop.function, requested, by_model, {}});
}

void FactorVerifier::note_function_compiled(function* fun) {
  compiled_functions_.insert(assembler_name(fun));
}

void FactorVerifier::note_rtl_locations(function* fun) {
  add_inlined_functions(DECL_INITIAL(fun->decl), compiled_functions_);
  rtl_places_.clear();
  rtl_origins_.clear();
  rtl_bodies_.clear();
  if (!loops_for_fn(fun)) return;
  for (class loop* loop : loops_list(fun, 0)) {
    RtlLoop described = describe_rtl_loop(loop);
    rtl_places_[loop->num] = {described.file, described.line, described.column};
    rtl_origins_[loop->num] = described.inlined_from;
    rtl_bodies_[loop->num] = described.features;
  }
  iv_analysis_done();
}

std::vector<std::size_t> FactorVerifier::expectations_of(function* fun, class loop* loop) const {
  auto place = rtl_places_.find(loop->num);
  auto origin = rtl_origins_.find(loop->num);
  return loops_.find(assembler_name(fun), loop,
                     place == rtl_places_.end() ? LoopPlace() : place->second,
                     origin == rtl_origins_.end() ? "" : origin->second);
}

void FactorVerifier::observe_rtl_loops(function* fun) {
  if (!loops_for_fn(fun)) return;
  for (class loop* loop : loops_list(fun, 0)) {
    std::vector<std::size_t> expectations = expectations_of(fun, loop);
    if (expectations.empty()) continue;
    Observation observation;
    observation.function = assembler_name(fun);
    observation.decision = loop->lpt_decision.decision;
    if (observation.decision != LPT_NONE) observation.copies = loop->lpt_decision.times + 1;
    observation.innermost = loop->inner == nullptr;
    observation.cold = optimize_loop_for_size_p(loop) != OPTIMIZE_SIZE_NO;
    // Only what the unroller cached: computing a description here would leave dataflow
    // restricted to this loop for the passes after us.
    class niter_desc* desc = simple_loop_desc(loop);
    if (desc && desc->simple_p && desc->const_iter)
      observation.constant_niter = static_cast<long long>(desc->niter);
    if (auto body = rtl_bodies_.find(loop->num); body != rtl_bodies_.end())
      observation.body = body->second;
    for (std::size_t index : expectations) expected_[index].observations.push_back(observation);
  }
  rtl_places_.clear();
  rtl_origins_.clear();
  rtl_bodies_.clear();
}

std::string FactorVerifier::records() const {
  std::string lines;
  for (const Expectation& expectation : expected_) {
    int applied = 1;
    std::string how;
    std::vector<int> copies;           // applied, per function holding a copy of the loop
    int calls = -1;                    // most calls left in any copy; -1: no copy reached RTL
    bool innermost = true;             // every copy is innermost at RTL (inlining can nest loops)
    const RtlFeatures* rtl = nullptr;  // the reported copy's body
    if (expectation.observations.empty()) {
      if (optimize == 0) {
        how = "not-optimized";
      } else if (compiled_functions_.count(expectation.function)) {
        applied = 0;
        how = "complete-tree";
      } else {
        // Its function was dropped (never called), or inlined only into functions that were
        // dropped too.
        applied = -1;
        how = "not-found";
      }
    } else {
      // Several RTL loops can share the location. Within one function they are one copy of the
      // loop (vector loop and epilogue): the most unrolled is its body. Across functions
      // (inlined copies) the least unrolled is reported, so a refusal is never hidden.
      std::map<std::string, const Observation*> body_per_function;
      for (const Observation& observation : expectation.observations) {
        const Observation*& body = body_per_function[observation.function];
        // Equally unrolled, the vector loop is the body and the scalar epilogue is not.
        if (!body || observation.copies > body->copies ||
            (observation.copies == body->copies && observation.body.vector > body->body.vector))
          body = &observation;
      }
      const Observation* best = nullptr;
      for (const auto& [function, body] : body_per_function) {
        copies.push_back(body->copies);
        calls = std::max(calls, static_cast<int>(body->body.calls));
        innermost = innermost && body->innermost;
        if (!best || body->copies < best->copies) best = body;
      }
      applied = best->copies;
      rtl = &best->body;
      int requested = expectation.requested;
      if (requested >= 2 && applied < requested) {
        if (!best->innermost)
          how = "not-innermost";
        else if (best->cold)
          how = "cold";
        else if (best->decision == LPT_UNROLL_RUNTIME || best->decision == LPT_UNROLL_STUPID)
          how = "runtime-pow2";
        else if (best->constant_niter >= 0 && best->constant_niter + 1 < requested)
          how = "too-few-iterations";
        else
          how = "too-big";
      } else if (requested == 0) {
        how = "heuristic";
      }
    }
    nlohmann::ordered_json record = {{"v", 1},
                                     {"id", expectation.id},
                                     {"requested", expectation.requested},
                                     {"applied", applied},
                                     {"how", how},
                                     {"copies", copies},
                                     {"calls", calls},
                                     {"innermost", innermost}};
    if (expectation.by_model) record["by"] = "model";
    if (rtl) record["rtl"] = rtl_json(*rtl);
    lines += record.dump() + "\n";
  }
  return lines;
}

namespace {

const pass_data kVerifyLocationsData = plugin_pass(RTL_PASS, "*looprace_verify_locations");

class VerifyLocationsPass : public rtl_opt_pass {
 public:
  VerifyLocationsPass(gcc::context* context, FactorVerifier& verifier)
      : rtl_opt_pass(kVerifyLocationsData, context), verifier_(verifier) {}

  bool gate(function*) final { return !verifier_.empty(); }

  unsigned int execute(function* fun) final {
    verifier_.note_rtl_locations(fun);
    return 0;
  }

 private:
  FactorVerifier& verifier_;
};

const pass_data kVerifyData = plugin_pass(RTL_PASS, "*looprace_verify");

class VerifyPass : public rtl_opt_pass {
 public:
  VerifyPass(gcc::context* context, FactorVerifier& verifier)
      : rtl_opt_pass(kVerifyData, context), verifier_(verifier) {}

  bool gate(function*) final { return !verifier_.empty(); }

  unsigned int execute(function* fun) final {
    verifier_.observe_rtl_loops(fun);
    return 0;
  }

 private:
  FactorVerifier& verifier_;
};

}  // namespace

opt_pass* make_verify_locations_pass(gcc::context* context, FactorVerifier& verifier) {
  return new VerifyLocationsPass(context, verifier);
}

opt_pass* make_verify_pass(gcc::context* context, FactorVerifier& verifier) {
  return new VerifyPass(context, verifier);
}

}  // namespace looprace
