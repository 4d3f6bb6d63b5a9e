#include "plans/default_policy.h"

#include <fmt/format.h>

#include "stats/speedup_test.h"

namespace looprace::plans {

DefaultDecision decide_default(const DefaultPolicy& policy, bool chosen_is_default,
                               bool default_disqualified, const std::vector<double>& baseline,
                               const std::vector<double>& chosen) {
  if (chosen_is_default) return {false, "the plan chose GCC's default"};
  if (!policy.prefer_default) return {false, "the plan's choice stands (--no-prefer-default)"};
  if (policy.confirm == 0) return {false, "the plan's choice stands (--confirm 0)"};
  if (default_disqualified) return {false, "GCC's default was disqualified"};
  if (chosen.size() < policy.confirm || baseline.size() < policy.confirm) {
    return {true, fmt::format("only {} of {} confirmation runs succeeded: no confirmed gain",
                              std::min(chosen.size(), baseline.size()), policy.confirm)};
  }
  const stats::SpeedupTestResult t = stats::speedup_test(baseline, chosen, policy.confidence);
  if (t.ratio_verdict == stats::Verdict::faster &&
      t.speedup_interval.lower > 1.0 + policy.epsilon) {
    return {false, fmt::format("confirmed: speedup interval {:.3f} to {:.3f} above 1 + {}",
                               t.speedup_interval.lower, t.speedup_interval.upper, policy.epsilon)};
  }
  if (t.ratio_verdict == stats::Verdict::needs_more_runs) {
    return {true, fmt::format("GCC's default kept: with fewer than {} confirmation runs each, "
                              "the Speedup-Test trusts an interval only on normal samples, and "
                              "these are not (Shapiro-Wilk); confirm with --confirm {} or more",
                              stats::kLargeSample, stats::kLargeSample)};
  }
  return {true,
          fmt::format("GCC's default kept: the confirmation runs do not show the chosen "
                      "factor faster by more than {:.1f}% (speedup interval {:.3f} to "
                      "{:.3f})",
                      100 * policy.epsilon, t.speedup_interval.lower, t.speedup_interval.upper)};
}

}  // namespace looprace::plans
