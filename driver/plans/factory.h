// Builds a Plan from a name and parameters: the CLI's --plan, --alpha-lt, --alpha-eq,
// --epsilon, --max-samples (and the constant/JavaSTATS knobs) map onto PlanOptions.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "plans/plan.h"

namespace looprace::plans {

// Race defaults chosen from replay results (benchmarks/results/replay-synthetic.md, section
// "Defaults chosen"): alpha_lt 0.02 / alpha_eq 0.05 gave 0.40 % failure at 246 samples per
// version with the cap at all data, near the cheapest race under 1 % failure (237); the cap of
// 200 is a wall-time budget (9.5 % failure at 80.5 samples, like constant(200) at 9.3 %).
struct PlanOptions {
  std::string name = "race";       // one of plan_names()
  double alpha_lt = 0.02;          // race: level of the one-sided "d is faster than c" test
  double alpha_eq = 0.05;          // race: 1 - confidence of the equivalence intervals
  double epsilon = 0.005;          // race: largest worst-case speedup ratio still "equal" (minus 1)
  double best_ratio = 1.5;         // retiring-race: the best's observations / any retired one's
  std::size_t max_samples = 200;   // every plan: cap on observations per version (>= 2)
  std::size_t constant_size = 30;  // constant: observations per version
  double javastats_alpha = 0.05;   // javastats: 1 - confidence of the per-version interval
  double javastats_theta = 0.01;   // javastats: stop when interval half-width / mean < theta
  std::size_t min_samples = 2;     // javastats: observations before the first check
};

// The plan names make_plan accepts.
const std::vector<std::string>& plan_names();

// True for the race plans, which take alpha_lt, alpha_eq and epsilon (a replay grids them over
// the alpha levels).
bool races_on_levels(const std::string& name);

// Throws std::invalid_argument naming the offending option ("--alpha-lt must be ...").
std::unique_ptr<Plan> make_plan(const PlanOptions& options);

}  // namespace looprace::plans
