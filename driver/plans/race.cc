#include "plans/race.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>

#include "plans/rounds.h"
#include "stats/inference.h"
#include "stats/running_stats.h"

namespace looprace::plans {
namespace {

using stats::RunningStats;
using stats::StudentCriticalValues;

// Tables cover the degrees of freedom the race reaches (up to 2 * cap for Welch), bounded so a
// huge cap does not cost a huge table; beyond it Boost computes the quantile directly.
std::size_t table_size(std::size_t max_samples) {
  return std::min<std::size_t>(2 * max_samples, 4096);
}

// Independent samples of log observations, one running summary per version.
class IndependentLogs {
 public:
  // A loser's rivals keep gathering data, so a loser may come back (the paper's rule).
  static constexpr bool kReadmitsLosers = true;

  explicit IndependentLogs(std::size_t versions) : logs_(versions) {}

  void add(const std::vector<std::size_t>& sampled,
           const std::vector<std::optional<Observation>>& observations) {
    for (std::size_t i = 0; i < sampled.size(); ++i)
      if (observations[i]) logs_[sampled[i]].add(std::log(*observations[i]));
  }
  // Ranks the versions: the lower, the faster.
  double score(std::size_t v, const std::vector<std::size_t>&) const { return logs_[v].mean(); }
  bool faster(std::size_t d, std::size_t c, const StudentCriticalValues& less) const {
    return less.welch_less(logs_[d], logs_[c]);
  }
  // exp(upper_b - lower_c): how much faster than b version c could be in the worst case.
  double worst_speedup(std::size_t b, std::size_t c, const StudentCriticalValues& interval) const {
    const auto half = [&](const RunningStats& x) {
      return interval.at(static_cast<double>(x.count() - 1)) * x.std_error();
    };
    return std::exp(logs_[b].mean() + half(logs_[b]) - (logs_[c].mean() - half(logs_[c])));
  }
  // True when Welch's one-sided upper bound of mean(log b) - mean(log c) is below `limit`:
  // c is shown to be not more than exp(limit) times faster than b.
  bool not_faster_by(std::size_t c, std::size_t b, double limit,
                     const StudentCriticalValues& bound) const {
    return bound.welch_difference_below(logs_[b], logs_[c], limit);
  }

 private:
  std::vector<RunningStats> logs_;
};

// Blocked samples: for each pair (i < j) the summary of log x_i - log x_j over the rounds
// that observed both.
class PairedLogs {
 public:
  // A loser's pairs with the survivors stop growing while it is out, so it could only come
  // back through comparisons with stale pairs: losers stay out. Survivors then share every
  // round, and the lowest-scoring survivor can never lose, which keeps one survivor.
  static constexpr bool kReadmitsLosers = false;

  explicit PairedLogs(std::size_t versions) : versions_(versions), pairs_(versions * versions) {}

  void add(const std::vector<std::size_t>& sampled,
           const std::vector<std::optional<Observation>>& observations) {
    logs_.assign(sampled.size(), 0.0);
    for (std::size_t i = 0; i < sampled.size(); ++i)
      if (observations[i]) logs_[i] = std::log(*observations[i]);
    for (std::size_t i = 0; i < sampled.size(); ++i) {
      if (!observations[i]) continue;
      for (std::size_t j = 0; j < sampled.size(); ++j)
        if (observations[j] && sampled[i] < sampled[j])
          pair(sampled[i], sampled[j]).add(logs_[i] - logs_[j]);
    }
  }
  // Sum of the mean paired log ratios against the other survivors.
  double score(std::size_t v, const std::vector<std::size_t>& survivors) const {
    double total = 0.0;
    for (std::size_t u : survivors)
      if (u != v) total += difference_mean(v, u);
    return total;
  }
  bool faster(std::size_t d, std::size_t c, const StudentCriticalValues& less) const {
    // d faster than c: mean of log d - log c significantly below zero.
    return d < c ? less.mean_below_zero(pair(d, c)) : less.mean_above_zero(pair(c, d));
  }
  double worst_speedup(std::size_t b, std::size_t c, const StudentCriticalValues& interval) const {
    const RunningStats& x = pair(std::min(b, c), std::max(b, c));
    const double half = interval.at(static_cast<double>(x.count() - 1)) * x.std_error();
    return std::exp(difference_mean(b, c) + half);
  }
  // True when the paired one-sided upper bound of log b - log c is below `limit`.
  bool not_faster_by(std::size_t c, std::size_t b, double limit,
                     const StudentCriticalValues& bound) const {
    // Pairs hold log i - log j for i < j.
    return b < c ? bound.mean_below(pair(b, c), limit) : bound.mean_above(pair(c, b), -limit);
  }

 private:
  RunningStats& pair(std::size_t i, std::size_t j) { return pairs_[i * versions_ + j]; }
  const RunningStats& pair(std::size_t i, std::size_t j) const { return pairs_[i * versions_ + j]; }
  double difference_mean(std::size_t a, std::size_t b) const {
    return a < b ? pair(a, b).mean() : -pair(b, a).mean();
  }

