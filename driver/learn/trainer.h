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

// How much each loop weighs in training.
enum class Weighting {
  kEqual,   // every loop the same
  kStakes,  // in proportion to what is at stake (stakes(): 0 for a race that tied everything)
};

// The factor a model keeps unless another is predicted faster by the margin.
enum class Preferred {
  kGcc,           // GCC's own choice, factor 0
  kBestConstant,  // the best constant factor of the training loops
  kSelected,      // one of those two, chosen by cross-validation within the training loops
};

// What each factor's target is measured against.
enum class Target {
  kBest,       // the loop's best: log slowdown, 0 for the tied-best set
  kPreferred,  // the preferred factor: that, less the preferred factor's own target
};

struct TrainingOptions {
  int rounds = 100;
  int max_depth = 3;
  double eta = 0.1;
  double min_child_weight = 1;  // XGBoost's, in units of an average row's weight
  double lambda = 1;            // XGBoost's L2 regularization of leaf values
  // The model keeps the preferred factor unless another factor is predicted faster by more
  // than this (in log time): a change must pay for the risk of being wrong.
  double keep_default_within = 0.01;
  Weighting weighting = Weighting::kStakes;
  // GCC's choice: the model sets every loop of a program, cold ones too, where a constant
  // learnt on hot loops (unroll 14 on the corpus) costs code size for nothing.
  Preferred preferred = Preferred::kGcc;
  Target target = Target::kBest;
  // When not empty, keep_default_within is chosen among these (and the preferred factor, when
  // kSelected) by cross-validation within the training loops: inner_folds folds of whole
  // programs, the choice whose held-out loops are fastest. An evaluation that trains with
  // them never chooses either on the loops it scores.
  std::vector<double> margins = {0, 0.005, 0.01, 0.02, 0.03, 0.05};
  int inner_folds = 5;
};

// The model's input row for loop at factor (NaN for a feature the loop lacks).
std::vector<float> input_row(const LoopExample& loop, const std::vector<std::string>& inputs,
                             int factor);

// Trains on every factor of every example, each loop weighed as options say, with the decision
// rule select_decision() chooses when options.margins is not empty or the preferred factor is
// kSelected (a fixed rule otherwise). Throws
// std::runtime_error when there is nothing to learn from or XGBoost fails, and when the
// converted trees would predict other than XGBoost does.
model::Model train_model(const std::vector<LoopExample>& examples, const TrainingOptions& options);

// A factor's target from the loop's targets: its own, else its code's (0 when tied best).
double target_of(const LoopExample& loop, const std::map<int, double>& targets, int factor);

// The decision rule of a model: the preferred factor and the margin another must beat it by.
struct Decision {
  Preferred preferred = Preferred::kGcc;  // kGcc or kBestConstant
  double margin = 0;
};

// The decision among options' candidates (options.margins, or keep_default_within alone; both
// preferred factors when kSelected) whose choices are fastest (geometric mean over loops) on
// programs held out of models trained on the others, inner_folds folds of whole programs. With
// fewer than two programs, kSelected prefers GCC's choice and the margin is the first candidate.
Decision select_decision(const std::vector<LoopExample>& examples, const TrainingOptions& options);

// The factor the model picks for loop, as the plugin would.
int predict_factor(const model::Model& model, const LoopExample& loop);

}  // namespace looprace::learn
