/* Run-length and zero coding (the entropy-coding front end of JPEG/MPEG coders in MediaBench):
 * zig-zag scan of quantized 8x8 blocks, (zero run, value) coding with end-of-block, PackBits
 * coding of a bitmap, and both decoders. */
#include "kernel.h"

enum {
  BLOCKS = 4096,
  BITMAP_BYTES = 131072,
  END_OF_BLOCK = 0x7FFF,
  PASSES = 4,
};

static const uint8_t zigzag[64] = {0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,
                                   12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6,  7,  14, 21, 28,
                                   35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
                                   58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};

static int16_t blocks[BLOCKS][64];
static int16_t decoded_blocks[BLOCKS][64];
/* Worst case: 64 (run, value) pairs plus end-of-block per block. */
static int16_t pairs[BLOCKS * 65 * 2];
static uint8_t bitmap[BITMAP_BYTES];
static uint8_t packbits[BITMAP_BYTES + BITMAP_BYTES / 128 + 1];
static uint8_t unpacked[BITMAP_BYTES];

/* Quantized-transform-like blocks: large values near the top-left corner, mostly zeros after. */
static void make_blocks(void) {
  for (int b = 0; b < BLOCKS; b++)
    for (int i = 0; i < 64; i++) {
      int row = i / 8, column = i % 8;
      int32_t spread = 64 >> (row + column > 6 ? 6 : row + column);
      int32_t value = kernel_random_range(-spread, spread) / 2;
      blocks[b][i] = (int16_t)(kernel_random() % 8 < (uint64_t)(8 - row - column / 2) ? value : 0);
    }
}

/* A bitmap with long runs (scan lines of a drawing) and short noisy stretches. */
static void make_bitmap(void) {
  int n = 0;
  while (n < BITMAP_BYTES) {
    int run = kernel_random_range(1, 200);
    uint8_t value = kernel_random() % 3 == 0 ? (uint8_t)kernel_random() : 0;
    for (int i = 0; i < run && n < BITMAP_BYTES; i++, n++)
      bitmap[n] = kernel_random() % 16 == 0 ? (uint8_t)kernel_random() : value;
  }
}

static int zero_code(void) {
  int length = 0;
  for (int b = 0; b < BLOCKS; b++) {
    int16_t scanned[64];
    for (int i = 0; i < 64; i++) scanned[i] = blocks[b][zigzag[i]];
    int last = 63;
    while (last >= 0 && scanned[last] == 0) last--;
    int run = 0;
    for (int i = 0; i <= last; i++) {
      if (scanned[i] == 0) {
        run++;
        continue;
      }
      pairs[length++] = (int16_t)run;
      pairs[length++] = scanned[i];
      run = 0;
    }
    pairs[length++] = END_OF_BLOCK;
    pairs[length++] = 0;
  }
  return length;
}

static void zero_decode(void) {
  int position = 0;
  for (int b = 0; b < BLOCKS; b++) {
    for (int i = 0; i < 64; i++) decoded_blocks[b][i] = 0;
    int i = 0;
    while (pairs[position] != END_OF_BLOCK) {
      i += pairs[position];
      decoded_blocks[b][zigzag[i]] = pairs[position + 1];
      i++;
      position += 2;
    }
    position += 2;
  }
}

/* PackBits: header n in 0..127 = n+1 literal bytes follow; n in 129..255 = repeat the next byte
 * 257-n times. */
static int packbits_encode(void) {
  int in = 0, out = 0;
  while (in < BITMAP_BYTES) {
    int run = 1;
    while (in + run < BITMAP_BYTES && run < 128 && bitmap[in + run] == bitmap[in]) run++;
    if (run >= 2) {
      packbits[out++] = (uint8_t)(257 - run);
      packbits[out++] = bitmap[in];
      in += run;
      continue;
    }
    int literal = 1;
    while (in + literal < BITMAP_BYTES && literal < 128 &&
           !(in + literal + 1 < BITMAP_BYTES && bitmap[in + literal] == bitmap[in + literal + 1]))
      literal++;
    packbits[out++] = (uint8_t)(literal - 1);
    for (int i = 0; i < literal; i++) packbits[out++] = bitmap[in + i];
    in += literal;
  }
  return out;
}

static void packbits_decode(int length) {
  int in = 0, out = 0;
  while (in < length) {
    uint8_t header = packbits[in++];
    if (header < 128) {
      for (int i = 0; i <= header; i++) unpacked[out++] = packbits[in++];
    } else {
      int run = 257 - header;
      uint8_t value = packbits[in++];
      for (int i = 0; i < run; i++) unpacked[out++] = value;
    }
  }
}

int main(void) {
  kernel_seed(8);
  make_blocks();
  make_bitmap();
  Checksum sum = CHECKSUM_INIT;
  for (int pass = 0; pass < PASSES; pass++) {
    int pair_count = zero_code();
    zero_decode();
    int packed_length = packbits_encode();
    packbits_decode(packed_length);

    sum = checksum_add(sum, (uint64_t)pair_count);
    sum = checksum_add(sum, (uint64_t)packed_length);
    uint64_t pair_hash = 0;
    for (int i = 0; i < pair_count; i++) pair_hash = pair_hash * 31u + (uint16_t)pairs[i];
    sum = checksum_add(sum, pair_hash);
    sum = checksum_add(sum, memcmp(decoded_blocks, blocks, sizeof blocks) != 0);
    sum = checksum_add(sum, memcmp(unpacked, bitmap, sizeof bitmap) != 0);
    /* the next pass codes slightly different data */
    blocks[pass][pass] ^= 1;
    bitmap[pass * 1000] ^= 0x5A;
  }
  checksum_print("rle", sum);
  return 0;
}
