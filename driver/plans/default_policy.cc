#include "plans/default_policy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "stats/disturbed_rounds.h"

namespace looprace::plans {

// Confirmed needs the ratio verdict too, so that the verdict printed beside the interval
// agrees with it.
ConfirmationOutcome judge_confirmation(const DefaultPolicy& policy,
                                       const std::vector<double>& baseline,
                                       const std::vector<double>& chosen,
                                       stats::SpeedupTestResult* test,
                                       const std::vector<int>& layouts) {
  if (std::min(baseline.size(), chosen.size()) < 2) return ConfirmationOutcome::unresolved;
  const stats::SpeedupTestResult t = stats::speedup_test(
      baseline, chosen, look_confidence(policy.confirmation), policy.test, layouts);
  if (test) *test = t;
  if (t.ratio_verdict == stats::Verdict::needs_more_runs) return ConfirmationOutcome::unresolved;
  if (t.ratio_verdict == stats::Verdict::faster && t.speedup_interval.lower > 1.0 + policy.epsilon)
    return ConfirmationOutcome::confirmed;
  if (t.speedup_interval.upper <= 1.0 + policy.epsilon) return ConfirmationOutcome::not_faster;
  return ConfirmationOutcome::unresolved;
}

DefaultDecision decide_default(const DefaultPolicy& policy, bool chosen_is_default,
                               bool default_disqualified, const std::vector<double>& baseline,
                               const std::vector<double>& chosen, const std::vector<int>& layouts,
                               std::size_t set_aside) {
  if (chosen_is_default) return {false, "the plan chose GCC's default"};
  if (!policy.prefer_default) return {false, "the plan's choice stands (--no-prefer-default)"};
  const std::size_t wanted = policy.confirmation.first_pairs;
  if (wanted == 0) return {false, "the plan's choice stands (--confirm 0)"};
  if (default_disqualified) return {false, "GCC's default was disqualified"};
  const std::size_t pairs = std::min(chosen.size(), baseline.size());
  if (pairs + set_aside < wanted) {
    return {true, fmt::format("only {} of {} confirmation runs succeeded: no confirmed gain",
                              pairs + set_aside, wanted)};
  }
  if (pairs < 2) {
    return {true, set_aside > 0
                      ? fmt::format("GCC's default kept: the machine was slow as a whole through "
                                    "{} of the {} confirmation pairs (--round-limit), too many to "
                                    "judge",
                                    set_aside, pairs + set_aside)
                      : fmt::format("GCC's default kept: {} confirmation run of each is too few "
                                    "to judge (--confirm 2 or more)",
                                    pairs)};
  }
  stats::SpeedupTestResult t;
  const ConfirmationOutcome outcome = judge_confirmation(policy, baseline, chosen, &t, layouts);
  const double lower = t.speedup_interval.lower, upper = t.speedup_interval.upper;
  if (outcome == ConfirmationOutcome::confirmed) {
    return {false, fmt::format("confirmed by {} runs of each: speedup interval {:.3f} to {:.3f} "
                               "above 1 + {}",
                               pairs, lower, upper, policy.epsilon)};
  }
  if (t.ratio_verdict == stats::Verdict::needs_more_runs) {
    return {true, fmt::format("GCC's default kept: with fewer than {} confirmation runs each, "
                              "the Speedup-Test trusts an interval only on normal samples, and "
                              "these are not (Shapiro-Wilk); confirm with --confirm {} or more",
                              stats::kLargeSample, stats::kLargeSample)};
  }
  return {true, fmt::format("GCC's default kept: {} confirmation runs of each do not show the "
                            "chosen factor faster by more than {:.1f}% (speedup interval {:.3f} "
                            "to {:.3f}{})",
                            pairs, 100 * policy.epsilon, lower, upper,
                            outcome == ConfirmationOutcome::unresolved
                                ? ", still unresolved after the last look"
                                : "")};
}

namespace {

std::vector<double> logs_of(const std::vector<double>& cycles) {
  std::vector<double> logs;
  for (double x : cycles) logs.push_back(std::log(x));
  return logs;
}

// A build's fast level over the race's runs of it and the pairs', whichever is lower: a
// confirmation longer than the race, taken in the slow state, would otherwise set its own.
double lower_fast_level(const std::vector<double>& race, const std::vector<double>& paired) {
  const double own = stats::fast_level(logs_of(paired));
  return race.empty() ? own : std::min(own, stats::fast_level(logs_of(race)));
}

}  // namespace

RunPairs undisturbed_pairs(const RunPairs& pairs, const std::vector<double>& race_a,
                           const std::vector<double>& race_b, double limit) {
  if (!(limit > 1.0)) return pairs;
  const double fast_a = lower_fast_level(race_a, pairs.a);
  const double fast_b = lower_fast_level(race_b, pairs.b);
  const double bound = std::log(limit);
  RunPairs out;
  for (std::size_t i = 0; i < std::min(pairs.a.size(), pairs.b.size()); ++i) {
    if (std::min(std::log(pairs.a[i]) - fast_a, std::log(pairs.b[i]) - fast_b) > bound) continue;
    out.a.push_back(pairs.a[i]);
    out.b.push_back(pairs.b[i]);
    if (i < pairs.layouts.size()) out.layouts.push_back(pairs.layouts[i]);
  }
  return out;
}

void keep_default_in(Decision& decision, std::size_t base) {
  decision.chosen = base;
  join_winners(decision, base);
}

std::optional<std::size_t> runner_up(const Decision& decision,
                                     const std::vector<std::vector<double>>& taken,
                                     std::size_t base) {
  auto among = [](const std::vector<std::size_t>& set, std::size_t v) {
    return std::find(set.begin(), set.end(), v) != set.end();
  };
  std::optional<std::size_t> best;
  double best_mean = 0;
  for (std::size_t v = 0; v < taken.size(); ++v) {
    if (v == base || taken[v].empty() || among(decision.winners, v) ||
        among(decision.disqualified, v))
      continue;
    const double mean =
        std::accumulate(taken[v].begin(), taken[v].end(), 0.0) / double(taken[v].size());
    if (!best || mean < best_mean) {
      best = v;
      best_mean = mean;
    }
  }
  return best;
}

void join_winners(Decision& decision, std::size_t version) {
  auto& winners = decision.winners;
  if (std::find(winners.begin(), winners.end(), version) == winners.end())
    winners.insert(std::upper_bound(winners.begin(), winners.end(), version), version);
}

}  // namespace looprace::plans
