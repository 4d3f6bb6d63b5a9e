// The sequential whole-program check's policy (driver/plans/program_check_policy.h), on
// synthetic CPU times with fixed seeds.
#include "plans/program_check_policy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace looprace::plans {
namespace {

// Appends n run times around `seconds` with log spread `sd`.
void append_runs(std::vector<double>& out, double seconds, double sd, std::size_t n,
                 std::mt19937_64& random) {
  std::normal_distribution<double> noise(0.0, sd);
  for (std::size_t i = 0; i < n; ++i) out.push_back(seconds * std::exp(noise(random)));
}

// The outcome the policy reaches on a program whose profiled build takes `ratio` times the
// base's time, look after look as the race takes them; `pairs` receives the pairs it took.
ProgramCheckOutcome run_sequence(const ProgramCheckPolicy& policy, double ratio, double sd,
                                 std::uint64_t seed, std::size_t* pairs = nullptr) {
  std::mt19937_64 random(seed);
  std::vector<double> base, profiled;
  ProgramCheckOutcome outcome = ProgramCheckOutcome::unresolved;
  for (unsigned look = 0; look < policy.sequence.looks; ++look) {
    const std::size_t more = pairs_after_look(policy.sequence, look) - base.size();
    append_runs(base, 1.0, sd, more, random);
    append_runs(profiled, ratio, sd, more, random);
    outcome = judge_look(policy, base, profiled, nullptr);
    if (outcome != ProgramCheckOutcome::unresolved) break;
  }
  if (pairs) *pairs = base.size();
  return outcome;
}

// Appends n interleaved pairs on a machine whose load comes in stretches: from time to time
// a stretch of 14 pairs runs 20-45 % slow, both runs of each pair alike, and each run has 1 %
// noise of its own. The profiled build takes `ratio` times the base's time.
void append_pairs_in_regimes(std::vector<double>& base, std::vector<double>& profiled, double ratio,
                             std::size_t n, std::mt19937_64& random) {
  std::normal_distribution<double> noise(0.0, 0.01);
  std::uniform_real_distribution<double> slowdown(1.20, 1.45);
  std::bernoulli_distribution stretch_starts(0.05);
  double load = 1.0;
  int stretch_left = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (stretch_left == 0 && stretch_starts(random)) {
      stretch_left = 14;
      load = slowdown(random);
    }
    const double now = stretch_left > 0 ? load : 1.0;
    if (stretch_left > 0) --stretch_left;
    base.push_back(now * std::exp(noise(random)));
    profiled.push_back(now * ratio * std::exp(noise(random)));
  }
}

TEST(ProgramCheckPolicy, LooksDoubleAndShareTheErrorRate) {
  ProgramCheckPolicy policy;
  EXPECT_EQ(pairs_after_look(policy.sequence, 0), 30u);
  EXPECT_EQ(pairs_after_look(policy.sequence, 5), 960u);
  EXPECT_DOUBLE_EQ(look_confidence(policy.sequence), 1 - 0.05 / 6);
  policy.sequence.looks = 0;
  EXPECT_THROW(look_confidence(policy.sequence), std::invalid_argument);
}

// A 2 % loss in runs of 5 % spread: 30 pairs cannot show it (the fixed check of before); the
// looks go on until they do.
TEST(ProgramCheckPolicy, FurtherLooksShowALossTheFirstCannot) {
  ProgramCheckPolicy policy;
  std::mt19937_64 random(7);
  std::vector<double> base, profiled;
  append_runs(base, 1.0, 0.05, 30, random);
  append_runs(profiled, 1.02, 0.05, 30, random);
  EXPECT_EQ(judge_look(policy, base, profiled, nullptr), ProgramCheckOutcome::unresolved);
  std::size_t pairs = 0;
  EXPECT_EQ(run_sequence(policy, 1.02, 0.05, 7, &pairs), ProgramCheckOutcome::slower);
  EXPECT_GT(pairs, 30u);
}

// A 1.5 % gain on a machine whose load comes and goes in stretches of runs: the pairs share
// each stretch, so their ratios show the gain in the first look, where Welch on the two
// samples counts the stretches as spread and cannot tell the builds apart.
TEST(ProgramCheckPolicy, PairsShowAGainThatLoadStretchesHideFromWelch) {
  std::size_t shown_by_pairs = 0, shown_by_welch = 0;
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    std::mt19937_64 random(seed);
    std::vector<double> base, profiled;
    append_pairs_in_regimes(base, profiled, 1 / 1.015, 30, random);
    ProgramCheckPolicy paired, welch;
    welch.test = stats::RatioTest::welch_log;
    shown_by_pairs += judge_look(paired, base, profiled, nullptr) == ProgramCheckOutcome::faster;
    shown_by_welch += judge_look(welch, base, profiled, nullptr) == ProgramCheckOutcome::faster;
  }
  EXPECT_GE(shown_by_pairs, 17u);
  EXPECT_LE(shown_by_welch, 8u);
}

