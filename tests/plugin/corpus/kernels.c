/* DSP-style kernels (fir, iir, matrix multiply, histogram) with loops the unroller treats
   differently: constant trip counts, runtime trip counts, outer loops and reductions. */
#include <stdint.h>
#include <stdio.h>

#include "unroll_marker.h"

#define TAPS 8
#define SAMPLES 512
#define DIM 24

static int16_t signal_in[SAMPLES];
static int32_t signal_out[SAMPLES];
static const int16_t coefficients[TAPS] = {3, -5, 7, 11, 11, 7, -5, 3};
static float a[DIM][DIM], b[DIM][DIM], c[DIM][DIM];
static unsigned histogram[16];

__attribute__((noinline)) void fir(int samples) {
  LR_UNROLL for (int n = TAPS; n < samples; n++) {
    int32_t acc = 0;
    LR_UNROLL for (int t = 0; t < TAPS; t++) acc += signal_in[n - t] * coefficients[t];
    signal_out[n] = acc >> 4;
  }
}

__attribute__((noinline)) double iir(double alpha, int samples) {
  double state = 0;
  LR_UNROLL for (int n = 0; n < samples; n++) state = alpha * state + (1 - alpha) * signal_in[n];
  return state;
}

__attribute__((noinline)) void matmul(void) {
  LR_UNROLL for (int i = 0; i < DIM; i++)
    LR_UNROLL for (int j = 0; j < DIM; j++) {
      float sum = 0;
      LR_UNROLL for (int k = 0; k < DIM; k++) sum += a[i][k] * b[k][j];
      c[i][j] = sum;
    }
}

__attribute__((noinline)) void histogram_of(const int32_t* values, int count) {
  LR_UNROLL for (int i = 0; i < count; i++) histogram[(unsigned)values[i] & 15u]++;
}

int main(void) {
  uint32_t seed = 12345;
  LR_UNROLL for (int i = 0; i < SAMPLES; i++) {
    seed = seed * 1103515245u + 12345u;
    signal_in[i] = (int16_t)(seed >> 17);
  }
  LR_UNROLL for (int i = 0; i < DIM; i++)
    LR_UNROLL for (int j = 0; j < DIM; j++) {
      a[i][j] = (float)((i + 1) * (j + 2) % 13);
      b[i][j] = (float)((i * 3 + j) % 7) - 3.0f;
    }
  fir(SAMPLES);
  matmul();
  histogram_of(signal_out, SAMPLES);
  long checksum = 0;
  LR_UNROLL for (int i = 0; i < SAMPLES; i++) checksum += signal_out[i] * (i % 5 + 1);
  printf("fir %ld\n", checksum);
  printf("iir %.6f\n", iir(0.875, SAMPLES));
  printf("matmul %.1f %.1f\n", c[0][0], c[DIM - 1][DIM - 2]);
  LR_UNROLL for (int i = 0; i < 16; i++) printf("%u%c", histogram[i], i == 15 ? '\n' : ' ');
  return 0;
}
