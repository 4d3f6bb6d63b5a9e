#include "plans/replay.h"

#include <fmt/format.h>
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <exception>
#include <functional>
#include <istream>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <ostream>
#include <random>
#include <stdexcept>
#include <thread>

#include "stats/covariate.h"
#include "stats/disturbed_rounds.h"
#include "stats/running_stats.h"

namespace looprace::plans {
namespace {

// Serves the k-th observation of version v from its recorded round order[k]: each version
// draws its rounds without replacement, and versions observed together since the start (the
// blocked race's survivors) get the same recorded rounds, so their pairs are real.
class ReplaySampler : public Sampler {
 public:
  ReplaySampler(const LoopData& loop, const std::vector<std::size_t>& order)
      : loop_(loop), order_(order), taken_(loop.cycles.size(), 0) {}

  std::vector<std::optional<Observation>> round(const std::vector<std::size_t>& versions) override {
    std::vector<std::optional<Observation>> result;
    result.reserve(versions.size());
    for (std::size_t v : versions) {
      if (taken_[v] >= order_.size())
        throw std::runtime_error(fmt::format(
            "loop {}: the plan asked for more than the {} recorded rounds; lower --max-samples",
            loop_.loop, order_.size()));
      const std::size_t k = order_[taken_[v]++];
      if (loop_.controls.empty())
        result.emplace_back(loop_.cycles[v][k]);
      else
        result.emplace_back(Observation{loop_.cycles[v][k], loop_.controls[v][k]});
    }
    return result;
  }

 private:
  const LoopData& loop_;
  const std::vector<std::size_t>& order_;
  std::vector<std::size_t> taken_;
};

std::uint64_t mix(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(a), static_cast<std::uint32_t>(b)};
  std::uint64_t out[1];
  seq.generate(reinterpret_cast<std::uint32_t*>(out), reinterpret_cast<std::uint32_t*>(out) + 2);
  return out[0];
}

// What one plan did on one loop over the repetitions.
struct LoopTally {
  explicit LoopTally(std::size_t versions)
      : counts(versions), cycles(versions), winners(versions, 0), chosen(versions, 0) {}
  std::size_t failures = 0, geometric_failures = 0, cap_hits = 0;
  double winner_set_sizes = 0.0;
  std::vector<stats::RunningStats> counts;  // observations taken per repetition
  std::vector<stats::RunningStats> cycles;  // every observation taken
  std::vector<std::size_t> winners, chosen;
};

bool is_integer(const std::string& s) {
  long value;
  const auto end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, value);
  return !s.empty() && ec == std::errc() && ptr == end;
}

// The recorded rounds the truth is judged on: all of them, or with a round limit those
// stats::undisturbed_rounds keeps (the loop's own time, when the machine changed state during
// the recording). Rounds beyond the fewest any version recorded count for their versions.
std::vector<bool> truth_rounds(const std::vector<std::vector<double>>& cycles, double limit) {
  std::size_t most = 0, common = std::numeric_limits<std::size_t>::max();
  for (const auto& c : cycles) {
    most = std::max(most, c.size());
    common = std::min(common, c.size());
  }
  std::vector<bool> kept(most, true);
  if (!(limit > 1.0) || cycles.empty()) return kept;
  std::vector<stats::RoundLogs> rounds(common);
  for (std::size_t k = 0; k < common; ++k)
    for (std::size_t v = 0; v < cycles.size(); ++v) {
      rounds[k].versions.push_back(v);
      rounds[k].logs.push_back(std::log(cycles[v][k]));
    }
  const std::vector<bool> undisturbed = stats::undisturbed_rounds(rounds, cycles.size(), limit);
  std::copy(undisturbed.begin(), undisturbed.end(), kept.begin());
  return kept;
}

