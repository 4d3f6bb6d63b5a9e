// How well unroll policies choose: leave-one-program-out cross-validation of a learned model,
// beside GCC's heuristic, -funroll-loops, every always-the-same factor and the oracle, on raced
// loops. Pure: training comes in as a function, so tests can fake it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "learn/examples.h"
#include "plugin/model_grammar.h"

namespace looprace::learn {

// Trains a model on some examples (the real one is train_model with fixed options).
using Trainer = std::function<model::Model(const std::vector<LoopExample>&)>;

// The feature holding the factor -funroll-loops gives a loop (its copies; 1 = not unrolled),
// when the dataset has it.
inline constexpr const char* kUnrollLoopsFeature = "gcc_factor_unroll_loops";

// One policy's choice for one loop and what it costs.
struct Choice {
  int factor = 0;
  double slowdown = 1;  // against the loop's best factor
  bool exact = false;   // the best factor's code
  bool tied = false;    // in the race's tied-best set
};

// A policy over every loop it could choose for.
struct PolicyResult {
  std::string name;
  std::vector<Choice> choices;  // parallel to Evaluation::loops; nullopt-free
  double geomean_slowdown = 1;
  double worst_slowdown = 1;
  // Of the oracle's geometric-mean speedup over GCC's heuristic (factor 0), the share this
  // policy reaches: (G(policy) - 1) / (G(oracle) - 1); 1 is the oracle, 0 GCC, < 0 worse.
  double share_of_oracle = 0;
  double exact_accuracy = 0;
  double tied_accuracy = 0;
};

struct Evaluation {
  std::vector<const LoopExample*> loops;
  std::vector<PolicyResult> policies;  // the model first, then the baselines
  // The loops whose race resolved something (resolved()), and every policy on them alone: on
  // the others every factor is tied best and the oracle's gain is noise.
  std::vector<const LoopExample*> resolved_loops;
  std::vector<PolicyResult> resolved_policies;
  double oracle_speedup = 1;  // geometric mean of mean(0) / mean(best)
  std::size_t programs = 0;
};

// The reference policy that picks the slowest of the race's tied-best factors: the share of the
// oracle's gain a policy reaches that is always right as far as the races could tell.
inline constexpr const char* kWorstTiedPolicy = "slowest of the tied best";
int worst_tied_factor(const LoopExample& loop);

// Each program's loops get the factor of a model trained on every other program. Needs at
// least two programs; throws std::invalid_argument otherwise.
Evaluation evaluate_leave_one_program_out(const std::vector<LoopExample>& examples,
                                          const Trainer& trainer);

// The figures of a policy that picks choose(loop) for every loop.
PolicyResult score_policy(const std::string& name, const std::vector<const LoopExample*>& loops,
                          const std::function<int(const LoopExample&)>& choose);

}  // namespace looprace::learn
