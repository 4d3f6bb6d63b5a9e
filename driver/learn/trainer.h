// Training an unroll model: gradient-boosted regression trees (XGBoost) predicting, for a loop's
// table features and a factor, the log of that factor's slowdown against the loop's best; the
// trees are written in the plugin's own model format (plugin/model_grammar.h), with the ranges
// of the loops' shapes it learnt from, outside which it keeps GCC's choice.
#pragma once

#include <string>
#include <vector>

#include "learn/examples.h"
#include "plugin/model_grammar.h"

namespace looprace::learn {

struct TrainingOptions {
  int rounds = 100;
  int max_depth = 3;
  double eta = 0.1;
  // The model keeps GCC's choice unless another factor is predicted faster by more than this
  // (in log time): a change must pay for the risk of being wrong.
  double keep_default_within = 0.01;
};

// The model's input row for loop at factor (NaN for a feature the loop lacks).
std::vector<float> input_row(const LoopExample& loop, const std::vector<std::string>& inputs,
                             int factor);

// Trains on every factor of every example (each loop weighs the same). Throws
// std::runtime_error when there is nothing to learn from or XGBoost fails, and when the
// converted trees would predict other than XGBoost does.
model::Model train_model(const std::vector<LoopExample>& examples, const TrainingOptions& options);

// The factor the model picks for loop, as the plugin would.
int predict_factor(const model::Model& model, const LoopExample& loop);

}  // namespace looprace::learn