// Every version's true mean and sd over its recorded observations in the truth's rounds (and
// its true geometric mean), and whether it is acceptable: within theta of the best, by either
// mean.
std::vector<VersionReplay> true_versions(const LoopData& loop, const ReplayOptions& options) {
  std::vector<VersionReplay> truth;
  double best = std::numeric_limits<double>::infinity(), best_geometric = best;
  const auto cycles =
      loop.controls.empty() ? loop.cycles : stats::adjusted_cycles(loop.cycles, loop.controls);
  const std::vector<bool> kept = truth_rounds(cycles, options.truth_round_limit);
  for (const auto& c : cycles) {
    stats::RunningStats all, logs;
    for (std::size_t k = 0; k < c.size(); ++k) {
      if (!kept[k]) continue;
      all.add(c[k]);
      logs.add(std::log(c[k]));
    }
    VersionReplay v{c.size(), all.mean(), all.stddev()};
    v.true_geometric_mean = std::exp(logs.mean());
    best = std::min(best, v.true_mean);
    best_geometric = std::min(best_geometric, v.true_geometric_mean);
    truth.push_back(v);
  }
  for (VersionReplay& v : truth) {
    v.acceptable = best / v.true_mean > 1.0 - options.theta;
    v.acceptable_geometric = best_geometric / v.true_geometric_mean > 1.0 - options.theta;
  }
  return truth;
}

// Counts one decision of a plan: whether it failed, its winners and choice, and the
// observations it took of each version (the rounds in `order`, one per observation).
void tally_decision(LoopTally& tally, const Decision& d, const LoopData& loop,
                    const std::vector<VersionReplay>& truth,
                    const std::vector<std::size_t>& order) {
  if (!truth[d.chosen].acceptable) ++tally.failures;
  if (!truth[d.chosen].acceptable_geometric) ++tally.geometric_failures;
  if (d.cap_hit) ++tally.cap_hits;
  tally.winner_set_sizes += static_cast<double>(d.winners.size());
  ++tally.chosen[d.chosen];
  for (std::size_t w : d.winners) ++tally.winners[w];
  for (std::size_t v = 0; v < loop.cycles.size(); ++v) {
    tally.counts[v].add(static_cast<double>(d.samples[v]));
    for (std::size_t k = 0; k < d.samples[v]; ++k) tally.cycles[v].add(loop.cycles[v][order[k]]);
  }
}

// Runs `plan` on loop `l` once per repetition, each time on the recorded rounds in a fresh
// order drawn from the seed, the loop and the repetition (not from the thread).
void replay_loop(const Plan& plan, const LoopData& loop, std::size_t l,
                 const std::vector<VersionReplay>& truth, const ReplayOptions& options,
                 LoopTally& tally) {
  std::vector<std::size_t> order(loop.rounds());
  for (std::size_t rep = 0; rep < options.repetitions; ++rep) {
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::mt19937_64 rng(mix(options.seed, l, rep));
    std::shuffle(order.begin(), order.end(), rng);
    ReplaySampler sampler(loop, order);
    tally_decision(tally, plan.run(loop.cycles.size(), sampler), loop, truth, order);
  }
}

