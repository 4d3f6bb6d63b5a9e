#include "plans/race.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include "plans/rounds.h"
#include "stats/covariate.h"
#include "stats/disturbed_rounds.h"
#include "stats/inference.h"
#include "stats/multiplicity.h"
#include "stats/running_stats.h"

namespace looprace::plans {
namespace {

using stats::LocationEstimate;
using stats::RunningStats;
using stats::StudentCriticalValues;

// Tables cover the degrees of freedom the race reaches (up to 2 * cap for Welch), bounded so a
// huge cap does not cost a huge table; beyond it Boost computes the quantile directly.
std::size_t table_size(std::size_t max_samples) {
  return std::min<std::size_t>(2 * max_samples, 4096);
}

// One sample's location, kept current as values arrive: the mean (Welch's test, the paired
// t-test) or the 20 % trimmed mean (Yuen's test, the one-sample trimmed test), which needs the
// sorted sample. One value has no spread yet (as mean_estimate); no test runs before two.
class LocationSample {
 public:
  const LocationEstimate& add(double x, LocationTest test) {
    if (test == LocationTest::welch) {
      running_.add(x);
      return estimate_ = stats::mean_estimate(running_);
    }
    sorted_.insert(std::upper_bound(sorted_.begin(), sorted_.end(), x), x);
    estimate_ = sorted_.size() < 2 ? LocationEstimate{x, 0.0, 0.0}
                                   : stats::trimmed_mean_estimate(sorted_, 0.2);
    return estimate_;
  }
  const LocationEstimate& estimate() const { return estimate_; }

 private:
  RunningStats running_;        // welch
  std::vector<double> sorted_;  // yuen
  LocationEstimate estimate_;
};

// Samples of logs adjusted by their runs' controls (stats/covariate.h): one slope, fitted
// within all of them, refitted after every round. Only means: a trimmed mean of adjusted values
// would have to be recomputed from every observation whenever the slope moves.
class ControlledSamples {
 public:
  ControlledSamples(std::size_t samples, LocationTest test) : samples_(samples) {
    if (test != LocationTest::welch)
      throw std::invalid_argument(
          "observations with controls are compared by their means: race them with --test welch");
  }
  void add(std::size_t k, double y, double x) { samples_[k].add(y, x); }
  void refit() { slope_ = stats::pooled_slope(samples_); }
  LocationEstimate estimate(std::size_t k) const {
    return stats::adjusted_mean_estimate(samples_[k], slope_);
  }

 private:
  std::vector<stats::CovariateStats> samples_;
  double slope_ = 0.0;
};

// Independent samples of log observations, one location per version (adjusted by the runs'
// controls when the observations have them).
class IndependentLogs {
 public:
  // A loser's rivals keep gathering data, so a loser may come back (the paper's rule).
  static constexpr bool kReadmitsLosers = true;

  IndependentLogs(std::size_t versions, const RaceParameters& p)
      : versions_(versions), test_(p.test), samples_(versions) {}

