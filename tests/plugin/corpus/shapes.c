/* Loop shapes: counted, while, do-while, nested, early exit, unknown trip count, a loop in a
   macro (twice), and a loop in an inline function called from two places. */
#include <stdio.h>
#include <string.h>

#include "unroll_marker.h"

#define N 1000
static double xs[N], ys[N];
static int keys[N];

#define SCALE_ALL(array, count, factor) \
  do {                                  \
    LR_UNROLL                           \
    for (int k_ = 0; k_ < (count); k_++) (array)[k_] *= (factor); \
  } while (0)

__attribute__((noinline)) void counted(double* y, const double* x, double a) {
  LR_UNROLL for (int i = 0; i < N; i++) y[i] += a * x[i];
}

__attribute__((noinline)) long unknown_trip(const int* p, int n) {
  long sum = 0;
  LR_UNROLL for (int i = 0; i < n; i++) sum += p[i] ^ (i & 7);
  return sum;
}

__attribute__((noinline)) int while_loop(unsigned v) {
  int bits = 0;
  LR_UNROLL while (v != 0) {
    v &= v - 1;
    bits++;
  }
  return bits;
}

__attribute__((noinline)) long do_while(const int* p, int n) {
  long acc = 1;
  int i = 0;
  LR_UNROLL do {
    acc = acc * 3 + p[i];
    i++;
  } while (i < n);
  return acc;
}

__attribute__((noinline)) double nested(int rows, int cols) {
  double total = 0;
  LR_UNROLL for (int r = 0; r < rows; r++) {
    LR_UNROLL for (int c = 0; c < cols; c++) total += xs[(r * cols + c) % N] * (r + 1);
  }
  return total;
}

__attribute__((noinline)) int early_exit(const int* p, int n, int wanted) {
  LR_UNROLL for (int i = 0; i < n; i++) {
    if (p[i] == wanted) return i;
  }
  return -1;
}

static inline int checksum(const char* text) {
  int h = 0;
  LR_UNROLL for (const char* c = text; *c; c++) h = h * 31 + *c;
  return h;
}

__attribute__((noinline)) void in_macros(void) {
  SCALE_ALL(xs, N, 0.5);
  SCALE_ALL(ys, N / 2, 2.0);
}

int main(void) {
  LR_UNROLL for (int i = 0; i < N; i++) {
    xs[i] = i * 0.25;
    ys[i] = 1.0 + (i % 3);
    keys[i] = (i * 7919) % 1009;
  }
  counted(ys, xs, 1.5);
  in_macros();
  printf("counted %.3f %.3f\n", ys[17], ys[N - 1]);
  printf("unknown %ld\n", unknown_trip(keys, N - 3));
  printf("while %d %d\n", while_loop(0xF0F0F0F0u), while_loop(12345));
  printf("do_while %ld\n", do_while(keys, 37));
  printf("nested %.3f\n", nested(13, 29));
  printf("early %d %d\n", early_exit(keys, N, keys[500]), early_exit(keys, N, -5));
  printf("checksum %d %d\n", checksum("looprace"), checksum("unrolling loops by measurement"));
  return 0;
}
