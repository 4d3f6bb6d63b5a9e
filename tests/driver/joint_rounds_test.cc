#include "race/joint_rounds.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <stdexcept>

#include "plans/factory.h"
#include "race/live_sampler.h"

namespace looprace::race {
namespace {

TEST(AssignSlotsTest, EveryEligibleVersionHasASlotAndLoopsArePairedDifferently) {
  SlotAssignment slots = assign_slots({{0, 1, 2, 3, 4}, {0, 2}, {7}}, 3);
  ASSERT_EQ(slots.size(), 5u);
  std::vector<std::set<std::size_t>> seen(3);
  for (const auto& slot : slots) {
    ASSERT_EQ(slot.size(), 3u);
    for (std::size_t l = 0; l < 3; ++l) seen[l].insert(slot[l]);
  }
  EXPECT_EQ(seen[0], (std::set<std::size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(seen[1], (std::set<std::size_t>{0, 2}));
  EXPECT_EQ(seen[2], (std::set<std::size_t>{7}));
  EXPECT_EQ(assign_slots({{0, 1, 2, 3, 4}, {0, 2}, {7}}, 3), slots);  // reproducible
  EXPECT_THROW(assign_slots({{0}, {}}, 1), std::invalid_argument);
}

// Slot s's run observes loop l at 1000 * (l + 1) + 10 * version + the run's number, so every
// answer names the loop, the version and the run that measured it.
struct FakeRuns {
  const SlotAssignment& slots;
  std::vector<std::pair<std::size_t, std::size_t>> runs;  // (slot, round)
  std::set<std::pair<std::size_t, std::size_t>> failing;  // (slot, round) whose run fails
  std::vector<std::optional<plans::Observation>> operator()(std::size_t slot, std::size_t round) {
    runs.emplace_back(slot, round);
    std::vector<std::optional<plans::Observation>> out;
    for (std::size_t l = 0; l < slots[slot].size(); ++l) {
      if (failing.count({slot, round})) {
        out.push_back(std::nullopt);
      } else {
        out.push_back(1000.0 * static_cast<double>(l + 1) +
                      10.0 * static_cast<double>(slots[slot][l]) +
                      static_cast<double>(runs.size()));
      }
    }
    return out;
  }
};

TEST(JointRoundsTest, OneRoundRunsTheFewestSlotsAndAnswersEachLoopFromItsOwnVersion) {
  // Loop 0 has versions 0..3, loop 1 versions 0..1: slots carry (0,0) (1,1) (2,0) (3,1).
  SlotAssignment slots = {{0, 0}, {1, 1}, {2, 0}, {3, 1}};
  FakeRuns fake{slots, {}, {}};
  JointRounds joint(slots, 2, std::ref(fake), 5);
  std::vector<std::vector<std::optional<plans::Observation>>> answers(2);
  joint.run({[&] {
               answers[0] = joint.measure(0, {1, 3});
             },
             [&] {
               answers[1] = joint.measure(1, {0, 1});
             }});
  // Versions 1 and 3 of loop 0 need slots 1 and 3, which also carry loop 1's version 1 only:
  // loop 1's version 0 needs a third slot (0 or 2).
  EXPECT_EQ(joint.rounds(), 1u);
  EXPECT_EQ(joint.slot_runs(), 3u);
  ASSERT_EQ(answers[0].size(), 2u);
  ASSERT_EQ(answers[1].size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    std::size_t v0 = std::vector<std::size_t>{1, 3}[i];
    ASSERT_TRUE(answers[0][i]);
    EXPECT_EQ(static_cast<int>(answers[0][i]->cycles) / 10, 100 + static_cast<int>(v0));
    ASSERT_TRUE(answers[1][i]);
    EXPECT_EQ(static_cast<int>(answers[1][i]->cycles) / 10, 200 + static_cast<int>(i));
  }
}

TEST(JointRoundsTest, AVersionWithoutSlotAndAFailedRunAreNotObserved) {
  SlotAssignment slots = {{0, 0}, {1, 1}};
  FakeRuns fake{slots, {}, {{1, 1}}};  // slot 1 fails in round 1
  JointRounds joint(slots, 2, std::ref(fake), 5);
  std::vector<std::optional<plans::Observation>> a, b;
  joint.run({[&] { a = joint.measure(0, {0, 1, 5}); }, [&] { b = joint.measure(1, {0}); }});
  ASSERT_EQ(a.size(), 3u);
  EXPECT_TRUE(a[0]);
  EXPECT_FALSE(a[1]);  // its run failed
  EXPECT_FALSE(a[2]);  // no slot carries version 5
  ASSERT_EQ(b.size(), 1u);
  EXPECT_TRUE(b[0]);
}

TEST(JointRoundsTest, RealPlansRaceTogetherAndFinishAtDifferentTimes) {
  // Loop 0: version 2 is clearly fastest; loop 1: its two versions tie, so its race runs to the
  // cap while loop 0's decides early. Each loop's plan sees one observation per version per
  // round, drawn from log-normal noise around the version's own mean.
  const std::vector<std::vector<double>> means = {{100, 130, 60, 140}, {500, 500}};
  SlotAssignment slots = assign_slots({{0, 1, 2, 3}, {0, 1}}, 11);
  std::mt19937_64 random(42);
  std::normal_distribution<double> noise(0, 0.02);
  std::vector<std::size_t> runs_per_round;
  JointRounds joint(
      slots, 2,
      [&](std::size_t slot, std::size_t) {
        std::vector<std::optional<plans::Observation>> out;
        for (std::size_t l = 0; l < 2; ++l) {
          out.push_back(means[l][slots[slot][l]] * std::exp(noise(random)));
        }
        return out;
      },
      9);
  plans::PlanOptions options;
  options.name = "race";
  options.max_samples = 60;
  auto plan = plans::make_plan(options);
  std::vector<plans::Decision> decisions(2);
  std::vector<std::unique_ptr<LiveSampler>> samplers;
  for (std::size_t l = 0; l < 2; ++l) {
    samplers.push_back(std::make_unique<LiveSampler>(
        LiveSampler::Recorded(means[l].size()),
        [&joint, l](const std::vector<std::size_t>& versions, std::size_t) {
          return joint.measure(l, versions);
        }));
  }
  std::vector<std::function<void()>> bodies;
  for (std::size_t l = 0; l < 2; ++l) {
    bodies.push_back([&, l] { decisions[l] = plan->run(means[l].size(), *samplers[l]); });
  }
  joint.run(bodies,
            [&](std::size_t, std::size_t slots_run) { runs_per_round.push_back(slots_run); });

  EXPECT_EQ(decisions[0].chosen, 2u);
  EXPECT_FALSE(decisions[0].cap_hit);
  EXPECT_TRUE(decisions[1].cap_hit);
  EXPECT_EQ(decisions[1].samples, (std::vector<std::size_t>{60, 60}));
  // Loop 1 alone needs 2 slots a round once loop 0 has decided; never more slots than exist.
  EXPECT_EQ(runs_per_round.back(), 2u);
  for (std::size_t n : runs_per_round) EXPECT_LE(n, slots.size());
  EXPECT_EQ(joint.rounds(), 60u);
}

TEST(JointRoundsTest, AFailingPlanStopsTheOthersAndItsErrorIsRethrown) {
  SlotAssignment slots = {{0, 0}};
  FakeRuns fake{slots, {}, {}};
  JointRounds joint(slots, 2, std::ref(fake), 5);
  EXPECT_THROW(joint.run({[&] { throw std::runtime_error("plan failed"); },
                          [&] {
                            for (;;) joint.measure(1, {0});  // stopped by the failure
                          }}),
               std::runtime_error);
}

TEST(JointRoundsTest, AFailingSlotRunStopsEveryPlan) {
  SlotAssignment slots = {{0, 0}};
  JointRounds joint(
      slots, 2,
      [](std::size_t, std::size_t) -> std::vector<std::optional<plans::Observation>> {
        throw std::runtime_error("store is gone");
      },
      5);
  auto forever = [&](std::size_t l) {
    return [&, l] {
      for (;;) joint.measure(l, {0});
    };
  };
  EXPECT_THROW(joint.run({forever(0), forever(1)}), std::runtime_error);
}

}  // namespace
}  // namespace looprace::race
