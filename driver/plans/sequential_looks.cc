#include "plans/sequential_looks.h"

#include <stdexcept>

namespace looprace::plans {

std::size_t pairs_after_look(const SequentialLooks& sequence, unsigned look) {
  return sequence.first_pairs << look;
}

double look_confidence(const SequentialLooks& sequence) {
  if (sequence.looks == 0)
    throw std::invalid_argument("sequential looks: looks must be at least 1");
  return 1.0 - (1.0 - sequence.confidence) / sequence.looks;
}

std::size_t layouts_after_look(std::size_t first_layouts, unsigned look) {
  return first_layouts << look;
}

std::size_t layout_of_pair(const SequentialLooks& sequence, std::size_t first_layouts,
                           std::size_t pair) {
  if (sequence.first_pairs == 0 || first_layouts == 0 || pair == 0)
    throw std::invalid_argument("layout_of_pair: pairs, layouts and pair start at 1");
  unsigned look = 0;
  while (pair > pairs_after_look(sequence, look)) ++look;
  const std::size_t pairs_before = look == 0 ? 0 : pairs_after_look(sequence, look - 1);
  const std::size_t layouts_before = look == 0 ? 0 : layouts_after_look(first_layouts, look - 1);
  const std::size_t fresh = layouts_after_look(first_layouts, look) - layouts_before;
  return layouts_before + (pair - pairs_before - 1) % fresh;
}

}  // namespace looprace::plans
