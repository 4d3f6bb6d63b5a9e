// Leave-one-program-out cross-validation and the baselines' figures.
#include "learn/evaluation.h"

#include <cmath>
#include <map>
#include <stdexcept>

#include "learn/trainer.h"

namespace looprace::learn {

namespace {

double geometric_mean(const std::vector<double>& values) {
  double log_sum = 0;
  for (double value : values) log_sum += std::log(value);
  return values.empty() ? 1 : std::exp(log_sum / static_cast<double>(values.size()));
}

}  // namespace

int worst_tied_factor(const LoopExample& loop) {
  int worst = best_factor(loop);
  for (int factor = 0; factor <= profile::kMaxFactor; ++factor)
    if (tied_best(loop, factor) && slowdown(loop, factor) > slowdown(loop, worst)) worst = factor;
  return worst;
}

PolicyResult score_policy(const std::string& name, const std::vector<const LoopExample*>& loops,
                          const std::function<int(const LoopExample&)>& choose) {
  PolicyResult result{name, {}, 1, 1, 0, 0, 0};
  std::vector<double> slowdowns;
  for (const LoopExample* loop : loops) {
    Choice choice;
    choice.factor = choose(*loop);
    choice.slowdown = slowdown(*loop, choice.factor);
    choice.exact = same_as_best(*loop, choice.factor);
    choice.tied = tied_best(*loop, choice.factor);
    slowdowns.push_back(choice.slowdown);
    result.worst_slowdown = std::max(result.worst_slowdown, choice.slowdown);
    result.exact_accuracy += choice.exact;
    result.tied_accuracy += choice.tied;
    result.choices.push_back(choice);
  }
  const double n = static_cast<double>(std::max<std::size_t>(loops.size(), 1));
  result.exact_accuracy /= n;
  result.tied_accuracy /= n;
  result.geomean_slowdown = geometric_mean(slowdowns);
  const double oracle = speedup_over_default(loops, best_factor) - 1;
  const double own = speedup_over_default(loops, choose) - 1;
  result.share_of_oracle = oracle > 0 ? own / oracle : 0;
  return result;
}

Evaluation evaluate_leave_one_program_out(const std::vector<LoopExample>& examples,
                                          const Trainer& trainer) {
  std::vector<std::string> programs = programs_of(examples);
  if (programs.size() < 2)
    throw std::invalid_argument(
        "leave-one-program-out needs loops of at least two programs; the dataset has " +
        std::to_string(programs.size()));
  Evaluation evaluation;
  evaluation.programs = programs.size();
  std::map<const LoopExample*, int> predicted, constant;
  for (const std::string& held_out : programs) {
    std::vector<LoopExample> training;
    std::vector<const LoopExample*> others;
    for (const LoopExample& loop : examples) {
      if (loop.program == held_out) continue;
      training.push_back(loop);
      others.push_back(&loop);
    }
    const model::Model model = trainer(training);
    const int other_programs_best = best_constant_factor(others);
    for (const LoopExample& loop : examples) {
      if (loop.program != held_out) continue;
      predicted[&loop] = predict_factor(model, loop);
      constant[&loop] = other_programs_best;
    }
  }
  for (const LoopExample& loop : examples) {
    evaluation.loops.push_back(&loop);
    if (resolved(loop)) evaluation.resolved_loops.push_back(&loop);
  }
  evaluation.oracle_speedup = speedup_over_default(evaluation.loops, best_factor);
  using Choose = std::function<int(const LoopExample&)>;
  std::vector<std::pair<std::string, Choose>> policies = {
      {"model (left-out program)", [&](const LoopExample& loop) { return predicted.at(&loop); }},
      {"best constant of the other programs",
       [&](const LoopExample& loop) { return constant.at(&loop); }},
      {"GCC's heuristic (factor 0)", [](const LoopExample&) { return 0; }}};
  bool unroll_loops_known = true;
  for (const LoopExample* loop : evaluation.loops)
    unroll_loops_known &= loop->features.count(kUnrollLoopsFeature) > 0;
  if (unroll_loops_known)
    policies.emplace_back("-funroll-loops", [](const LoopExample& loop) {
      return static_cast<int>(loop.features.at(kUnrollLoopsFeature));
    });
  for (int factor = 1; factor <= profile::kMaxFactor; ++factor)
    policies.emplace_back("always " + std::to_string(factor),
                          [factor](const LoopExample&) { return factor; });
  policies.emplace_back(kWorstTiedPolicy, worst_tied_factor);
  policies.emplace_back("oracle (best factor)", best_factor);
  for (const auto& [name, choose] : policies) {
    evaluation.policies.push_back(score_policy(name, evaluation.loops, choose));
    evaluation.resolved_policies.push_back(score_policy(name, evaluation.resolved_loops, choose));
  }
  return evaluation;
}

}  // namespace looprace::learn
