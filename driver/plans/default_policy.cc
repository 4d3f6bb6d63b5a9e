#include "plans/default_policy.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace looprace::plans {

// Confirmed needs the ratio verdict too, so that the verdict printed beside the interval
// agrees with it.
ConfirmationOutcome judge_confirmation(const DefaultPolicy& policy,
                                       const std::vector<double>& baseline,
                                       const std::vector<double>& chosen,
                                       stats::SpeedupTestResult* test,
                                       const std::vector<int>& layouts) {
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
                               const std::vector<double>& chosen, const std::vector<int>& layouts) {
  if (chosen_is_default) return {false, "the plan chose GCC's default"};
  if (!policy.prefer_default) return {false, "the plan's choice stands (--no-prefer-default)"};
  const std::size_t wanted = policy.confirmation.first_pairs;
  if (wanted == 0) return {false, "the plan's choice stands (--confirm 0)"};
  if (default_disqualified) return {false, "GCC's default was disqualified"};
  const std::size_t pairs = std::min(chosen.size(), baseline.size());
  if (pairs < wanted) {
    return {true, fmt::format("only {} of {} confirmation runs succeeded: no confirmed gain", pairs,
                              wanted)};
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
