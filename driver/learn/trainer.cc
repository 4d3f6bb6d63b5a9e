// XGBoost through its C API, and the conversion of its trees to the plugin's model format.
#include "learn/trainer.h"

#include <xgboost/c_api.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace looprace::learn {

std::vector<float> input_row(const LoopExample& loop, const std::vector<std::string>& inputs,
                             int factor) {
  std::vector<float> row;
  for (const std::string& name : inputs) {
    auto value = loop.features.find(name);
    row.push_back(value == loop.features.end() ? std::numeric_limits<float>::quiet_NaN()
                                               : static_cast<float>(value->second));
  }
  model::Model shape;
  shape.features = inputs;
  model::set_factor_inputs(shape, row, factor);
  return row;
}

int predict_factor(const model::Model& model, const LoopExample& loop) {
  return model::choose_factor(model, input_row(loop, model.features, 0));
}

namespace {

// Throws XGBoost's last error when a C API call failed.
void check(int status, const char* call) {
  if (status != 0) throw std::runtime_error(fmt::format("XGBoost {}: {}", call, XGBGetLastError()));
}

struct MatrixFree {
  void operator()(void* handle) const { XGDMatrixFree(handle); }
};
struct BoosterFree {
  void operator()(void* handle) const { XGBoosterFree(handle); }
};
using Matrix = std::unique_ptr<void, MatrixFree>;
using Booster = std::unique_ptr<void, BoosterFree>;

// The training rows: one per loop and factor with observations.
struct Rows {
  std::vector<float> inputs;  // row-major
  std::vector<float> labels;
  std::vector<float> weights;
  std::size_t count = 0;
};

// Each loop's weight: 1, or its stakes over the mean stakes of the loops with any (so an
// average loop that counts weighs 1, and loops with nothing at stake change nothing); 1 when
// no loop has anything at stake (the model then learns that no factor matters).
std::vector<double> loop_weights(const std::vector<LoopExample>& examples, Weighting weighting) {
  std::vector<double> weights(examples.size(), 1.0);
  if (weighting == Weighting::kEqual) return weights;
  double total = 0;
  std::size_t counted = 0;
  for (std::size_t i = 0; i < examples.size(); ++i) {
    total += weights[i] = stakes(examples[i]);
    counted += weights[i] > 0;
  }
  if (total <= 0) return std::vector<double>(examples.size(), 1.0);
  for (double& weight : weights) weight *= static_cast<double>(counted) / total;
  return weights;
}

// The rows of the loops that weigh something, with targets against the loop's best or against
// the preferred factor.
Rows training_rows(const std::vector<LoopExample>& examples, const std::vector<std::string>& inputs,
                   const TrainingOptions& options, int preferred) {
  Rows rows;
  const std::vector<double> weights = loop_weights(examples, options.weighting);
  for (std::size_t i = 0; i < examples.size(); ++i) {
    const LoopExample& loop = examples[i];
    if (weights[i] <= 0) continue;
    std::map<int, double> targets = log_slowdown_targets(loop);
    const double offset =
        options.target == Target::kPreferred ? target_of(loop, targets, preferred) : 0;
    for (const auto& [factor, target] : targets) {
      std::vector<float> row = input_row(loop, inputs, factor);
      rows.inputs.insert(rows.inputs.end(), row.begin(), row.end());
      rows.labels.push_back(static_cast<float>(target - offset));
      // A loop's rows share its weight, one row's weight on average for a loop of weight 1
      // (XGBoost's min_child_weight counts in those units).
      rows.weights.push_back(static_cast<float>(weights[i] * 17.0 / targets.size()));
      ++rows.count;
    }
  }
  return rows;
}

}  // namespace

double target_of(const LoopExample& loop, const std::map<int, double>& targets, int factor) {
  if (auto own = targets.find(factor); own != targets.end()) return own->second;
  return tied_best(loop, factor) ? 0.0 : std::log(slowdown(loop, factor));
}

