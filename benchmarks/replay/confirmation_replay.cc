// Replays the confirmation (plans::judge_confirmation, the race's own policy) on recorded runs
// with each test of the pairs' speedup, for benchmarks/results/confirmation-replay.md. Every
// version of every loop is confirmed against version 0 in REPETITIONS repetitions; each draws
// the recorded rounds in a fresh random order and takes the policy's looks (30, 60, 120, 240
// pairs) from them, pairing the two versions' runs of the same round as the race pairs its
// interleaved runs. The truth a confirmation is judged by is the ratio over all recorded runs:
// of means (what a user pays on average, disturbances included) and of the pairs' 20 % trimmed
// log ratios (the typical run).
//
// Build against a looprace build tree BUILD, from the repository root, in one line:
//   g++ -std=c++20 -O2 -I driver benchmarks/replay/confirmation_replay.cc -o confirmation_replay
//   BUILD/lib/liblooprace_plans.a BUILD/lib/liblooprace_stats.a -lfmt -lpthread
// Usage: confirmation_replay CSV REPETITIONS [EPSILON]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "plans/default_policy.h"
#include "plans/replay.h"
#include "stats/inference.h"

using namespace looprace;

namespace {

struct Case {
  double mean_truth = 1.0;     // mean(version 0) / mean(version)
  double trimmed_truth = 1.0;  // exp of the 20 % trimmed mean of the rounds' log ratios
  double confirmed = 0.0;      // share of repetitions confirmed
  double pairs = 0.0;          // mean pairs taken
};

// The truths of version v against version 0 over all rounds both have.
void set_truths(const plans::LoopData& loop, std::size_t v, Case& c) {
  const std::size_t n = loop.rounds();
  const auto& base = loop.cycles[0];
  const auto& other = loop.cycles[v];
  const double mean_base = std::accumulate(base.begin(), base.begin() + n, 0.0) / n;
  const double mean_other = std::accumulate(other.begin(), other.begin() + n, 0.0) / n;
  c.mean_truth = mean_base / mean_other;
  std::vector<double> ratios(n);
  for (std::size_t i = 0; i < n; ++i) ratios[i] = std::log(base[i]) - std::log(other[i]);
  std::sort(ratios.begin(), ratios.end());
  c.trimmed_truth = std::exp(stats::trimmed_mean_estimate(ratios, stats::kPairTrim).value);
}

// The policy's looks on rounds drawn in a random order, `repetitions` times.
void replay_case(const plans::DefaultPolicy& policy, const plans::LoopData& loop, std::size_t v,
                 std::size_t repetitions, std::mt19937_64& random, Case& c) {
  const std::size_t n = loop.rounds();
  const std::size_t most =
      plans::pairs_after_look(policy.confirmation, policy.confirmation.looks - 1);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::size_t confirmed = 0, pairs = 0;
  for (std::size_t r = 0; r < repetitions; ++r) {
    std::shuffle(order.begin(), order.end(), random);
    std::vector<double> base, chosen;
    for (unsigned look = 0; look < policy.confirmation.looks; ++look) {
      const std::size_t wanted =
          std::min(plans::pairs_after_look(policy.confirmation, look), std::min(n, most));
      while (base.size() < wanted) {
        base.push_back(loop.cycles[0][order[base.size()]]);
        chosen.push_back(loop.cycles[v][order[chosen.size()]]);
      }
      const auto outcome = plans::judge_confirmation(policy, base, chosen, nullptr);
      if (outcome != plans::ConfirmationOutcome::unresolved) {
        confirmed += outcome == plans::ConfirmationOutcome::confirmed;
        break;
      }
    }
    pairs += base.size();
  }
  c.confirmed = double(confirmed) / double(repetitions);
  c.pairs = double(pairs) / double(repetitions);
}

// One line per class of cases: confirmation rate, agreement of two independent
// confirmations (p^2 + (1 - p)^2 per case), mean pairs.
template <class Select>
void print_class(const char* label, const std::vector<Case>& cases, Select select) {
  std::size_t count = 0;
  double confirmed = 0, agreement = 0, pairs = 0;
  for (const Case& c : cases) {
    if (!select(c)) continue;
    ++count;
    confirmed += c.confirmed;
    agreement += c.confirmed * c.confirmed + (1 - c.confirmed) * (1 - c.confirmed);
    pairs += c.pairs;
  }
  if (count == 0) return;
  std::printf("  %-34s %4zu  %9.1f %%  %9.1f %%  %6.0f\n", label, count, 100 * confirmed / count,
              100 * agreement / count, pairs / count);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: %s CSV REPETITIONS [EPSILON]\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[1]);
  const plans::Dataset data = plans::read_dataset_csv(in, argv[1]);
  const std::size_t repetitions = std::stoul(argv[2]);
  plans::DefaultPolicy policy;
  if (argc == 4) policy.epsilon = std::stod(argv[3]);
  const double limit = 1 + policy.epsilon;
  std::printf(
      "%s: %zu loops, looks of %zu pairs doubling %u times, epsilon %.3f, %zu "
      "repetitions\n",
      argv[1], data.size(), policy.confirmation.first_pairs, policy.confirmation.looks,
      policy.epsilon, repetitions);
  for (stats::RatioTest test : {stats::RatioTest::welch_log, stats::RatioTest::paired_trimmed}) {
    policy.test = test;
    std::mt19937_64 random(1);
    std::vector<Case> cases;
    for (const plans::LoopData& loop : data) {
      if (loop.rounds() < policy.confirmation.first_pairs) continue;
      for (std::size_t v = 1; v < loop.versions.size(); ++v) {
        Case c;
        set_truths(loop, v, c);
        replay_case(policy, loop, v, repetitions, random, c);
        cases.push_back(c);
      }
    }
    std::printf("\n%s\n  %-34s %4s  %11s  %11s  %6s\n", stats::ratio_test_name(test),
                "version against 0, truth", "n", "confirmed", "agreement", "pairs");
    print_class("by means: slower (<= 1)", cases, [](const Case& c) { return c.mean_truth <= 1; });
    print_class("by means: within epsilon", cases,
                [&](const Case& c) { return c.mean_truth > 1 && c.mean_truth <= limit; });
    print_class("by means: faster by eps..3 %", cases,
                [&](const Case& c) { return c.mean_truth > limit && c.mean_truth <= 1.03; });
    print_class("by means: faster by over 3 %", cases,
                [](const Case& c) { return c.mean_truth > 1.03; });
    print_class("by trimmed ratios: <= 1 + eps", cases,
                [&](const Case& c) { return c.trimmed_truth <= limit; });
    print_class("by trimmed ratios: > 1 + eps", cases,
                [&](const Case& c) { return c.trimmed_truth > limit; });
    print_class("every case", cases, [](const Case&) { return true; });
  }
  return 0;
}
