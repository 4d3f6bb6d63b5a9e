#include "plans/loop_decision.h"

#include <gtest/gtest.h>

namespace looprace::plans {
namespace {

// Factors 0..4 in three code groups: {0, 1}, {2}, {3, 4} (versions 0, 1, 2 under 0, 2, 3).
const std::vector<int> kRepresentatives = {0, 2, 3};
const std::vector<int> kGroupOf = {0, 0, 2, 3, 3};
const std::vector<int> kFactors = {0, 1, 2, 3, 4};

Decision versions_decision() {
  Decision d;
  d.chosen = 1;
  d.winners = {1, 0};
  d.samples = {12, 12, 3};
  d.disqualified = {2};
  d.cap_hit = true;
  d.rounds = {{1, {0, 1, 2}, {0, 1}, {2}}};
  return d;
}

TEST(LoopDecision, InFactorsNamesEveryVersionByItsFactorsAndGroups) {
  const LoopDecision d =
      in_factors(versions_decision(), kRepresentatives, kGroupOf, kFactors, {{2, "crashed"}});
  EXPECT_EQ(d.chosen, 2);
  EXPECT_EQ(d.winners, (std::vector<int>{0, 1, 2}));  // every factor of a winning group
  EXPECT_EQ(d.samples, (std::map<int, std::size_t>{{0, 12}, {2, 12}, {3, 3}}));
  EXPECT_EQ(d.groups.at(1), 0);
  EXPECT_EQ(d.groups.at(4), 3);
  EXPECT_EQ(d.disqualified, (std::map<int, std::string>{{3, "crashed"}, {4, "crashed"}}));
  EXPECT_TRUE(d.cap_hit);
  ASSERT_EQ(d.rounds.size(), 1u);
  EXPECT_EQ(d.rounds[0].sampled, (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(d.rounds[0].losers, (std::vector<int>{3}));
  EXPECT_EQ(d.winner_samples(), (std::vector<std::size_t>{12, 12, 12}));
}

TEST(LoopDecision, UnexplainedDisqualificationSaysSo) {
  const LoopDecision d = in_factors(versions_decision(), kRepresentatives, kGroupOf, kFactors, {});
  EXPECT_EQ(d.disqualified.at(3), "not observed (no build carries it)");
}

TEST(LoopDecision, SpeedupOnlyWhereThereAreRunsToTest) {
  EXPECT_FALSE(speedup_of({SpeedupSource::kSameCode, {1, 2}, {1, 2}, 0.95}).has_value());
  EXPECT_FALSE(speedup_of({SpeedupSource::kConfirmation, {1}, {1, 2}, 0.95}).has_value());
  const auto s = speedup_of({SpeedupSource::kConfirmation, {110, 112, 111}, {100, 101, 99}, 0.9});
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->confidence, 0.9);
  EXPECT_GT(s->geometric_speedup, 1.0);
}

TEST(LoopDecision, ItsPlansNameSaysTheObservationAndTheControls) {
  LoopDecision d;
  d.plan = plan_on_observations("race(cap=8)", stats::ObservationKind::kFiltered, "00aa",
                                {"00bb", "00cc"});
  EXPECT_EQ(d.plan, "race(cap=8) on filtered through 00aa controlled by 00bb,00cc");
  EXPECT_EQ(d.observation(), stats::ObservationKind::kFiltered);
  EXPECT_EQ(d.controls(), (std::vector<std::string>{"00bb", "00cc"}));
  d.plan = plan_on_observations("race(cap=8)", stats::ObservationKind::kRaw);
  EXPECT_EQ(d.observation(), stats::ObservationKind::kRaw);
  EXPECT_TRUE(d.controls().empty());
}

}  // namespace
}  // namespace looprace::plans
