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

  IndependentLogs(std::size_t versions, const RaceCriticalValues& critical)
      : logs_(versions), less_(critical.less), interval_(critical.interval) {}

  void add(const std::vector<std::size_t>& sampled,
           const std::vector<std::optional<Observation>>& observations) {
    for (std::size_t i = 0; i < sampled.size(); ++i)
      if (observations[i]) logs_[sampled[i]].add(std::log(*observations[i]));
  }
  // Ranks the versions: the lower, the faster.
  double score(std::size_t v, const std::vector<std::size_t>&) const { return logs_[v].mean(); }
  bool faster(std::size_t d, std::size_t c) const { return less_.welch_less(logs_[d], logs_[c]); }
  // exp(upper_b - lower_c): how much faster than b version c could be in the worst case.
  double worst_speedup(std::size_t b, std::size_t c) const {
    const auto half = [&](const RunningStats& x) {
      return interval_.at(static_cast<double>(x.count() - 1)) * x.std_error();
    };
    return std::exp(logs_[b].mean() + half(logs_[b]) - (logs_[c].mean() - half(logs_[c])));
  }

 private:
  std::vector<RunningStats> logs_;
  const StudentCriticalValues& less_;
  const StudentCriticalValues& interval_;
};

// Blocked samples: for each pair (i < j) the summary of log x_i - log x_j over the rounds
// that observed both.
class PairedLogs {
 public:
  // A loser's pairs with the survivors stop growing while it is out, so it could only come
  // back through comparisons with stale pairs: losers stay out. Survivors then share every
  // round, and the lowest-scoring survivor can never lose, which keeps one survivor.
  static constexpr bool kReadmitsLosers = false;

  PairedLogs(std::size_t versions, const RaceCriticalValues& critical)
      : versions_(versions),
        pairs_(versions * versions),
        less_(critical.less),
        interval_(critical.interval) {}

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
  bool faster(std::size_t d, std::size_t c) const {
    // d faster than c: mean of log d - log c significantly below zero.
    return d < c ? less_.mean_below_zero(pair(d, c)) : less_.mean_above_zero(pair(c, d));
  }
  double worst_speedup(std::size_t b, std::size_t c) const {
    const RunningStats& x = pair(std::min(b, c), std::max(b, c));
    const double half = interval_.at(static_cast<double>(x.count() - 1)) * x.std_error();
    return std::exp(difference_mean(b, c) + half);
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
  const StudentCriticalValues& less_;
  const StudentCriticalValues& interval_;
};

template <class Model>
Decision race(std::size_t versions, Sampler& sampler, const RoundObserver& observer,
              const RaceParameters& p, const RaceCriticalValues& critical) {
  RoundKeeper keeper(versions, sampler, observer);
  Model model(versions, critical);
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
    // losers(C, S), in version order; a version removed earlier this round removes no other.
    std::vector<bool> removed(versions, false);
    for (std::size_t c : alive)
      for (std::size_t d : alive)
        if (d != c && !removed[d] && model.faster(d, c)) {
          removed[c] = true;
          break;
        }
    survivors.clear();
    for (std::size_t v : alive)
      if (!removed[v]) survivors.push_back(v);

    const auto best = *std::min_element(survivors.begin(), survivors.end(), [&](auto a, auto b) {
      return model.score(a, survivors) < model.score(b, survivors);
    });
    const bool equal = std::all_of(survivors.begin(), survivors.end(), [&](std::size_t c) {
      return c == best || model.worst_speedup(best, c) < 1.0 + p.epsilon;
    });
    decision.chosen = best;
    if (survivors.size() == 1 || equal) break;
    const bool cap = std::any_of(survivors.begin(), survivors.end(), [&](std::size_t v) {
      return decision.samples[v] >= p.max_samples;
    });
    if (cap) {
      decision.cap_hit = true;
      break;
    }
    model.add(survivors, keeper.pull(survivors));
    keeper.trace(survivors, survivors);
  }
  decision.winners = survivors;
  return keeper.release();
}

std::string describe_race(const char* name, const RaceParameters& p) {
  return fmt::format("{}(alpha_lt={},alpha_eq={},eps={},cap={})", name, p.alpha_lt, p.alpha_eq,
                     p.epsilon, p.max_samples);
}

}  // namespace

RaceCriticalValues::RaceCriticalValues(const RaceParameters& p)
    : less(p.alpha_lt, table_size(p.max_samples)),
      interval(p.alpha_eq / 2.0, table_size(p.max_samples)) {}

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

}  // namespace looprace::plans
