// Targets and figures of raced loops.
#include "learn/examples.h"

#include <algorithm>
#include <cmath>

#include "plugin/model_grammar.h"

namespace looprace::learn {

int best_factor(const LoopExample& loop) {
  int best = -1;
  for (const auto& [factor, mean] : loop.mean)
    if (best < 0 || mean < loop.mean.at(best)) best = factor;
  return best;
}

namespace {

// The factor's own mean, its code group's, or the loop's slowest.
double mean_of(const LoopExample& loop, int factor) {
  if (auto own = loop.mean.find(factor); own != loop.mean.end()) return own->second;
  if (auto group = loop.code_group.find(factor); group != loop.code_group.end())
    for (const auto& [other, mean] : loop.mean)
      if (loop.code_group.count(other) && loop.code_group.at(other) == group->second) return mean;
  double slowest = 0;
  for (const auto& [other, mean] : loop.mean) slowest = std::max(slowest, mean);
  return slowest;
}

int group_of(const LoopExample& loop, int factor) {
  auto group = loop.code_group.find(factor);
  return group == loop.code_group.end() ? factor : group->second;
}

}  // namespace

double slowdown(const LoopExample& loop, int factor) {
  return mean_of(loop, factor) / loop.mean.at(best_factor(loop));
}

bool tied_best(const LoopExample& loop, int factor) {
  for (int winner : loop.winners)
    if (group_of(loop, winner) == group_of(loop, factor)) return true;
  return false;
}

bool same_as_best(const LoopExample& loop, int factor) {
  return group_of(loop, factor) == group_of(loop, best_factor(loop));
}

std::map<int, double> log_slowdown_targets(const LoopExample& loop) {
  std::map<int, double> targets;
  for (const auto& [factor, mean] : loop.mean)
    targets[factor] = tied_best(loop, factor) ? 0.0 : std::log(slowdown(loop, factor));
  return targets;
}

double stakes(const LoopExample& loop) {
  double most = 0;
  for (const auto& [factor, target] : log_slowdown_targets(loop)) most = std::max(most, target);
  return most;
}

bool resolved(const LoopExample& loop) {
  for (int factor = 0; factor <= profile::kMaxFactor; ++factor)
    if (!tied_best(loop, factor)) return true;
  return false;
}

double speedup_over_default(const std::vector<const LoopExample*>& loops,
                            const std::function<int(const LoopExample&)>& choose) {
  double log_sum = 0;
  for (const LoopExample* loop : loops)
    log_sum += std::log(slowdown(*loop, 0) / slowdown(*loop, choose(*loop)));
  return loops.empty() ? 1 : std::exp(log_sum / static_cast<double>(loops.size()));
}

int best_constant_factor(const std::vector<const LoopExample*>& loops) {
  int best = 0;
  double best_speedup = 0;
  for (int factor = 0; factor <= profile::kMaxFactor; ++factor) {
    double speedup = speedup_over_default(loops, [factor](const LoopExample&) { return factor; });
    if (speedup > best_speedup) {
      best = factor;
      best_speedup = speedup;
    }
  }
  return best;
}

std::vector<std::string> model_inputs(const std::vector<LoopExample>& examples) {
  std::vector<std::string> inputs;
  for (std::string_view name : model::kLoopFeatures) {
    bool present = false;
    for (const LoopExample& loop : examples) present |= loop.features.count(std::string(name)) > 0;
    if (present) inputs.emplace_back(name);
  }
  for (std::string_view input : model::kFactorInputs) inputs.emplace_back(input);
  return inputs;
}

std::vector<std::string> programs_of(const std::vector<LoopExample>& examples) {
  std::vector<std::string> programs;
  for (const LoopExample& loop : examples)
    if (std::find(programs.begin(), programs.end(), loop.program) == programs.end())
      programs.push_back(loop.program);
  return programs;
}

}  // namespace looprace::learn
