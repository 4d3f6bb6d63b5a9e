// Bookkeeping shared by every plan: pulling a round from the Sampler with validation,
// disqualifying versions that could not be observed, and tracing rounds.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "plans/plan.h"

namespace looprace::plans {

class RoundKeeper {
 public:
  RoundKeeper(std::size_t versions, Sampler& sampler, const RoundObserver& observer);

  // Versions not disqualified so far, in index order.
  std::vector<std::size_t> alive() const;

  // Observes every version in `versions` once. Returns the observations in the same order;
  // a version the sampler could not observe is disqualified for good and gets std::nullopt.
  // Throws std::invalid_argument when an observation's cycles or control is NaN, infinite or
  // <= 0, when some observations have a control and others not, or when the sampler returns
  // the wrong number of observations.
  std::vector<std::optional<Observation>> pull(const std::vector<std::size_t>& versions);

  // Records the state after a round (and tells the observer). `survivors` are the versions
  // still racing; losers are the remaining alive versions.
  void trace(const std::vector<std::size_t>& sampled, const std::vector<std::size_t>& survivors);

  // The decision so far: samples, disqualified and rounds filled in; the plan sets the rest.
  Decision& decision() { return decision_; }
  // Hands the finished decision over (the keeper is done with it).
  Decision release() { return std::move(decision_); }
  // The observations pulled so far carry controls.
  bool controlled() const { return controlled_.value_or(false); }

 private:
  void check_control(const Observation& o, std::size_t v);

  Sampler& sampler_;
  const RoundObserver& observer_;
  std::vector<bool> disqualified_;
  Decision decision_;
  std::optional<bool> controlled_;  // set by the first observation
};

}  // namespace looprace::plans