  void add(const std::vector<std::size_t>& sampled,
           const std::vector<std::optional<Observation>>& observations) {
    for (std::size_t i = 0; i < sampled.size(); ++i) {
      if (!observations[i]) continue;
      const Observation& o = *observations[i];
      if (!o.control) {
        samples_[sampled[i]].add(std::log(o.cycles), test_);
        continue;
      }
      if (!controlled_) controlled_.emplace(versions_, test_);
      controlled_->add(sampled[i], std::log(o.cycles), std::log(*o.control));
    }
    if (controlled_) controlled_->refit();
  }
  // Ranks the versions: the lower, the faster.
  double score(std::size_t v, const std::vector<std::size_t>&) const { return estimate(v).value; }
  bool faster(std::size_t d, std::size_t c, const StudentCriticalValues& less) const {
    return less.difference_below(estimate(d), estimate(c), 0.0);
  }
  // One-sided p-value of "d is faster than c".
  double p_faster(std::size_t d, std::size_t c) const {
    return stats::p_value_below(stats::difference(estimate(d), estimate(c)), 0.0);
  }
  // exp(upper_b - lower_c): how much faster than b version c could be in the worst case.
  // exp(location(log c) - location(log b)): how many times slower c is estimated than b.
  double ratio(std::size_t c, std::size_t b) const {
    return std::exp(estimate(c).value - estimate(b).value);
  }
  double worst_speedup(std::size_t b, std::size_t c, const StudentCriticalValues& interval) const {
    const auto half = [&](const LocationEstimate& x) {
      return interval.at(x.df) * std::sqrt(x.variance);
    };
    const LocationEstimate &eb = estimate(b), &ec = estimate(c);
    return std::exp(eb.value + half(eb) - (ec.value - half(ec)));
  }
  // True when the one-sided upper bound of location(log b) - location(log c) is below
  // `limit`: c is shown to be not more than exp(limit) times faster than b.
  bool not_faster_by(std::size_t c, std::size_t b, double limit,
                     const StudentCriticalValues& bound) const {
    return bound.difference_below(estimate(b), estimate(c), limit);
  }
  // Independent samples set no round aside.
  void mark_set_aside(std::vector<RoundTrace>&) const {}

 private:
  LocationEstimate estimate(std::size_t v) const {
    return controlled_ ? controlled_->estimate(v) : samples_[v].estimate();
  }

  std::size_t versions_;
  LocationTest test_;
  std::vector<LocationSample> samples_;
  std::optional<ControlledSamples> controlled_;
};

// Blocked samples: for each pair (i < j) the location of log x_i - log x_j over the rounds
// that observed both: their mean (the paired t-test), or their 20 % trimmed mean with the
// winsorized standard error (the one-sample trimmed test of Tukey and McLaughlin), which the
// few rounds another process disturbed move little. With controls, the mean of the pair's
// log ratios adjusted by the ratios of its runs' controls. With a round limit, only the rounds
// stats::undisturbed_rounds keeps count; since a later round can set an earlier one aside, the
// pairs are then rebuilt from the kept rounds whenever an earlier round's verdict changes.
class PairedLogs {
 public:
  // A loser's pairs with the survivors stop growing while it is out, so it could only come
  // back through comparisons with stale pairs: losers stay out. Survivors then share every
  // round, and the lowest-scoring survivor can never lose, which keeps one survivor.
  static constexpr bool kReadmitsLosers = false;

  PairedLogs(std::size_t versions, const RaceParameters& p)
      : versions_(versions), test_(p.test), round_limit_(p.round_limit) {
    clear_pairs();
  }

  void add(const std::vector<std::size_t>& sampled,
           const std::vector<std::optional<Observation>>& observations) {
    stats::RoundLogs round;
    std::vector<double> controls;
    for (std::size_t i = 0; i < sampled.size(); ++i) {
      if (!observations[i]) continue;
      round.versions.push_back(sampled[i]);
      round.logs.push_back(std::log(observations[i]->cycles));
      if (observations[i]->control) {
        if (!controlled_) controlled_.emplace(versions_ * versions_, test_);
        controls.push_back(std::log(*observations[i]->control));
      }
    }
    if (!(round_limit_ > 1.0)) {
      add_round(round, controls);
    } else {
      rounds_.push_back(std::move(round));
      round_controls_.push_back(std::move(controls));
      keep_undisturbed();
    }
    if (controlled_) controlled_->refit();
  }
  // Sum of the paired log ratios' locations against the other survivors.
  double score(std::size_t v, const std::vector<std::size_t>& survivors) const {
    double total = 0.0;
    for (std::size_t u : survivors)
      if (u != v) total += difference(v, u).value;
    return total;
  }
  bool faster(std::size_t d, std::size_t c, const StudentCriticalValues& less) const {
    // d faster than c: the location of log d - log c significantly below zero.
    return less.location_below(difference(d, c), 0.0);
  }
  double p_faster(std::size_t d, std::size_t c) const {
    return stats::p_value_below(difference(d, c), 0.0);
  }
  // exp(location of log c - log b over their common rounds).
  double ratio(std::size_t c, std::size_t b) const { return std::exp(difference(c, b).value); }
  double worst_speedup(std::size_t b, std::size_t c, const StudentCriticalValues& interval) const {
    const LocationEstimate e = difference(b, c);
    return std::exp(e.value + interval.at(e.df) * std::sqrt(e.variance));
  }
  // True when the paired one-sided upper bound of log b - log c is below `limit`.
  bool not_faster_by(std::size_t c, std::size_t b, double limit,
                     const StudentCriticalValues& bound) const {
    return bound.location_below(difference(b, c), limit);
  }
  // Marks the rounds the last verdicts set aside; `rounds` are the plan's, one per add().
  void mark_set_aside(std::vector<RoundTrace>& rounds) const {
    for (std::size_t r = 0; r < kept_.size() && r < rounds.size(); ++r)
      rounds[r].set_aside = !kept_[r];
  }

