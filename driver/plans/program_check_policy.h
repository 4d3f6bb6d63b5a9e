// How long the whole-program check runs, and what it concludes. A profile's changes are worth
// a few tenths of a percent of a program; moving and rescheduling the code around them can cost
// one or two percent (cjpeg at -O3: three confirmed loop gains, the program 1.5 % slower). 30
// runs of a 4 ms program resolve about +-3 %, so a fixed count cannot see that loss. The check
// therefore runs sequentially (plans/sequential_looks.h) until the interval shows the program
// faster, slower, or equal within epsilon, or the looks or the time run out. Pure: it sees
// observations, not processes.
#pragma once

#include <cstddef>
#include <vector>

#include "plans/sequential_looks.h"
#include "stats/speedup_test.h"

namespace looprace::plans {

struct ProgramCheckPolicy {
  SequentialLooks sequence{30, 6, 0.95};
  double epsilon = 0.005;  // the program is "equal" when its interval lies within 1 +- this
  // The runs come in interleaved pairs. Whole runs go 20-45 % slow for a dozen runs in a row on
  // a busy machine (benchmarks/results/observation-rule.md), and both runs of a pair share such
  // a stretch: the pairs' ratios cancel it, where Welch on the two samples counts it as spread
  // (cjpeg at -O3, -funroll-loops against none: +-1.7 % by Welch, +-0.15 % by pairs, on the
  // same 400 rounds).
  stats::RatioTest test = stats::RatioTest::paired_trimmed;
};

enum class ProgramCheckOutcome {
  faster,      // the interval lies above 1
  slower,      // below 1: the changes are withdrawn
  equivalent,  // within [1 / (1 + epsilon), 1 + epsilon] and holding 1
  unresolved,  // wider: another look, if the policy and the time allow one
};
const char* program_check_outcome_name(ProgramCheckOutcome outcome);

// The outcome of one look on CPU times of the base (`baseline`) and the profiled program
// (`profiled`), taken in pairs; `test` receives the Speedup-Test it rests on (by the
// policy's ratio test).
ProgramCheckOutcome judge_look(const ProgramCheckPolicy& policy,
                               const std::vector<double>& baseline,
                               const std::vector<double>& profiled, stats::SpeedupTestResult* test);

// Whether the changes stand after the last look: only when the program was shown no slower
// than 1 / (1 + epsilon) and not slower outright, by the interval of that look. So a check
// whose looks ran out keeps a profile that leans faster ([1.000, 1.007]) and withdraws one
// that leans slower ([0.987, 1.000]).
bool keeps_changes(const ProgramCheckPolicy& policy, ProgramCheckOutcome outcome,
                   const stats::Interval& speedup_interval);

// Whether `race --try-flags` builds everything with the flags: when the program with them was
// shown faster, or its looks ran out leaning faster (speedup above 1) with the flags shown no
// slower than 1 / (1 + epsilon), as a profile's changes stand. Flags shown equivalent are left
// out: they would change the user's build for nothing.
bool adopts_flags(const ProgramCheckPolicy& policy, ProgramCheckOutcome outcome, double speedup,
                  const stats::Interval& speedup_interval);

}  // namespace looprace::plans
