// Which loops a race takes, and how many observations each may cost: pure policy over the
// hotness ranking, unit-tested without processes. A loop's share of the program bounds what
// racing it can pay (a 1.7 % loop made 10 % faster saves 0.17 % of the run), so a time budget
// is spent in proportion to the shares.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "store/dataset.h"

namespace looprace::race {

struct HotSelection {
  unsigned hot = 3;                // at most this many loops (0: no limit)
  std::optional<double> coverage;  // stop once the chosen hold this part of the candidates' time
  double min_share = 0.01;         // never a loop below this share of the program
};

struct HotChoice {
  std::vector<store::Hotness> chosen;  // hottest first
  double covered = 0;                  // the chosen loops' share of the program
  double candidates = 0;               // every candidate's share of the program, summed
  bool too_cold = false;               // a candidate was left out for min_share
};

// Walks `ranking` (hottest first), keeping the loops `candidate` accepts until `hot` loops,
// the coverage or a loop under min_share (a share of 0, unknown, is never too cold).
HotChoice choose_hot(const std::vector<store::Hotness>& ranking,
                     const std::function<bool(const std::string&)>& candidate,
                     const HotSelection& selection);

// One chosen loop's part of a time budget: its share of the budget's runs, and the observation
// cap that part gives each of its versions.
struct LoopBudget {
  double runs = 0;      // the budget's runs in proportion to the loop's share
  std::size_t cap = 0;  // its runs over the versions, never above the plan's cap nor below a floor
  // What the loop's race and confirmation may spend together: its part, or its cap for every
  // version where the cap's floor gave it more.
  double spendable(std::size_t versions) const { return std::max(runs, double(cap * versions)); }
};

// Each chosen loop's part of a budget of `budget_seconds`, in runs of `run_seconds`, shared in
// proportion to the loops' shares (evenly when they are unknown), over `versions` versions with
// `cap` observations at most and `floor` at least (a race needs a few rounds to decide anything).
// Empty without a budget: every loop keeps the plan's cap.
std::vector<LoopBudget> loop_budgets(const std::vector<store::Hotness>& chosen,
                                     std::optional<double> budget_seconds, double run_seconds,
                                     std::size_t versions, std::size_t cap, std::size_t floor = 6);

// A loop's indifference when it is asked of the program's time (--indifference program): the
// plan's epsilon is a part of the program, and a loop holding `share` of it that is faster by
// epsilon / share of its own time makes the program faster by epsilon, so the race's survivors
// are equal once none could be faster than its choice by that much, and a change needs a
// confirmed gain that large. A loop whose factors all tie then stops once the program could
// not tell them apart, not at the cap. A share under 1 % counts as 1 %; an unknown one (0)
// leaves epsilon a part of the loop. Three significant digits, which the plan's name carries.
double loop_indifference(double epsilon, double share);

// A loop whose entries last under this many cycles is timed through a loop around it. The
// probes around an entry cost a few hundred cycles and serialize the processor there: a
// 112-iteration dot product of 44 cycles measured 479 with them, and its factor 10 looked 8 %
// faster than GCC's choice where the nest around it, timed as a whole, changed by under 1.5 %.
inline constexpr double kMinObservedEntryCycles = 10000;

// The loop whose cycles a race of `loop` observes: `loop` itself when its entries last at
// least `min_entry_cycles` (by `hotness`, cycles net of the probes' bias per entry), else the
// nearest enclosing loop whose entries do, else the outermost one whose entries were measured
// (a loop in no other, or whose enclosing loop did not run, is timed itself). Unrolling
// `loop` changes the enclosing loop's time by what it changes of the loop's own, without the
// probes inside. A loop without hotness (named, not ranked) is timed itself.
std::string observation_loop(const std::string& loop,
                             const std::map<std::string, store::LoopPlace>& places,
                             const std::map<std::string, store::Hotness>& hotness,
                             double min_entry_cycles = kMinObservedEntryCycles);

// Controls: loops timed in the same runs as a race's observed loop that no variant of the race
// changes, so that a run's controls say how fast the machine ran it (plans/plan.h,
// Observation). A control is only worth its probes if it holds no code of the raced loop and
// the raced loop's growth cannot move it: the adjusted race failed in 37 % of replays when one
// control of the same unit, placed after the raced function, ran 11 % slower with one factor
// (benchmarks/results/run-regimes.md).
struct ControlCandidate {
  store::Hotness hotness;
  std::string tu, function;
  int fn_line = 0;
  // No calls at the RTL unroller and no loops inlined into it: it holds no other function's
  // loop (race/program.h, runs_only_its_own_code).
  bool holds_no_other_code = false;
};

// The raced loop, the loop its race observes, and where the raced loop's code lies.
struct ControlTarget {
  std::string loop, observed;
  std::string tu, function;
  int fn_line = 0;
};

struct ControlSelection {
  std::size_t most = 4;      // controls at most
  double min_share = 0.002;  // of the program's time, each: enough cycles to time well
  // What a control's probes may add to a run, as a part of the program's time, each: gsm's hot
  // loops of 600 entries a run add 0.5 %, an inner loop of 24,000 entries 20 %.
  double max_probe_share = 0.005;
  double probe_cycles = 100;  // one entry's probe cost (the runtime's measure when known)
};

// The controls of `target`'s race from `candidates` (hottest first): loops of other functions
// that hold no other code, take enough of the program, are timed by probes that cost the run
// little, and lie where the raced loop's growth does not move them: another translation unit (its
// object is the same in every variant), or a function that starts before the raced one in its unit.
// Other units first, then by share.
std::vector<std::string> choose_controls(const ControlTarget& target,
                                         const std::vector<ControlCandidate>& candidates,
                                         const ControlSelection& selection = {});

}  // namespace looprace::race
