// Raced Profiles (Raced Profiles section 4, Algorithm 1) and its blocked variant.
#pragma once

#include "plans/plan.h"
#include "stats/inference.h"

namespace looprace::plans {

// The location the races compare, on the logs of the observations: the mean (Welch's test,
// the paper's; the blocked races' paired t-test on the per-round differences) or the 20 %
// trimmed mean (Yuen's test; the blocked races' one-sample trimmed test of the differences,
// with the winsorized standard error), which a few slow runs move little.
enum class LocationTest { welch, yuen };

// What alpha_lt and alpha_eq bound. per_comparison: each test of each round on its own (the
// paper's race; over hundreds of comparisons some go wrong by chance). familywise: every
// comparison the race makes, over all versions and rounds: it tests only at the looks of
// stats::SequentialLooks, with alpha split evenly over the looks, and each look's loser tests
// go through Holm's procedure over all ordered pairs of contenders. The equivalence intervals
// need no split over versions (the stop asks all of them to hold at once). Race and
// blocked-race only: the retiring races retire versions as winners by bounds tested at every
// round.
enum class ErrorControl { per_comparison, familywise };

struct RaceParameters {
  double alpha_lt = 0.02;
  double alpha_eq = 0.05;
  double epsilon = 0.005;
  std::size_t max_samples = 200;
  LocationTest test = LocationTest::welch;
  ErrorControl control = ErrorControl::per_comparison;
  // Blocked races: a round whose versions ran, by their median, more than this many times
  // slower than their own fast level is set aside (stats/disturbed_rounds.h); 0 keeps every
  // round.
  double round_limit = 0.0;
};

// The levels one test of a race runs at: alpha_lt and alpha_eq, divided by the number of looks
// under familywise control.
struct RaceLevels {
  explicit RaceLevels(const RaceParameters& parameters);
  double less = 0.0, equal = 0.0;
};

// Critical values of the loser test (one-sided) and of the equivalence intervals (two-sided),
// tabulated once per plan and shared read-only by concurrent runs.
struct RaceCriticalValues {
  explicit RaceCriticalValues(const RaceParameters& parameters);
  RaceLevels levels;
  stats::StudentCriticalValues less, interval;
};

// The retiring race (RetiringRacePlan): the race's parameters, alpha_eq being the level of the
// one-sided bound of each difference to the best, and the observations the best needs,
// relative to every retired survivor, before the race is decided.
struct RetiringRaceParameters {
  RaceParameters race;
  double best_ratio = 1.5;
};

// Critical values of the retiring race: the loser test (one-sided) and the one-sided bound of
// the difference to the best.
struct RetiringRaceCriticalValues {
  explicit RetiringRaceCriticalValues(const RaceParameters& parameters);
  RaceLevels levels;
  stats::StudentCriticalValues less, bound;
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
// use the per-round log ratios of each pair (a paired one-sample test, of their mean or
// trimmed mean, on the differences of rounds both versions were observed in) instead of two
// independent samples. Machine drift
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

// The race with a cheaper stop rule. Losers as in RacePlan (recomputed, may come back). A
// survivor c is retired, and not observed again, while Welch's one-sided upper bound at
// 1 - alpha_eq of mean(log best) - mean(log c) is below log(1 + epsilon): c is shown not to
// be more than epsilon faster than the lowest mean. That bound of the difference needs about
// 2.8 times fewer samples than RacePlan's two separate two-sided intervals for the same proof,
// and a version stops costing runs as soon as its own comparison is settled instead of when
// all are. Retirements are recomputed every round against the current best, so a retired
// version whose bound no longer holds (the best changed, or its mean rose) comes back. The
// best is observed every round; when it is the only survivor left to observe, it is observed
// alone until it has best_ratio times the observations of every retired survivor: the
// lowest of many means is biased low (it was picked for being low), and observations taken
// after the pick are not, so a lucky best regresses and re-admits its rivals. Decided then;
// the winners are the survivors (the best and the retired). Terminates: every round observes
// the best, which reaches the cap (checked before a round is sampled, as in RacePlan).
class RetiringRacePlan : public Plan {
 public:
  explicit RetiringRacePlan(const RetiringRaceParameters& parameters);
  std::string describe() const override;
  Decision run(std::size_t versions, Sampler& sampler,
               const RoundObserver& observer = {}) const override;

 private:
  RetiringRaceParameters parameters_;
  RetiringRaceCriticalValues critical_;
};

// The retiring race on blocked data: losers and retirements from the paired tests on the
// per-round log ratios (as BlockedRacePlan). A retired version is retired for good, as a loser
// of the blocked race stays out: the versions still observed then share every round, so their
// pairs stay complete. The best is picked among those; a version retired against an earlier
// best stays a winner (the new best beat that one). Decided when the best is the only version
// left to observe.
class BlockedRetiringRacePlan : public Plan {
 public:
  explicit BlockedRetiringRacePlan(const RaceParameters& parameters);
  std::string describe() const override;
  Decision run(std::size_t versions, Sampler& sampler,
               const RoundObserver& observer = {}) const override;

 private:
  RaceParameters parameters_;
  RetiringRaceCriticalValues critical_;
};

}  // namespace looprace::plans
