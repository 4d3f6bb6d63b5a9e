// A sequence of looks at paired runs of two builds, each look doubling the pairs (30, 60,
// 120, ...) and tested at an equal share of the error rate: Bonferroni over the planned looks,
// so that stopping at the first look that resolves does not inflate the error of the whole
// sequence. The confirmation of a loop's choice and the whole-program check both take their
// runs this way: a fixed count either wastes runs on clear differences or leaves close ones
// unresolved. Pure.
#pragma once

#include <cstddef>

namespace looprace::plans {

struct SequentialLooks {
  std::size_t first_pairs = 30;  // pairs of the first look
  unsigned looks = 4;            // at most: first_pairs << (looks - 1) pairs in all
  double confidence = 0.95;      // of the whole sequence of looks
};

// Pairs wanted in all after look `look` (0-based): first_pairs << look.
std::size_t pairs_after_look(const SequentialLooks& sequence, unsigned look);

// The confidence each look is tested at: 1 - (1 - confidence) / looks.
double look_confidence(const SequentialLooks& sequence);

}  // namespace looprace::plans
