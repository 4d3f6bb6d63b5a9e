/* Color conversion (the JPEG/MPEG front and back end in MediaBench): RGB to YCbCr in 16-bit
 * fixed point, 2x2 chroma subsampling, upsampling, YCbCr back to RGB, and the round-trip error. */
#include "kernel.h"

enum {
  WIDTH = 640,
  HEIGHT = 480,
  SCALE_BITS = 16,
  HALF = 1 << (SCALE_BITS - 1),
  PASSES = 2,
};

/* ITU-R BT.601 coefficients as used by JPEG (JFIF), scaled by 2^16. */
#define FIX(x) ((int32_t)((x) * (1 << SCALE_BITS) + 0.5))

static uint8_t rgb[HEIGHT][WIDTH][3];
static uint8_t luma[HEIGHT][WIDTH], cb[HEIGHT][WIDTH], cr[HEIGHT][WIDTH];
static uint8_t cb_small[HEIGHT / 2][WIDTH / 2], cr_small[HEIGHT / 2][WIDTH / 2];
static uint8_t rgb_back[HEIGHT][WIDTH][3];

static uint8_t clamp255(int32_t value) {
  return (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
}

/* Colored gradients, a checkerboard of hues and noise. */
static void make_image(void) {
  for (int y = 0; y < HEIGHT; y++)
    for (int x = 0; x < WIDTH; x++) {
      int check = ((x / 32) + (y / 32)) % 2;
      rgb[y][x][0] = clamp255(x * 255 / WIDTH + (check ? 40 : -40) + kernel_random_range(-8, 8));
      rgb[y][x][1] = clamp255(y * 255 / HEIGHT + kernel_random_range(-8, 8));
      rgb[y][x][2] = clamp255((x + y) * 255 / (WIDTH + HEIGHT) + (check ? -60 : 60));
    }
}

static void rgb_to_ycbcr(void) {
  for (int y = 0; y < HEIGHT; y++)
    for (int x = 0; x < WIDTH; x++) {
      int32_t r = rgb[y][x][0], g = rgb[y][x][1], b = rgb[y][x][2];
      luma[y][x] =
          (uint8_t)((FIX(0.299) * r + FIX(0.587) * g + FIX(0.114) * b + HALF) >> SCALE_BITS);
      cb[y][x] = clamp255(
          (-FIX(0.168736) * r - FIX(0.331264) * g + FIX(0.5) * b + (128 << SCALE_BITS) + HALF) >>
          SCALE_BITS);
      cr[y][x] = clamp255(
          (FIX(0.5) * r - FIX(0.418688) * g - FIX(0.081312) * b + (128 << SCALE_BITS) + HALF) >>
          SCALE_BITS);
    }
}

static void subsample_chroma(void) {
  for (int y = 0; y < HEIGHT / 2; y++)
    for (int x = 0; x < WIDTH / 2; x++) {
      cb_small[y][x] = (uint8_t)((cb[2 * y][2 * x] + cb[2 * y][2 * x + 1] + cb[2 * y + 1][2 * x] +
                                  cb[2 * y + 1][2 * x + 1] + 2) >>
                                 2);
      cr_small[y][x] = (uint8_t)((cr[2 * y][2 * x] + cr[2 * y][2 * x + 1] + cr[2 * y + 1][2 * x] +
                                  cr[2 * y + 1][2 * x + 1] + 2) >>
                                 2);
    }
}

static void ycbcr_to_rgb(void) {
  for (int y = 0; y < HEIGHT; y++)
    for (int x = 0; x < WIDTH; x++) {
      int32_t l = luma[y][x] << SCALE_BITS;
      int32_t blue_difference = cb_small[y / 2][x / 2] - 128;
      int32_t red_difference = cr_small[y / 2][x / 2] - 128;
      rgb_back[y][x][0] = clamp255((l + FIX(1.402) * red_difference + HALF) >> SCALE_BITS);
      rgb_back[y][x][1] =
          clamp255((l - FIX(0.344136) * blue_difference - FIX(0.714136) * red_difference + HALF) >>
                   SCALE_BITS);
      rgb_back[y][x][2] = clamp255((l + FIX(1.772) * blue_difference + HALF) >> SCALE_BITS);
    }
}

static uint32_t absolute_difference(uint8_t a, uint8_t b) {
  return a > b ? (uint32_t)(a - b) : (uint32_t)(b - a);
}

/* Channels written out rather than looped over: a 3-trip loop here would be the program's
 * hottest innermost loop, and a dull one. */
static Checksum round_trip_error(Checksum sum) {
  uint64_t error[3] = {0, 0, 0};
  uint64_t luma_hash = 0;
  for (int y = 0; y < HEIGHT; y++)
    for (int x = 0; x < WIDTH; x++) {
      error[0] += absolute_difference(rgb_back[y][x][0], rgb[y][x][0]);
      error[1] += absolute_difference(rgb_back[y][x][1], rgb[y][x][1]);
      error[2] += absolute_difference(rgb_back[y][x][2], rgb[y][x][2]);
      luma_hash = luma_hash * 31u + luma[y][x];
    }
  sum = checksum_add(sum, luma_hash);
  for (int c = 0; c < 3; c++) sum = checksum_add(sum, error[c]);
  return sum;
}

int main(void) {
  kernel_seed(10);
  make_image();
  Checksum sum = CHECKSUM_INIT;
  for (int pass = 0; pass < PASSES; pass++) {
    rgb_to_ycbcr();
    subsample_chroma();
    ycbcr_to_rgb();
    sum = round_trip_error(sum);
    rgb[pass][pass][0] ^= 0x20; /* the next pass converts slightly different data */
  }
  checksum_print("color", sum);
  return 0;
}
