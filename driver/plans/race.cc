#include "plans/race.h"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <limits>

#include "plans/rounds.h"
#include "stats/inference.h"
#include "stats/running_stats.h"
#include "stats/trimmed.h"

namespace looprace::plans {
namespace {

using stats::RunningStats;
using stats::StudentCriticalValues;

// Tables cover the degrees of freedom the race reaches (up to 2 * cap for Welch), bounded so a
// huge cap does not cost a huge table; beyond it Boost computes the quantile directly.
std::size_t table_size(std::size_t max_samples) {
  return std::min<std::size_t>(2 * max_samples, 4096);
}

// A location estimate of each summary type the independent model can keep.
stats::LocationEstimate estimate(const RunningStats& logs) { return stats::mean_estimate(logs); }
stats::LocationEstimate estimate(const stats::TrimmedSample& logs) { return logs.estimate(); }

// Independent samples of log observations, one summary per version: RunningStats for means
// (Welch's test), TrimmedSample for trimmed means (Yuen's test).
template <class Summary>
class IndependentLogs {
 public:
  // A loser's rivals keep gathering data, so a loser may come back (the paper's rule).
  static constexpr bool kReadmitsLosers = true;

  IndependentLogs(std::size_t versions, const Summary& empty) : logs_(versions, empty) {}

  void add(const std::vector<std::size_t>& sampled,
           const std::vector<std::optional<Observation>>& observations) {
    for (std::size_t i = 0; i < sampled.size(); ++i)
      if (observations[i]) logs_[sampled[i]].add(std::log(*observations[i]));
  }
  // Ranks the versions: the lower, the faster.
  double score(std::size_t v, const std::vector<std::size_t>&) const {
    return estimate(logs_[v]).value;
  }
  bool faster(std::size_t d, std::size_t c, const StudentCriticalValues& less) const {
    return less.difference_below(estimate(logs_[d]), estimate(logs_[c]), 0.0);
  }
  // exp(upper_b - lower_c): how much faster than b version c could be in the worst case.
  double worst_speedup(std::size_t b, std::size_t c, const StudentCriticalValues& interval) const {
    const auto half = [&](const stats::LocationEstimate& x) {
      return interval.at(x.df) * std::sqrt(x.variance);
    };
    const auto eb = estimate(logs_[b]), ec = estimate(logs_[c]);
    return std::exp(eb.value + half(eb) - (ec.value - half(ec)));
  }
  // True when location(log b) - location(log c) < limit at the bound's level: c is shown to be
  // not more than exp(limit) times faster than b.
  bool not_faster_by(std::size_t c, std::size_t b, double limit,
                     const StudentCriticalValues& bound) const {
    return bound.difference_below(estimate(logs_[b]), estimate(logs_[c]), limit);
  }

 private:
  std::vector<Summary> logs_;
};

// Blocked samples: for each pair (i < j) the summary of log x_i - log x_j over the rounds
// that observed both (RunningStats for the paired t-test, TrimmedSample for the trimmed one).
template <class Summary>
class PairedLogs {
 public:
  // A loser's pairs with the survivors stop growing while it is out, so it could only come
  // back through comparisons with stale pairs: losers stay out. Survivors then share every
  // round, and the lowest-scoring survivor can never lose, which keeps one survivor.
  static constexpr bool kReadmitsLosers = false;

  PairedLogs(std::size_t versions, const Summary& empty)
      : versions_(versions), pairs_(versions * versions, empty) {}

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
      if (u != v) total += difference(v, u).value;
    return total;
  }
  bool faster(std::size_t d, std::size_t c, const StudentCriticalValues& less) const {
    // d faster than c: log d - log c significantly below zero.
    return less.location_below(difference(d, c), 0.0);
  }
  double worst_speedup(std::size_t b, std::size_t c, const StudentCriticalValues& interval) const {
    const stats::LocationEstimate x = difference(b, c);
    return std::exp(x.value + interval.at(x.df) * std::sqrt(x.variance));
  }
  bool not_faster_by(std::size_t c, std::size_t b, double limit,
                     const StudentCriticalValues& bound) const {
    return bound.location_below(difference(b, c), limit);
  }

 private:
  Summary& pair(std::size_t i, std::size_t j) { return pairs_[i * versions_ + j]; }
  const Summary& pair(std::size_t i, std::size_t j) const { return pairs_[i * versions_ + j]; }
  // Location of log a - log b.
  stats::LocationEstimate difference(std::size_t a, std::size_t b) const {
    if (a < b) return estimate(pair(a, b));
    const stats::LocationEstimate x = estimate(pair(b, a));
    return {-x.value, x.variance, x.df};
  }

