// Running sufficient statistics of a sample: count, mean and variance updated one observation
// at a time (Welford's method), so plans never need to keep the observations themselves.
#pragma once

#include <cmath>
#include <cstddef>

namespace looprace::stats {

class RunningStats {
 public:
  void add(double x) {
    ++count_;
    const double delta = x - mean_;
    mean_ += delta / static_cast<double>(count_);
    squares_ += delta * (x - mean_);
  }

  std::size_t count() const { return count_; }
  double mean() const { return mean_; }
  // Unbiased sample variance (n - 1 denominator); 0 for fewer than two observations, where
  // no spread has been seen yet.
  double variance() const { return count_ < 2 ? 0.0 : squares_ / static_cast<double>(count_ - 1); }
  double stddev() const { return std::sqrt(variance()); }
  // Standard error of the mean, s / sqrt(n); 0 for an empty sample.
  double std_error() const {
    return count_ == 0 ? 0.0 : std::sqrt(variance() / static_cast<double>(count_));
  }

 private:
  std::size_t count_ = 0;
  double mean_ = 0.0;
  double squares_ = 0.0;  // sum of squared deviations from the running mean
};

}  // namespace looprace::stats
