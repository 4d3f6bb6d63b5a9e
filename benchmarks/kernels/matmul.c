/* Matrix multiply (UTDSP "mult" style), 32-bit integers with wrap-around arithmetic: the same
 * product by dot products (i-j-k), by row updates (i-k-j) and through a transposed copy. */
#include "kernel.h"

enum { N = 112 };

static uint32_t a[N][N], b[N][N], b_transposed[N][N];
static uint32_t by_dot[N][N], by_rows[N][N], by_transposed[N][N];

static void make_matrices(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      a[i][j] = (uint32_t)kernel_random_range(-1000, 1000);
      b[i][j] = (uint32_t)kernel_random_range(-1000, 1000);
    }
}

static void multiply_by_dot(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      uint32_t acc = 0;
      for (int k = 0; k < N; k++) acc += a[i][k] * b[k][j];
      by_dot[i][j] = acc;
    }
}

static void multiply_by_rows(void) {
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < N; j++) by_rows[i][j] = 0;
    for (int k = 0; k < N; k++) {
      uint32_t scale = a[i][k];
      for (int j = 0; j < N; j++) by_rows[i][j] += scale * b[k][j];
    }
  }
}

static void multiply_transposed(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) b_transposed[j][i] = b[i][j];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      uint32_t acc = 0;
      for (int k = 0; k < N; k++) acc += a[i][k] * b_transposed[j][k];
      by_transposed[i][j] = acc;
    }
}

static Checksum compare_and_sum(Checksum sum) {
  uint32_t mismatches = 0;
  for (int i = 0; i < N; i++) {
    uint64_t row = 0;
    for (int j = 0; j < N; j++) {
      mismatches += (by_dot[i][j] != by_rows[i][j]) + (by_dot[i][j] != by_transposed[i][j]);
      row = row * 31u + by_dot[i][j];
    }
    sum = checksum_add(sum, row);
  }
  return checksum_add(sum, mismatches);
}

int main(void) {
  kernel_seed(6);
  make_matrices();
  multiply_by_dot();
  multiply_by_rows();
  multiply_transposed();
  checksum_print("matmul", compare_and_sum(CHECKSUM_INIT));
  return 0;
}
