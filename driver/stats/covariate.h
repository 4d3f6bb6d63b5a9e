// A sample adjusted by a covariate measured in the same run. The machine a race runs on has
// regimes (a busy neighbour, a shared core, clock changes) that slow every loop of a run
// together; loops the race does not change, timed in the same run, measure the regime. A
// version's observations adjusted by them, y - b (x - center) on logs with the slope b fitted
// within versions, keep the version's own level and lose the regime's share of the spread
// (benchmarks/results/run-regimes.md).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "stats/inference.h"

namespace looprace::stats {

// Running moments of (y, x) pairs (Welford's method, with the co-moment), so the slope and the
// adjusted mean can be recomputed for any b without the observations.
class CovariateStats {
 public:
  void add(double y, double x) {
    ++count_;
    const double n = static_cast<double>(count_);
    const double dy = y - mean_y_, dx = x - mean_x_;
    mean_y_ += dy / n;
    mean_x_ += dx / n;
    syy_ += dy * (y - mean_y_);
    sxx_ += dx * (x - mean_x_);
    sxy_ += dx * (y - mean_y_);
  }
  std::size_t count() const { return count_; }
  double mean_y() const { return mean_y_; }
  double mean_x() const { return mean_x_; }
  // Sums of squared and cross deviations from the means.
  double syy() const { return syy_; }
  double sxx() const { return sxx_; }
  double sxy() const { return sxy_; }

 private:
  std::size_t count_ = 0;
  double mean_y_ = 0.0, mean_x_ = 0.0;
  double syy_ = 0.0, sxx_ = 0.0, sxy_ = 0.0;
};

// The least-squares slope of y on x with each sample's own level taken out (the pooled
// within-sample slope: sum of sxy over sum of sxx); 0 while x has not varied within a sample.
double pooled_slope(std::span<const CovariateStats> samples);

// The mean of y - slope (x - center) as a LocationEstimate: its squared standard error from the
// spread around the fitted line, n - 1 df. The slope is fitted on every sample of the race,
// hundreds of observations, so the df it takes from one sample is neglected (as pooled
// variances are not). n >= 2 for a finite df.
LocationEstimate adjusted_mean_estimate(const CovariateStats& sample, double slope,
                                        double center = 0.0);

// Each version's cycles adjusted by their runs' controls (controls[v][k] beside cycles[v][k]):
// cycles x (control / the controls' geometric mean)^-b, b the pooled slope of log cycles on log
// controls within versions. Throws std::invalid_argument when the shapes differ.
std::vector<std::vector<double>> adjusted_cycles(const std::vector<std::vector<double>>& cycles,
                                                 const std::vector<std::vector<double>>& controls);

// One run's control from the cycles it spent in each control loop (`cycles[i]`, nullopt or 0
// when the run has no value of control i): the geometric mean of each control's cycles over its
// usual cycles (`centers[i]`, > 0), over the controls the run has a value of; 1 when it has
// none. Centering makes a control missing from one run not move the others' mean; which
// centers does not matter otherwise, as the slope is fitted within versions.
double combined_control(const std::vector<std::optional<double>>& cycles,
                        const std::vector<double>& centers);

}  // namespace looprace::stats
