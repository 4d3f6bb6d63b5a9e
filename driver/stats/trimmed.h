// Trimmed means for samples with long tails (a run preempted or slowed by another process):
// the mean of the middle of the sorted sample, with the standard error of Yuen's test from the
// winsorized variance (Wilcox, Introduction to Robust Estimation and Hypothesis Testing, 5.3).
#pragma once

#include <cstddef>
#include <vector>

#include "stats/inference.h"

namespace looprace::stats {

// Trims TrimmedSample accepts: [0, 0.25], at most a quarter of each end, so that at least half
// of the sample (and two observations) always remain.
bool valid_trim(double trim);

class TrimmedSample {
 public:
  // `trim` is the fraction cut from each end; throws std::invalid_argument unless valid_trim.
  explicit TrimmedSample(double trim);

  void add(double x);
  std::size_t count() const { return sorted_.size(); }
  // The trimmed mean, its squared standard error (n - 1) s_w^2 / (h (h - 1)) with s_w^2 the
  // winsorized variance and h the observations kept, and h - 1 degrees of freedom, as Yuen's
  // test uses them. Needs n >= 2.
  LocationEstimate estimate() const;

 private:
  double trim_;
  std::vector<double> sorted_;
  mutable bool fresh_ = false;  // estimate_ matches sorted_
  mutable LocationEstimate estimate_;
};

}  // namespace looprace::stats
