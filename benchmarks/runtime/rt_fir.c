/* A streaming FIR filter program whose hot loop, the block loop of fir_kernel.c, is what the
 * whole-program slowdown benchmark instruments.
 *
 * usage: rt_fir <blocks> [block-length]   prints a checksum of the filtered signal; the
 * default block of 512 samples makes the timed loop's entries last at least 12,000 cycles. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fir_kernel.h"

#define MAX_BLOCK 16384

static int block_length = 512;
static float coefficients[FIR_TAPS];
static float signal_in[MAX_BLOCK + FIR_TAPS - 1];
static float signal_out[MAX_BLOCK];

/* Fixed-seed linear congruential noise: the same input in every run. */
static uint32_t noise_state = 12345;
static float noise(void) {
  noise_state = noise_state * 1664525u + 1013904223u;
  return (float)(noise_state >> 8) / (float)(1u << 24) - 0.5f;
}

int main(int argc, char** argv) {
  long blocks = argc > 1 ? atol(argv[1]) : 0;
  if (argc > 2) block_length = atoi(argv[2]);
  if (blocks <= 0 || block_length <= 0 || block_length > MAX_BLOCK) {
    fprintf(stderr, "usage: %s <blocks> [block-length 1..%d]\n", argv[0], MAX_BLOCK);
    return 2;
  }
  for (int k = 0; k < FIR_TAPS; ++k) coefficients[k] = 1.0f / (float)(k + 2);
  double checksum = 0.0;
  for (long block = 0; block < blocks; ++block) {
    /* Slide the history and read a new block of input, as a streaming filter does. */
    for (int k = 0; k < FIR_TAPS - 1; ++k) signal_in[k] = signal_in[block_length + k];
    for (int n = 0; n < block_length; ++n) signal_in[FIR_TAPS - 1 + n] = noise();
    fir_filter_block(coefficients, signal_in, signal_out, block_length);
    for (int n = 0; n < block_length; n += 64) checksum += signal_out[n];
  }
  printf("%.6f\n", checksum);
  return 0;
}
