/* Shared by the kernels: deterministic inputs (a fixed-seed generator, never rand()) and the
 * checksum every kernel prints. A kernel's checksum must not change with the unroll factor or
 * the -O level; tests/programs checks that. */
#ifndef LOOPRACE_KERNEL_H
#define LOOPRACE_KERNEL_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* splitmix64: good enough statistics for test signals, one 64-bit state. */
static uint64_t kernel_rng_state;

static inline void kernel_seed(uint64_t seed) { kernel_rng_state = seed; }

static inline uint64_t kernel_random(void) {
  uint64_t z = (kernel_rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform integer in [low, high]. */
static inline int32_t kernel_random_range(int32_t low, int32_t high) {
  return low + (int32_t)(kernel_random() % (uint64_t)(high - low + 1));
}

/* Uniform double in [-1, 1), exactly representable (53 random bits). */
static inline double kernel_random_unit(void) {
  return (double)(kernel_random() >> 11) * (1.0 / 4503599627370496.0) - 1.0;
}

/* FNV-1a over 64-bit words. */
typedef uint64_t Checksum;
#define CHECKSUM_INIT 0xCBF29CE484222325ull

static inline Checksum checksum_add(Checksum sum, uint64_t value) {
  return (sum ^ value) * 0x100000001B3ull;
}

static inline Checksum checksum_add_double(Checksum sum, double value) {
  uint64_t bits;
  memcpy(&bits, &value, sizeof bits);
  return checksum_add(sum, bits);
}

static inline void checksum_print(const char* kernel, Checksum sum) {
  printf("%s checksum %016llx\n", kernel, (unsigned long long)sum);
}

#endif
