#include "store/dataset.h"

#include <gtest/gtest.h>

namespace looprace::store {
namespace {

// One run: a long loop entered 10 times (30000 cycles each) and a short loop entered 10000 times
// (`short_entry` cycles each, probe included).
HotnessSample run(double probe_cycles, double short_entry = 70) {
  HotnessSample s;
  s.wall_seconds = 0.001;
  s.tsc_hz = 1e9;  // 1e6 program cycles
  s.probe_cycles = probe_cycles;
  s.loops["long"] = {10 * 30000.0, 10};
  s.loops["short"] = {10000 * short_entry, 10000};
  return s;
}

TEST(Hotness, ShortLoopRanksFirstOnRawCycles) {
  auto ranked = rank_hotness({run(0), run(0)});
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0].id, "short");
  EXPECT_DOUBLE_EQ(ranked[0].cycles_per_run, 700000.0);
  EXPECT_DOUBLE_EQ(ranked[0].entries_per_run, 10000.0);
  EXPECT_DOUBLE_EQ(ranked[0].share, 0.7);
}

TEST(Hotness, ProbeBiasIsRemovedBeforeRanking) {
  auto ranked = rank_hotness({run(52, 110), run(52, 110)});  // raw 0.3 M and 1.1 M cycles
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0].id, "short");
  EXPECT_DOUBLE_EQ(ranked[0].cycles_per_run, 10000 * 58.0);
  EXPECT_NEAR(ranked[0].share, 0.58, 1e-12);
  EXPECT_FALSE(ranked[0].is_bound());
  EXPECT_DOUBLE_EQ(ranked[1].cycles_per_run, 10 * 29948.0);
}

// Entries under twice the probe's bias: the net time would be noise around 0 (or below it),
// so the measured time stands as an upper bound and the loop is not dropped.
TEST(Hotness, ShortEntriesKeepTheirMeasuredTimeAsABound) {
  for (double probe : {52.0, 80.0}) {  // 70-cycle entries: net 18, or below the bias
    auto ranked = rank_hotness({run(probe)});
    ASSERT_EQ(ranked.size(), 2u) << probe;
    EXPECT_EQ(ranked[0].id, "short");
    EXPECT_DOUBLE_EQ(ranked[0].cycles_per_run, 700000.0);
    EXPECT_TRUE(ranked[0].short_entries);
    EXPECT_TRUE(ranked[0].is_bound());
    EXPECT_DOUBLE_EQ(ranked[1].cycles_per_run, 10 * (30000.0 - probe));
  }
}

// A run that spent half its wall time off the CPU: its loops' cycles count half, as the plain
// run's time counts only its time on the CPU.
TEST(Hotness, ALoopLosesTheShareOfItsRunSpentOffTheCpu) {
  HotnessSample waited = run(0);
  waited.off_cpu_ns = 500'000;  // of 1 ms
  auto ranked = rank_hotness({waited}, 1e6);
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_DOUBLE_EQ(ranked[0].cycles_per_run, 350000.0);
  EXPECT_DOUBLE_EQ(ranked[0].share, 0.35);
  EXPECT_DOUBLE_EQ(rank_hotness({waited, run(0)}, 1e6)[0].cycles_per_run, 350000.0);
}

// Of three runs, the middle one counts: a run that waited outside the loop takes from the loop
// cycles it spent, and cannot shrink it alone; two such runs do.
TEST(Hotness, ALoopCountsItsMiddleRunSoThatOneRunThatWaitedCannotShrinkIt) {
  HotnessSample waited = run(0);
  waited.off_cpu_ns = 500'000;
  EXPECT_DOUBLE_EQ(rank_hotness({run(0), waited, run(0)}, 1e6)[0].cycles_per_run, 700000.0);
  EXPECT_DOUBLE_EQ(rank_hotness({waited, run(0), waited}, 1e6)[0].cycles_per_run, 350000.0);
}

Hotness measured(const std::string& id, double cycles, bool short_entries = false) {
  Hotness h{id, cycles, 1, cycles / 1e6};
  h.short_entries = short_entries;
  return h;
}

// f: loop a (depth 1) holds b, c (depth 2); loop d (depth 1) holds e (depth 2), e holds g.
const std::map<std::string, LoopPlace> kPlaces = {{"a", {"f", 1, 0}}, {"b", {"f", 2, 1}},
                                                  {"c", {"f", 2, 2}}, {"d", {"f", 1, 3}},
                                                  {"e", {"f", 2, 4}}, {"g", {"f", 3, 5}}};

// A loop takes at most what its enclosing loop took: the nearest loop before it at depth - 1,
// through a whole nest; loops within their bound keep their measurement.
TEST(Hotness, ALoopIsBoundedByTheLoopThatEnclosesIt) {
  auto ranked =
      bound_by_enclosing({measured("a", 1000), measured("b", 400), measured("c", 1500),
                          measured("d", 100), measured("e", 300, true), measured("g", 900, true)},
                         kPlaces);
  std::map<std::string, Hotness> by_id;
  for (const auto& h : ranked) by_id[h.id] = h;
  EXPECT_DOUBLE_EQ(by_id["b"].cycles_per_run, 400);
  EXPECT_FALSE(by_id["b"].is_bound());
  EXPECT_DOUBLE_EQ(by_id["c"].cycles_per_run, 1000);  // measured above a
  EXPECT_DOUBLE_EQ(by_id["c"].share, 1000 / 1e6);
  EXPECT_TRUE(by_id["c"].bounded_by_enclosing);
  EXPECT_DOUBLE_EQ(by_id["e"].cycles_per_run, 100);  // d, not a, encloses e
  EXPECT_DOUBLE_EQ(by_id["g"].cycles_per_run, 100);  // through e
  EXPECT_TRUE(by_id["g"].is_bound());
  EXPECT_EQ(ranked.front().id, "a");  // hottest first
}

// A plain run's time on its CPU: what it waited is taken out, never more than its wall time.
TEST(Hotness, APlainRunCountsOnlyItsTimeOnTheCpu) {
  EXPECT_DOUBLE_EQ(undisturbed_seconds(0.010, 6'000'000), 0.004);  // waited 6 of its 10 ms
  EXPECT_DOUBLE_EQ(undisturbed_seconds(0.010, 0), 0.010);
  EXPECT_DOUBLE_EQ(undisturbed_seconds(0.010, 20'000'000), 0.010);  // a bogus count is ignored
}

// The runtime sees a run's waiting only from its own start; the processes' CPU time holds none.
// A program of several threads takes more CPU time than wall time and keeps its wall time.
TEST(Hotness, APlainRunIsTimedByItsCpuTimeWhenThatIsShorter) {
  EXPECT_DOUBLE_EQ(plain_run_seconds(0.012, 3'000, 0.004), 0.004);  // waited before the runtime
  EXPECT_DOUBLE_EQ(plain_run_seconds(0.010, 6'000'000, 0.005), 0.004);
  EXPECT_DOUBLE_EQ(plain_run_seconds(0.010, 6'000'000, 0), 0.004);  // CPU time not measured
  EXPECT_DOUBLE_EQ(plain_run_seconds(0.010, 0, 0.018), 0.010);      // two threads
}

}  // namespace
}  // namespace looprace::store