  std::size_t versions_;
  std::vector<Summary> pairs_;
  std::vector<double> logs_;  // of the round being added
};

// The loop every race shares: two observations of each version, then per round the losers
// (versions some other remaining version beats by the one-sided test `less`; a version removed
// earlier in the round removes no other, in version order) recomputed from scratch and the
// lowest-scoring survivor taken as the best. `next_round(model, survivors, best)` names the
// versions the next round observes, or none when the race is decided. The cap is checked
// before a round is sampled, so no version exceeds max_samples.
template <class Model, class NextRound>
Decision run_race(std::size_t versions, Model model, Sampler& sampler,
                  const RoundObserver& observer, std::size_t max_samples,
                  const StudentCriticalValues& less, const NextRound& next_round) {
  RoundKeeper keeper(versions, sampler, observer);
  for (int initial = 0; initial < 2; ++initial) {
    const std::vector<std::size_t> all = keeper.alive();
    model.add(all, keeper.pull(all));
    keeper.trace(all, keeper.alive());
  }
  Decision& decision = keeper.decision();
  std::vector<std::size_t> survivors = keeper.alive();
  for (;;) {
    std::vector<std::size_t> alive = keeper.alive();
    if constexpr (!Model::kReadmitsLosers)
      std::erase_if(alive, [&](std::size_t v) {
        return std::find(survivors.begin(), survivors.end(), v) == survivors.end();
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
    const std::vector<std::size_t> next = next_round(model, survivors, best);
    if (next.empty()) break;
    if (std::any_of(next.begin(), next.end(),
                    [&](std::size_t v) { return decision.samples[v] >= max_samples; })) {
      decision.cap_hit = true;
      break;
    }
    model.add(next, keeper.pull(next));
    keeper.trace(next, survivors);
  }
  decision.winners = survivors;
  return keeper.release();
}

// The paper's stop rule: one survivor, or every survivor's worst-case speedup over the best
// below 1 + epsilon; until then every survivor is observed again.
template <class Model>
Decision race(std::size_t versions, Model model, Sampler& sampler, const RoundObserver& observer,
              const RaceParameters& p, const RaceCriticalValues& critical) {
  return run_race(
      versions, std::move(model), sampler, observer, p.max_samples, critical.less,
      [&](const Model& model, const std::vector<std::size_t>& survivors, std::size_t best) {
        const bool equal = std::all_of(survivors.begin(), survivors.end(), [&](std::size_t c) {
          return c == best || model.worst_speedup(best, c, critical.interval) < 1.0 + p.epsilon;
        });
        return survivors.size() == 1 || equal ? std::vector<std::size_t>{} : survivors;
      });
}

// Retirement: a survivor shown not more than epsilon faster than the current best, by the
// one-sided bound of the difference, is not observed again while that holds; the best is
// always observed. Recomputed every round, so a change of best re-admits whoever is no longer
// shown slower than the new one. Decided when the best is the only version left to observe.
template <class Model>
Decision retiring_race(std::size_t versions, Model model, Sampler& sampler,
                       const RoundObserver& observer, const RaceParameters& p,
                       const RetiringRaceCriticalValues& critical) {
  const double limit = std::log1p(p.epsilon);
  return run_race(
      versions, std::move(model), sampler, observer, p.max_samples, critical.less,
      [&](const Model& model, const std::vector<std::size_t>& survivors, std::size_t best) {
        std::vector<std::size_t> active;
        for (std::size_t c : survivors)
          if (c == best || !model.not_faster_by(c, best, limit, critical.bound))
            active.push_back(c);
        return active.size() == 1 ? std::vector<std::size_t>{} : active;
      });
}

std::string describe_race(const char* name, const RaceParameters& p) {
  return fmt::format("{}(alpha_lt={},alpha_eq={},eps={},cap={})", name, p.alpha_lt, p.alpha_eq,
                     p.epsilon, p.max_samples);
}

void require_trim(double trim) {
  if (!stats::valid_trim(trim))
    throw std::invalid_argument(fmt::format("trim must be between 0 and 0.25, got {}", trim));
}

std::string describe_retiring_race(const char* name, const RaceParameters& p, double trim) {
  return fmt::format("{}(alpha_lt={},alpha_eq={},eps={},trim={},cap={})", name, p.alpha_lt,
                     p.alpha_eq, p.epsilon, trim, p.max_samples);
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
  return race(versions, IndependentLogs(versions, RunningStats{}), sampler, observer, parameters_,
              critical_);
}

BlockedRacePlan::BlockedRacePlan(const RaceParameters& parameters)
    : parameters_(parameters), critical_(parameters) {}
std::string BlockedRacePlan::describe() const { return describe_race("blocked-race", parameters_); }
Decision BlockedRacePlan::run(std::size_t versions, Sampler& sampler,
                              const RoundObserver& observer) const {
  return race(versions, PairedLogs(versions, RunningStats{}), sampler, observer, parameters_,
              critical_);
}

}  // namespace looprace::plans

namespace looprace::plans {

RetiringRacePlan::RetiringRacePlan(const RaceParameters& parameters, double trim)
    : parameters_(parameters), trim_(trim), critical_(parameters) {
  require_trim(trim);
}
std::string RetiringRacePlan::describe() const {
  return describe_retiring_race("retiring-race", parameters_, trim_);
}
Decision RetiringRacePlan::run(std::size_t versions, Sampler& sampler,
                               const RoundObserver& observer) const {
  if (trim_ == 0.0)
    return retiring_race(versions, IndependentLogs(versions, RunningStats{}), sampler, observer,
                         parameters_, critical_);
  return retiring_race(versions, IndependentLogs(versions, stats::TrimmedSample(trim_)), sampler,
                       observer, parameters_, critical_);
}

BlockedRetiringRacePlan::BlockedRetiringRacePlan(const RaceParameters& parameters, double trim)
    : parameters_(parameters), trim_(trim), critical_(parameters) {
  require_trim(trim);
}
std::string BlockedRetiringRacePlan::describe() const {
  return describe_retiring_race("blocked-retiring-race", parameters_, trim_);
}
Decision BlockedRetiringRacePlan::run(std::size_t versions, Sampler& sampler,
                                      const RoundObserver& observer) const {
  if (trim_ == 0.0)
    return retiring_race(versions, PairedLogs(versions, RunningStats{}), sampler, observer,
                         parameters_, critical_);
  return retiring_race(versions, PairedLogs(versions, stats::TrimmedSample(trim_)), sampler,
                       observer, parameters_, critical_);
}

}  // namespace looprace::plans
