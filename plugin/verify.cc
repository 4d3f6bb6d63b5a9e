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

FactorVerifier::Outcome FactorVerifier::outcome_before_rtl(const Expectation& expectation) const {
  Outcome o;
  if (optimize == 0) {
    o.how = "not-optimized";
  } else if (compiled_functions_.count(expectation.function)) {
    o.applied = 0;
    o.how = "complete-tree";
  } else {
    // Its function was dropped (never called), or inlined only into functions that were
    // dropped too.
    o.applied = -1;
    o.how = "not-found";
  }
  return o;
}

FactorVerifier::Outcome FactorVerifier::outcome_at_rtl(const Expectation& expectation) {
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
  Outcome o;
  const Observation* best = nullptr;
  for (const auto& [function, body] : body_per_function) {
    o.copies.push_back(body->copies);
    o.calls = std::max(o.calls, static_cast<int>(body->body.calls));
    o.innermost = o.innermost && body->innermost;
    if (!best || body->copies < best->copies) best = body;
  }
  o.applied = best->copies;
  o.rtl = &best->body;
  const int requested = expectation.requested;
  if (requested >= 2 && o.applied < requested) {
    o.how = why_fewer(*best, requested);
  } else if (requested == 0) {
    o.how = "heuristic";
  }
  return o;
}

std::string FactorVerifier::why_fewer(const Observation& body, int requested) {
  if (!body.innermost) return "not-innermost";
  if (body.cold) return "cold";
  if (body.decision == LPT_UNROLL_RUNTIME || body.decision == LPT_UNROLL_STUPID)
    return "runtime-pow2";
  if (body.constant_niter >= 0 && body.constant_niter + 1 < requested) return "too-few-iterations";
  return "too-big";
}

std::string FactorVerifier::records() const {
  std::string lines;
  for (const Expectation& expectation : expected_) {
    const Outcome o = expectation.observations.empty() ? outcome_before_rtl(expectation)
                                                       : outcome_at_rtl(expectation);
    nlohmann::ordered_json record = {{"v", 1},
                                     {"id", expectation.id},
                                     {"requested", expectation.requested},
                                     {"applied", o.applied},
                                     {"how", o.how},
                                     {"copies", o.copies},
                                     {"calls", o.calls},
                                     {"innermost", o.innermost}};
    if (expectation.by_model) record["by"] = "model";
    if (o.rtl) record["rtl"] = rtl_json(*o.rtl);
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
