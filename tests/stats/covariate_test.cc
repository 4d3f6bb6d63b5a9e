// The covariate adjustment against R (tests/stats/reference.R, "covariate ...") and its
// definitions.
#include "stats/covariate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace looprace::stats {
namespace {

const std::vector<double> kY = {6.91, 6.95, 6.88, 7.02, 6.93, 6.81, 6.86, 6.79,
                                6.90, 6.84, 6.83, 7.10, 7.04, 7.15, 7.08};
const std::vector<double> kX = {0.50, 0.53, 0.48, 0.58, 0.51, 0.47, 0.52, 0.45,
                                0.55, 0.50, 0.49, 0.51, 0.46, 0.56, 0.50};
const std::vector<std::size_t> kSizes = {5, 6, 4};

std::vector<CovariateStats> samples() {
  std::vector<CovariateStats> out(kSizes.size());
  std::size_t k = 0;
  for (std::size_t s = 0; s < kSizes.size(); ++s)
    for (std::size_t i = 0; i < kSizes[s]; ++i, ++k) out[s].add(kY[k], kX[k]);
  return out;
}

TEST(Covariate, PooledSlopeIsRsCommonSlope) {
  EXPECT_NEAR(pooled_slope(samples()), 1.190799031477, 1e-12);
}

TEST(Covariate, AdjustedMeanAndItsErrorMatchR) {
  const std::vector<CovariateStats> s = samples();
  const LocationEstimate e = adjusted_mean_estimate(s[0], pooled_slope(s), 0.5);
  EXPECT_NEAR(e.value, 6.91418401937046, 1e-12);
  EXPECT_NEAR(e.variance, 1.25814514947012e-05, 1e-16);
  EXPECT_DOUBLE_EQ(e.df, 4.0);
}

TEST(Covariate, NoSpreadOfTheCovariateGivesSlopeZeroAndThePlainMean) {
  CovariateStats s;
  for (double y : {1.0, 2.0, 4.0}) s.add(y, 3.0);
  EXPECT_EQ(pooled_slope(std::vector<CovariateStats>{s}), 0.0);
  const LocationEstimate e = adjusted_mean_estimate(s, 0.0);
  EXPECT_DOUBLE_EQ(e.value, 7.0 / 3.0);
  EXPECT_NEAR(e.variance, 7.0 / 3.0 / 3.0, 1e-12);  // var(1, 2, 4) / 3
}

TEST(Covariate, AdjustedCyclesTakeOutWhatTheControlsShow) {
  // Version 0 ran its second run 10 % slower, and its control shows it: slope 1.
  const auto adjusted = adjusted_cycles({{100.0, 110.0}, {104.0, 104.0}}, {{1.0, 1.1}, {1.0, 1.0}});
  const double center = std::exp(std::log(1.1) / 4.0);  // the controls' geometric mean
  EXPECT_NEAR(adjusted[0][0], 100.0 * center, 1e-9);
  EXPECT_NEAR(adjusted[0][1], 100.0 * center, 1e-9);
  EXPECT_NEAR(adjusted[1][0], 104.0 * center, 1e-9);
  EXPECT_THROW(adjusted_cycles({{1.0, 2.0}}, {{1.0}}), std::invalid_argument);
  EXPECT_THROW(adjusted_cycles({{1.0}}, {}), std::invalid_argument);
}

TEST(Covariate, ARunsControlIsTheGeometricMeanOfItsControlsOverTheirCenters) {
  // 20 % and 5 % over their centers: sqrt(1.2 x 1.05).
  EXPECT_NEAR(combined_control({240.0, 105.0}, {200.0, 100.0}), std::sqrt(1.2 * 1.05), 1e-12);
  // A control the run has no value of is left out, not counted as its center.
  EXPECT_NEAR(combined_control({240.0, std::nullopt}, {200.0, 100.0}), 1.2, 1e-12);
  EXPECT_NEAR(combined_control({0.0, 90.0}, {200.0, 100.0}), 0.9, 1e-12);
  EXPECT_EQ(combined_control({std::nullopt}, {200.0}), 1.0);  // none: the center
  EXPECT_THROW(combined_control({1.0}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace looprace::stats