  std::size_t versions_;
  std::vector<RunningStats> pairs_;
  std::vector<double> logs_;  // of the round being added
};

// The loop every race shares: two observations of each version, then per round the losers
// (versions some other contender beats by the one-sided test `less`; a version removed earlier
// in the round removes no other, in version order) recomputed from scratch and the
// lowest-scoring survivor taken as the best. `next_round(model, survivors, best, samples,
// settled)` names the versions the next round observes, or none when the race is decided; it
// may append survivors to `settled`: they leave the contest for good but stay winners. The cap
// is checked before a round is sampled, so no version exceeds max_samples.
template <class Model, class NextRound>
Decision run_race(std::size_t versions, Sampler& sampler, const RoundObserver& observer,
                  std::size_t max_samples, const StudentCriticalValues& less,
                  const NextRound& next_round) {
  RoundKeeper keeper(versions, sampler, observer);
  Model model(versions);
  for (int initial = 0; initial < 2; ++initial) {
    const std::vector<std::size_t> all = keeper.alive();
    model.add(all, keeper.pull(all));
    keeper.trace(all, keeper.alive());
  }
  Decision& decision = keeper.decision();
  std::vector<std::size_t> survivors = keeper.alive(), settled;
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
    std::vector<std::size_t> alive = keeper.alive();
    std::erase_if(alive, [&](std::size_t v) {
      return contains(settled, v) || (!Model::kReadmitsLosers && !contains(survivors, v));
    });
    if (alive.empty()) throw std::runtime_error("no version could be observed");
    std::vector<bool> removed(versions, false);
    for (std::size_t c : alive)
      for (std::size_t d : alive)
        if (d != c && !removed[d] && model.faster(d, c, less)) {
          removed[c] = true;
          break;
        }
    survivors.clear();
    for (std::size_t v : alive)
      if (!removed[v]) survivors.push_back(v);

    const auto best = *std::min_element(survivors.begin(), survivors.end(), [&](auto a, auto b) {
      return model.score(a, survivors) < model.score(b, survivors);
    });
    decision.chosen = best;
    const std::vector<std::size_t> next =
        next_round(model, survivors, best, decision.samples, settled);
    std::erase_if(survivors, [&](std::size_t v) { return contains(settled, v); });
    if (next.empty()) break;
    if (std::any_of(next.begin(), next.end(),
                    [&](std::size_t v) { return decision.samples[v] >= max_samples; })) {
      decision.cap_hit = true;
      break;
    }
    model.add(next, keeper.pull(next));
    keeper.trace(next, winners());
  }
  decision.winners = winners();
  return keeper.release();
}

// The paper's stop rule: one survivor, or every survivor's worst-case speedup over the best
// below 1 + epsilon; until then every survivor is observed again.
template <class Model>
Decision race(std::size_t versions, Sampler& sampler, const RoundObserver& observer,
              const RaceParameters& p, const RaceCriticalValues& critical) {
  return run_race<Model>(
      versions, sampler, observer, p.max_samples, critical.less,
      [&](const Model& model, const std::vector<std::size_t>& survivors, std::size_t best,
          const std::vector<std::size_t>&, std::vector<std::size_t>&) {
        const bool equal = std::all_of(survivors.begin(), survivors.end(), [&](std::size_t c) {
          return c == best || model.worst_speedup(best, c, critical.interval) < 1.0 + p.epsilon;
        });
        return survivors.size() == 1 || equal ? std::vector<std::size_t>{} : survivors;
      });
}

// See RetiringRacePlan.
Decision retiring_race(std::size_t versions, Sampler& sampler, const RoundObserver& observer,
                       const RetiringRaceParameters& p,
                       const RetiringRaceCriticalValues& critical) {
  const double limit = std::log1p(p.race.epsilon);
  return run_race<IndependentLogs>(
      versions, sampler, observer, p.race.max_samples, critical.less,
      [&](const IndependentLogs& model, const std::vector<std::size_t>& survivors, std::size_t best,
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
      versions, sampler, observer, p.max_samples, critical.less,
      [&](const PairedLogs& model, const std::vector<std::size_t>& survivors, std::size_t best,
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

std::string describe_race(const char* name, const RaceParameters& p) {
  return fmt::format("{}(alpha_lt={},alpha_eq={},eps={},cap={})", name, p.alpha_lt, p.alpha_eq,
                     p.epsilon, p.max_samples);
}

}  // namespace

RaceCriticalValues::RaceCriticalValues(const RaceParameters& p)
    : less(p.alpha_lt, table_size(p.max_samples)),
      interval(p.alpha_eq / 2.0, table_size(p.max_samples)) {}

RetiringRaceCriticalValues::RetiringRaceCriticalValues(const RaceParameters& p)
    : less(p.alpha_lt, table_size(p.max_samples)), bound(p.alpha_eq, table_size(p.max_samples)) {}

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
  return fmt::format("retiring-race(alpha_lt={},alpha_eq={},eps={},best_ratio={},cap={})",
                     p.alpha_lt, p.alpha_eq, p.epsilon, parameters_.best_ratio, p.max_samples);
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
