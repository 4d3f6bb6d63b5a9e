/* Bit counting (MiBench "bitcount" style): the set bits of an array of 32-bit words counted six
 * ways (shift and test, clearing the lowest set bit, nibble and byte tables, parallel adds) plus
 * a per-bit-position histogram. Every method must give the same total. */
#include "kernel.h"

enum {
  WORDS = 32768,
  METHODS = 6,
  PASSES = 4,
};

static uint32_t words[WORDS];
static uint8_t byte_bits[256];
static const uint8_t nibble_bits[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
static uint32_t position_counts[32];

/* Dense, sparse and mixed words, so that the data-dependent loops run 0 to 32 times. */
static void make_words(void) {
  for (int n = 0; n < WORDS; n++) {
    uint32_t value = (uint32_t)kernel_random();
    switch (kernel_random() % 3) {
      case 0:
        value &= (uint32_t)kernel_random();
        value &= (uint32_t)kernel_random();
        break;
      case 1:
        value |= (uint32_t)kernel_random();
        break;
      default:
        break;
    }
    words[n] = value;
  }
}

static void make_byte_table(void) {
  for (int byte = 0; byte < 256; byte++) {
    int count = 0;
    for (int value = byte; value != 0; value >>= 1) count += value & 1;
    byte_bits[byte] = (uint8_t)count;
  }
}

static uint32_t count_shift(void) {
  uint32_t total = 0;
  for (int n = 0; n < WORDS; n++) {
    uint32_t value = words[n];
    for (int bit = 0; bit < 32; bit++) total += (value >> bit) & 1u;
  }
  return total;
}

/* Kernighan: one iteration per set bit. */
static uint32_t count_sparse(void) {
  uint32_t total = 0;
  for (int n = 0; n < WORDS; n++)
    for (uint32_t value = words[n]; value != 0; value &= value - 1) total++;
  return total;
}

static uint32_t count_nibbles(void) {
  uint32_t total = 0;
  for (int n = 0; n < WORDS; n++)
    for (int shift = 0; shift < 32; shift += 4) total += nibble_bits[(words[n] >> shift) & 0xF];
  return total;
}

static uint32_t count_bytes(void) {
  uint32_t total = 0;
  for (int n = 0; n < WORDS; n++) {
    uint32_t value = words[n];
    total += byte_bits[value & 0xFF] + byte_bits[(value >> 8) & 0xFF] +
             byte_bits[(value >> 16) & 0xFF] + byte_bits[value >> 24];
  }
  return total;
}

/* Parallel adds within the word: 2-bit, 4-bit, 8-bit fields, then a multiply sums the bytes. */
static uint32_t count_parallel(void) {
  uint32_t total = 0;
  for (int n = 0; n < WORDS; n++) {
    uint32_t value = words[n];
    value = value - ((value >> 1) & 0x55555555u);
    value = (value & 0x33333333u) + ((value >> 2) & 0x33333333u);
    value = (value + (value >> 4)) & 0x0F0F0F0Fu;
    total += (value * 0x01010101u) >> 24;
  }
  return total;
}

/* Shift out the top bit until the word is zero: as many iterations as the highest set bit. */
static uint32_t count_top_down(void) {
  uint32_t total = 0;
  for (int n = 0; n < WORDS; n++)
    for (uint32_t value = words[n]; value != 0; value <<= 1) total += value >> 31;
  return total;
}

static uint32_t count_positions(void) {
  for (int bit = 0; bit < 32; bit++) position_counts[bit] = 0;
  for (int n = 0; n < WORDS; n++)
    for (int bit = 0; bit < 32; bit++) position_counts[bit] += (words[n] >> bit) & 1u;
  uint32_t total = 0;
  for (int bit = 0; bit < 32; bit++) total += position_counts[bit];
  return total;
}

int main(void) {
  kernel_seed(13);
  make_words();
  make_byte_table();
  Checksum sum = CHECKSUM_INIT;
  for (int pass = 0; pass < PASSES; pass++) {
    uint32_t totals[METHODS] = {count_shift(), count_sparse(),   count_nibbles(),
                                count_bytes(), count_parallel(), count_top_down()};
    uint32_t positions = count_positions();
    for (int m = 0; m < METHODS; m++) sum = checksum_add(sum, totals[m] != positions);
    sum = checksum_add(sum, positions);
    for (int bit = 0; bit < 32; bit++) sum = checksum_add(sum, position_counts[bit]);
    words[pass * 1001] ^= 0x80000001u; /* the next pass counts slightly different data */
  }
  checksum_print("bitcount", sum);
  return 0;
}
