/* The loop the build tests select: a runtime trip count, so every unroll factor is honoured. */
#include "kern.h"

long kern_sum(const int* values, int count) {
  long sum = 0;
  for (int i = 0; i < count; i++) sum += (long)values[i] * (i & 7);
  return sum;
}
