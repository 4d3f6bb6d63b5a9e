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

}  // namespace looprace::plans