 private:
  void clear_pairs() {
    pairs_.assign(versions_ * versions_, LocationSample{});
    counts_.assign(versions_ * versions_, 0);
    if (controlled_) controlled_.emplace(versions_ * versions_, test_);
  }
  // Adds every pair of a round's observations (and their controls' ratios, when it has them).
  void add_round(const stats::RoundLogs& round, const std::vector<double>& controls) {
    const std::vector<std::size_t>& v = round.versions;
    for (std::size_t i = 0; i < v.size(); ++i) {
      for (std::size_t j = 0; j < v.size(); ++j) {
        if (v[i] >= v[j]) continue;
        const std::size_t pair = v[i] * versions_ + v[j];
        ++counts_[pair];
        if (controlled_)
          controlled_->add(pair, round.logs[i] - round.logs[j], controls[i] - controls[j]);
        else
          pairs_[pair].add(round.logs[i] - round.logs[j], test_);
      }
    }
  }
  // Judges every round again with the newest one among them: when no earlier verdict changed,
  // the newest round is added if kept; otherwise the pairs are rebuilt from the kept rounds.
  void keep_undisturbed() {
    std::vector<bool> kept = stats::undisturbed_rounds(rounds_, versions_, round_limit_);
    const bool earlier_changed = !std::equal(kept_.begin(), kept_.end(), kept.begin());
    kept_ = std::move(kept);
    if (earlier_changed) {
      clear_pairs();
      for (std::size_t r = 0; r < rounds_.size(); ++r)
        if (kept_[r]) add_round(rounds_[r], round_controls_[r]);
    } else if (kept_.back()) {
      add_round(rounds_.back(), round_controls_.back());
    }
  }
  // The estimate of log a - log b; pairs hold log i - log j for i < j.
  LocationEstimate difference(std::size_t a, std::size_t b) const {
    if (a < b) return pair(a * versions_ + b);
    const LocationEstimate e = pair(b * versions_ + a);
    return {-e.value, e.variance, e.df};
  }
  // A pair with fewer than two kept rounds shows nothing: no test passes on it.
  LocationEstimate pair(std::size_t k) const {
    if (counts_[k] < 2) return {0.0, std::numeric_limits<double>::infinity(), 1.0};
    return controlled_ ? controlled_->estimate(k) : pairs_[k].estimate();
  }

