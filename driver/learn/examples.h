// What heuristic training learns from: raced loops with their features and each factor's
// result. Pure data and pure functions; the dataset files are read in dataset_json.h.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace looprace::learn {

// One raced loop.
struct LoopExample {
  std::string program;
  std::string id;
  std::string location;
  std::map<std::string, double> features;  // numeric features by name (docs/formats.md 3, 3b)
  std::map<int, double> mean;              // mean cycles per factor that has observations
  std::map<int, int> code_group;           // factor -> the lowest factor with the same code
  std::set<int> winners;                   // the race's statistically tied best factors
};

// The factor with the lowest mean (the lowest such factor on equal means).
int best_factor(const LoopExample& loop);

// What `factor` costs the loop: its mean over the best factor's, >= 1. A factor without
// observations of its own takes its code group's; with none at all, the loop's slowest.
double slowdown(const LoopExample& loop, int factor);

// True when factor is among the winners, or has the same code as one.
bool tied_best(const LoopExample& loop, int factor);

// True when factor has the same code as the best factor.
bool same_as_best(const LoopExample& loop, int factor);

// The training target for each factor with observations: the log of its slowdown, and 0 for
// the tied-best set, so a near miss costs little and a bad factor a lot.
std::map<int, double> log_slowdown_targets(const LoopExample& loop);

// What is at stake in choosing the loop's factor: its largest target (the log slowdown of its
// worst factor outside the tied-best set); 0 when the race tied every factor (nothing learnt).
double stakes(const LoopExample& loop);

// True when the race resolved something: some factor's code is outside the tied-best set.
bool resolved(const LoopExample& loop);

// The geometric mean over loops of mean(0) / mean(choose(loop)): a policy's speedup over GCC's
// own choice.
double speedup_over_default(const std::vector<const LoopExample*>& loops,
                            const std::function<int(const LoopExample&)>& choose);

// The constant factor with the highest speedup over GCC's choice on loops (the lowest factor on
// equal speedups; 0 for no loops).
int best_constant_factor(const std::vector<const LoopExample*>& loops);

// The model inputs: the loop table features a model may read (plugin/model_grammar.h) that the
// examples have, then the factor inputs.
std::vector<std::string> model_inputs(const std::vector<LoopExample>& examples);

// The distinct programs, in first-seen order.
std::vector<std::string> programs_of(const std::vector<LoopExample>& examples);

}  // namespace looprace::learn
