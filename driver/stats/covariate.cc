#include "stats/covariate.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "stats/running_stats.h"

namespace looprace::stats {

double pooled_slope(std::span<const CovariateStats> samples) {
  double sxy = 0.0, sxx = 0.0;
  for (const CovariateStats& s : samples) {
    sxy += s.sxy();
    sxx += s.sxx();
  }
  return sxx > 0.0 ? sxy / sxx : 0.0;
}

LocationEstimate adjusted_mean_estimate(const CovariateStats& sample, double slope, double center) {
  const double n = static_cast<double>(sample.count());
  const double value = sample.mean_y() - slope * (sample.mean_x() - center);
  if (sample.count() < 2) return {value, 0.0, 0.0};
  // Rounding can leave a perfect fit a hair below zero.
  const double residual =
      std::max(0.0, sample.syy() - 2.0 * slope * sample.sxy() + slope * slope * sample.sxx());
  return {value, residual / (n - 1.0) / n, n - 1.0};
}

std::vector<std::vector<double>> adjusted_cycles(const std::vector<std::vector<double>>& cycles,
                                                 const std::vector<std::vector<double>>& controls) {
  if (controls.size() != cycles.size())
    throw std::invalid_argument("adjusted_cycles: one list of controls per version");
  std::vector<CovariateStats> logs(cycles.size());
  RunningStats center;
  for (std::size_t v = 0; v < cycles.size(); ++v) {
    if (controls[v].size() != cycles[v].size())
      throw std::invalid_argument("adjusted_cycles: one control per observation");
    for (std::size_t k = 0; k < cycles[v].size(); ++k) {
      logs[v].add(std::log(cycles[v][k]), std::log(controls[v][k]));
      center.add(std::log(controls[v][k]));
    }
  }
  const double slope = pooled_slope(logs);
  std::vector<std::vector<double>> adjusted = cycles;
  for (std::size_t v = 0; v < cycles.size(); ++v)
    for (std::size_t k = 0; k < cycles[v].size(); ++k)
      adjusted[v][k] *= std::exp(-slope * (std::log(controls[v][k]) - center.mean()));
  return adjusted;
}

double combined_control(const std::vector<std::optional<double>>& cycles,
                        const std::vector<double>& centers) {
  if (cycles.size() != centers.size())
    throw std::invalid_argument("combined_control: one center per control");
  double logs = 0;
  std::size_t timed = 0;
  for (std::size_t i = 0; i < cycles.size(); ++i) {
    if (!cycles[i] || *cycles[i] <= 0) continue;
    logs += std::log(*cycles[i] / centers[i]);
    ++timed;
  }
  return timed ? std::exp(logs / static_cast<double>(timed)) : 1.0;
}

}  // namespace looprace::stats
