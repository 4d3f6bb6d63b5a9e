/* IIR filtering (UTDSP "iir" style): a cascade of four biquad sections in single precision, run
 * sample by sample (sections inner) and block by block (samples inner), plus the output power. */
#include "kernel.h"

enum {
  SAMPLES = 32768,
  SECTIONS = 4,
  PASSES = 4,
};

/* Direct form I coefficients (b0 b1 b2 a1 a2, a0 = 1): low-pass and peaking sections. */
static const float coefficients[SECTIONS][5] = {
    {0.0675f, 0.1349f, 0.0675f, -1.1430f, 0.4128f},
    {0.2929f, 0.5858f, 0.2929f, 0.0000f, 0.1716f},
    {1.0320f, -1.8330f, 0.8440f, -1.8330f, 0.8760f},
    {0.9560f, -1.6890f, 0.7800f, -1.6890f, 0.7360f},
};

static float input[SAMPLES];
static float output[SAMPLES];
static float block[SAMPLES];

static void make_input(void) {
  float phase = 0.0f;
  for (int n = 0; n < SAMPLES; n++) {
    phase += 0.01f + 0.1f * (float)n / SAMPLES;
    if (phase > 1.0f) phase -= 2.0f;
    input[n] = phase * 0.5f + (float)kernel_random_unit() * 0.25f;
  }
}

/* Sample by sample: each sample runs through all sections before the next one is read. */
static void cascade_by_sample(void) {
  float x1[SECTIONS] = {0}, x2[SECTIONS] = {0}, y1[SECTIONS] = {0}, y2[SECTIONS] = {0};
  for (int n = 0; n < SAMPLES; n++) {
    float x = input[n];
    for (int s = 0; s < SECTIONS; s++) {
      const float* c = coefficients[s];
      float y = c[0] * x + c[1] * x1[s] + c[2] * x2[s] - c[3] * y1[s] - c[4] * y2[s];
      x2[s] = x1[s];
      x1[s] = x;
      y2[s] = y1[s];
      y1[s] = y;
      x = y;
    }
    output[n] = x;
  }
}

/* Block by block: one section over the whole block, then the next section. */
static void cascade_by_block(void) {
  memcpy(block, input, sizeof block);
  for (int s = 0; s < SECTIONS; s++) {
    const float* c = coefficients[s];
    float x1 = 0, x2 = 0, y1 = 0, y2 = 0;
    for (int n = 0; n < SAMPLES; n++) {
      float x = block[n];
      float y = c[0] * x + c[1] * x1 + c[2] * x2 - c[3] * y1 - c[4] * y2;
      x2 = x1;
      x1 = x;
      y2 = y1;
      y1 = y;
      block[n] = y;
    }
  }
}

static Checksum power_and_difference(Checksum sum) {
  double power = 0.0;
  uint32_t mismatches = 0;
  for (int n = 0; n < SAMPLES; n++) {
    power += (double)output[n] * output[n];
    mismatches += output[n] != block[n];
  }
  for (int n = 0; n < SAMPLES; n += 64) sum = checksum_add_double(sum, output[n]);
  sum = checksum_add_double(sum, power);
  return checksum_add(sum, mismatches);
}

int main(void) {
  kernel_seed(2);
  make_input();
  Checksum sum = CHECKSUM_INIT;
  for (int pass = 0; pass < PASSES; pass++) {
    cascade_by_sample();
    cascade_by_block();
    sum = power_and_difference(sum);
    input[pass] += 0.125f;
  }
  checksum_print("iir", sum);
  return 0;
}
