// Reference values: R 4.2 shapiro.test via tests/stats/reference.R (output in reference.out).
#include "stats/shapiro_wilk.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace looprace::stats {
namespace {

void expect_r(const std::vector<double>& x, double w, double p) {
  const ShapiroWilk s = shapiro_wilk(x);
  EXPECT_NEAR(s.w, w, 1e-9);
  EXPECT_NEAR(s.p_value, p, std::max(1e-9, p * 1e-6));
}

TEST(ShapiroWilk, ExactCaseNEquals3) { expect_r({1, 2, 4}, 0.964285714285714, 0.636886845028963); }

TEST(ShapiroWilk, SmallSamplesUseTheNUpTo11Branch) {
  expect_r({2.799, 2.046, 1.259, 1.877, 2.244}, 0.986190408160782, 0.964734206740106);
  expect_r({10.2, 11.5, 9.8, 10.9, 12.1, 10.4, 11.0, 9.5}, 0.977378411735627, 0.948788631547735);
}

TEST(ShapiroWilk, LargerSamplesUseTheLogNBranch) {
  expect_r({12.4, 13.1, 11.8, 12.9, 14.2, 12.0, 13.5, 12.7, 13.0, 12.2, 11.9, 13.8},
           0.952972397463005, 0.680760845525365);
}

TEST(ShapiroWilk, LongRightTailIsRejected) {
  expect_r({1.5,  1.1,  0.9, 1.0,  1.2,  5.8,  1.05, 0.95, 1.3,  1.15,
            0.99, 1.02, 7.5, 1.01, 1.08, 1.12, 0.97, 1.04, 1.09, 1.11},
           0.427166647817426, 7.43798137765381e-08);
}

TEST(ShapiroWilk, NormalScoresAreAccepted) {
  // R: round(qnorm(ppoints(40)) * 3 + 100, 3), as printed by reference.R.
  const std::vector<double> x = {
      93.276,  94.659,  95.398,  95.931,  96.36,   96.725,  97.047,  97.339,  97.607,  97.857,
      98.093,  98.318,  98.534,  98.742,  98.945,  99.142,  99.337,  99.528,  99.718,  99.906,
      100.094, 100.282, 100.472, 100.663, 100.858, 101.055, 101.258, 101.466, 101.682, 101.907,
      102.143, 102.393, 102.661, 102.953, 103.275, 103.64,  104.069, 104.602, 105.341, 106.724};
  expect_r(x, 0.999046729855662, 0.999999999997393);
}

TEST(ShapiroWilk, RejectsTooFewAndIdenticalObservations) {
  EXPECT_THROW(shapiro_wilk({1, 2}), std::invalid_argument);
  EXPECT_THROW(shapiro_wilk({3, 3, 3, 3}), std::invalid_argument);
}

}  // namespace
}  // namespace looprace::stats
