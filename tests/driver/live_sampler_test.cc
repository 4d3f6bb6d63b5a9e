#include "race/live_sampler.h"

#include <gtest/gtest.h>

#include <map>

#include "race/race.h"

namespace looprace::race {
namespace {

// A plan-like driver: asks for the listed versions for `rounds` rounds.
std::vector<std::vector<std::optional<plans::Observation>>> drive(
    LiveSampler& s, const std::vector<std::size_t>& versions, int rounds) {
  std::vector<std::vector<std::optional<plans::Observation>>> out;
  for (int r = 0; r < rounds; ++r) out.push_back(s.round(versions));
  return out;
}

TEST(LiveSamplerTest, ReplaysStoredObservationsBeforeRunning) {
  LiveSampler::Recorded recorded(3);
  recorded[0] = {10.0, 11.0};
  recorded[1] = {20.0};
  recorded[2] = {std::nullopt};                          // disqualified in a stored run
  std::vector<std::pair<std::size_t, std::size_t>> ran;  // (version, round)
  LiveSampler s(
      recorded,
      [&](std::size_t v, std::size_t round) -> std::optional<double> {
        ran.emplace_back(v, round);
        return 100.0 + static_cast<double>(v);
      },
      7);
  auto first = s.round({0, 1, 2});
  EXPECT_EQ(first[0], 10.0);
  EXPECT_EQ(first[1], 20.0);
  EXPECT_FALSE(first[2].has_value());
  EXPECT_TRUE(ran.empty());
  auto second = s.round({0, 1});
  EXPECT_EQ(second[0], 11.0);
  EXPECT_EQ(second[1], 101.0);
  ASSERT_EQ(ran.size(), 1u);
  EXPECT_EQ(ran[0], (std::pair<std::size_t, std::size_t>{1, 2}));
  EXPECT_EQ(s.replayed(), 4u);
  EXPECT_EQ(s.measured(), 1u);
  EXPECT_EQ(s.rounds(), 2u);
}

TEST(LiveSamplerTest, RunOrderIsShuffledPerRoundAndReproducible) {
  auto orders = [](std::uint64_t seed) {
    std::vector<std::size_t> order;
    LiveSampler s(
        LiveSampler::Recorded(8),
        [&](std::size_t v, std::size_t) -> std::optional<double> {
          order.push_back(v);
          return 1.0;
        },
        seed);
    drive(s, {0, 1, 2, 3, 4, 5, 6, 7}, 4);
    return order;
  };
  auto a = orders(1);
  EXPECT_EQ(a, orders(1));
  EXPECT_NE(a, orders(2));
  std::vector<std::size_t> first(a.begin(), a.begin() + 8), second(a.begin() + 8, a.begin() + 16);
  EXPECT_NE(first, second);  // a fresh order every round
  std::sort(first.begin(), first.end());
  EXPECT_EQ(first, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(LiveSamplerTest, ResultsFollowTheRequestedOrder) {
  LiveSampler s(
      LiveSampler::Recorded(5),
      [](std::size_t v, std::size_t) -> std::optional<double> {
        return 10.0 * static_cast<double>(v);
      },
      3);
  auto out = s.round({4, 1, 3});
  EXPECT_EQ(out[0], 40.0);
  EXPECT_EQ(out[1], 10.0);
  EXPECT_EQ(out[2], 30.0);
}

TEST(GroupVariantsTest, IdenticalCodeSharesTheLowestFactor) {
  std::vector<int> factors = {0, 1, 2, 3, 4};
  auto g = group_variants(factors, {"a", "a", "b", "", "b"});
  EXPECT_EQ(g.representatives, (std::vector<int>{0, 2}));
  EXPECT_EQ(g.group_of[0], 0);
  EXPECT_EQ(g.group_of[1], 0);
  EXPECT_EQ(g.group_of[2], 2);
  EXPECT_EQ(g.group_of[3], -1);  // failed build: not raced
  EXPECT_EQ(g.group_of[4], 2);
  EXPECT_EQ(g.group_of[16], -1);  // not requested
}

TEST(GroupVariantsTest, OrderOfInputDoesNotMatter) {
  auto g = group_variants({8, 2, 4}, {"x", "x", "y"});
  EXPECT_EQ(g.representatives, (std::vector<int>{2, 4}));
  EXPECT_EQ(g.group_of[8], 2);
}

}  // namespace
}  // namespace looprace::race
