// The plans the race is compared against (Raced Profiles section 5.7): a constant sample size for
// every version, and JavaSTATS (each version sampled until its own interval is tight enough).
#pragma once

#include "plans/plan.h"
#include "stats/inference.h"

namespace looprace::plans {

// `size` observations of every version, the lowest arithmetic mean wins (alone); with
// controls, the mean of the cycles adjusted by them.
class ConstantPlan : public Plan {
 public:
  explicit ConstantPlan(std::size_t size);
  std::string describe() const override;
  Decision run(std::size_t versions, Sampler& sampler,
               const RoundObserver& observer = {}) const override;

 private:
  std::size_t size_;
};

struct JavaStatsParameters {
  double alpha = 0.05;  // two-sided interval at confidence 1 - alpha
  double theta = 0.01;  // stop a version when half-width / mean < theta
  std::size_t min_samples = 2;
  std::size_t max_samples = 200;
};

// Georges et al.'s JavaSTATS on raw cycles (observations with controls are refused): versions still
// imprecise are observed together each round; a version stops once it has min_samples and its
// interval half-width over its mean is below theta, or at max_samples (cap_hit). The lowest mean is
// chosen; the winners are the versions whose intervals overlap the chosen one's.
class JavaStatsPlan : public Plan {
 public:
  explicit JavaStatsPlan(const JavaStatsParameters& parameters);
  std::string describe() const override;
  Decision run(std::size_t versions, Sampler& sampler,
               const RoundObserver& observer = {}) const override;

 private:
  JavaStatsParameters parameters_;
  stats::StudentCriticalValues critical_;  // two-sided at 1 - alpha
};

}  // namespace looprace::plans
