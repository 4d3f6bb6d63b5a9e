/* Lattice filters (UTDSP "lattice" style), Q15 fixed point: an order-10 FIR lattice computes the
 * prediction error of a signal, the matching all-pole lattice rebuilds the signal from it, and
 * the autocorrelation of the error shows how white it is. */
#include "kernel.h"

enum {
  SAMPLES = 32768,
  ORDER = 10,
  LAGS = 16,
  PASSES = 4,
};

/* Reflection coefficients in Q15, all of magnitude below 0.8 so both lattices are stable. */
static const int16_t reflection[ORDER] = {-24000, 18000, -9000, 6000,  -4000,
                                          3000,   -2000, 1500,  -1000, 500};

static int16_t input[SAMPLES];
static int16_t residual[SAMPLES];
static int16_t rebuilt[SAMPLES];

static int32_t saturate16(int32_t value) {
  return value > 32767 ? 32767 : value < -32768 ? -32768 : value;
}

static int32_t q15_multiply(int32_t coefficient, int32_t value) {
  return (coefficient * value) >> 15;
}

/* A resonant signal: noise through a two-pole resonator, so prediction has something to remove. */
static void make_input(void) {
  int32_t y1 = 0, y2 = 0;
  for (int n = 0; n < SAMPLES; n++) {
    int32_t y =
        kernel_random_range(-3000, 3000) + q15_multiply(52000, y1) / 2 - q15_multiply(29000, y2);
    y = saturate16(y);
    input[n] = (int16_t)y;
    y2 = y1;
    y1 = y;
  }
}

static void analysis_lattice(void) {
  int32_t backward_delayed[ORDER + 1] = {0};
  for (int n = 0; n < SAMPLES; n++) {
    int32_t forward = input[n];
    int32_t backward = input[n];
    for (int i = 0; i < ORDER; i++) {
      int32_t next_forward = saturate16(forward + q15_multiply(reflection[i], backward_delayed[i]));
      int32_t next_backward =
          saturate16(q15_multiply(reflection[i], forward) + backward_delayed[i]);
      backward_delayed[i] = backward;
      forward = next_forward;
      backward = next_backward;
    }
    backward_delayed[ORDER] = backward;
    residual[n] = (int16_t)forward;
  }
}

static void synthesis_lattice(void) {
  int32_t backward_delayed[ORDER + 1] = {0};
  for (int n = 0; n < SAMPLES; n++) {
    int32_t forward = residual[n];
    for (int i = ORDER - 1; i >= 0; i--) {
      forward = saturate16(forward - q15_multiply(reflection[i], backward_delayed[i]));
      backward_delayed[i + 1] =
          saturate16(q15_multiply(reflection[i], forward) + backward_delayed[i]);
    }
    backward_delayed[0] = forward;
    rebuilt[n] = (int16_t)forward;
  }
}

static Checksum autocorrelation(Checksum sum) {
  for (int lag = 0; lag < LAGS; lag++) {
    int64_t acc = 0;
    for (int n = lag; n < SAMPLES; n++) acc += residual[n] * residual[n - lag];
    sum = checksum_add(sum, (uint64_t)acc);
  }
  int64_t error = 0;
  for (int n = 0; n < SAMPLES; n++) {
    int32_t difference = rebuilt[n] - input[n];
    error += difference < 0 ? -difference : difference;
  }
  return checksum_add(sum, (uint64_t)error);
}

int main(void) {
  kernel_seed(3);
  make_input();
  Checksum sum = CHECKSUM_INIT;
  for (int pass = 0; pass < PASSES; pass++) {
    analysis_lattice();
    synthesis_lattice();
    sum = autocorrelation(sum);
    input[pass] ^= 0x3F;
  }
  checksum_print("lattice", sum);
  return 0;
}
