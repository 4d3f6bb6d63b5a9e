// Reference values: R 4.2 via tests/stats/reference.R (output in tests/stats/reference.out).
#include "stats/inference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace looprace::stats {
namespace {

const std::vector<double> kT1 = {2.799, 2.046, 1.259, 1.877, 2.244};
const std::vector<double> kT2 = {1.046, 0.259, 0.877, 1.244, 1.799};
const std::vector<double> kA = {10.2, 11.5, 9.8, 10.9, 12.1, 10.4, 11.0, 9.5};
const std::vector<double> kB = {12.4, 13.1, 11.8, 12.9, 14.2, 12.0,
                                13.5, 12.7, 13.0, 12.2, 11.9, 13.8};
constexpr double kInf = std::numeric_limits<double>::infinity();

RunningStats of(const std::vector<double>& values) {
  RunningStats s;
  for (double x : values) s.add(x);
  return s;
}

TEST(RunningStats, MeanAndVarianceMatchDefinitions) {
  const RunningStats s = of(kA);
  EXPECT_EQ(s.count(), 8u);
  EXPECT_NEAR(s.mean(), 10.675, 1e-12);
  double squares = 0.0;
  for (double x : kA) squares += (x - 10.675) * (x - 10.675);
  EXPECT_NEAR(s.variance(), squares / 7.0, 1e-12);
  EXPECT_NEAR(s.std_error(), std::sqrt(squares / 7.0 / 8.0), 1e-12);
}

TEST(RunningStats, FewerThanTwoObservationsHaveNoSpread) {
  RunningStats s;
  EXPECT_EQ(s.variance(), 0.0);
  EXPECT_EQ(s.std_error(), 0.0);
  s.add(5.0);
  EXPECT_EQ(s.variance(), 0.0);
  EXPECT_EQ(s.mean(), 5.0);
}

TEST(WelchTest, TwoSidedMatchesR) {
  const TTest t = welch_t_test(of(kT1), of(kT2), Alternative::two_sided, 0.95);
  EXPECT_NEAR(t.statistic, 2.82375710370424, 1e-10);
  EXPECT_NEAR(t.df, 8.0, 1e-10);
  EXPECT_NEAR(t.p_value, 0.0223641184559481, 1e-10);
  EXPECT_NEAR(t.interval.lower, 0.183356057013855, 1e-10);
  EXPECT_NEAR(t.interval.upper, 1.81664394298614, 1e-10);
}

TEST(WelchTest, OneSidedMatchesRAndTheSpeedupTestPaper) {
  // the Speedup-Test example 2.1: at 99% the interval includes 0, at 95% it does not.
  const TTest at99 = welch_t_test(of(kT1), of(kT2), Alternative::greater, 0.99);
  EXPECT_NEAR(at99.p_value, 0.0111820592279741, 1e-10);
  EXPECT_NEAR(at99.interval.lower, -0.0257466706006733, 1e-10);
  EXPECT_EQ(at99.interval.upper, kInf);
  const TTest at95 = welch_t_test(of(kT1), of(kT2), Alternative::greater, 0.95);
  EXPECT_NEAR(at95.interval.lower, 0.341463175040261, 1e-10);
}

TEST(WelchTest, UnequalSizesAndVariancesMatchR) {
  const TTest less = welch_t_test(of(kA), of(kB), Alternative::less, 0.9);
  EXPECT_NEAR(less.statistic, -5.56483805770082, 1e-10);
  EXPECT_NEAR(less.df, 13.8434049948923, 1e-9);
  EXPECT_NEAR(less.p_value, 3.63142383167096e-05, 1e-12);
  EXPECT_EQ(less.interval.lower, -kInf);
  EXPECT_NEAR(less.interval.upper, -1.6047782578788, 1e-9);
  const TTest two = welch_t_test(of(kA), of(kB), Alternative::two_sided, 0.99);
  EXPECT_NEAR(two.p_value, 7.26284766334191e-05, 1e-12);
  EXPECT_NEAR(two.interval.lower, -3.25091659616, 1e-9);
  EXPECT_NEAR(two.interval.upper, -0.982416737173327, 1e-9);
}

TEST(WelchTest, ConstantSamplesGiveCertainDifferencesWithoutDividingByZero) {
  const TTest differ = welch_t_test(of({2, 2, 2}), of({3, 3}), Alternative::less, 0.95);
  EXPECT_EQ(differ.statistic, -kInf);
  EXPECT_EQ(differ.p_value, 0.0);
  EXPECT_EQ(differ.df, 3.0);
  const TTest same = welch_t_test(of({2, 2}), of({2, 2}), Alternative::two_sided, 0.95);
  EXPECT_EQ(same.statistic, 0.0);
  EXPECT_EQ(same.p_value, 1.0);
}

TEST(WelchTest, RejectsTooSmallSamplesAndBadConfidence) {
  EXPECT_THROW(welch_t_test(of({1}), of(kA), Alternative::less), std::invalid_argument);
  EXPECT_THROW(welch_t_test(of(kA), of(kB), Alternative::less, 1.0), std::invalid_argument);
}

TEST(OneSampleTest, MatchesR) {
  const TTest greater = one_sample_t_test(of(kA), 10.0, Alternative::greater, 0.95);
  EXPECT_NEAR(greater.statistic, 2.19101904151092, 1e-10);
  EXPECT_EQ(greater.df, 7.0);
  EXPECT_NEAR(greater.p_value, 0.0322907735465554, 1e-10);
  EXPECT_NEAR(greater.interval.lower, 10.0913261321755, 1e-10);
  const TTest two = one_sample_t_test(of(kA), 10.0, Alternative::two_sided, 0.9);
  EXPECT_NEAR(two.p_value, 0.0645815470931108, 1e-10);
  EXPECT_NEAR(two.interval.upper, 11.2586738678245, 1e-10);
  const Interval mean = mean_interval(of(kA), 0.9);
  EXPECT_NEAR(mean.lower, 10.0913261321755, 1e-10);
  EXPECT_NEAR(mean.upper, 11.2586738678245, 1e-10);
}

TEST(StudentQuantile, MatchesRqt) {
  EXPECT_NEAR(student_t_quantile(0.975, 4), 2.77644510519779, 1e-10);
  EXPECT_NEAR(student_t_quantile(0.99, 7.5), 2.94309932340672, 1e-10);
  EXPECT_NEAR(student_t_quantile(0.95, 1000), 1.64637881728546, 1e-10);
}

TEST(StudentCriticalValues, TableAndExactAgree) {
  const StudentCriticalValues critical(0.01, 10);
  EXPECT_NEAR(critical.at(7.5), 2.94309932340672, 1e-10);
  EXPECT_DOUBLE_EQ(critical.at(7.0), student_t_quantile(0.99, 7.0));
  EXPECT_DOUBLE_EQ(critical.at(40.0), student_t_quantile(0.99, 40.0));
}

TEST(StudentCriticalValues, WelchLessAgreesWithTheFullTest) {
  // The shortcut must give the same answer as the p-value of the full test at every level.
  for (double alpha : {1e-4, 1e-3, 0.01, 0.05, 0.2, 0.5}) {
    const StudentCriticalValues critical(alpha, 50);
    const TTest t = welch_t_test(of(kA), of(kB), Alternative::less, 0.95);
    EXPECT_EQ(critical.welch_less(of(kA), of(kB)), t.p_value < alpha) << alpha;
    const TTest u = welch_t_test(of(kT2), of(kT1), Alternative::less, 0.95);
    EXPECT_EQ(critical.welch_less(of(kT2), of(kT1)), u.p_value < alpha) << alpha;
    EXPECT_FALSE(critical.welch_less(of(kB), of(kA)));
  }
}

TEST(StudentCriticalValues, DifferenceBoundsAgreeWithTheOneSidedInterval) {
  // welch_difference_below(a, b, limit) is "R's one-sided upper bound of mean(a) - mean(b)
  // lies below limit", and mean_below / mean_above the same for one sample.
  const RunningStats a = of(kA), b = of(kB), t1 = of(kT1);
  for (double alpha : {1e-3, 0.05, 0.3})
    for (double limit : {-3.0, -2.0, -1.5, 0.0, 1.0}) {
      const StudentCriticalValues critical(alpha, 50);
      const double upper = welch_t_test(a, b, Alternative::less, 1.0 - alpha).interval.upper;
      EXPECT_EQ(critical.welch_difference_below(a, b, limit), upper < limit) << alpha << limit;
      const TTest one = one_sample_t_test(t1, 0.0, Alternative::less, 1.0 - alpha);
      EXPECT_EQ(critical.mean_below(t1, limit + 3.0), one.interval.upper < limit + 3.0);
      const TTest other = one_sample_t_test(t1, 0.0, Alternative::greater, 1.0 - alpha);
      EXPECT_EQ(critical.mean_above(t1, limit + 3.0), other.interval.lower > limit + 3.0);
    }
}

TEST(StudentCriticalValues, DifferenceBoundsOfConstantSamples) {
  const StudentCriticalValues critical(0.05, 10);
  EXPECT_TRUE(critical.welch_difference_below(of({7, 7}), of({7, 7}), 0.01));
  EXPECT_FALSE(critical.welch_difference_below(of({7, 7}), of({7, 7}), 0.0));
  EXPECT_FALSE(critical.welch_difference_below(of({8, 8}), of({7, 7}), 0.5));
  EXPECT_TRUE(critical.mean_below(of({2, 2, 2}), 2.5));
  EXPECT_FALSE(critical.mean_above(of({2, 2, 2}), 2.0));
}

TEST(StudentCriticalValues, PairedTestsOnConstantDifferences) {
  const StudentCriticalValues critical(0.05, 10);
  EXPECT_TRUE(critical.mean_below_zero(of({-1, -1, -1})));
  EXPECT_FALSE(critical.mean_below_zero(of({0, 0})));
  EXPECT_FALSE(critical.mean_above_zero(of({-1, -1})));
  EXPECT_TRUE(critical.mean_above_zero(of({1, 1})));
}

TEST(ProportionInterval, MatchesRPropTest) {
  const Interval a = proportion_interval(17, 30, 0.90);  // the Speedup-Test example 4.1
  EXPECT_NEAR(a.lower, 0.402715698546991, 1e-10);
  EXPECT_NEAR(a.upper, 0.718404867941196, 1e-10);
  const Interval none = proportion_interval(0, 10, 0.95);
  EXPECT_EQ(none.lower, 0.0);
  EXPECT_NEAR(none.upper, 0.344537218306922, 1e-10);
  const Interval all = proportion_interval(10, 10, 0.95);
  EXPECT_NEAR(all.lower, 0.655462781693077, 1e-10);
  EXPECT_EQ(all.upper, 1.0);
  const Interval half = proportion_interval(15, 30, 0.95);
  EXPECT_NEAR(half.lower, 0.331541256405338, 1e-10);
  EXPECT_NEAR(half.upper, 0.668458743594662, 1e-10);
  const Interval few = proportion_interval(3, 40, 0.99);
  EXPECT_NEAR(few.lower, 0.0142424823669633, 1e-10);
  EXPECT_NEAR(few.upper, 0.267858868435965, 1e-10);
  EXPECT_THROW(proportion_interval(1, 0, 0.95), std::invalid_argument);
}

}  // namespace
}  // namespace looprace::stats

