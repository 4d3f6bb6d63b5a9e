#include "store/dataset.h"

#include <gtest/gtest.h>

namespace looprace::store {
namespace {

// One run: a long loop entered 10 times (30000 cycles each) and a short loop entered 10000 times
// (70 cycles each, 52 of them the probe's own bias).
HotnessSample run(double probe_cycles) {
  HotnessSample s;
  s.wall_seconds = 0.001;
  s.tsc_hz = 1e9;  // 1e6 program cycles
  s.probe_cycles = probe_cycles;
  s.loops["long"] = {10 * 30000.0, 10};
  s.loops["short"] = {10000 * 70.0, 10000};
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
  auto ranked = rank_hotness({run(52), run(52)});
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0].id, "long");
  EXPECT_DOUBLE_EQ(ranked[0].cycles_per_run, 10 * 29948.0);
  EXPECT_DOUBLE_EQ(ranked[1].cycles_per_run, 10000 * 18.0);
  EXPECT_NEAR(ranked[1].share, 0.18, 1e-12);
}

TEST(Hotness, ALoopThatIsAllProbeIsDropped) {
  auto ranked = rank_hotness({run(80)});  // the short loop's 70 cycles are below the bias
  ASSERT_EQ(ranked.size(), 1u);
  EXPECT_EQ(ranked[0].id, "long");
  EXPECT_DOUBLE_EQ(ranked[0].cycles_per_run, 10 * 29920.0);
}

}  // namespace
}  // namespace looprace::store
