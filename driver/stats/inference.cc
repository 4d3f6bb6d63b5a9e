#include "stats/inference.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace looprace::stats {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Double precision throughout: Boost's default promotion to long double costs several times
// the time for accuracy far beyond what the tests need (and the race calls these per round).
using DoublePolicy = boost::math::policies::policy<boost::math::policies::promote_double<false>>;
using StudentT = boost::math::students_t_distribution<double, DoublePolicy>;

void require_pair_sizes(const RunningStats& x, const char* what) {
  if (x.count() < 2)
    throw std::invalid_argument(std::string(what) + " needs at least 2 observations");
}

void require_confidence(double confidence) {
  if (!(confidence > 0.0 && confidence < 1.0))
    throw std::invalid_argument("confidence must be strictly between 0 and 1");
}

double t_cdf(double t, double df) {
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  return boost::math::cdf(StudentT(df), t);
}

// Fills p-value and interval of a t-test whose estimate, standard error and df are known.
TTest finish_t_test(double estimate, double std_error, double df, Alternative alternative,
                    double confidence) {
  require_confidence(confidence);
  TTest test;
  test.estimate = estimate;
  test.df = df;
  if (std_error > 0.0) {
    test.statistic = estimate / std_error;
  } else {
    // Constant samples: the difference is certain.
    test.statistic = estimate == 0.0 ? 0.0 : std::copysign(kInf, estimate);
  }
  const double lower_tail = t_cdf(test.statistic, df);
  switch (alternative) {
    case Alternative::less:
      test.p_value = lower_tail;
      test.interval = {-kInf, estimate + student_t_quantile(confidence, df) * std_error};
      break;
    case Alternative::greater:
      test.p_value = 1.0 - lower_tail;
      test.interval = {estimate - student_t_quantile(confidence, df) * std_error, kInf};
      break;
    case Alternative::two_sided: {
      test.p_value = test.statistic == 0.0 ? 1.0 : 2.0 * std::min(lower_tail, 1.0 - lower_tail);
      const double half = student_t_quantile(0.5 + confidence / 2.0, df) * std_error;
      test.interval = {estimate - half, estimate + half};
      break;
    }
  }
  return test;
}

}  // namespace

double student_t_quantile(double probability, double df) {
  return boost::math::quantile(StudentT(df), probability);
}

LocationEstimate mean_estimate(const RunningStats& x) {
  return {x.mean(), x.variance() / static_cast<double>(x.count()),
          static_cast<double>(x.count()) - 1.0};
}

LocationEstimate trimmed_mean_estimate(const std::vector<double>& sorted, double trim) {
  if (!(trim >= 0.0 && trim < 0.5)) throw std::invalid_argument("trim must be in [0, 0.5)");
  const std::size_t n = sorted.size();
  const auto g = static_cast<std::size_t>(std::floor(trim * static_cast<double>(n)));
  const std::size_t h = n - 2 * g;
  if (n < 2 || h < 2) throw std::invalid_argument("a trimmed mean needs 2 observations kept");
  double kept = 0.0;
  for (std::size_t i = g; i < n - g; ++i) kept += sorted[i];
  const double mean = kept / static_cast<double>(h);
  // Winsorized: the g lowest become sorted[g], the g highest sorted[n - g - 1].
  const double low = sorted[g], high = sorted[n - g - 1];
  const double winsorized_mean =
      (kept + static_cast<double>(g) * (low + high)) / static_cast<double>(n);
  double squares = static_cast<double>(g) * ((low - winsorized_mean) * (low - winsorized_mean) +
                                             (high - winsorized_mean) * (high - winsorized_mean));
  for (std::size_t i = g; i < n - g; ++i)
    squares += (sorted[i] - winsorized_mean) * (sorted[i] - winsorized_mean);
  const double hd = static_cast<double>(h);
  return {mean, squares / (hd * (hd - 1.0)), hd - 1.0};
}

Interval location_interval(const LocationEstimate& x, double confidence) {
  require_confidence(confidence);
  const double half = student_t_quantile(0.5 + confidence / 2.0, x.df) * std::sqrt(x.variance);
  return {x.value - half, x.value + half};
}

LocationEstimate difference(const LocationEstimate& a, const LocationEstimate& b) {
  return {a.value - b.value, a.variance + b.variance, welch_df(a, b)};
}

double p_value_below(const LocationEstimate& x, double limit) {
  const double std_error = std::sqrt(x.variance);
  if (std_error == 0.0) return x.value < limit ? 0.0 : 1.0;
  return t_cdf((x.value - limit) / std_error, x.df);
}

