#include "stats/multiplicity.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace looprace::stats {

std::vector<bool> holm_rejections(const std::vector<double>& p_values, std::size_t total,
                                  double alpha) {
  if (total < p_values.size())
    throw std::invalid_argument("Holm's procedure over fewer hypotheses than p-values");
  std::vector<std::size_t> order(p_values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });
  std::vector<bool> rejected(p_values.size(), false);
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (!(p_values[order[i]] <= alpha / static_cast<double>(total - i))) break;
    rejected[order[i]] = true;
  }
  return rejected;
}

SequentialLooks::SequentialLooks(std::size_t cap) {
  if (cap < 2) throw std::invalid_argument("sequential looks need a cap of at least 2");
  for (std::size_t n = 2; n < cap;
       n = std::max(n + 1, static_cast<std::size_t>(std::lround(static_cast<double>(n) * M_SQRT2))))
    sizes_.push_back(n);
  sizes_.push_back(cap);
}

std::size_t SequentialLooks::next_at_or_after(std::size_t n) const {
  const auto it = std::lower_bound(sizes_.begin(), sizes_.end(), n);
  return it == sizes_.end() ? sizes_.back() : *it;
}

}  // namespace looprace::stats
