#include "plans/program_check_policy.h"

namespace looprace::plans {

const char* program_check_outcome_name(ProgramCheckOutcome outcome) {
  switch (outcome) {
    case ProgramCheckOutcome::faster:
      return "faster";
    case ProgramCheckOutcome::slower:
      return "slower";
    case ProgramCheckOutcome::equivalent:
      return "equivalent";
    case ProgramCheckOutcome::unresolved:
      return "unresolved";
  }
  return "unresolved";
}

// The ratio verdict decides faster and slower, so that the outcome always agrees with the
// interval printed beside it; equal needs the whole interval inside the epsilon band.
ProgramCheckOutcome judge_look(const ProgramCheckPolicy& policy,
                               const std::vector<double>& baseline,
                               const std::vector<double>& profiled,
                               stats::SpeedupTestResult* test) {
  stats::SpeedupTestResult result =
      stats::speedup_test(baseline, profiled, look_confidence(policy.sequence), policy.test);
  if (test) *test = result;
  if (result.ratio_verdict == stats::Verdict::faster) return ProgramCheckOutcome::faster;
  if (result.ratio_verdict == stats::Verdict::slower) return ProgramCheckOutcome::slower;
  const stats::Interval& ci = result.speedup_interval;
  if (ci.lower * (1 + policy.epsilon) >= 1.0 && ci.upper <= 1.0 + policy.epsilon)
    return ProgramCheckOutcome::equivalent;
  return ProgramCheckOutcome::unresolved;
}

bool keeps_changes(const ProgramCheckPolicy& policy, ProgramCheckOutcome outcome,
                   const stats::Interval& speedup_interval) {
  return outcome != ProgramCheckOutcome::slower &&
         speedup_interval.lower * (1 + policy.epsilon) >= 1.0;
}

bool adopts_flags(const ProgramCheckPolicy& policy, ProgramCheckOutcome outcome, double speedup,
                  const stats::Interval& speedup_interval) {
  if (outcome == ProgramCheckOutcome::faster) return true;
  return outcome == ProgramCheckOutcome::unresolved && speedup > 1.0 &&
         keeps_changes(policy, outcome, speedup_interval);
}

}  // namespace looprace::plans