namespace {

Matrix matrix_of(const Rows& rows, std::size_t columns) {
  DMatrixHandle handle = nullptr;
  check(XGDMatrixCreateFromMat(rows.inputs.data(), rows.count, columns,
                               std::numeric_limits<float>::quiet_NaN(), &handle),
        "XGDMatrixCreateFromMat");
  Matrix matrix(handle);
  check(XGDMatrixSetFloatInfo(handle, "label", rows.labels.data(), rows.count), "labels");
  check(XGDMatrixSetFloatInfo(handle, "weight", rows.weights.data(), rows.count), "weights");
  return matrix;
}

// Appends an XGBoost JSON dump node and its subtree to tree in preorder (children after their
// parent, as the model format requires); returns the node's id there.
int add_subtree(const nlohmann::json& node, model::Tree& tree) {
  const int id = static_cast<int>(tree.nodes.size());
  tree.nodes.emplace_back();
  if (node.contains("leaf")) {
    tree.nodes[id].value = node.at("leaf").get<float>();
    return id;
  }
  auto child = [&](const char* which) -> const nlohmann::json& {
    for (const auto& c : node.at("children"))
      if (c.at("nodeid") == node.at(which)) return c;
    throw std::runtime_error("XGBoost dump: a split without its child");
  };
  const int yes = add_subtree(child("yes"), tree);
  const int no = add_subtree(child("no"), tree);
  model::Node& split = tree.nodes[id];
  split.feature = std::stoi(node.at("split").get<std::string>().substr(1));  // "f<index>"
  split.threshold = node.at("split_condition").get<float>();
  split.yes = yes;
  split.no = no;
  split.missing = node.at("missing") == node.at("yes") ? yes : no;
  return id;
}

std::vector<model::Tree> dumped_trees(void* booster) {
  bst_ulong count = 0;
  const char** dumps = nullptr;
  check(XGBoosterDumpModelEx(booster, "", 0, "json", &count, &dumps), "XGBoosterDumpModelEx");
  std::vector<model::Tree> trees(count);
  for (bst_ulong i = 0; i < count; ++i) add_subtree(nlohmann::json::parse(dumps[i]), trees[i]);
  return trees;
}

// Checks that the converted model predicts what XGBoost predicts on the training rows.
void check_conversion(void* booster, void* matrix, const Rows& rows, const model::Model& model) {
  bst_ulong length = 0;
  const float* predicted = nullptr;
  check(XGBoosterPredict(booster, matrix, 0, 0, 0, &length, &predicted), "XGBoosterPredict");
  const std::size_t columns = model.features.size();
  for (std::size_t r = 0; r < rows.count; ++r) {
    std::vector<float> row(rows.inputs.begin() + r * columns,
                           rows.inputs.begin() + (r + 1) * columns);
    double ours = model::predict(model, row);
    if (std::abs(ours - predicted[r]) > 1e-4)
      throw std::runtime_error(
          fmt::format("the converted trees predict {} where XGBoost predicts {} (training row {})",
                      ours, predicted[r], r));
  }
}

// The inputs that say what kind of loop it is; a loop unlike every training loop in one of
// them keeps GCC's choice (trip counts are not among them: trees carry a count's effect on).
constexpr std::string_view kRangedFeatures[] = {"blocks",   "stmts", "calls",
                                                "branches", "exits", "inner"};

std::vector<model::Range> shape_ranges(const std::vector<LoopExample>& examples,
                                       const std::vector<std::string>& inputs) {
  std::vector<model::Range> ranges;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (std::find(std::begin(kRangedFeatures), std::end(kRangedFeatures), inputs[i]) ==
        std::end(kRangedFeatures))
      continue;
    model::Range range{static_cast<int>(i), std::numeric_limits<double>::infinity(),
                       -std::numeric_limits<double>::infinity()};
    for (const LoopExample& loop : examples)
      if (auto value = loop.features.find(inputs[i]); value != loop.features.end()) {
        range.low = std::min(range.low, value->second);
        range.high = std::max(range.high, value->second);
      }
    if (range.low <= range.high) ranges.push_back(range);
  }
  return ranges;
}

}  // namespace

