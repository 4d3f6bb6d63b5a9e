/* gnu89 `extern inline`: the body exists only for inlining, no out-of-line copy is emitted.
   Instrumenting its loop must not make GCC stop inlining it (the link would fail). Built with
   -std=gnu89 -O2, like gcc.c-torture/execute/loop-2c.c. */
#include <stdio.h>

#include "unroll_marker.h"

int data[64];

extern inline int weighted_sum(const int* p, int n) {
  int sum = 0, i;
  LR_UNROLL for (i = 0; i < n; i++) sum += p[i] * (i + 1) + (sum >> 3);
  return sum;
}

int main(void) {
  int i;
  LR_UNROLL for (i = 0; i < 64; i++) data[i] = (i * 37) % 11;
  printf("weighted %d %d\n", weighted_sum(data, 64), weighted_sum(data + 5, 20));
  return 0;
}