  std::size_t versions_;
  LocationTest test_;
  double round_limit_;
  std::vector<LocationSample> pairs_;  // [i * versions + j], i < j
  std::vector<std::size_t> counts_;    // rounds in each pair
  // With controls: log i - log j against control i - control j, per pair.
  std::optional<ControlledSamples> controlled_;
  // With a round limit: every round, its controls, and whether it is kept.
  std::vector<stats::RoundLogs> rounds_;
  std::vector<std::vector<double>> round_controls_;
  std::vector<bool> kept_;
};

// The contenders of `alive` that no other one beats: c loses when some d, not itself removed
// earlier in this pass (in version order), is shown faster. Per comparison, each pair is its
// own one-sided test at the critical values `less`; familywise, the pairs are the hypotheses
// of Holm's procedure at `less`'s level. A pair Holm could reject must pass `less` alone
// (its p-value is at most the level), so only those need exact p-values.
template <class Model>
std::vector<std::size_t> unbeaten(const Model& model, const std::vector<std::size_t>& alive,
                                  const StudentCriticalValues& less, ErrorControl control) {
  const std::size_t n = alive.size();
  std::vector<char> shown(n * n, 0);  // shown[i * n + j]: alive[i] is faster than alive[j]
  std::vector<std::size_t> candidates;
  std::vector<double> p_values;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (i != j && model.faster(alive[i], alive[j], less)) {
        shown[i * n + j] = 1;
        candidates.push_back(i * n + j);
        if (control == ErrorControl::familywise)
          p_values.push_back(model.p_faster(alive[i], alive[j]));
      }
  if (control == ErrorControl::familywise) {
    const std::vector<bool> rejected = stats::holm_rejections(p_values, n * (n - 1), less.alpha());
    for (std::size_t k = 0; k < candidates.size(); ++k) shown[candidates[k]] = rejected[k];
  }
  std::vector<bool> removed(n, false);
  std::vector<std::size_t> survivors;
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t i = 0; i < n && !removed[j]; ++i) removed[j] = !removed[i] && shown[i * n + j];
    if (!removed[j]) survivors.push_back(alive[j]);
  }
  return survivors;
}

// The loop every race shares: two observations of each version, then at every look the
// losers (unbeaten above) recomputed from scratch and the lowest-scoring survivor taken as the
// best. `next_round(model, survivors, best, samples, settled)` names the versions the next
// rounds observe, or none when the race is decided; it may append survivors to `settled`:
// they leave the contest for good but stay winners; deciding, it may drop survivors that are
// no winners. Per comparison every round is a look;
// familywise only the rounds where the most observed version reaches the next of
// stats::SequentialLooks, and the rounds between repeat the last look's versions. The cap is
// checked before a round is sampled, so no version exceeds max_samples.
template <class Model, class NextRound>
Decision run_race(std::size_t versions, Sampler& sampler, const RoundObserver& observer,
                  const RaceParameters& p, const StudentCriticalValues& less,
                  const NextRound& next_round) {
  RoundKeeper keeper(versions, sampler, observer);
  Model model(versions, p);
  for (int initial = 0; initial < 2; ++initial) {
    const std::vector<std::size_t> all = keeper.alive();
    model.add(all, keeper.pull(all));
    keeper.trace(all, keeper.alive());
  }
  Decision& decision = keeper.decision();
  const stats::SequentialLooks looks(p.max_samples);
  std::size_t next_look = 2;
  std::vector<std::size_t> survivors = keeper.alive(), settled, next;
  const auto contains = [](const std::vector<std::size_t>& set, std::size_t v) {
    return std::find(set.begin(), set.end(), v) != set.end();
  };
  const auto winners = [&] {
    std::vector<std::size_t> all = survivors;
    all.insert(all.end(), settled.begin(), settled.end());
    std::sort(all.begin(), all.end());
    return all;
  };
  for (;;) {
    const std::size_t most = *std::max_element(decision.samples.begin(), decision.samples.end());
    if (p.control == ErrorControl::per_comparison || most >= next_look) {
      next_look = looks.next_at_or_after(most + 1);
      std::vector<std::size_t> alive = keeper.alive();
      std::erase_if(alive, [&](std::size_t v) {
        return contains(settled, v) || (!Model::kReadmitsLosers && !contains(survivors, v));
      });
      if (alive.empty()) throw std::runtime_error("no version could be observed");
      survivors = unbeaten(model, alive, less, p.control);
      const auto best = *std::min_element(survivors.begin(), survivors.end(), [&](auto a, auto b) {
        return model.score(a, survivors) < model.score(b, survivors);
      });
      decision.chosen = best;
      next = next_round(model, survivors, best, decision.samples, settled);
      std::erase_if(survivors, [&](std::size_t v) { return contains(settled, v); });
      if (next.empty()) break;
    }
    std::erase_if(next, [&](std::size_t v) { return !contains(keeper.alive(), v); });
    if (next.empty()) {  // all disqualified since the look: look again now
      next_look = 0;
      continue;
    }
    if (std::any_of(next.begin(), next.end(),
                    [&](std::size_t v) { return decision.samples[v] >= p.max_samples; })) {
      decision.cap_hit = true;
      break;
    }
    model.add(next, keeper.pull(next));
    keeper.trace(next, winners());
  }
  decision.winners = winners();
  model.mark_set_aside(decision.rounds);
  return keeper.release();
}