namespace looprace::stats {
namespace {

std::vector<double> sorted(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  return x;
}

// A long right tail, n = 20 (U in reference.R).
const std::vector<double> kU = {1.5,  1.1,  0.9, 1.0,  1.2,  5.8,  1.05, 0.95, 1.3,  1.15,
                                0.99, 1.02, 7.5, 1.01, 1.08, 1.12, 0.97, 1.04, 1.09, 1.11};

TEST(TrimmedMean, MatchesRsYuenEstimate) {
  const LocationEstimate u = trimmed_mean_estimate(sorted(kU), 0.2);
  EXPECT_NEAR(u.value, 1.08083333333333, 1e-12);
  EXPECT_NEAR(u.variance, 0.000920113636363636, 1e-15);
  EXPECT_DOUBLE_EQ(u.df, 11.0);
  const LocationEstimate b = trimmed_mean_estimate(sorted(kB), 0.2);
  EXPECT_NEAR(b.value, 12.725, 1e-12);
  EXPECT_NEAR(b.variance, 0.0715476190476191, 1e-14);
  EXPECT_DOUBLE_EQ(b.df, 7.0);
}

TEST(TrimmedMean, UntrimmedIsTheMean) {
  const LocationEstimate a = trimmed_mean_estimate(sorted(kA), 0.0);
  const LocationEstimate m = mean_estimate(of(kA));
  EXPECT_NEAR(a.value, m.value, 1e-12);
  EXPECT_NEAR(a.variance, m.variance, 1e-12);
  EXPECT_DOUBLE_EQ(a.df, m.df);
}

TEST(TrimmedMean, RejectsTooFewKeptAndBadTrim) {
  EXPECT_THROW(trimmed_mean_estimate({1.0}, 0.2), std::invalid_argument);
  EXPECT_THROW(trimmed_mean_estimate({1.0, 2.0, 3.0, 4.0, 5.0}, 0.45), std::invalid_argument);
  EXPECT_THROW(trimmed_mean_estimate({1.0, 2.0, 3.0}, 0.5), std::invalid_argument);
}

TEST(YuenTest, PValueAndDfMatchR) {
  const LocationEstimate d =
      difference(trimmed_mean_estimate(sorted(kA), 0.2), trimmed_mean_estimate(sorted(kB), 0.2));
  EXPECT_NEAR(d.df, 10.4193875544641, 1e-10);
  EXPECT_NEAR(p_value_below(d, 0.0), 0.000279845631672411, 1e-12);
}

TEST(PValueBelow, AgreesWithWelchAndHandlesZeroSpread) {
  const TTest t = welch_t_test(of(kA), of(kB), Alternative::less, 0.95);
  EXPECT_NEAR(p_value_below(difference(mean_estimate(of(kA)), mean_estimate(of(kB))), 0.0),
              t.p_value, 1e-14);
  EXPECT_EQ(p_value_below({1.0, 0.0, 3.0}, 2.0), 0.0);
  EXPECT_EQ(p_value_below({2.0, 0.0, 3.0}, 2.0), 1.0);
}

}  // namespace
}  // namespace looprace::stats
