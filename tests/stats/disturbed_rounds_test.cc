#include "stats/disturbed_rounds.h"

#include <gtest/gtest.h>

#include <cmath>

namespace looprace::stats {
namespace {

RoundLogs round_of(std::vector<std::size_t> versions, std::vector<double> cycles) {
  RoundLogs r{std::move(versions), {}};
  for (double c : cycles) r.logs.push_back(std::log(c));
  return r;
}

TEST(DisturbedRounds, ARoundSlowerAsAWholeThanTheLimitIsSetAside) {
  std::vector<RoundLogs> rounds;
  for (int i = 0; i < 9; ++i) rounds.push_back(round_of({0, 1}, {100.0 + i, 200.0 + i}));
  rounds.push_back(round_of({0, 1}, {180.0, 350.0}));  // both about 1.8 times slower
  rounds.push_back(round_of({0, 1}, {180.0, 205.0}));  // one slow version: median 1.35 times
  rounds.push_back(round_of({0, 1}, {109.0, 210.0}));  // 1.08 and 1.04 times: kept
  const std::vector<bool> kept = undisturbed_rounds(rounds, 2, 1.1);
  for (int i = 0; i < 9; ++i) EXPECT_TRUE(kept[i]) << i;
  EXPECT_FALSE(kept[9]);
  EXPECT_FALSE(kept[10]);
  EXPECT_TRUE(kept[11]);
}

// The median over a round's versions: one version's outlier does not set a round aside.
TEST(DisturbedRounds, OneSlowVersionDoesNotDisturbARoundOfMany) {
  std::vector<RoundLogs> rounds;
  for (int i = 0; i < 10; ++i) rounds.push_back(round_of({0, 1, 2}, {100, 100, 100}));
  rounds.push_back(round_of({0, 1, 2}, {300, 101, 102}));
  EXPECT_TRUE(undisturbed_rounds(rounds, 3, 1.1).back());
}

// A race that began in the slow state keeps its first rounds until faster ones arrive.
TEST(DisturbedRounds, LaterFastRoundsSetAsideEarlierSlowOnes) {
  std::vector<RoundLogs> rounds;
  for (int i = 0; i < 5; ++i) rounds.push_back(round_of({0, 1}, {180, 360}));
  EXPECT_EQ(undisturbed_rounds(rounds, 2, 1.1), std::vector<bool>(5, true));
  for (int i = 0; i < 5; ++i) rounds.push_back(round_of({0, 1}, {100, 200}));
  const std::vector<bool> kept = undisturbed_rounds(rounds, 2, 1.1);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(kept[i], i >= 5) << i;
}

TEST(DisturbedRounds, NoLimitKeepsEveryRound) {
  std::vector<RoundLogs> rounds = {round_of({0}, {100}), round_of({0}, {1000})};
  EXPECT_EQ(undisturbed_rounds(rounds, 1, 0.0), std::vector<bool>(2, true));
  EXPECT_EQ(undisturbed_rounds(rounds, 1, 1.0), std::vector<bool>(2, true));
}

}  // namespace
}  // namespace looprace::stats
