// Numbers every renderer shows, derived once from the raw model through driver/stats: per factor
// the geometric mean cycles and its confidence interval (computed in log space, as the race
// decides), the samples and a status; per loop the Speedup-Test of the chosen factor against
// GCC's default (factor 0), on the runs the decision kept and at the race's confidence
// (plans::speedup_of: the figures the profile's evidence shows).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plans/replay.h"
#include "report/model.h"
#include "stats/speedup_test.h"

namespace looprace::report {

enum class FactorStatus { chosen, winner, eliminated, disqualified, undecided };
const char* status_name(FactorStatus status);  // "chosen", "winner", ...

struct FactorFigures {
  int factor = 0;
  int code_group = 0;  // observations come from this factor (see FactorResult)
  std::size_t samples = 0;
  std::optional<double> mean;  // geometric mean of the cycles; none without observations
  std::optional<stats::Interval> interval;  // of the geometric mean; needs 2 observations
  FactorStatus status = FactorStatus::undecided;
  std::string note;  // "same code as 4", the disqualification reason, ...
};

struct LoopFigures {
  std::vector<FactorFigures> factors;               // index == factor
  std::optional<stats::SpeedupTestResult> speedup;  // chosen vs factor 0
  // Which runs it rests on: the confirmation runs, or the race's own observations (which chose
  // the factor and so flatter it) when the race took none.
  std::string speedup_source;
  std::string speedup_note;  // why there is no Speedup-Test, when there is none
  // What the speedup compares: the chosen factor, or the plan's unconfirmed choice when GCC's
  // default was kept ("Factor 16 (the plan's choice, not confirmed)").
  std::string speedup_subject = "Speedup";
  // Factors whose code is identical to GCC's default (factor 0), besides 0 itself.
  std::vector<int> default_equivalents;
  // The choice against the best factor the race eliminated, in words; empty when not timed.
  std::string runner_up;
  // How many rounds the race set aside as slowed as a whole, in words; empty when none.
  std::string set_aside;
};

LoopFigures derive_figures(const LoopReport& loop, double confidence);

// Raced Profiles Figures 7-10 for one loop of a replay, as one SVG of two graphs side by side:
// left, every version's mean cycles over all recorded data with 1-sd error bars (versions
// within theta of the best in their own color); right, the observations the plan took per
// version, averaged over the repetitions, with 1-sd error bars.
std::string replay_loop_figure(const plans::LoopReplay& loop, const std::string& plan);

// Cycles for people: "812", "12.35k", "1.235M", "2.100G".
std::string format_cycles(double cycles);

}  // namespace looprace::report
