// Raced Profiles (seeds/000 section 4, Algorithm 1) and its blocked variant.
#pragma once

#include "plans/plan.h"
#include "stats/inference.h"

namespace looprace::plans {

struct RaceParameters {
  double alpha_lt = 0.02;
  double alpha_eq = 0.05;
  double epsilon = 0.005;
  std::size_t max_samples = 200;
};

// Critical values of the loser test (one-sided, alpha_lt) and of the equivalence intervals
// (two-sided, alpha_eq), tabulated once per plan and shared read-only by concurrent runs.
struct RaceCriticalValues {
  explicit RaceCriticalValues(const RaceParameters& parameters);
  stats::StudentCriticalValues less, interval;
};

// The paper's race on log observations: 2 observations each; every round the losers (versions
// some other remaining version beats by Welch's one-sided test at alpha_lt; a version removed
// earlier in the round removes no other, in version order) are recomputed from scratch; stop
// at one survivor or when every survivor's worst-case speedup over the lowest mean,
// exp(upper_b - lower_c) with two-sided intervals at 1 - alpha_eq, is below 1 + epsilon
// (the paper prints this inequality the wrong way round); else observe every survivor once
// more. The cap is checked before a round is sampled, so no version exceeds max_samples.
class RacePlan : public Plan {
 public:
  explicit RacePlan(const RaceParameters& parameters);
  std::string describe() const override;
  Decision run(std::size_t versions, Sampler& sampler,
               const RoundObserver& observer = {}) const override;

 private:
  RaceParameters parameters_;
  RaceCriticalValues critical_;
};

// The same race on blocked data: every round observes all survivors together, so the tests
// use the per-round log ratios of each pair (a paired one-sample t-test on the differences of
// rounds both versions were observed in) instead of two independent samples. Machine drift
// that shifts a whole round cancels out of the ratios. The lowest "mean" is the version whose
// paired differences to the other survivors sum lowest. Unlike the paper's race a loser stays
// out: its pairs stop growing while it is out, so only stale comparisons could bring it back.
class BlockedRacePlan : public Plan {
 public:
  explicit BlockedRacePlan(const RaceParameters& parameters);
  std::string describe() const override;
  Decision run(std::size_t versions, Sampler& sampler,
               const RoundObserver& observer = {}) const override;

 private:
  RaceParameters parameters_;
  RaceCriticalValues critical_;
};

}  // namespace looprace::plans
