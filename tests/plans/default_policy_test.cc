// When a profile may change GCC's default (driver/plans/default_policy.h), on scripted
// confirmation observations.
#include "plans/default_policy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace looprace::plans {
namespace {

// n observations around `cycles` with a 1 % log spread (fixed seed).
std::vector<double> runs(double cycles, std::size_t n, unsigned seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> noise(0.0, 0.01);
  std::vector<double> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(cycles * std::exp(noise(random)));
  return out;
}

const DefaultPolicy kPolicy{true, 30, 0.95, 0.005};

TEST(DefaultPolicy, AConfirmedGainChangesTheDefault) {
  auto d = decide_default(kPolicy, false, false, runs(1000, 30, 1), runs(900, 30, 2));
  EXPECT_FALSE(d.keep_default) << d.reason;
}

TEST(DefaultPolicy, NoConfirmedGainKeepsTheDefaultEvenWhenTheRaceEliminatedIt) {
  // The race called factor 0 slower, but fresh runs show the two equal: nothing is changed.
  auto d = decide_default(kPolicy, false, false, runs(1000, 30, 3), runs(1000, 30, 4));
  EXPECT_TRUE(d.keep_default);
  EXPECT_NE(d.reason.find("do not show"), std::string::npos) << d.reason;
}

TEST(DefaultPolicy, AGainWithinEpsilonKeepsTheDefault) {
  // 0.3 % faster, clearly (tight spread), but inside the race's margin of equal.
  std::vector<double> base(30, 1000.0), chosen(30, 997.0);
  for (std::size_t i = 0; i < 30; ++i) {
    base[i] += double(i % 3);
    chosen[i] += double(i % 3);
  }
  EXPECT_TRUE(decide_default(kPolicy, false, false, base, chosen).keep_default);
}

TEST(DefaultPolicy, MissingConfirmationRunsKeepTheDefault) {
  auto d = decide_default(kPolicy, false, false, runs(1000, 12, 5), runs(500, 12, 6));
  EXPECT_TRUE(d.keep_default);
  EXPECT_NE(d.reason.find("12 of 30"), std::string::npos) << d.reason;
}

TEST(DefaultPolicy, FewNonNormalRunsSayWhyTheDefaultIsKept) {
  // 10 runs each, 6x faster, but one sample far from normal: under 30 runs the Speedup-Test
  // does not trust the interval, and the reason must say so rather than "no gain".
  DefaultPolicy ten = kPolicy;
  ten.confirm = 10;
  std::vector<double> base = runs(6000, 10, 7), chosen = runs(1000, 10, 8);
  chosen[9] = 3000;
  auto d = decide_default(ten, false, false, base, chosen);
  EXPECT_TRUE(d.keep_default);
  EXPECT_NE(d.reason.find("Shapiro-Wilk"), std::string::npos) << d.reason;
  EXPECT_EQ(d.reason.find("do not show"), std::string::npos) << d.reason;
}

TEST(DefaultPolicy, TheUserCanLetThePlanDecide) {
  DefaultPolicy no_prefer = kPolicy;
  no_prefer.prefer_default = false;
  EXPECT_FALSE(decide_default(no_prefer, false, false, {}, {}).keep_default);
  DefaultPolicy no_confirm = kPolicy;
  no_confirm.confirm = 0;
  EXPECT_FALSE(decide_default(no_confirm, false, false, {}, {}).keep_default);
  EXPECT_FALSE(decide_default(kPolicy, false, true, {}, {}).keep_default);
  EXPECT_FALSE(decide_default(kPolicy, true, false, {}, {}).keep_default);
}

}  // namespace
}  // namespace looprace::plans
