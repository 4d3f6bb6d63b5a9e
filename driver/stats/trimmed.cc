#include "stats/trimmed.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace looprace::stats {

bool valid_trim(double trim) { return trim >= 0.0 && trim <= 0.25; }

TrimmedSample::TrimmedSample(double trim) : trim_(trim) {
  if (!valid_trim(trim))
    throw std::invalid_argument("trimmed sample: trim must be between 0 and 0.25");
}

void TrimmedSample::add(double x) {
  sorted_.insert(std::upper_bound(sorted_.begin(), sorted_.end(), x), x);
  fresh_ = false;
}

LocationEstimate TrimmedSample::estimate() const {
  if (fresh_) return estimate_;
  const std::size_t n = sorted_.size();
  if (n < 2) throw std::invalid_argument("trimmed sample: needs at least 2 observations");
  const auto cut = static_cast<std::size_t>(std::floor(trim_ * static_cast<double>(n)));
  const std::size_t kept = n - 2 * cut;
  const double low = sorted_[cut], high = sorted_[n - cut - 1];
  // Mean of the kept middle, and the winsorized sample: each cut value replaced by the
  // nearest kept one.
  double trimmed_sum = 0.0;
  for (std::size_t i = cut; i < n - cut; ++i) trimmed_sum += sorted_[i];
  const double winsorized_mean =
      (trimmed_sum + static_cast<double>(cut) * (low + high)) / static_cast<double>(n);
  double squares = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double deviation = std::clamp(sorted_[i], low, high) - winsorized_mean;
    squares += deviation * deviation;
  }
  const double h = static_cast<double>(kept);
  estimate_ = {trimmed_sum / h, squares / (h * (h - 1.0)), h - 1.0};
  fresh_ = true;
  return estimate_;
}

}  // namespace looprace::stats