double welch_df(const LocationEstimate& a, const LocationEstimate& b) {
  const double denominator = a.variance * a.variance / a.df + b.variance * b.variance / b.df;
  if (denominator == 0.0) return a.df + b.df;
  return (a.variance + b.variance) * (a.variance + b.variance) / denominator;
}

double welch_df(const RunningStats& a, const RunningStats& b) {
  return welch_df(mean_estimate(a), mean_estimate(b));
}

TTest welch_t_test(const RunningStats& a, const RunningStats& b, Alternative alternative,
                   double confidence) {
  require_pair_sizes(a, "Welch's t-test: first sample");
  require_pair_sizes(b, "Welch's t-test: second sample");
  const double std_error = std::sqrt(a.variance() / static_cast<double>(a.count()) +
                                     b.variance() / static_cast<double>(b.count()));
  return finish_t_test(a.mean() - b.mean(), std_error, welch_df(a, b), alternative, confidence);
}

TTest one_sample_t_test(const RunningStats& x, double mu, Alternative alternative,
                        double confidence) {
  require_pair_sizes(x, "one-sample t-test");
  TTest test = finish_t_test(x.mean() - mu, x.std_error(), static_cast<double>(x.count() - 1),
                             alternative, confidence);
  test.interval.lower += mu;
  test.interval.upper += mu;
  return test;
}

Interval mean_interval(const RunningStats& x, double confidence) {
  require_pair_sizes(x, "confidence interval");
  require_confidence(confidence);
  const double half =
      student_t_quantile(0.5 + confidence / 2.0, static_cast<double>(x.count() - 1)) *
      x.std_error();
  return {x.mean() - half, x.mean() + half};
}

Interval proportion_interval(std::size_t successes, std::size_t trials, double confidence) {
  if (trials == 0) throw std::invalid_argument("proportion interval of zero trials");
  if (successes > trials) throw std::invalid_argument("proportion with more successes than trials");
  require_confidence(confidence);
  const double n = static_cast<double>(trials);
  const double x = static_cast<double>(successes);
  const double estimate = x / n;
  // R: YATES <- min(0.5, abs(x - n * p)) with the default null p = 0.5.
  const double yates = std::min(0.5, std::abs(x - n * 0.5));
  const double z = boost::math::quantile(boost::math::normal(), 0.5 + confidence / 2.0);
  const double z22n = z * z / (2.0 * n);
  const auto wilson = [&](double centre, double sign) {
    return (centre + z22n + sign * z * std::sqrt(centre * (1.0 - centre) / n + z22n / (2.0 * n))) /
           (1.0 + 2.0 * z22n);
  };
  const double upper_centre = estimate + yates / n;
  const double lower_centre = estimate - yates / n;
  return {lower_centre <= 0.0 ? 0.0 : wilson(lower_centre, -1.0),
          upper_centre >= 1.0 ? 1.0 : wilson(upper_centre, +1.0)};
}

StudentCriticalValues::StudentCriticalValues(double alpha, std::size_t max_integer_df)
    : alpha_(alpha), table_(max_integer_df + 1, kInf) {
  if (!(alpha > 0.0 && alpha < 1.0))
    throw std::invalid_argument("alpha must be strictly between 0 and 1");
  for (std::size_t df = 1; df <= max_integer_df; ++df)
    table_[df] = student_t_quantile(1.0 - alpha, static_cast<double>(df));
}

double StudentCriticalValues::at(double df) const {
  const double whole = std::floor(df);
  if (whole == df && df >= 1.0 && df < static_cast<double>(table_.size()))
    return table_[static_cast<std::size_t>(df)];
  return student_t_quantile(1.0 - alpha_, df);
}

bool StudentCriticalValues::difference_below(const LocationEstimate& a, const LocationEstimate& b,
                                             double limit) const {
  const double margin = limit - (a.value - b.value);
  if (!(margin > 0.0)) return false;
  const double std_error = std::sqrt(a.variance + b.variance);
  if (std_error == 0.0) return true;
  const double t = margin / std_error;
  // The critical value falls as df grows, and the Welch df lies between min(df_a, df_b) and
  // df_a + df_b: only a statistic between the two bounds needs the exact df.
  if (t > at(std::min(a.df, b.df))) return true;
  if (t <= at(a.df + b.df)) return false;
  // Narrower bounds from the whole df around the exact one, then the exact quantile.
  const double df = welch_df(a, b);
  if (t > at(std::floor(df))) return true;
  if (t <= at(std::ceil(df))) return false;
  return t > at(df);
}

bool StudentCriticalValues::location_below(const LocationEstimate& x, double limit) const {
  const double margin = limit - x.value;
  if (!(margin > 0.0)) return false;
  const double std_error = std::sqrt(x.variance);
  if (std_error == 0.0) return true;
  return margin / std_error > at(x.df);
}

}  // namespace looprace::stats
