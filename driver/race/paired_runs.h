// Interleaved pairs of runs of two builds, A and B: the confirmation of a loop's choice and the
// whole-program check both time a change this way.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <utility>
#include <vector>

namespace looprace::race::detail {

struct PairedRuns {
  std::vector<double> a, b;  // one value per complete pair
  bool failed = false;       // a run failed: the pairs stopped there
};

// Takes up to `pairs` pairs, each of one run of A and one of B in an order drawn from `seed`,
// so that neither build always runs first, in the wake of the other (caches, frequency);
// `take(is_b, pair)` runs one and returns its value, none when it failed. Stops at the first
// failure, keeping the complete pairs before it.
template <class Take>
PairedRuns take_pairs(std::size_t pairs, std::uint64_t seed, Take&& take) {
  PairedRuns out;
  std::mt19937_64 order(seed);
  for (std::size_t i = 0; i < pairs; ++i) {
    std::array<bool, 2> b_first = {false, true};
    if (order() & 1) std::swap(b_first[0], b_first[1]);
    std::array<std::optional<double>, 2> got;  // A's, B's
    for (bool is_b : b_first) {
      got[is_b] = take(is_b, i);
      if (!got[is_b]) {
        out.failed = true;
        return out;
      }
    }
    out.a.push_back(*got[0]);
    out.b.push_back(*got[1]);
  }
  return out;
}

}  // namespace looprace::race::detail
