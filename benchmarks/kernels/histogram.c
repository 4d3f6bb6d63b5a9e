/* Histograms and prefix sums: histogram equalization of an 8-bit image (256-bin histogram,
 * cumulative sum, remapping), a 2-D summed-area table with box sums read from it, and an LSD
 * radix sort of 32-bit keys (per-digit histograms, exclusive prefix sums, scatter). */
#include "kernel.h"

enum {
  WIDTH = 640,
  HEIGHT = 480,
  KEYS = 65536,
  RADIX_BITS = 8,
  BUCKETS = 1 << RADIX_BITS,
  BOX = 7,
  PASSES = 6,
};

static uint8_t image[HEIGHT][WIDTH];
static uint8_t equalized[HEIGHT][WIDTH];
static uint32_t histogram[256];
static uint32_t cumulative[256];
static uint8_t remap[256];
static uint32_t area[HEIGHT + 1][WIDTH + 1];
static uint32_t keys[KEYS], sorted[KEYS], scratch[KEYS];
static uint32_t digit_counts[4][BUCKETS];

/* A dim, low-contrast image (values mostly 60-120) with a bright corner. */
static void make_inputs(void) {
  for (int y = 0; y < HEIGHT; y++)
    for (int x = 0; x < WIDTH; x++) {
      int value = 60 + (x * 40) / WIDTH + (y * 20) / HEIGHT + kernel_random_range(0, 12);
      if (x > WIDTH - 40 && y < 30) value += 100;
      image[y][x] = (uint8_t)value;
    }
  /* small keys are more common, so some radix digits have few distinct values */
  for (int n = 0; n < KEYS; n++) {
    uint32_t shift = (uint32_t)kernel_random_range(0, 20); /* one call per statement: fixed order */
    keys[n] = (uint32_t)kernel_random() >> shift;
  }
}

static void equalize(void) {
  memset(histogram, 0, sizeof histogram);
  for (int y = 0; y < HEIGHT; y++)
    for (int x = 0; x < WIDTH; x++) histogram[image[y][x]]++;
  uint32_t running = 0;
  for (int v = 0; v < 256; v++) {
    running += histogram[v];
    cumulative[v] = running;
  }
  /* the first non-empty bin maps to 0, the full count to 255 */
  uint32_t lowest = 0;
  for (int v = 0; v < 256 && lowest == 0; v++) lowest = cumulative[v];
  const uint32_t pixels = WIDTH * HEIGHT;
  for (int v = 0; v < 256; v++)
    remap[v] = (uint8_t)(cumulative[v] <= lowest
                             ? 0
                             : (uint64_t)(cumulative[v] - lowest) * 255 / (pixels - lowest));
  for (int y = 0; y < HEIGHT; y++)
    for (int x = 0; x < WIDTH; x++) equalized[y][x] = remap[image[y][x]];
}

/* area[y][x] = sum of equalized[0..y-1][0..x-1]: a row prefix sum plus the row above. */
static void summed_area(void) {
  for (int x = 0; x <= WIDTH; x++) area[0][x] = 0;
  for (int y = 0; y < HEIGHT; y++) {
    uint32_t row = 0;
    area[y + 1][0] = 0;
    for (int x = 0; x < WIDTH; x++) {
      row += equalized[y][x];
      area[y + 1][x + 1] = area[y][x + 1] + row;
    }
  }
}

/* Sums of every BOX x BOX window, four table reads each. */
static uint64_t box_sums(void) {
  uint64_t hash = 0;
  for (int y = 0; y + BOX <= HEIGHT; y++)
    for (int x = 0; x + BOX <= WIDTH; x++) {
      uint32_t box = area[y + BOX][x + BOX] - area[y][x + BOX] - area[y + BOX][x] + area[y][x];
      hash = hash * 31u + box;
    }
  return hash;
}

/* All four digit histograms in one pass over the keys, then four scatter passes. */
static void radix_sort(void) {
  memset(digit_counts, 0, sizeof digit_counts);
  for (int n = 0; n < KEYS; n++)
    for (int d = 0; d < 4; d++) digit_counts[d][(keys[n] >> (d * RADIX_BITS)) & (BUCKETS - 1)]++;
  for (int d = 0; d < 4; d++) {
    uint32_t offset = 0;
    for (int b = 0; b < BUCKETS; b++) {
      uint32_t count = digit_counts[d][b];
      digit_counts[d][b] = offset;
      offset += count;
    }
  }
  const uint32_t* from = keys;
  for (int d = 0; d < 4; d++) {
    uint32_t* to = d % 2 == 0 ? scratch : sorted;
    for (int n = 0; n < KEYS; n++) {
      uint32_t key = from[n];
      to[digit_counts[d][(key >> (d * RADIX_BITS)) & (BUCKETS - 1)]++] = key;
    }
    from = to;
  }
}

static Checksum results(Checksum sum) {
  uint64_t image_hash = 0;
  for (int y = 0; y < HEIGHT; y++)
    for (int x = 0; x < WIDTH; x++) image_hash = image_hash * 31u + equalized[y][x];
  sum = checksum_add(sum, image_hash);
  sum = checksum_add(sum, box_sums());
  uint32_t unordered = 0;
  uint64_t key_hash = 0;
  for (int n = 0; n < KEYS; n++) {
    unordered += n > 0 && sorted[n - 1] > sorted[n];
    key_hash = key_hash * 31u + sorted[n];
  }
  sum = checksum_add(sum, unordered);
  return checksum_add(sum, key_hash);
}

int main(void) {
  kernel_seed(17);
  make_inputs();
  Checksum sum = CHECKSUM_INIT;
  for (int pass = 0; pass < PASSES; pass++) {
    equalize();
    summed_area();
    radix_sort();
    sum = results(sum);
    /* the next pass works on slightly different data */
    image[pass][pass] ^= 0x20;
    keys[pass * 977] ^= 0xDEADBEEFu;
  }
  checksum_print("histogram", sum);
  return 0;
}
