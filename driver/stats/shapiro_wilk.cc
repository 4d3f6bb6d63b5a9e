// Royston, P. (1995) "Remark AS R94: A remark on algorithm AS 181: the W-test for normality",
// Applied Statistics 44(4), 547-551: coefficients approximated from normal scores, W as the
// squared correlation of the ordered sample with them, p-value from a normalizing transform.
#include "stats/shapiro_wilk.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <numbers>
#include <numeric>
#include <stdexcept>

namespace looprace::stats {
namespace {

// c[0] + c[1] x + c[2] x^2 + ...
template <std::size_t N>
double polynomial(const double (&c)[N], double x) {
  double result = 0.0;
  for (std::size_t i = N; i-- > 0;) result = result * x + c[i];
  return result;
}

// The n/2 leading coefficients a_1..a_{n/2} (the rest are their negatives, mirrored).
std::vector<double> coefficients(std::size_t n) {
  const std::size_t half = n / 2;
  std::vector<double> a(half);
  if (n == 3) {
    a[0] = std::numbers::sqrt2 / 2.0;
    return a;
  }
  static constexpr double kC1[] = {0.0, 0.221157, -0.147981, -2.07119, 4.434685, -2.706056};
  static constexpr double kC2[] = {0.0, 0.042981, -0.293762, -1.752461, 5.682633, -3.582633};
  const boost::math::normal standard;
  const double an = static_cast<double>(n);
  std::vector<double> m(half);
  double sum_m2 = 0.0;
  for (std::size_t i = 0; i < half; ++i) {
    m[i] = boost::math::quantile(standard, (static_cast<double>(i + 1) - 0.375) / (an + 0.25));
    sum_m2 += m[i] * m[i];
  }
  sum_m2 *= 2.0;
  const double root_sum_m2 = std::sqrt(sum_m2);
  const double rsn = 1.0 / std::sqrt(an);
  const double a1 = polynomial(kC1, rsn) - m[0] / root_sum_m2;
  std::size_t first_scaled;
  double scale;
  if (n > 5) {
    const double a2 = polynomial(kC2, rsn) - m[1] / root_sum_m2;
    scale = std::sqrt((sum_m2 - 2.0 * m[0] * m[0] - 2.0 * m[1] * m[1]) /
                      (1.0 - 2.0 * a1 * a1 - 2.0 * a2 * a2));
    a[1] = a2;
    first_scaled = 2;
  } else {
    scale = std::sqrt((sum_m2 - 2.0 * m[0] * m[0]) / (1.0 - 2.0 * a1 * a1));
    first_scaled = 1;
  }
  a[0] = a1;
  for (std::size_t i = first_scaled; i < half; ++i) a[i] = -m[i] / scale;
  return a;
}

double p_value(double w, std::size_t n) {
  if (n == 3) {
    // Exact distribution for n = 3.
    const double p = 6.0 / std::numbers::pi * (std::asin(std::sqrt(w)) - std::numbers::pi / 3.0);
    return std::max(p, 0.0);
  }
  static constexpr double kGamma[] = {-2.273, 0.459};
  static constexpr double kC3[] = {0.544, -0.39978, 0.025054, -6.714e-4};
  static constexpr double kC4[] = {1.3822, -0.77857, 0.062767, -0.0020322};
  static constexpr double kC5[] = {-1.5861, -0.31082, -0.083751, 0.0038915};
  static constexpr double kC6[] = {-0.4803, -0.082676, 0.0030302};
  const double an = static_cast<double>(n);
  double y = std::log(1.0 - w);
  double mean, sd;
  if (n <= 11) {
    const double gamma = polynomial(kGamma, an);
    if (y >= gamma) return 1e-99;  // W so small the transform breaks down: reject
    y = -std::log(gamma - y);
    mean = polynomial(kC3, an);
    sd = std::exp(polynomial(kC4, an));
  } else {
    const double log_n = std::log(an);
    mean = polynomial(kC5, log_n);
    sd = std::exp(polynomial(kC6, log_n));
  }
  return boost::math::cdf(boost::math::complement(boost::math::normal(mean, sd), y));
}

}  // namespace

ShapiroWilk shapiro_wilk(std::vector<double> sample) {
  const std::size_t n = sample.size();
  if (n < 3 || n > 5000)
    throw std::invalid_argument("Shapiro-Wilk needs between 3 and 5000 observations, got " +
                                std::to_string(n));
  std::sort(sample.begin(), sample.end());
  if (!(sample.back() - sample.front() > 0.0))
    throw std::invalid_argument("Shapiro-Wilk: all observations are identical");

  // Full antisymmetric coefficient vector for the ordered sample.
  const std::vector<double> half = coefficients(n);
  std::vector<double> a(n, 0.0);
  for (std::size_t i = 0; i < half.size(); ++i) {
    a[i] = -half[i];
    a[n - 1 - i] = half[i];
  }
  // W is the squared correlation between a and the ordered sample; computing it as a
  // correlation of centred values keeps it accurate for large, nearly constant data.
  const double mean_x = std::accumulate(sample.begin(), sample.end(), 0.0) / static_cast<double>(n);
  const double mean_a = std::accumulate(a.begin(), a.end(), 0.0) / static_cast<double>(n);
  double saa = 0.0, sxx = 0.0, sax = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double da = a[i] - mean_a, dx = sample[i] - mean_x;
    saa += da * da;
    sxx += dx * dx;
    sax += da * dx;
  }
  const double w = std::min(1.0, sax * sax / (saa * sxx));
  return {w, p_value(w, n)};
}

}  // namespace looprace::stats
