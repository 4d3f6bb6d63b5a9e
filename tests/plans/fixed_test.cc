// Constant and JavaSTATS plans, and the plan factory's option checks.
#include "plans/fixed.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "plans/factory.h"
#include "synthetic.h"

namespace looprace::plans {
namespace {

using testing::ScriptedSampler;
using testing::SyntheticSampler;
using testing::VersionShape;

TEST(ConstantPlan, TakesExactlyNFromEveryVersionAndPicksTheLowestMean) {
  ScriptedSampler sampler({{10, 11, 12, 99}, {9, 10, 11, 99}, {12, 12, 12, 99}});
  const Decision d = ConstantPlan(3).run(3, sampler);
  EXPECT_EQ(d.samples, (std::vector<std::size_t>{3, 3, 3}));
  EXPECT_EQ(d.chosen, 1u);
  EXPECT_EQ(d.winners, std::vector<std::size_t>{1});
  EXPECT_EQ(d.rounds.size(), 3u);
  EXPECT_FALSE(d.cap_hit);
}

// Version 0 ran one of its two runs while the machine ran 10 % slower, as its control shows:
// by the raw means version 1 is faster (104 < 105), by the means adjusted by the controls
// (slope 1, fitted within version 0) version 0 is.
TEST(ConstantPlan, WithControlsPicksTheLowestAdjustedMean) {
  struct Runs : Sampler {
    std::size_t round_index = 0;
    std::vector<std::optional<Observation>> round(const std::vector<std::size_t>& v) override {
      std::vector<std::optional<Observation>> out;
      for (std::size_t version : v)
        out.emplace_back(version == 0 ? Observation{round_index == 0 ? 110.0 : 100.0,
                                                    round_index == 0 ? 1.1 : 1.0}
                                      : Observation{104.0, 1.0});
      ++round_index;
      return out;
    }
  } runs;
  EXPECT_EQ(ConstantPlan(2).run(2, runs).chosen, 0u);
  ScriptedSampler raw({{110, 100}, {104, 104}});
  EXPECT_EQ(ConstantPlan(2).run(2, raw).chosen, 1u);
}

TEST(JavaStats, RefusesObservationsWithControls) {
  struct Controlled : Sampler {
    std::vector<std::optional<Observation>> round(const std::vector<std::size_t>& v) override {
      return std::vector<std::optional<Observation>>(v.size(), Observation{10.0, 5.0});
    }
  } controlled;
  EXPECT_THROW(JavaStatsPlan(JavaStatsParameters{}).run(1, controlled), std::invalid_argument);
}

TEST(JavaStats, StopsEachVersionAtItsOwnPrecision) {
  // Version 0 is precise at once; version 1 needs many runs.
  std::vector<VersionShape> shapes = {{1000.0, 0.001}, {1100.0, 0.05}};
  SyntheticSampler sampler(shapes, 2);
  const Decision d = JavaStatsPlan({0.05, 0.01, 2, 500}).run(2, sampler);
  EXPECT_LT(d.samples[0], 5u);
  EXPECT_GT(d.samples[1], 20u);
  EXPECT_LT(d.samples[1], 500u);
  EXPECT_EQ(d.chosen, 0u);
  EXPECT_FALSE(d.cap_hit);
}

TEST(JavaStats, FlagsTheCapAndKeepsOverlappingVersionsAsWinners) {
  std::vector<VersionShape> shapes = {{1000.0, 0.2}, {1001.0, 0.2}};
  SyntheticSampler sampler(shapes, 8);
  const Decision d = JavaStatsPlan({0.01, 0.001, 2, 30}).run(2, sampler);
  EXPECT_TRUE(d.cap_hit);
  EXPECT_EQ(d.samples, (std::vector<std::size_t>{30, 30}));
  EXPECT_EQ(d.winners.size(), 2u);
}

TEST(JavaStats, ConstantObservationsArePreciseAtTheMinimum) {
  ScriptedSampler sampler({{4, 4, 4}, {3, 3, 3}});
  const Decision d = JavaStatsPlan({0.05, 0.01, 2, 10}).run(2, sampler);
  EXPECT_EQ(d.samples, (std::vector<std::size_t>{2, 2}));
  EXPECT_EQ(d.chosen, 1u);
  EXPECT_EQ(d.winners, std::vector<std::size_t>{1});
}

TEST(Factory, BuildsEveryNamedPlan) {
  for (const std::string& name : plan_names()) {
    PlanOptions o;
    o.name = name;
    EXPECT_NE(make_plan(o), nullptr) << name;
  }
  PlanOptions o;
  o.name = "constant";
  o.constant_size = 7;
  EXPECT_EQ(make_plan(o)->describe(), "constant(n=7)");
}

TEST(Factory, RejectsBadOptionsNamingTheOption) {
  const auto message = [](const PlanOptions& o) {
    try {
      make_plan(o);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  PlanOptions o;
  o.alpha_lt = 0.0;
  EXPECT_NE(message(o).find("--alpha-lt"), std::string::npos);
  o = {};
  o.alpha_eq = 1.0;
  EXPECT_NE(message(o).find("--alpha-eq"), std::string::npos);
  o = {};
  o.epsilon = -0.1;
  EXPECT_NE(message(o).find("--epsilon"), std::string::npos);
  o = {};
  o.max_samples = 1;
  EXPECT_NE(message(o).find("--max-samples"), std::string::npos);
  o = {};
  o.name = "fastest";
  EXPECT_NE(message(o).find("unknown plan 'fastest'"), std::string::npos);
  o = {};
  o.name = "constant";
  o.constant_size = o.max_samples + 1;
  EXPECT_NE(message(o).find("--constant-size"), std::string::npos);
  o = {};
  o.name = "retiring-race";
  o.best_ratio = -1.0;
  EXPECT_NE(message(o).find("--best-ratio"), std::string::npos);
  o.best_ratio = 1.5;
  o.alpha_eq = 0.0;
  EXPECT_NE(message(o).find("--alpha-eq"), std::string::npos);
}

TEST(Factory, DefaultOptionsAreThePlansOwnAndBuild) {
  for (const std::string& name : plan_names()) {
    const PlanOptions o = default_options(name);
    EXPECT_EQ(o.name, name);
    EXPECT_NE(make_plan(o), nullptr) << name;
  }
  EXPECT_EQ(default_options(default_plan_name()).control, ErrorControl::familywise);
  EXPECT_EQ(default_options("race", ErrorControl::per_comparison).alpha_lt, PlanOptions{}.alpha_lt);
  EXPECT_EQ(default_options("race", ErrorControl::per_comparison).alpha_eq, PlanOptions{}.alpha_eq);
  EXPECT_EQ(default_options("retiring-race").control, ErrorControl::per_comparison);
  EXPECT_LT(default_options("retiring-race").alpha_eq, PlanOptions{}.alpha_eq);
}

TEST(Factory, RacesAreTheNamesGriddedOverAlphaLevels) {
  std::vector<std::string> races;
  for (const std::string& name : plan_names())
    if (races_on_levels(name)) races.push_back(name);
  EXPECT_EQ(races, (std::vector<std::string>{"race", "blocked-race", "retiring-race",
                                             "blocked-retiring-race"}));
}

}  // namespace
}  // namespace looprace::plans
