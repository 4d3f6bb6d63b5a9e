// Races on synthetic distributions with fixed seeds: winners, sample counts, termination and
// the invariants of plan.h.
#include "plans/race.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "plans/factory.h"
#include "synthetic.h"

namespace looprace::plans {
namespace {

using testing::ScriptedSampler;
using testing::SyntheticSampler;
using testing::VersionShape;

std::size_t total(const Decision& d) {
  return std::accumulate(d.samples.begin(), d.samples.end(), std::size_t{0});
}

std::vector<VersionShape> seventeen(double sigma, std::size_t best, double best_factor) {
  std::vector<VersionShape> shapes;
  for (std::size_t v = 0; v < 17; ++v)
    shapes.push_back(
        {1000.0 * (1.0 + 0.01 * static_cast<double>(v % 5)) * (v == best ? best_factor : 1.0),
         sigma});
  return shapes;
}

class BothRaces : public ::testing::TestWithParam<const char*> {
 protected:
  std::unique_ptr<Plan> plan(double alpha = 0.02, std::size_t cap = 200) const {
    PlanOptions o;
    o.name = GetParam();
    o.alpha_lt = alpha;
    o.alpha_eq = alpha;
    o.max_samples = cap;
    return make_plan(o);
  }
};

TEST_P(BothRaces, OneClearWinnerIsFoundQuickly) {
  SyntheticSampler sampler(seventeen(0.01, 6, 0.8), 11);
  const Decision d = plan()->run(17, sampler);
  EXPECT_EQ(d.chosen, 6u);
  EXPECT_EQ(d.winners, std::vector<std::size_t>{6});
  EXPECT_FALSE(d.cap_hit);
  EXPECT_LE(total(d), 17u * 6u);
  for (std::size_t n : d.samples) EXPECT_GE(n, 2u);
}

TEST_P(BothRaces, LongTailsStillFindTheWinner) {
  auto shapes = seventeen(0.05, 9, 0.9);
  for (auto& s : shapes) {
    s.tail_rate = 0.05;
    s.tail_factor = 3.0;
  }
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    SyntheticSampler sampler(shapes, seed);
    const Decision d = plan(0.01, 300)->run(17, sampler);
    EXPECT_EQ(d.chosen, 9u) << seed;
  }
}

TEST_P(BothRaces, TiedBestVersionsAreBothWinners) {
  auto shapes = seventeen(0.003, 3, 0.9);
  shapes[12].mean = shapes[3].mean;  // exact tie
  SyntheticSampler sampler(shapes, 5);
  const Decision d = plan()->run(17, sampler);
  EXPECT_TRUE(d.chosen == 3u || d.chosen == 12u);
  EXPECT_NE(std::find(d.winners.begin(), d.winners.end(), 3u), d.winners.end());
  EXPECT_NE(std::find(d.winners.begin(), d.winners.end(), 12u), d.winners.end());
  EXPECT_FALSE(d.cap_hit);
}

TEST_P(BothRaces, AllEqualVersionsEndEquivalentBeforeTheCap) {
  std::vector<VersionShape> shapes(17, VersionShape{5000.0, 0.002});
  SyntheticSampler sampler(shapes, 3);
  const Decision d = plan(0.05, 500)->run(17, sampler);
  EXPECT_FALSE(d.cap_hit);
  EXPECT_GE(d.winners.size(), 2u);
}

TEST_P(BothRaces, CapIsRespectedWhenVersionsCannotBeSeparated) {
  // 0.3% apart with 5% noise: neither separable nor provably within epsilon in 20 runs.
  std::vector<VersionShape> shapes = {{1000.0, 0.05}, {1003.0, 0.05}, {1006.0, 0.05}};
  SyntheticSampler sampler(shapes, 9);
  const Decision d = plan(0.02, 20)->run(3, sampler);
  EXPECT_TRUE(d.cap_hit);
  for (std::size_t n : d.samples) EXPECT_LE(n, 20u);
  EXPECT_EQ(*std::max_element(d.samples.begin(), d.samples.end()), 20u);
  EXPECT_FALSE(d.winners.empty());
}

TEST_P(BothRaces, IdenticalObservationsStopAfterTheInitialTwo) {
  ScriptedSampler sampler({{7, 7, 7}, {7, 7, 7}, {7, 7, 7}});
  const Decision d = plan()->run(3, sampler);
  EXPECT_EQ(d.samples, (std::vector<std::size_t>{2, 2, 2}));
  EXPECT_EQ(d.winners.size(), 3u);
  EXPECT_FALSE(d.cap_hit);
}

TEST_P(BothRaces, ConstantButDifferentVersionsHaveOneWinner) {
  ScriptedSampler sampler({{9, 9}, {7, 7}, {8, 8}});
  const Decision d = plan()->run(3, sampler);
  EXPECT_EQ(d.chosen, 1u);
  EXPECT_EQ(d.winners, std::vector<std::size_t>{1});
}

TEST_P(BothRaces, TwoVersionsAtTheMinimumCapStopAtOnce) {
  ScriptedSampler sampler({{10, 12}, {11, 10}});
  const Decision d = plan(0.02, 2)->run(2, sampler);
  EXPECT_EQ(d.samples, (std::vector<std::size_t>{2, 2}));
  EXPECT_TRUE(d.cap_hit);
  EXPECT_EQ(d.winners.size(), 2u);
}

TEST_P(BothRaces, UnobservableVersionsAreDisqualified) {
  // Version 1 fails on its second run; version 0 is the faster of the rest.
  ScriptedSampler sampler({{10, 10.1, 10, 10.1}, {5}, {20, 20.2, 20, 20.1}});
  const Decision d = plan()->run(3, sampler);
  EXPECT_EQ(d.disqualified, std::vector<std::size_t>{1});
  EXPECT_EQ(d.chosen, 0u);
  EXPECT_EQ(std::count(d.winners.begin(), d.winners.end(), 1u), 0);
}

TEST_P(BothRaces, NoObservableVersionIsAnError) {
  ScriptedSampler sampler({{}, {}});
  EXPECT_THROW(plan()->run(2, sampler), std::runtime_error);
}

TEST_P(BothRaces, RejectsNaNAndNonPositiveObservations) {
  ScriptedSampler nan({{1, std::numeric_limits<double>::quiet_NaN()}, {1, 2}});
  EXPECT_THROW(plan()->run(2, nan), std::invalid_argument);
  ScriptedSampler zero({{1, 2}, {0, 2}});
  try {
    plan()->run(2, zero);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("version 1"), std::string::npos) << e.what();
  }
}