// The paper's stop rule: one survivor, or every survivor's worst-case speedup over the best
// below 1 + epsilon; until then every survivor is observed again. That rule also holds when
// the best is clearly faster than the others, before any loser test (under familywise control,
// stricter than the intervals) has removed them: after 3 rounds a 10 % slower factor was left
// a winner. So at the stop a survivor is a winner only when the intervals do not show it slower
// than the best by more than epsilon and its estimate is within epsilon of the best's. (Racing
// on until every such survivor is shown slower cost 12 % more runs in replay of the recorded
// dataset, most of them to the cap, for the same failure rate.)
template <class Model>
Decision race(std::size_t versions, Sampler& sampler, const RoundObserver& observer,
              const RaceParameters& p, const RaceCriticalValues& critical) {
  return run_race<Model>(
      versions, sampler, observer, p, critical.less,
      [&](const Model& model, std::vector<std::size_t>& survivors, std::size_t best,
          const std::vector<std::size_t>&, std::vector<std::size_t>&) {
        const bool equal = std::all_of(survivors.begin(), survivors.end(), [&](std::size_t c) {
          return c == best || model.worst_speedup(best, c, critical.interval) < 1.0 + p.epsilon;
        });
        if (!equal) return survivors.size() == 1 ? std::vector<std::size_t>{} : survivors;
        std::erase_if(survivors, [&](std::size_t c) {
          return c != best &&
                 (model.worst_speedup(best, c, critical.interval) < 1.0 / (1.0 + p.epsilon) ||
                  model.ratio(c, best) > 1.0 + p.epsilon);
        });
        return std::vector<std::size_t>{};
      });
}

// See RetiringRacePlan.
Decision retiring_race(std::size_t versions, Sampler& sampler, const RoundObserver& observer,
                       const RetiringRaceParameters& p,
                       const RetiringRaceCriticalValues& critical) {
  const double limit = std::log1p(p.race.epsilon);
  return run_race<IndependentLogs>(
      versions, sampler, observer, p.race, critical.less,
      [&](const IndependentLogs& model, std::vector<std::size_t>& survivors, std::size_t best,
          const std::vector<std::size_t>& samples, std::vector<std::size_t>&) {
        std::vector<std::size_t> active;
        std::size_t most_retired = 0;
        for (std::size_t c : survivors) {
          if (c == best || !model.not_faster_by(c, best, limit, critical.bound))
            active.push_back(c);
          else
            most_retired = std::max(most_retired, samples[c]);
        }
        if (active.size() > 1) return active;
        const bool confirmed =
            static_cast<double>(samples[best]) >= p.best_ratio * static_cast<double>(most_retired);
        return confirmed ? std::vector<std::size_t>{} : active;
      });
}

// See BlockedRetiringRacePlan.
Decision blocked_retiring_race(std::size_t versions, Sampler& sampler,
                               const RoundObserver& observer, const RaceParameters& p,
                               const RetiringRaceCriticalValues& critical) {
  const double limit = std::log1p(p.epsilon);
  return run_race<PairedLogs>(
      versions, sampler, observer, p, critical.less,
      [&](const PairedLogs& model, std::vector<std::size_t>& survivors, std::size_t best,
          const std::vector<std::size_t>&, std::vector<std::size_t>& settled) {
        std::vector<std::size_t> active;
        for (std::size_t c : survivors) {
          if (c == best || !model.not_faster_by(c, best, limit, critical.bound))
            active.push_back(c);
          else
            settled.push_back(c);
        }
        return active.size() == 1 ? std::vector<std::size_t>{} : active;
      });
}