// Calls work(item) for every item below `count` on `threads` threads (this one included), each
// item once. The first exception stops the others from taking new items and is rethrown.
void for_each_item(std::size_t count, unsigned threads,
                   const std::function<void(std::size_t)>& work) {
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  const auto worker = [&] {
    try {
      for (std::size_t item; !failed && (item = next++) < count;) work(item);
    } catch (...) {
      if (!failed.exchange(true)) error = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::max(1u, threads); ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

// One plan's result on one loop: per version, the samples it took and the share of repetitions
// it won or was chosen in; overall, the rates of failure and of hitting the cap.
LoopReplay loop_result(const LoopData& loop, const std::vector<VersionReplay>& truth,
                       const LoopTally& t, std::size_t repetitions) {
  const auto reps = static_cast<double>(repetitions);
  LoopReplay r{loop.loop, loop.versions, truth, repetitions};
  double samples = 0.0;
  for (std::size_t v = 0; v < r.per_version.size(); ++v) {
    VersionReplay& out = r.per_version[v];
    out.samples_mean = t.counts[v].mean();
    out.samples_sd = t.counts[v].stddev();
    out.sampled_mean = t.cycles[v].mean();
    out.sampled_sd = t.cycles[v].stddev();
    out.winner_count = t.winners[v];
    out.chosen_count = t.chosen[v];
    samples += out.samples_mean;
  }
  r.failure_rate = static_cast<double>(t.failures) / reps;
  r.failure_rate_geometric = static_cast<double>(t.geometric_failures) / reps;
  r.cap_rate = static_cast<double>(t.cap_hits) / reps;
  r.mean_samples = samples / static_cast<double>(r.per_version.size());
  r.mean_winners = t.winner_set_sizes / reps;
  return r;
}

}  // namespace

std::size_t LoopData::rounds() const {
  std::size_t fewest = cycles.empty() ? 0 : cycles.front().size();
  for (const auto& c : cycles) fewest = std::min(fewest, c.size());
  return fewest;
}

namespace {

// The lines of a CSV source, counted, without a trailing CR; fail() throws naming the source
// and the line read last.
struct CsvLines {
  std::istream& in;
  const std::string& source;
  std::size_t line_number = 0;

  // The next line, false at the end.
  bool next(std::string& line) {
    if (!std::getline(in, line)) return false;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument(fmt::format("{}:{}: {}", source, line_number, what));
  }
};

// One observation row: a loop, its version, the cycles of one run and its control.
struct CsvObservation {
  std::string loop, version;
  double cycles = 0.0;
  std::optional<double> control;
};

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  for (char c : line) {
    if (c == ',')
      fields.emplace_back();
    else
      fields.back().push_back(c);
  }
  return fields;
}

// Field `what` as a finite number above 0.
double positive_field(const std::string& text, const char* what, const CsvLines& lines) {
  double value = 0.0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size())
    lines.fail(fmt::format("{} '{}' is not a number", what, text));
  if (!std::isfinite(value) || value <= 0.0)
    lines.fail(fmt::format("{} must be finite and > 0, got {}", what, text));
  return value;
}

// Parses a row `loop,version,cycles` (or with `,control` when `controlled`); fails on another
// number of fields, cycles or a control that is not a finite number above 0, or an empty loop
// or version.
CsvObservation parse_observation(const std::string& line, bool controlled, const CsvLines& lines) {
  const std::vector<std::string> fields = split_fields(line);
  if (fields.size() != (controlled ? 4u : 3u))
    lines.fail(controlled ? "expected 4 fields: loop,version,cycles,control"
                          : "expected 3 fields: loop,version,cycles");
  CsvObservation o{fields[0], fields[1], positive_field(fields[2], "cycles", lines), std::nullopt};
  if (controlled) o.control = positive_field(fields[3], "control", lines);
  if (o.loop.empty() || o.version.empty()) lines.fail("empty loop or version");
  return o;
}

// One loop's observations by version, the versions sorted numerically when all are integers;
// throws for a version with fewer than 2 observations, which no plan can compare.
LoopData loop_data(const std::string& name,
                   std::map<std::string, std::vector<Observation>>& versions,
                   const std::string& source) {
  LoopData loop;
  loop.loop = name;
  for (const auto& [version, cycles] : versions) loop.versions.push_back(version);
  if (std::all_of(loop.versions.begin(), loop.versions.end(), is_integer))
    std::sort(
        loop.versions.begin(), loop.versions.end(),
        [](const std::string& a, const std::string& b) { return std::stol(a) < std::stol(b); });
  for (const std::string& version : loop.versions) {
    const auto& observed = versions[version];
    if (observed.size() < 2)
      throw std::invalid_argument(
          fmt::format("{}: loop {} version {} has {} observation(s), need 2", source, name, version,
                      observed.size()));
    std::vector<double>& cycles = loop.cycles.emplace_back();
    std::vector<double> controls;
    for (const Observation& o : observed) {
      cycles.push_back(o.cycles);
      if (o.control) controls.push_back(*o.control);
    }
    if (!controls.empty()) loop.controls.push_back(std::move(controls));
  }
  return loop;
}

}  // namespace

Dataset read_dataset_csv(std::istream& in, const std::string& source) {
  CsvLines lines{in, source};
  std::string line;
  while (lines.next(line) && line.empty()) {
  }
  const bool controlled = line == "loop,version,cycles,control";
  if (line != "loop,version,cycles" && !controlled)
    lines.fail("expected the header 'loop,version,cycles' or 'loop,version,cycles,control'");

  std::vector<std::string> loop_order;
  std::map<std::string, std::map<std::string, std::vector<Observation>>> rows;
  while (lines.next(line)) {
    if (line.empty()) continue;
    CsvObservation o = parse_observation(line, controlled, lines);
    if (!rows.count(o.loop)) loop_order.push_back(o.loop);
    rows[o.loop][o.version].emplace_back(o.cycles, o.control);
  }
  if (loop_order.empty()) throw std::invalid_argument(source + ": no observations");

  Dataset data;
  for (const std::string& name : loop_order) data.push_back(loop_data(name, rows[name], source));
  return data;
}

