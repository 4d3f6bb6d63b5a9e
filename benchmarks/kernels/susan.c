/* Image smoothing and edge detection (MiBench "susan" style) on a generated 8-bit grey image:
 * a 3x3 Gaussian, a 5x5 brightness-weighted smoothing (SUSAN's: neighbours of similar
 * brightness count more), the USAN area of a 37-pixel circular mask as an edge response, and
 * 3x3 Sobel gradient magnitudes. Integer arithmetic only. */
#include "kernel.h"

enum {
  WIDTH = 256,
  HEIGHT = 192,
  THRESHOLD = 20,
  MASK_PIXELS = 37,
  PASSES = 2,
};

static uint8_t image[HEIGHT][WIDTH];
static uint8_t gaussian[HEIGHT][WIDTH];
static uint8_t smoothed[HEIGHT][WIDTH];
static uint16_t usan[HEIGHT][WIDTH];
static uint16_t sobel[HEIGHT][WIDTH];
/* Similarity of two brightnesses by their difference (offset by 255): 100 when equal, falling
 * off like t^2 / (t^2 + d^2). */
static uint8_t similarity[511];
/* Row and column offsets of the circular mask of radius 3.4 (7 rows of 3, 5, 7, 7, 7, 5, 3). */
static int8_t mask_row[MASK_PIXELS], mask_column[MASK_PIXELS];

/* Rectangles and discs of different brightness on a gradient, plus noise. */
static void make_image(void) {
  for (int y = 0; y < HEIGHT; y++)
    for (int x = 0; x < WIDTH; x++) image[y][x] = (uint8_t)(40 + (x + y) / 8);
  for (int shape = 0; shape < 40; shape++) {
    int cx = kernel_random_range(0, WIDTH - 1), cy = kernel_random_range(0, HEIGHT - 1);
    int radius = kernel_random_range(4, 30);
    uint8_t value = (uint8_t)kernel_random_range(0, 255);
    int disc = shape % 2;
    for (int y = cy - radius; y <= cy + radius; y++)
      for (int x = cx - radius; x <= cx + radius; x++) {
        if (y < 0 || y >= HEIGHT || x < 0 || x >= WIDTH) continue;
        if (disc && (x - cx) * (x - cx) + (y - cy) * (y - cy) > radius * radius) continue;
        image[y][x] = value;
      }
  }
  for (int y = 0; y < HEIGHT; y++)
    for (int x = 0; x < WIDTH; x++) {
      int value = image[y][x] + kernel_random_range(-6, 6);
      image[y][x] = (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
    }
}

static void make_tables(void) {
  for (int d = -255; d <= 255; d++)
    similarity[d + 255] = (uint8_t)(100 * THRESHOLD * THRESHOLD / (THRESHOLD * THRESHOLD + d * d));
  int n = 0;
  for (int dy = -3; dy <= 3; dy++)
    for (int dx = -3; dx <= 3; dx++)
      if (dx * dx + dy * dy <= 11) {
        mask_row[n] = (int8_t)dy;
        mask_column[n] = (int8_t)dx;
        n++;
      }
}

/* 1 2 1 / 2 4 2 / 1 2 1, borders copied. */
static void smooth_gaussian(void) {
  static const int weights[3][3] = {{1, 2, 1}, {2, 4, 2}, {1, 2, 1}};
  memcpy(gaussian, image, sizeof gaussian);
  for (int y = 1; y < HEIGHT - 1; y++)
    for (int x = 1; x < WIDTH - 1; x++) {
      int total = 0;
      for (int dy = 0; dy < 3; dy++)
        for (int dx = 0; dx < 3; dx++) total += weights[dy][dx] * image[y + dy - 1][x + dx - 1];
      gaussian[y][x] = (uint8_t)((total + 8) / 16);
    }
}

/* 5x5 window, each neighbour weighted by its brightness similarity to the centre pixel. */
static void smooth_susan(void) {
  memcpy(smoothed, gaussian, sizeof smoothed);
  for (int y = 2; y < HEIGHT - 2; y++)
    for (int x = 2; x < WIDTH - 2; x++) {
      int centre = gaussian[y][x];
      int total = 0, weight = 0;
      for (int dy = -2; dy <= 2; dy++)
        for (int dx = -2; dx <= 2; dx++) {
          int value = gaussian[y + dy][x + dx];
          int w = similarity[value - centre + 255];
          total += w * value;
          weight += w;
        }
      smoothed[y][x] = (uint8_t)((total + weight / 2) / weight);
    }
}

/* USAN area: the summed similarity over the circular mask; edges and corners have small areas,
 * so the response is the geometric threshold minus the area, when positive. */
static void susan_edges(void) {
  const int geometric = 3 * MASK_PIXELS * 100 / 4;
  memset(usan, 0, sizeof usan);
  for (int y = 3; y < HEIGHT - 3; y++)
    for (int x = 3; x < WIDTH - 3; x++) {
      int centre = smoothed[y][x];
      int area = 0;
      for (int k = 0; k < MASK_PIXELS; k++)
        area += similarity[smoothed[y + mask_row[k]][x + mask_column[k]] - centre + 255];
      usan[y][x] = (uint16_t)(area < geometric ? geometric - area : 0);
    }
}

/* |Gx| + |Gy| of the Sobel operator. */
static void sobel_edges(void) {
  memset(sobel, 0, sizeof sobel);
  for (int y = 1; y < HEIGHT - 1; y++)
    for (int x = 1; x < WIDTH - 1; x++) {
      const uint8_t* above = &smoothed[y - 1][x];
      const uint8_t* row = &smoothed[y][x];
      const uint8_t* below = &smoothed[y + 1][x];
      int gx = (above[1] + 2 * row[1] + below[1]) - (above[-1] + 2 * row[-1] + below[-1]);
      int gy = (below[-1] + 2 * below[0] + below[1]) - (above[-1] + 2 * above[0] + above[1]);
      sobel[y][x] = (uint16_t)((gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy));
    }
}

static Checksum image_sums(Checksum sum) {
  uint64_t smooth_hash = 0, edge_total = 0, edge_pixels = 0, sobel_total = 0;
  for (int y = 0; y < HEIGHT; y++) {
    for (int x = 0; x < WIDTH; x++) smooth_hash = smooth_hash * 31u + smoothed[y][x];
    for (int x = 0; x < WIDTH; x++) {
      edge_total += usan[y][x];
      edge_pixels += usan[y][x] != 0;
      sobel_total += sobel[y][x];
    }
  }
  sum = checksum_add(sum, smooth_hash);
  sum = checksum_add(sum, edge_total);
  sum = checksum_add(sum, edge_pixels);
  return checksum_add(sum, sobel_total);
}

int main(void) {
  kernel_seed(14);
  make_image();
  make_tables();
  Checksum sum = CHECKSUM_INIT;
  for (int pass = 0; pass < PASSES; pass++) {
    smooth_gaussian();
    smooth_susan();
    susan_edges();
    sobel_edges();
    sum = image_sums(sum);
    image[HEIGHT / 2][pass * 7] ^= 0x40; /* the next pass processes slightly different data */
  }
  checksum_print("susan", sum);
  return 0;
}
