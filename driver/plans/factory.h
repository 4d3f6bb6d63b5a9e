// Builds a Plan from a name and parameters: the CLI's --plan, --alpha-lt, --alpha-eq,
// --epsilon, --max-samples (and the constant/JavaSTATS knobs) map onto PlanOptions.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plans/plan.h"
#include "plans/race.h"

namespace looprace::plans {

// Race defaults chosen from replay results (benchmarks/results/replay-synthetic.md, section
// "Defaults chosen"): alpha_lt 0.02 / alpha_eq 0.05 gave 0.40 % failure at 246 samples per
// version with the cap at all data, near the cheapest race under 1 % failure (237); the cap of
// 200 is a wall-time budget (9.5 % failure at 80.5 samples, like constant(200) at 9.3 %).
struct PlanOptions {
  std::string name = "race";  // one of plan_names()
  double alpha_lt = 0.02;     // race: level of the one-sided "d is faster than c" test
  double alpha_eq = 0.05;     // race: 1 - confidence of the equivalence intervals
  double epsilon = 0.005;     // race: largest worst-case speedup ratio still "equal" (minus 1)
  LocationTest test = LocationTest::welch;              // races: what is compared
  ErrorControl control = ErrorControl::per_comparison;  // race, blocked-race: what alphas bound
  double round_limit = 0.0;        // blocked races: rounds slower than this as a whole set aside
  double best_ratio = 1.5;         // retiring-race: the best's observations / any retired one's
  std::size_t max_samples = 200;   // every plan: cap on observations per version (>= 2)
  std::size_t constant_size = 30;  // constant: observations per version
  double javastats_alpha = 0.05;   // javastats: 1 - confidence of the per-version interval
  double javastats_theta = 0.01;   // javastats: stop when interval half-width / mean < theta
  std::size_t min_samples = 2;     // javastats: observations before the first check
};

// The plan `looprace race` uses unless told otherwise: the blocked race under familywise
// control. In replay of the recorded dataset (filtered observations, 30 loops, cap 300:
// benchmarks/results/race-defaults.md) it failed 0.07 % at 135 runs per version where the
// paper's race at its levels failed 0.2 % at 150 and constant plans needed 292 runs for 1 %.
const std::string& default_plan_name();

// PlanOptions{} with `name`, the error control (`control`, or the plan's own: familywise for
// race and blocked-race, which support it) and the alpha levels replay chose for that:
// familywise, alpha_lt = alpha_eq = 0.05, a conventional bound on the chance of any false
// comparison over the whole race; per comparison, the paper's 0.02 / 0.05 (PlanOptions{}),
// except for the retiring races, whose bound of each difference to the best is tested once
// per version and so needs a stricter alpha_eq (numbers in
// benchmarks/results/plans-improved.md, synthetic replay, cap 1000, 50 repetitions):
// retiring-race alpha_lt 0.02 / alpha_eq 0.03 is its cheapest setting under 1 % failure
// (0.85 % at 127.2 samples per version, race: 236.9); blocked-retiring-race alpha_lt 0.002 /
// alpha_eq 0.001 (0.95 % at 155.3; its failures are almost all in the long-tail loops, where
// the lowest geometric mean is not the lowest arithmetic mean: by geometric means it fails
// 0.45 % at 92.1 with alpha_eq 0.005).
PlanOptions default_options(const std::string& name,
                            std::optional<ErrorControl> control = std::nullopt);

// The plan names make_plan accepts.
const std::vector<std::string>& plan_names();

// True for the race plans, which take alpha_lt, alpha_eq and epsilon (a replay grids them over
// the alpha levels).
bool races_on_levels(const std::string& name);

// True for the blocked races, which compare versions within rounds and so can set rounds aside
// (RaceParameters::round_limit).
bool takes_round_limit(const std::string& name);

// The names of the location tests and error controls on the command line, and back.
const std::map<std::string, LocationTest>& location_test_names();
const std::map<std::string, ErrorControl>& error_control_names();
std::string to_string(LocationTest test);
std::string to_string(ErrorControl control);

// Why a race cannot run with this test and error control (Yuen's test in a blocked race,
// familywise control in a retiring race), naming the option; none when it can.
std::optional<std::string> unsupported_combination(const PlanOptions& options);

// Why the plan cannot take observations with controls (Observation::control), naming the
// option: JavaSTATS, and Yuen's test, whose trimmed means would be recomputed whole whenever
// the slope moves; none when it can.
std::optional<std::string> refuses_controls(const PlanOptions& options);

// Throws std::invalid_argument naming the offending option ("--alpha-lt must be ...").
std::unique_ptr<Plan> make_plan(const PlanOptions& options);

}  // namespace looprace::plans
