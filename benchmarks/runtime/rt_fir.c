/* A UTDSP-style FIR filter whose per-block loop is the hot loop of the whole-program slowdown
 * benchmark. Built twice: plain, and with -DLOOPRACE_HAND_INSTRUMENTED, which wraps the block
 * loop in exactly the sequence the looprace plugin emits (docs/formats.md section 4).
 *
 * usage: rt_fir <blocks> [block-length]   prints a checksum of the filtered signal; the
 * default block of 512 samples makes the timed loop's entries last at least 12,000 cycles. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef LOOPRACE_HAND_INSTRUMENTED
#include "looprace_rt.h"
#include "looprace_tsc.h"
#define FIR_LOOP_ID UINT64_C(0xf17f17f17f17f170)
#endif

#define TAPS 32
#define MAX_BLOCK 16384

static int block_length = 512;
static float coefficients[TAPS];
static float signal_in[MAX_BLOCK + TAPS - 1];
static float signal_out[MAX_BLOCK];

/* Fixed-seed linear congruential noise: the same input in every run. */
static uint32_t noise_state = 12345;
static float noise(void) {
  noise_state = noise_state * 1664525u + 1013904223u;
  return (float)(noise_state >> 8) / (float)(1u << 24) - 0.5f;
}

static void filter_block(void) {
#ifdef LOOPRACE_HAND_INSTRUMENTED
  uint32_t cpu0, cpu1;
  uint64_t t0 = looprace_tsc_read(&cpu0);
#endif
  for (int n = 0; n < block_length; ++n) {
    float sum = 0.0f;
    for (int k = 0; k < TAPS; ++k) sum += coefficients[k] * signal_in[n + k];
    signal_out[n] = sum;
  }
#ifdef LOOPRACE_HAND_INSTRUMENTED
  uint64_t t1 = looprace_tsc_read(&cpu1);
  __looprace_record(FIR_LOOP_ID, t0, t1, cpu0, cpu1);
#endif
}

int main(int argc, char** argv) {
  long blocks = argc > 1 ? atol(argv[1]) : 0;
  if (argc > 2) block_length = atoi(argv[2]);
  if (blocks <= 0 || block_length <= 0 || block_length > MAX_BLOCK) {
    fprintf(stderr, "usage: %s <blocks> [block-length 1..%d]\n", argv[0], MAX_BLOCK);
    return 2;
  }
  for (int k = 0; k < TAPS; ++k) coefficients[k] = 1.0f / (float)(k + 2);
  double checksum = 0.0;
  for (long block = 0; block < blocks; ++block) {
    /* Slide the history and read a new block of input, as a streaming filter does. */
    for (int k = 0; k < TAPS - 1; ++k) signal_in[k] = signal_in[block_length + k];
    for (int n = 0; n < block_length; ++n) signal_in[TAPS - 1 + n] = noise();
    filter_block();
    for (int n = 0; n < block_length; n += 64) checksum += signal_out[n];
  }
  printf("%.6f\n", checksum);
  return 0;
}