TEST_P(BothRaces, TracesEveryRoundForTheObserver) {
  SyntheticSampler sampler(seventeen(0.02, 2, 0.95), 4);
  std::size_t seen = 0;
  const Decision d = plan()->run(17, sampler, [&](const RoundTrace& r) {
    ++seen;
    EXPECT_EQ(r.round, seen);
    EXPECT_FALSE(r.survivors.empty());
    EXPECT_EQ(r.survivors.size() + r.losers.size(), 17u);
  });
  EXPECT_EQ(seen, d.rounds.size());
  EXPECT_EQ(seen, sampler.rounds());
  EXPECT_EQ(d.rounds[0].sampled.size(), 17u);
}

INSTANTIATE_TEST_SUITE_P(Plans, BothRaces, ::testing::Values("race", "blocked-race"));

TEST(BlockedRace, NeedsFewerRunsThanTheRaceUnderDrift) {
  // Drift of 2% per round swamps a 1% difference for independent samples, not for the
  // per-round ratios.
  std::vector<VersionShape> shapes(17, VersionShape{1000.0, 0.003});
  shapes[4].mean = 990.0;
  std::size_t race_total = 0, blocked_total = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    RaceParameters p;
    p.max_samples = 300;
    SyntheticSampler a(shapes, seed, 0.02), b(shapes, seed, 0.02);
    const Decision race = RacePlan(p).run(17, a);
    const Decision blocked = BlockedRacePlan(p).run(17, b);
    EXPECT_EQ(blocked.chosen, 4u) << seed;
    race_total += total(race);
    blocked_total += total(blocked);
  }
  EXPECT_LT(blocked_total * 3, race_total);
}

TEST(Race, LosersAreRecomputedAndMayComeBack) {
  // Version 2 loses to both others at first; then their times jump, it is no longer beaten and
  // comes back into the race (the paper's race keeps no memory of losers).
  ScriptedSampler sampler({{10, 10.2, 30, 30, 30, 30, 30, 30},
                           {10.1, 10.3, 30, 30, 30, 30, 30, 30},
                           {12, 12.2, 12, 12.1, 12, 12.1, 12, 12.1}});
  const Decision d = RacePlan({0.02, 0.05, 0.005, 8}).run(3, sampler);
  ASSERT_GE(d.rounds.size(), 4u);
  EXPECT_EQ(d.rounds[2].losers, std::vector<std::size_t>{2});  // round 3 ran without it
  EXPECT_EQ(d.rounds[2].sampled, (std::vector<std::size_t>{0, 1}));
  EXPECT_NE(std::find(d.rounds[3].sampled.begin(), d.rounds[3].sampled.end(), 2u),
            d.rounds[3].sampled.end());
  EXPECT_EQ(d.chosen, 2u);
}

TEST(Race, DescribesItsParameters) {
  EXPECT_EQ(RacePlan({0.02, 0.05, 0.005, 100}).describe(),
            "race(alpha_lt=0.02,alpha_eq=0.05,eps=0.005,cap=100)");
}

}  // namespace
}  // namespace looprace::plans
