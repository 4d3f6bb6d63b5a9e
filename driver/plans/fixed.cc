#include "plans/fixed.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "plans/rounds.h"
#include "stats/covariate.h"
#include "stats/inference.h"
#include "stats/running_stats.h"

namespace looprace::plans {
namespace {

using stats::RunningStats;

// Every observation of each version, for means taken once the plan has them all.
using Taken = std::vector<std::vector<Observation>>;

void add_round(Taken& taken, const std::vector<std::size_t>& sampled,
               const std::vector<std::optional<Observation>>& observations) {
  for (std::size_t i = 0; i < sampled.size(); ++i)
    if (observations[i]) taken[sampled[i]].push_back(*observations[i]);
}

// Each version's arithmetic mean of its cycles, adjusted by their runs' controls when they have
// them (stats::adjusted_cycles).
std::vector<double> version_means(const Taken& taken) {
  std::vector<std::vector<double>> cycles(taken.size()), controls(taken.size());
  for (std::size_t v = 0; v < taken.size(); ++v)
    for (const Observation& o : taken[v]) {
      cycles[v].push_back(o.cycles);
      if (o.control) controls[v].push_back(*o.control);
    }
  const bool controlled =
      std::any_of(controls.begin(), controls.end(), [](const auto& c) { return !c.empty(); });
  if (controlled) cycles = stats::adjusted_cycles(cycles, controls);
  std::vector<double> means(taken.size(), 0.0);
  for (std::size_t v = 0; v < taken.size(); ++v) {
    RunningStats mean;
    for (double c : cycles[v]) mean.add(c);
    means[v] = mean.mean();
  }
  return means;
}

void add_round(std::vector<RunningStats>& cycles, const std::vector<std::size_t>& sampled,
               const std::vector<std::optional<Observation>>& observations) {
  for (std::size_t i = 0; i < sampled.size(); ++i)
    if (observations[i]) cycles[sampled[i]].add(observations[i]->cycles);
}

std::size_t lowest_mean(const std::vector<double>& means, const std::vector<std::size_t>& among) {
  if (among.empty()) throw std::runtime_error("no version could be observed");
  return *std::min_element(among.begin(), among.end(),
                           [&](std::size_t a, std::size_t b) { return means[a] < means[b]; });
}

}  // namespace

ConstantPlan::ConstantPlan(std::size_t size) : size_(size) {
  if (size < 1) throw std::invalid_argument("constant plan size must be at least 1");
}

std::string ConstantPlan::describe() const { return fmt::format("constant(n={})", size_); }

Decision ConstantPlan::run(std::size_t versions, Sampler& sampler,
                           const RoundObserver& observer) const {
  RoundKeeper keeper(versions, sampler, observer);
  Taken taken(versions);
  for (std::size_t round = 0; round < size_; ++round) {
    const std::vector<std::size_t> alive = keeper.alive();
    if (alive.empty()) break;
    add_round(taken, alive, keeper.pull(alive));
    keeper.trace(alive, keeper.alive());
  }
  Decision& decision = keeper.decision();
  decision.chosen = lowest_mean(version_means(taken), keeper.alive());
  decision.winners = {decision.chosen};
  return keeper.release();
}

JavaStatsPlan::JavaStatsPlan(const JavaStatsParameters& parameters)
    : parameters_(parameters), critical_(parameters.alpha / 2.0, parameters.max_samples) {
  if (parameters.min_samples < 2) throw std::invalid_argument("JavaSTATS needs min samples >= 2");
  if (parameters.max_samples < parameters.min_samples)
    throw std::invalid_argument("JavaSTATS max samples is below min samples");
}

std::string JavaStatsPlan::describe() const {
  return fmt::format("javastats(alpha={},theta={},min={},max={})", parameters_.alpha,
                     parameters_.theta, parameters_.min_samples, parameters_.max_samples);
}

Decision JavaStatsPlan::run(std::size_t versions, Sampler& sampler,
                            const RoundObserver& observer) const {
  const JavaStatsParameters& p = parameters_;
  RoundKeeper keeper(versions, sampler, observer);
  Decision& decision = keeper.decision();
  std::vector<RunningStats> cycles(versions);
  const auto half_width = [&](std::size_t v) {
    return critical_.at(static_cast<double>(cycles[v].count() - 1)) * cycles[v].std_error();
  };
  const auto precise = [&](std::size_t v) {
    return cycles[v].count() >= p.min_samples && half_width(v) < p.theta * cycles[v].mean();
  };
  for (;;) {
    std::vector<std::size_t> pending;
    for (std::size_t v : keeper.alive())
      if (!precise(v) && decision.samples[v] < p.max_samples) pending.push_back(v);
    if (pending.empty()) break;
    add_round(cycles, pending, keeper.pull(pending));
    if (keeper.controlled())
      throw std::invalid_argument("javastats takes no observations with controls");
    keeper.trace(pending, keeper.alive());
  }
  const std::vector<std::size_t> alive = keeper.alive();
  std::vector<double> means(versions);
  for (std::size_t v : alive) means[v] = cycles[v].mean();
  decision.chosen = lowest_mean(means, alive);
  decision.cap_hit =
      std::any_of(alive.begin(), alive.end(), [&](std::size_t v) { return !precise(v); });
  const double best_upper = cycles[decision.chosen].mean() + half_width(decision.chosen);
  for (std::size_t v : alive)
    if (cycles[v].mean() - half_width(v) <= best_upper) decision.winners.push_back(v);
  return keeper.release();
}

}  // namespace looprace::plans
