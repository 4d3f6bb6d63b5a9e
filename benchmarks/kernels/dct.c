/* 8x8 DCT (the transform of JPEG/MPEG coders in MediaBench): forward DCT of every block of a
 * grey image, quantization with the JPEG luminance table, dequantization, inverse DCT, and the
 * reconstruction error. Fixed point, separable, matrix form. */
#include "kernel.h"

enum {
  WIDTH = 512,
  HEIGHT = 256,
  PASSES = 2,
};

/* basis[u][x] = c(u) cos((2x+1) u pi / 16) in Q13, c(0) = sqrt(1/8), c(u > 0) = 1/2. */
static const int32_t basis[8][8] = {
    {2896, 2896, 2896, 2896, 2896, 2896, 2896, 2896},
    {4017, 3406, 2276, 799, -799, -2276, -3406, -4017},
    {3784, 1567, -1567, -3784, -3784, -1567, 1567, 3784},
    {3406, -799, -4017, -2276, 2276, 4017, 799, -3406},
    {2896, -2896, -2896, 2896, 2896, -2896, -2896, 2896},
    {2276, -4017, 799, 3406, -3406, -799, 4017, -2276},
    {1567, -3784, 3784, -1567, -1567, 3784, -3784, 1567},
    {799, -2276, 3406, -4017, 4017, -3406, 2276, -799},
};

/* The JPEG standard's example luminance quantization table (Annex K). */
static const int32_t quantizer[64] = {16,  11,  10,  16,  24, 40, 51,  61,  12,  12,  14,  19,  26,
                                      58,  60,  55,  14,  13, 16, 24,  40,  57,  69,  56,  14,  17,
                                      22,  29,  51,  87,  80, 62, 18,  22,  37,  56,  68,  109, 103,
                                      77,  24,  35,  55,  64, 81, 104, 113, 92,  49,  64,  78,  87,
                                      103, 121, 120, 101, 72, 92, 95,  98,  112, 100, 103, 99};

static uint8_t image[HEIGHT][WIDTH];
static uint8_t rebuilt[HEIGHT][WIDTH];

/* Gradients, a checkerboard and noise. */
static void make_image(void) {
  for (int y = 0; y < HEIGHT; y++)
    for (int x = 0; x < WIDTH; x++) {
      int32_t value =
          (x + y) / 4 + (((x / 16) + (y / 16)) % 2 ? 48 : 0) + kernel_random_range(-12, 12);
      image[y][x] = (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
    }
}

/* out = basis * in * basis^T (forward) or basis^T * in * basis (inverse), rounding Q13 away. */
static void transform(const int32_t in[8][8], int32_t out[8][8], int inverse) {
  int32_t temp[8][8];
  for (int u = 0; u < 8; u++)
    for (int x = 0; x < 8; x++) {
      int32_t acc = 0;
      for (int k = 0; k < 8; k++) acc += (inverse ? basis[k][u] : basis[u][k]) * in[k][x];
      temp[u][x] = (acc + 4096) >> 13;
    }
  for (int u = 0; u < 8; u++)
    for (int v = 0; v < 8; v++) {
      int32_t acc = 0;
      for (int k = 0; k < 8; k++) acc += temp[u][k] * (inverse ? basis[k][v] : basis[v][k]);
      out[u][v] = (acc + 4096) >> 13;
    }
}

static int32_t divide_rounded(int32_t value, int32_t divisor) {
  return value >= 0 ? (value + divisor / 2) / divisor : -((-value + divisor / 2) / divisor);
}

static uint64_t code_image(void) {
  uint64_t nonzero = 0;
  for (int by = 0; by < HEIGHT; by += 8)
    for (int bx = 0; bx < WIDTH; bx += 8) {
      int32_t block[8][8], coefficients[8][8];
      for (int y = 0; y < 8; y++)
        for (int x = 0; x < 8; x++) block[y][x] = image[by + y][bx + x] - 128;
      transform(block, coefficients, 0);
      for (int i = 0; i < 64; i++) {
        int32_t level = divide_rounded(coefficients[i / 8][i % 8], quantizer[i]);
        nonzero += level != 0;
        coefficients[i / 8][i % 8] = level * quantizer[i];
      }
      transform(coefficients, block, 1);
      for (int y = 0; y < 8; y++)
        for (int x = 0; x < 8; x++) {
          int32_t value = block[y][x] + 128;
          rebuilt[by + y][bx + x] = (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
        }
    }
  return nonzero;
}

static Checksum error_and_sum(Checksum sum) {
  uint64_t squared_error = 0, pixels = 0;
  for (int y = 0; y < HEIGHT; y++)
    for (int x = 0; x < WIDTH; x++) {
      int32_t difference = rebuilt[y][x] - image[y][x];
      squared_error += (uint64_t)(difference * difference);
      pixels = pixels * 31u + rebuilt[y][x];
    }
  return checksum_add(checksum_add(sum, squared_error), pixels);
}

int main(void) {
  kernel_seed(9);
  make_image();
  Checksum sum = CHECKSUM_INIT;
  for (int pass = 0; pass < PASSES; pass++) {
    sum = checksum_add(sum, code_image());
    sum = error_and_sum(sum);
    image[pass][pass] ^= 0x40;
  }
  checksum_print("dct", sum);
  return 0;
}
