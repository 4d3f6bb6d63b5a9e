#include "race/hot_selection.h"

#include <gtest/gtest.h>

namespace looprace::race {
namespace {

std::vector<store::Hotness> ranking() {
  // Hottest first: an outer loop (not a candidate), then candidates down to a cold one.
  return {{"outer", 0, 0, 0.50}, {"a", 0, 0, 0.30}, {"b", 0, 0, 0.10},
          {"c", 0, 0, 0.05},     {"d", 0, 0, 0.02}, {"cold", 0, 0, 0.004}};
}

bool candidate(const std::string& id) { return id != "outer"; }

std::vector<std::string> ids(const HotChoice& c) {
  std::vector<std::string> out;
  for (const auto& h : c.chosen) out.push_back(h.id);
  return out;
}

TEST(HotSelection, HotTakesTheHottestCandidates) {
  const HotChoice c = choose_hot(ranking(), candidate, {2, std::nullopt, 0.01});
  EXPECT_EQ(ids(c), (std::vector<std::string>{"a", "b"}));
  EXPECT_NEAR(c.covered, 0.40, 1e-12);
  EXPECT_NEAR(c.candidates, 0.474, 1e-12);
  EXPECT_FALSE(c.too_cold);
}

TEST(HotSelection, CoverageStopsOnceTheChosenHoldThatPartOfTheCandidatesTime) {
  // 0.30 + 0.10 = 0.40 is 84 % of 0.474; with 0.05 more, 95 %.
  EXPECT_EQ(ids(choose_hot(ranking(), candidate, {0, 0.80, 0.01})),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(ids(choose_hot(ranking(), candidate, {0, 0.90, 0.01})),
            (std::vector<std::string>{"a", "b", "c"}));
  // --hot still bounds it.
  EXPECT_EQ(ids(choose_hot(ranking(), candidate, {1, 0.90, 0.01})),
            (std::vector<std::string>{"a"}));
}

TEST(HotSelection, NeverALoopUnderTheMinimumShare) {
  const HotChoice c = choose_hot(ranking(), candidate, {0, 1.0, 0.01});
  EXPECT_EQ(ids(c), (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_TRUE(c.too_cold);
}

TEST(HotSelection, UnknownSharesAreNeverTooCold) {
  const std::vector<store::Hotness> unknown = {{"x", 0, 0, 0}, {"y", 0, 0, 0}};
  EXPECT_EQ(choose_hot(unknown, candidate, {3, std::nullopt, 0.01}).chosen.size(), 2u);
}

// A nest in one function: i { j { k } } and a sibling loop s at depth 1; `cycles` and
// `entries` per run of each (a matrix product's dot product: 12,544 entries of 44 cycles).
struct Nest {
  std::map<std::string, store::LoopPlace> places = {
      {"i", {"f", 1, 0}}, {"j", {"f", 2, 1}}, {"k", {"f", 3, 2}}, {"s", {"f", 1, 3}}};
  std::map<std::string, store::Hotness> hotness = {{"i", {"i", 560000, 1, 0.3}},
                                                   {"j", {"j", 555000, 112, 0.3}},
                                                   {"k", {"k", 550000, 12544, 0.3}},
                                                   {"s", {"s", 900000, 3, 0.4}}};
};

TEST(ObservationLoop, ALoopOfShortEntriesIsTimedThroughTheNearestLoopOfLongOnes) {
  Nest n;
  // k's entries last 44 cycles, j's 4,955: both short; i's one entry is long.
  EXPECT_EQ(observation_loop("k", n.places, n.hotness), "i");
  EXPECT_EQ(observation_loop("j", n.places, n.hotness), "i");
  EXPECT_EQ(observation_loop("i", n.places, n.hotness), "i");
  // With a lower bar, j's entries are long enough for k.
  EXPECT_EQ(observation_loop("k", n.places, n.hotness, 4000), "j");
  // s's entries are long: timed itself.
  EXPECT_EQ(observation_loop("s", n.places, n.hotness), "s");
}

TEST(ObservationLoop, StopsAtTheOutermostLoopOrOneThatDidNotRun) {
  Nest n;
  n.hotness["i"].entries_per_run = 600;  // i's entries short too: nothing encloses it
  EXPECT_EQ(observation_loop("k", n.places, n.hotness), "i");
  n.hotness.erase("i");  // i never ran while hotness was measured: j is as far as it goes
  EXPECT_EQ(observation_loop("k", n.places, n.hotness), "j");
  // A loop with no hotness (named by --loop, not ranked) is timed itself.
  EXPECT_EQ(observation_loop("unranked", n.places, n.hotness), "unranked");
  n.hotness.erase("k");
  EXPECT_EQ(observation_loop("k", n.places, n.hotness), "k");
}

// The caps of loop_budgets' parts, one per chosen loop.
std::vector<std::size_t> caps_of(const std::vector<LoopBudget>& parts) {
  std::vector<std::size_t> caps;
  for (const auto& part : parts) caps.push_back(part.cap);
  return caps;
}

TEST(LoopBudgets, TheBudgetIsSharedByTheLoopsShares) {
  const std::vector<store::Hotness> chosen = {{"a", 0, 0, 0.30}, {"b", 0, 0, 0.10}};
  // 400 s of 0.1 s runs = 4000 runs over 10 versions: a gets 3/4 (300), b 1/4 (100).
  EXPECT_EQ(caps_of(loop_budgets(chosen, 400.0, 0.1, 10, 200)),
            (std::vector<std::size_t>{200, 100}));
  EXPECT_EQ(caps_of(loop_budgets(chosen, 40.0, 0.1, 10, 200)), (std::vector<std::size_t>{30, 10}));
  // Never under the floor, nor over the cap; no budget: no parts, the plan's cap for all.
  EXPECT_EQ(caps_of(loop_budgets(chosen, 1.0, 0.1, 10, 200)), (std::vector<std::size_t>{6, 6}));
  EXPECT_TRUE(loop_budgets(chosen, std::nullopt, 0.1, 10, 200).empty());
}

TEST(LoopBudgets, EachLoopsPartOfTheBudgetIsNotBoundByTheCap) {
  const std::vector<store::Hotness> chosen = {{"a", 0, 0, 0.30}, {"b", 0, 0, 0.10}};
  // 400 s of 0.1 s runs: a's part stays 3,000 runs where its cap stops at 200 x 10 versions.
  const std::vector<LoopBudget> parts = loop_budgets(chosen, 400.0, 0.1, 10, 200);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_NEAR(parts[0].runs, 3000, 1e-6);
  EXPECT_NEAR(parts[1].runs, 1000, 1e-6);
  EXPECT_NEAR(parts[0].spendable(10), 3000, 1e-6);
  // Where the floor gives a loop more than its share, the cap is what it may spend.
  const std::vector<LoopBudget> tight = loop_budgets(chosen, 1.0, 0.1, 10, 200);
  ASSERT_EQ(tight.size(), 2u);
  EXPECT_NEAR(tight[1].runs, 2.5, 1e-6);
  EXPECT_NEAR(tight[1].spendable(10), 60, 1e-6);
}

TEST(LoopBudgets, UnknownSharesSplitTheBudgetEvenly) {
  const std::vector<store::Hotness> chosen = {{"a", 0, 0, 0}, {"b", 0, 0, 0}};
  const std::vector<LoopBudget> parts = loop_budgets(chosen, 40.0, 0.1, 10, 200);
  EXPECT_EQ(caps_of(parts), (std::vector<std::size_t>{20, 20}));
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_NEAR(parts[0].runs, 200, 1e-6);
  EXPECT_NEAR(parts[1].runs, 200, 1e-6);
}

// Controls for a loop of `lpc` in `decode.c`, function at line 100; hottest candidates first.
ControlTarget decoder() { return {"raced", "raced", "decode.c", "decode", 100}; }

ControlCandidate control(const std::string& id, const std::string& tu, const std::string& function,
                         int fn_line, double share, double entry_cycles = 5000,
                         bool holds_no_other_code = true) {
  return {{id, entry_cycles * 10, 10, share}, tu, function, fn_line, holds_no_other_code};
}

TEST(LoopIndifference, EpsilonOfTheProgramIsEpsilonOverTheSharesOfTheLoop) {
  EXPECT_DOUBLE_EQ(loop_indifference(0.005, 1.0), 0.005);
  EXPECT_DOUBLE_EQ(loop_indifference(0.005, 0.25), 0.02);
  EXPECT_DOUBLE_EQ(loop_indifference(0.005, 0.3), 0.0167);  // three significant digits
  EXPECT_DOUBLE_EQ(loop_indifference(0.005, 0.001), 0.5);   // a share under 1 % counts as 1 %
}

TEST(LoopIndifference, AnUnknownShareLeavesEpsilonAPartOfTheLoop) {
  EXPECT_DOUBLE_EQ(loop_indifference(0.005, 0.0), 0.005);
}

TEST(Controls, LoopsOfOtherUnitsFirstThenEarlierFunctionsOfTheRacedOnesUnit) {
  const std::vector<ControlCandidate> candidates = {
      control("after", "decode.c", "dequant", 200, 0.20),  // moved by the raced code's growth
      control("before", "decode.c", "setup", 40, 0.15),
      control("other", "lpc.c", "filter", 300, 0.10), control("other2", "rpe.c", "grid", 10, 0.05)};
  EXPECT_EQ(choose_controls(decoder(), candidates),
            (std::vector<std::string>{"other", "other2", "before"}));
  EXPECT_EQ(choose_controls(decoder(), candidates, {2}),
            (std::vector<std::string>{"other", "other2"}));
}

TEST(Controls, NeverTheRacedFunctionNorLoopsThatCouldHoldItsCode) {
  const std::vector<ControlCandidate> candidates = {
      control("raced", "x.c", "f", 1, 0.5),                      // the raced loop itself
      control("sibling", "lpc.c", "decode", 1, 0.3),             // a same-named function
      control("caller", "main.c", "main", 1, 0.9, 5000, false),  // calls, or holds loops
      control("short", "lpc.c", "g", 1, 0.2, 300),  // its probes would add 7 % to the program
      control("cold", "lpc.c", "h", 1, 0.001),      // too little time to follow the machine
      control("bound", "lpc.c", "k", 1, 0.2)};
  std::vector<ControlCandidate> with_bound = candidates;
  with_bound.back().hotness.short_entries = true;  // its cycles are a bound, not a timing
  EXPECT_TRUE(choose_controls(decoder(), with_bound).empty());
  EXPECT_EQ(choose_controls(decoder(), candidates), (std::vector<std::string>{"bound"}));
}

TEST(Controls, TheObservedLoopAroundTheRacedOneIsNoControl) {
  ControlTarget target = decoder();
  target.observed = "outer";
  EXPECT_TRUE(choose_controls(target, {control("outer", "lpc.c", "f", 1, 0.5)}).empty());
}

}  // namespace
}  // namespace looprace::race
