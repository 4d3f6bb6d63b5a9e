// Reference values: R 4.2 via tests/stats/reference.R (p.adjust(..., "holm", n = 6)).
#include "stats/multiplicity.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace looprace::stats {
namespace {

const std::vector<double> kP = {0.001, 0.02, 0.0049, 0.012};  // Holm-adjusted, n = 6:
                                                              // 0.006 0.06 0.0245 0.048

TEST(Holm, RejectsWhatRsAdjustedPValuesReject) {
  EXPECT_EQ(holm_rejections(kP, 6, 0.05), (std::vector<bool>{true, false, true, true}));
  EXPECT_EQ(holm_rejections(kP, 6, 0.04), (std::vector<bool>{true, false, true, false}));
  EXPECT_EQ(holm_rejections(kP, 6, 0.005), (std::vector<bool>{false, false, false, false}));
}

TEST(Holm, StopsAtTheFirstAcceptanceEvenIfALaterPValueWouldPass) {
  // 0.03 > 0.05 / 2 stops the procedure; 0.04 alone would be under its step's 0.05 / 1.
  EXPECT_EQ(holm_rejections({0.01, 0.04, 0.03}, 3, 0.05), (std::vector<bool>{true, false, false}));
  // Stepping down rejects what Bonferroni (0.05 / 2 each) would keep.
  EXPECT_EQ(holm_rejections({0.012, 0.04}, 2, 0.05), (std::vector<bool>{true, true}));
}

TEST(Holm, NeedsAsManyHypothesesAsPValues) {
  EXPECT_TRUE(holm_rejections({}, 0, 0.05).empty());
  EXPECT_THROW(holm_rejections(kP, 3, 0.05), std::invalid_argument);
}

TEST(SequentialLooks, GrowBySquareRootOfTwoAndEndAtTheCap) {
  const SequentialLooks looks(200);
  EXPECT_EQ(looks.count(), 15u);  // 2 3 4 6 8 11 16 23 33 47 66 93 132 187 200
  EXPECT_EQ(looks.next_at_or_after(0), 2u);
  EXPECT_EQ(looks.next_at_or_after(5), 6u);
  EXPECT_EQ(looks.next_at_or_after(24), 33u);
  EXPECT_EQ(looks.next_at_or_after(188), 200u);
  EXPECT_EQ(looks.next_at_or_after(1000), 200u);
  EXPECT_EQ(SequentialLooks(2).count(), 1u);
  EXPECT_EQ(SequentialLooks(4).count(), 3u);
  EXPECT_THROW(SequentialLooks(1), std::invalid_argument);
}

}  // namespace
}  // namespace looprace::stats
