// Student t inference on running statistics: Welch's test with Welch–Satterthwaite degrees of
// freedom, the one-sample paired t-test, confidence intervals, and the proportion interval of
// R's prop.test. Distributions come from Boost.Math.
#pragma once

#include <cstddef>
#include <vector>

#include "stats/running_stats.h"

namespace looprace::stats {

// Which difference the test looks for, as R's t.test(alternative=): for Welch's test of a
// against b, `less` means mean(a) < mean(b).
enum class Alternative { two_sided, less, greater };

struct Interval {
  double lower = 0.0;
  double upper = 0.0;
};

struct TTest {
  double statistic = 0.0;  // t; +-inf when the difference is non-zero and both samples are constant
  double df = 0.0;         // degrees of freedom
  double p_value = 1.0;
  double estimate = 0.0;  // mean(a) - mean(b) (Welch) or mean(x) - mu (one sample)
  Interval interval;  // confidence interval of `estimate` for the alternative (one-sided: one end
                      // infinite)
};

// A location estimate with the square of its standard error and its degrees of freedom, such
// as the mean of a sample (s^2 / n, n - 1), for tests that need not know how it was estimated.
struct LocationEstimate {
  double value = 0.0;
  double variance = 0.0;  // squared standard error of `value`
  double df = 1.0;
};

// The mean of x as a LocationEstimate; n >= 2 for a finite df.
LocationEstimate mean_estimate(const RunningStats& x);

// Yuen's trimmed mean of a sorted sample: the mean after floor(trim * n) observations are cut
// from each end, with the squared standard error (n - 1) s_w^2 / (h (h - 1)) from the
// winsorized variance s_w^2 and h - 1 df, h the observations kept. Welch's test on two of
// these is Yuen's test (R: mean(x, trim = 0.2); SciPy: ttest_ind(trim=0.2)): a few slow runs
// move it little. Throws std::invalid_argument when fewer than 2 observations are kept or
// trim is not in [0, 0.5).
LocationEstimate trimmed_mean_estimate(const std::vector<double>& sorted, double trim);

// Two-sided Student t interval of x.value at `confidence`, on x.df degrees of freedom.
Interval location_interval(const LocationEstimate& x, double confidence);

// a.value - b.value as a LocationEstimate with the Welch–Satterthwaite df.
LocationEstimate difference(const LocationEstimate& a, const LocationEstimate& b);

// One-sided p-value of the t-test that x's location is below `limit` (H0: location >= limit):
// the probability of a statistic this low. A zero standard error gives 0 when the value is
// below the limit and 1 otherwise.
double p_value_below(const LocationEstimate& x, double limit);

// Welch–Satterthwaite degrees of freedom of a.value - b.value; dfa + dfb when both variances
// are zero.
double welch_df(const LocationEstimate& a, const LocationEstimate& b);

// Welch–Satterthwaite degrees of freedom of mean(a) - mean(b). Both samples need n >= 2. When
// both variances are zero the formula is 0/0; n_a + n_b - 2 is returned, the pooled df.
double welch_df(const RunningStats& a, const RunningStats& b);

// Welch's two-sample t-test of mean(a) - mean(b), with the interval at `confidence` (e.g. 0.95),
// matching R's t.test(a, b, alternative=, conf.level=). Needs n >= 2 in each sample.
TTest welch_t_test(const RunningStats& a, const RunningStats& b, Alternative alternative,
                   double confidence = 0.95);

// One-sample t-test of mean(x) against mu (the paired test when x holds differences), as R's
// t.test(x, mu=). Needs n >= 2.
TTest one_sample_t_test(const RunningStats& x, double mu, Alternative alternative,
                        double confidence = 0.95);

// Two-sided Student t confidence interval of the mean at `confidence`; n >= 2.
Interval mean_interval(const RunningStats& x, double confidence);

// Quantile function of Student's t with `df` degrees of freedom (Boost.Math).
double student_t_quantile(double probability, double df);

// Confidence interval of a proportion successes/trials exactly as R's prop.test(successes,
// trials, conf.level=) gives it (Wilson score interval with Yates' continuity correction).
Interval proportion_interval(std::size_t successes, std::size_t trials, double confidence);

// Upper critical values of Student's t, t such that P(T > t) = alpha, tabulated for integer
// degrees of freedom up to `max_integer_df` so that the race, which tests hundreds of pairs
// per round, reaches Boost.Math's quantile only when the Welch df falls between table bounds.
class StudentCriticalValues {
 public:
  StudentCriticalValues(double alpha, std::size_t max_integer_df);
  double alpha() const { return alpha_; }
  // Critical value for any df > 0 (exact; integer df come from the table).
  double at(double df) const;
  // True when Welch's one-sided test says mean(d) < mean(c) at level alpha. False when
  // mean(d) >= mean(c). Constant samples with different means count as significant.
  bool welch_less(const RunningStats& d, const RunningStats& c) const {
    return welch_difference_below(d, c, 0.0);
  }
  // True when the one-sided upper confidence bound (level 1 - alpha, Welch df) of
  // mean(a) - mean(b) lies below `limit`, i.e. Welch's test of mean(a) - mean(b) < limit
  // rejects at level alpha. The equivalence side of a race: "b is not more than limit faster".
  bool welch_difference_below(const RunningStats& a, const RunningStats& b, double limit) const {
    return difference_below(mean_estimate(a), mean_estimate(b), limit);
  }
  // The same on any two location estimates.
  bool difference_below(const LocationEstimate& a, const LocationEstimate& b, double limit) const;
  // True when the one-sided one-sample test says mean(x) < 0 (resp. > 0) at level alpha: the
  // paired test on differences. Constant non-zero differences count as significant.
  bool mean_below_zero(const RunningStats& x) const { return mean_below(x, 0.0); }
  bool mean_above_zero(const RunningStats& x) const { return mean_above(x, 0.0); }
  // True when the one-sided upper (resp. lower) confidence bound at level 1 - alpha of mean(x)
  // lies below (resp. above) `limit`: the paired form of welch_difference_below.
  bool mean_below(const RunningStats& x, double limit) const {
    return location_below(mean_estimate(x), limit);
  }
  bool mean_above(const RunningStats& x, double limit) const {
    const LocationEstimate e = mean_estimate(x);
    return location_below({-e.value, e.variance, e.df}, -limit);
  }
  // The one-sample form on any location estimate: its upper bound lies below `limit`. A zero
  // standard error makes any positive margin significant.
  bool location_below(const LocationEstimate& x, double limit) const;

 private:
  double alpha_;
  std::vector<double> table_;  // table_[k] = critical value at k df; table_[0] unused
};

}  // namespace looprace::stats