Decision select_decision(const std::vector<LoopExample>& examples, const TrainingOptions& options) {
  std::vector<Decision> candidates;
  const std::vector<double> margins =
      options.margins.empty() ? std::vector<double>{options.keep_default_within} : options.margins;
  for (Preferred preferred : {Preferred::kGcc, Preferred::kBestConstant})
    if (options.preferred == preferred || options.preferred == Preferred::kSelected)
      for (double margin : margins) candidates.push_back({preferred, margin});
  const std::vector<std::string> programs = programs_of(examples);
  if (candidates.size() == 1 || programs.size() < 2) return candidates.front();
  const std::size_t folds = std::min<std::size_t>(
      static_cast<std::size_t>(std::max(options.inner_folds, 2)), programs.size());
  TrainingOptions inner = options;
  inner.preferred = Preferred::kGcc;  // the trees do not depend on it under Target::kBest
  inner.margins.clear();
  std::vector<double> log_slowdown(candidates.size(), 0.0);  // summed over held-out loops
  for (std::size_t fold = 0; fold < folds; ++fold) {
    // Program p (in first-seen order) is held out in fold p mod folds.
    auto held_out = [&](const LoopExample& loop) {
      const auto at = std::find(programs.begin(), programs.end(), loop.program);
      return static_cast<std::size_t>(at - programs.begin()) % folds == fold;
    };
    std::vector<LoopExample> training;
    std::vector<const LoopExample*> training_loops;
    for (const LoopExample& loop : examples)
      if (!held_out(loop)) training.push_back(loop);
    for (const LoopExample& loop : training) training_loops.push_back(&loop);
    const int best_constant = best_constant_factor(training_loops);
    model::Model trained;
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      inner.preferred = candidates[c].preferred;
      inner.keep_default_within = candidates[c].margin;
      // The trees depend on the preferred factor only under Target::kPreferred, never on the
      // margin: train once per preferred factor at most (candidates come grouped by it).
      const bool retrain = c == 0 || (options.target == Target::kPreferred &&
                                      candidates[c].preferred != candidates[c - 1].preferred);
      if (retrain) trained = train_model(training, inner);
      model::Model model = trained;
      model.prefer = candidates[c].preferred == Preferred::kBestConstant ? best_constant : 0;
      model.keep_default_within = candidates[c].margin;
      for (const LoopExample& loop : examples)
        if (held_out(loop))
          log_slowdown[c] += std::log(slowdown(loop, predict_factor(model, loop)));
    }
  }
  const auto best = std::min_element(log_slowdown.begin(), log_slowdown.end());
  return candidates[static_cast<std::size_t>(best - log_slowdown.begin())];
}

model::Model train_model(const std::vector<LoopExample>& examples, const TrainingOptions& options) {
  if (!options.margins.empty() || options.preferred == Preferred::kSelected) {
    const Decision decision = select_decision(examples, options);
    TrainingOptions chosen = options;
    chosen.preferred = decision.preferred;
    chosen.keep_default_within = decision.margin;
    chosen.margins.clear();
    return train_model(examples, chosen);
  }
  model::Model model;
  model.features = model_inputs(examples);
  if (model.features.size() == std::size(model::kFactorInputs))
    throw std::runtime_error(
        "no loop of the dataset has loop table features (docs/formats.md section 3)");
  std::vector<const LoopExample*> loops;
  for (const LoopExample& loop : examples) loops.push_back(&loop);
  const int preferred =
      options.preferred == Preferred::kBestConstant ? best_constant_factor(loops) : 0;
  Rows rows = training_rows(examples, model.features, options, preferred);
  if (rows.count == 0) throw std::runtime_error("no loop of the dataset has observations");
  Matrix matrix = matrix_of(rows, model.features.size());
  double weighted = 0, total_weight = 0;  // the start of every prediction: the weighted mean
  for (std::size_t r = 0; r < rows.count; ++r) {
    weighted += rows.labels[r] * rows.weights[r];
    total_weight += rows.weights[r];
  }
  const double base = static_cast<float>(weighted / total_weight);

  BoosterHandle handle = nullptr;
  DMatrixHandle matrices[] = {matrix.get()};
  check(XGBoosterCreate(matrices, 1, &handle), "XGBoosterCreate");
  Booster booster(handle);
  const std::pair<const char*, std::string> parameters[] = {
      {"objective", "reg:squarederror"},
      {"tree_method", "exact"},
      {"nthread", "1"},
      {"seed", "0"},
      {"max_depth", std::to_string(options.max_depth)},
      {"min_child_weight", fmt::format("{}", options.min_child_weight)},
      {"lambda", fmt::format("{}", options.lambda)},
      {"eta", fmt::format("{}", options.eta)},
      {"base_score", fmt::format("{}", base)},
      {"verbosity", "0"}};
  for (const auto& [name, value] : parameters)
    check(XGBoosterSetParam(handle, name, value.c_str()), "XGBoosterSetParam");
  for (int round = 0; round < options.rounds; ++round)
    check(XGBoosterUpdateOneIter(handle, round, matrix.get()), "XGBoosterUpdateOneIter");

  for (int factor = 0; factor <= profile::kMaxFactor; ++factor) model.factors.push_back(factor);
  model.keep_default_within = options.keep_default_within;
  model.prefer = preferred;
  model.base = base;
  model.ranges = shape_ranges(examples, model.features);
  model.trees = dumped_trees(handle);
  check_conversion(handle, matrix.get(), rows, model);
  return model;
}

}  // namespace looprace::learn
