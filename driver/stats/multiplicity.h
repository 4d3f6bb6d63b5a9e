// Error control over many tests: Holm's step-down procedure over the tests of one moment, and
// the looks of a sequential procedure that tests only at a few growing sample sizes, so that
// a Bonferroni split of its level over the looks stays affordable.
#pragma once

#include <cstddef>
#include <vector>

namespace looprace::stats {

// Holm's procedure at familywise level alpha over `total` hypotheses of which `p_values` are
// the ones that may be rejected (the others have p-values above alpha and are never
// rejected): sorted ascending, the i-th smallest (from 0) is rejected while it is at most
// alpha / (total - i). Returns which of `p_values` are rejected, in their order (R:
// p.adjust(p, "holm", n = total) <= alpha). Throws std::invalid_argument when total is below
// the number of p-values.
std::vector<bool> holm_rejections(const std::vector<double>& p_values, std::size_t total,
                                  double alpha);

// The sample sizes at which a sequential procedure tests, each about sqrt(2) times the one
// before (2, 3, 4, 6, 8, 11, 16, 23, 33, 47, 66, 93, 132, 187, ...) and the cap itself: about
// 2 log2(cap) looks instead of one per observation. Splitting a level over the looks
// (Bonferroni) bounds the chance of any false result over the whole procedure, whenever it
// stops; testing at every size would split it cap ways.
class SequentialLooks {
 public:
  // Throws std::invalid_argument for cap < 2.
  explicit SequentialLooks(std::size_t cap);
  // How many looks there are up to the cap.
  std::size_t count() const { return sizes_.size(); }
  // The first look at or after n samples (the cap for any n beyond it).
  std::size_t next_at_or_after(std::size_t n) const;

 private:
  std::vector<std::size_t> sizes_;  // ascending, ending at the cap
};

}  // namespace looprace::stats
