// The filtered observation's rule (driver/stats/entry_filter.h) on synthetic histograms.
#include "stats/entry_filter.h"

#include <gtest/gtest.h>

namespace looprace::stats {
namespace {

// Octave bucket of `cycles`: the floor its entries share.
std::uint64_t floor_of(std::uint64_t cycles) {
  std::uint64_t floor = 1;
  while (floor * 2 <= cycles) floor *= 2;
  return floor;
}

// A histogram of `count` entries of `cycles` each, plus the given single entries.
std::vector<EntryBucket> histogram(std::uint64_t count, std::uint64_t cycles,
                                   const std::vector<std::uint64_t>& singles) {
  std::vector<EntryBucket> out = {{floor_of(cycles), count, count * cycles}};
  for (std::uint64_t s : singles) {
    std::uint64_t f = floor_of(s);
    if (f == out.back().floor) {
      out.back().entries += 1;
      out.back().cycles += s;
    } else {
      out.push_back({f, 1, s});
    }
  }
  return out;
}

TEST(EntryFilter, APreemptedEntryCountsAsATypicalOne) {
  // 49,152 entries of 130 cycles, one preempted for 10.5 M cycles, one hit by a 5,000-cycle
  // interrupt: the sum is 2.6x the loop's work; the filtered value is the work.
  auto result = filter_entries(histogram(49150, 130, {130 + 10'500'000, 130 + 5000}));
  ASSERT_TRUE(result);
  EXPECT_EQ(result->disturbed, 2u);
  EXPECT_EQ(result->cap_cycles, 512u);
  EXPECT_DOUBLE_EQ(result->cycles, 49152.0 * 130);
}

TEST(EntryFilter, AnUndisturbedRunKeepsItsSum) {
  auto h = histogram(1000, 700, {});
  h.push_back({512, 500, 500 * 600});  // entries of 600 and 700 cycles, in two buckets
  std::swap(h[0], h[1]);
  auto result = filter_entries(h);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->disturbed, 0u);
  EXPECT_DOUBLE_EQ(result->cycles, 1000.0 * 700 + 500 * 600);
}

TEST(EntryFilter, TooFewEntriesFallBackToTheRun) {
  EXPECT_FALSE(filter_entries(histogram(kMinEntries - 1, 2'000'000, {})));
  EXPECT_TRUE(filter_entries(histogram(kMinEntries, 2'000'000, {})));
  EXPECT_FALSE(filter_entries({}));
}

TEST(EntryFilter, ALoopsOwnLongEntriesAreNotCut) {
  // A data-dependent loop: 5 % of its entries run 100x longer in every run. That is its work.
  std::vector<EntryBucket> h = {{64, 950, 950 * 100}, {8192, 50, 50 * 10'000}};
  auto own = filter_entries(h);
  ASSERT_TRUE(own);
  EXPECT_EQ(own->disturbed, 0u);
  EXPECT_DOUBLE_EQ(own->cycles, 950.0 * 100 + 50 * 10'000);
  // At 1 % or fewer such entries are taken for disturbances.
  h[1] = {8192, 9, 9 * 10'000};
  auto result = filter_entries(h);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->disturbed, 9u);
}

TEST(EntryFilter, APreemptionInsideALoopsOwnLongEntryIsCut) {
  // gsm's short_term.c:205 in one run: 450 entries of about 300 cycles, 150 of about 2,400 (its
  // own, every run), and one entry preempted for 2.4 M cycles.
  std::vector<EntryBucket> h = {
      {256, 450, 450 * 300}, {2048, 149, 149 * 2400}, {2097152, 1, 2'400'000}};
  auto result = filter_entries(h);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->disturbed, 1u);
  EXPECT_EQ(result->cap_cycles, 8192u);
  EXPECT_DOUBLE_EQ(result->cycles, (450.0 * 300 + 149 * 2400) / 599 * 600);
}

TEST(EntryFilter, AFewEntryRunTakesOutAPreemptionAndTheInterrupts) {
  // gsm's lpc.c:48 in one run: 150 entries of about 1,000 cycles, one preempted (about 520 k
  // cycles) and two hit by timer interrupts (about 8 k): three disturbed entries, more than
  // 1 % of 150, fewer than the least allowance.
  auto result = filter_entries(histogram(147, 1000, {520'000, 8000, 9000}));
  ASSERT_TRUE(result);
  EXPECT_EQ(result->disturbed, 3u);
  EXPECT_DOUBLE_EQ(result->cycles, 150.0 * 1000);
  // More long entries than the allowance are the loop's own: nothing is taken out.
  std::vector<std::uint64_t> many(kLeastAllowance + 1, 9000);
  auto crowded = filter_entries(histogram(150, 1000, many));
  ASSERT_TRUE(crowded);
  EXPECT_EQ(crowded->disturbed, 0u);
}

TEST(EntryFilter, TheCapIsTwoOctavesAboveTheMedianEntry) {
  // Median in [128, 256): entries from 512 cycles on are disturbed, those below are kept.
  std::vector<EntryBucket> h = {{128, 1000, 1000 * 150}, {256, 5, 5 * 300}, {512, 5, 5 * 600}};
  auto result = filter_entries(h);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->cap_cycles, 512u);
  EXPECT_EQ(result->disturbed, 5u);
  EXPECT_DOUBLE_EQ(result->cycles, (1000.0 * 150 + 5 * 300) / 1005 * 1010);
}

}  // namespace
}  // namespace looprace::stats