// The test and error control, when they are not the paper's, as parameters of describe().
std::string describe_tests(const RaceParameters& p) {
  std::string out;
  if (p.test == LocationTest::yuen) out += ",test=yuen";
  if (p.control == ErrorControl::familywise) out += ",control=familywise";
  if (p.round_limit > 1.0) out += fmt::format(",rounds<={}", p.round_limit);
  return out;
}

std::string describe_race(const char* name, const RaceParameters& p) {
  return fmt::format("{}(alpha_lt={},alpha_eq={},eps={},cap={}{})", name, p.alpha_lt, p.alpha_eq,
                     p.epsilon, p.max_samples, describe_tests(p));
}

}  // namespace

RaceLevels::RaceLevels(const RaceParameters& p) {
  const double split = p.control == ErrorControl::familywise
                           ? static_cast<double>(stats::SequentialLooks(p.max_samples).count())
                           : 1.0;
  less = p.alpha_lt / split;
  equal = p.alpha_eq / split;
}

RaceCriticalValues::RaceCriticalValues(const RaceParameters& p)
    : levels(p),
      less(levels.less, table_size(p.max_samples)),
      interval(levels.equal / 2.0, table_size(p.max_samples)) {}

RetiringRaceCriticalValues::RetiringRaceCriticalValues(const RaceParameters& p)
    : levels(p),
      less(levels.less, table_size(p.max_samples)),
      bound(levels.equal, table_size(p.max_samples)) {}

RacePlan::RacePlan(const RaceParameters& parameters)
    : parameters_(parameters), critical_(parameters) {}
std::string RacePlan::describe() const { return describe_race("race", parameters_); }
Decision RacePlan::run(std::size_t versions, Sampler& sampler,
                       const RoundObserver& observer) const {
  return race<IndependentLogs>(versions, sampler, observer, parameters_, critical_);
}

BlockedRacePlan::BlockedRacePlan(const RaceParameters& parameters)
    : parameters_(parameters), critical_(parameters) {}
std::string BlockedRacePlan::describe() const { return describe_race("blocked-race", parameters_); }
Decision BlockedRacePlan::run(std::size_t versions, Sampler& sampler,
                              const RoundObserver& observer) const {
  return race<PairedLogs>(versions, sampler, observer, parameters_, critical_);
}

RetiringRacePlan::RetiringRacePlan(const RetiringRaceParameters& parameters)
    : parameters_(parameters), critical_(parameters.race) {}
std::string RetiringRacePlan::describe() const {
  const RaceParameters& p = parameters_.race;
  return fmt::format("retiring-race(alpha_lt={},alpha_eq={},eps={},best_ratio={},cap={}{})",
                     p.alpha_lt, p.alpha_eq, p.epsilon, parameters_.best_ratio, p.max_samples,
                     describe_tests(p));
}
Decision RetiringRacePlan::run(std::size_t versions, Sampler& sampler,
                               const RoundObserver& observer) const {
  return retiring_race(versions, sampler, observer, parameters_, critical_);
}

BlockedRetiringRacePlan::BlockedRetiringRacePlan(const RaceParameters& parameters)
    : parameters_(parameters), critical_(parameters) {}
std::string BlockedRetiringRacePlan::describe() const {
  return describe_race("blocked-retiring-race", parameters_);
}
Decision BlockedRetiringRacePlan::run(std::size_t versions, Sampler& sampler,
                                      const RoundObserver& observer) const {
  return blocked_retiring_race(versions, sampler, observer, parameters_, critical_);
}

}  // namespace looprace::plans
