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

// Code layouts when a test counts layouts, not pairs: after look `look`, first_layouts << look
// of them. Each look's new pairs spread over new layouts of their own, so every layout holds
// about as many pairs and a look that doubles the pairs doubles what the test counts: more
// runs on the same layouts would not narrow an interval that the layouts' spread sets.
std::size_t layouts_after_look(std::size_t first_layouts, unsigned look);
// The layout (0-based) of pair `pair` (1-based): the pairs beyond the last look continue as
// if the looks went on.
std::size_t layout_of_pair(const SequentialLooks& sequence, std::size_t first_layouts,
                           std::size_t pair);

}  // namespace looprace::plans