// Replays every plan on every loop, the (plan, loop) pairs spread over the threads; each pair
// writes only its own tally, so the result does not depend on which thread ran it.
std::vector<std::vector<LoopReplay>> replay_per_loop(const std::vector<const Plan*>& plans,
                                                     const Dataset& data,
                                                     const ReplayOptions& options) {
  if (data.empty()) throw std::invalid_argument("replay of an empty dataset");
  if (options.repetitions == 0) throw std::invalid_argument("--repetitions must be at least 1");
  std::vector<std::vector<VersionReplay>> truth;
  for (const LoopData& loop : data) truth.push_back(true_versions(loop, options));

  std::vector<LoopTally> tallies;
  for (std::size_t p = 0; p < plans.size(); ++p)
    for (const LoopData& loop : data) tallies.emplace_back(loop.cycles.size());
  for_each_item(tallies.size(), options.threads, [&](std::size_t item) {
    const std::size_t l = item % data.size();
    replay_loop(*plans[item / data.size()], data[l], l, truth[l], options, tallies[item]);
  });

  std::vector<std::vector<LoopReplay>> results(plans.size());
  for (std::size_t p = 0; p < plans.size(); ++p)
    for (std::size_t l = 0; l < data.size(); ++l)
      results[p].push_back(
          loop_result(data[l], truth[l], tallies[p * data.size() + l], options.repetitions));
  return results;
}

std::vector<ReplayOutcome> summarize(const std::vector<std::vector<LoopReplay>>& per_loop) {
  std::vector<ReplayOutcome> outcomes;
  for (const auto& loops : per_loop) {
    ReplayOutcome sum;
    for (const LoopReplay& r : loops) {
      sum.failure_rate += r.failure_rate;
      sum.failure_rate_geometric += r.failure_rate_geometric;
      sum.mean_samples += r.mean_samples;
      sum.cap_rate += r.cap_rate;
      sum.mean_winners += r.mean_winners;
    }
    const auto n = static_cast<double>(loops.size());
    outcomes.push_back({sum.failure_rate / n, sum.mean_samples / n, sum.cap_rate / n,
                        sum.mean_winners / n, sum.failure_rate_geometric / n});
  }
  return outcomes;
}

std::vector<ReplayOutcome> replay(const std::vector<const Plan*>& plans, const Dataset& data,
                                  const ReplayOptions& options) {
  return summarize(replay_per_loop(plans, data, options));
}

const char* const kPerLoopCsvHeader =
    "plan,loop,version,recorded,true_mean,true_sd,acceptable,true_geometric_mean,"
    "acceptable_geometric,samples_mean,samples_sd,sampled_mean,sampled_sd,winner_rate,"
    "chosen_rate,loop_failure_rate,loop_failure_rate_geometric,loop_cap_rate,"
    "loop_mean_samples,loop_mean_winners,repetitions";

void write_per_loop_csv(std::ostream& out, const std::string& plan,
                        const std::vector<LoopReplay>& loops) {
  out << kPerLoopCsvHeader << '\n';
  // Plan descriptions hold commas: quoted as CSV requires.
  const std::string quoted_plan = '"' + plan + '"';
  for (const LoopReplay& r : loops) {
    const auto reps = static_cast<double>(r.repetitions);
    for (std::size_t v = 0; v < r.versions.size(); ++v) {
      const VersionReplay& x = r.per_version[v];
      out << fmt::format(
          "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", quoted_plan, r.loop,
          r.versions[v], x.recorded, x.true_mean, x.true_sd, x.acceptable ? 1 : 0,
          x.true_geometric_mean, x.acceptable_geometric ? 1 : 0, x.samples_mean, x.samples_sd,
          x.sampled_mean, x.sampled_sd, static_cast<double>(x.winner_count) / reps,
          static_cast<double>(x.chosen_count) / reps, r.failure_rate, r.failure_rate_geometric,
          r.cap_rate, r.mean_samples, r.mean_winners, r.repetitions);
    }
  }
}

}  // namespace looprace::plans
