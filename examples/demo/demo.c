/* looprace demo: a few hot loops whose best unroll factors differ (see README.md).
 * The program prints one checksum; it is the same for every unroll factor and -O level, which
 * is how looprace checks that a variant still computes the same thing. */
#include <stdint.h>
#include <stdio.h>

/* Sizes: each kernel runs once and takes 0.05-0.6 ms. */
enum {
  TAPS = 16,               /* FIR filter length: the short fixed-trip loop */
  SIGNAL_LEN = 262144,     /* FIR output samples */
  SERIES_LEN = 65536,      /* length of the two series (a power of two) */
  PRODUCT_TERMS = 1 << 20, /* terms of the long reduction, cycling through the series */
  REVERSE_WORDS = 65536,   /* words bit-reversed (series_a) */
  BLOCK_WORDS = 16,        /* words mixed per block by the big-body loop */
  BLOCK_COUNT = 4096,      /* blocks mixed */
};

static int16_t taps[TAPS];
static int16_t signal_in[SIGNAL_LEN + TAPS];
static uint32_t series_a[SERIES_LEN], series_b[SERIES_LEN];
static uint32_t blocks[BLOCK_COUNT * BLOCK_WORDS];

/* Inputs are a multiplicative hash of the position: deterministic without the C library's
 * rand(), and cheap, so that making them takes far fewer cycles than the kernels do. */
static uint32_t scramble(uint32_t position) {
  uint32_t x = position * 0x9E3779B9u;
  return x ^ (x >> 15);
}

static void make_inputs(void) {
  for (int k = 0; k < TAPS; k++) taps[k] = (int16_t)((int)(scramble(k) % 4096) - 2048);
  for (int n = 0; n < SIGNAL_LEN + TAPS; n++)
    signal_in[n] = (int16_t)((int)(scramble(n + 0x10000000u) % 4096) - 2048);
  for (int i = 0; i < SERIES_LEN; i++) {
    series_a[i] = scramble(i + 0x20000000u);
    series_b[i] = scramble(i + 0x30000000u);
  }
  for (int i = 0; i < BLOCK_COUNT * BLOCK_WORDS; i++) blocks[i] = scramble(i + 0x40000000u);
}

/* FIR filter. The outer loop runs over output samples; the inner loop is a 16-tap dot product
 * with a trip count known at compile time. GCC vectorizes the inner loop, unless it is unrolled
 * completely first: then it stays scalar code. */
__attribute__((noipa)) static uint32_t fir_filter(void) {
  uint32_t checksum = 0;
  for (int n = 0; n < SIGNAL_LEN; n++) {
    int32_t acc = 0;
    for (int k = 0; k < TAPS; k++) acc += taps[k] * signal_in[n + k];
    checksum = checksum * 31u + (uint32_t)acc;
  }
  return checksum;
}

/* Long reduction with a trip count known only at run time, cycling through the two series
 * (which stay in the cache): a few copies of the body amortize the loop test and let loads of
 * later iterations start early. */
__attribute__((noipa)) static uint64_t sum_of_products(const uint32_t* a, const uint32_t* b,
                                                       int terms) {
  uint64_t sum = 0;
  for (int i = 0; i < terms; i++) {
    unsigned j = (unsigned)i % SERIES_LEN;
    sum += (uint64_t)(a[j] ^ (b[j] >> 3)) * (b[j] & 0xFFFFu);
  }
  return sum;
}

/* Bit reversal of 32-bit words through a 16-entry nibble table. The inner loop always runs 8
 * times; complete unrolling turns its variable shifts into constants and drops the counter. */
__attribute__((noipa)) static uint32_t reverse_words(const uint32_t* words, int n) {
  static const uint8_t reversed_nibble[16] = {0x0, 0x8, 0x4, 0xC, 0x2, 0xA, 0x6, 0xE,
                                              0x1, 0x9, 0x5, 0xD, 0x3, 0xB, 0x7, 0xF};
  uint32_t checksum = 0;
  for (int i = 0; i < n; i++) {
    uint32_t reversed = 0;
    for (int nibble = 0; nibble < 8; nibble++)
      reversed |= (uint32_t)reversed_nibble[(words[i] >> (4 * nibble)) & 0xFu] << (28 - 4 * nibble);
    checksum = checksum * 31u + reversed;
  }
  return checksum;
}

/* Big body: a hash round over each block. The body is already long and its additions form one
 * dependency chain, so more copies only grow the code. */
__attribute__((noipa)) static uint32_t mix_blocks(int count) {
  uint32_t h = 0x811C9DC5u;
  for (int b = 0; b < count; b++) {
    const uint32_t* w = &blocks[b * BLOCK_WORDS];
    h = (h ^ w[0]) * 0x01000193u;
    h = ((h << 7) | (h >> 25)) + w[1] * 0x85EBCA6Bu;
    h = (h ^ w[2]) * 0x01000193u;
    h = ((h << 11) | (h >> 21)) + w[3] * 0xC2B2AE35u;
    h = (h ^ w[4]) * 0x01000193u;
    h = ((h << 13) | (h >> 19)) + w[5] * 0x27D4EB2Fu;
    h = (h ^ w[6]) * 0x01000193u;
    h = ((h << 17) | (h >> 15)) + w[7] * 0x165667B1u;
    h = (h ^ w[8]) * 0x01000193u;
    h = ((h << 5) | (h >> 27)) + w[9] * 0x85EBCA6Bu;
    h = (h ^ w[10]) * 0x01000193u;
    h = ((h << 19) | (h >> 13)) + w[11] * 0xC2B2AE35u;
    h = (h ^ w[12]) * 0x01000193u;
    h = ((h << 23) | (h >> 9)) + w[13] * 0x27D4EB2Fu;
    h = (h ^ w[14]) * 0x01000193u;
    h = ((h << 3) | (h >> 29)) + w[15] * 0x165667B1u;
  }
  return h;
}

int main(void) {
  make_inputs();
  /* No loop here: every loop of the program is one of the kernels' (or make_inputs'). */
  uint64_t checksum = fir_filter();
  checksum = checksum * 31u + sum_of_products(series_a, series_b, PRODUCT_TERMS);
  checksum = checksum * 31u + reverse_words(series_a, REVERSE_WORDS);
  checksum = checksum * 31u + mix_blocks(BLOCK_COUNT);
  printf("demo checksum %016llx\n", (unsigned long long)checksum);
  return 0;
}