TEST(ProgramCheckPolicy, AGainIsFasterAndNoChangeIsEquivalent) {
  ProgramCheckPolicy policy;
  stats::SpeedupTestResult test;
  std::mt19937_64 random(3);
  std::vector<double> base, profiled;
  append_runs(base, 1.0, 0.01, 30, random);
  append_runs(profiled, 0.95, 0.01, 30, random);
  EXPECT_EQ(judge_look(policy, base, profiled, &test), ProgramCheckOutcome::faster);
  EXPECT_GT(test.speedup_interval.lower, 1.0);
  EXPECT_DOUBLE_EQ(test.confidence, look_confidence(policy.sequence));
  EXPECT_EQ(run_sequence(policy, 1.0, 0.004, 11), ProgramCheckOutcome::equivalent);
}

// After the last look, the changes stand when the program was shown no slower than epsilon
// allows, whatever the outcome's name: unresolved but leaning faster they stay.
TEST(ProgramCheckPolicy, ChangesStandWhenTheProgramIsShownNoSlowerThanEpsilon) {
  ProgramCheckPolicy policy;
  using O = ProgramCheckOutcome;
  EXPECT_TRUE(keeps_changes(policy, O::faster, {1.01, 1.03}));
  EXPECT_TRUE(keeps_changes(policy, O::equivalent, {0.996, 1.004}));
  EXPECT_TRUE(keeps_changes(policy, O::unresolved, {1.000, 1.007}));
  EXPECT_FALSE(keeps_changes(policy, O::unresolved, {0.987, 1.000}));
  EXPECT_FALSE(keeps_changes(policy, O::unresolved, {0.994, 1.003}));
  EXPECT_FALSE(keeps_changes(policy, O::slower, {0.996, 0.999}));
}

// Flags are adopted when faster, or when the looks ran out leaning faster and no slower than
// 1 / (1 + epsilon); never when equivalent, leaning slower, or possibly more than epsilon slower.
TEST(ProgramCheckPolicy, FlagsAreAdoptedWhenFasterOrLeaningFasterAndNoSlowerThanEpsilon) {
  const ProgramCheckPolicy policy;
  using O = ProgramCheckOutcome;
  EXPECT_TRUE(adopts_flags(policy, O::faster, 1.02, {1.01, 1.03}));
  EXPECT_TRUE(adopts_flags(policy, O::unresolved, 1.012, {0.999, 1.025}));
  EXPECT_FALSE(adopts_flags(policy, O::unresolved, 1.012, {0.990, 1.034}));
  EXPECT_FALSE(adopts_flags(policy, O::unresolved, 0.998, {0.996, 1.007}));
  EXPECT_FALSE(adopts_flags(policy, O::equivalent, 1.001, {0.997, 1.004}));
  EXPECT_FALSE(adopts_flags(policy, O::slower, 0.98, {0.97, 0.99}));
}

// Peeking after every look at the full error rate would call about one equal program in eight
// faster or slower; shared among the looks, the whole sequence stays within 5 %.
TEST(ProgramCheckPolicy, TheSequenceKeepsItsErrorRateWhenNothingDiffers) {
  ProgramCheckPolicy shared, unshared;
  unshared.sequence.confidence = 1 - 0.05 * unshared.sequence.looks;  // each look at 95 %
  int shared_errors = 0, unshared_errors = 0;
  const int sequences = 1000;
  for (int s = 0; s < sequences; ++s) {
    auto wrong = [](ProgramCheckOutcome o) {
      return o == ProgramCheckOutcome::faster || o == ProgramCheckOutcome::slower;
    };
    shared_errors += wrong(run_sequence(shared, 1.0, 0.05, 1000 + s));
    unshared_errors += wrong(run_sequence(unshared, 1.0, 0.05, 1000 + s));
  }
  EXPECT_LE(shared_errors, 0.05 * sequences + 14) << shared_errors;  // + 2 binomial sd
  EXPECT_GT(unshared_errors, 0.08 * sequences) << unshared_errors;
}

}  // namespace
}  // namespace looprace::plans
