/* FIR filtering (UTDSP "fir" style): a 32-tap low-pass filter, a 4:1 decimating 64-tap filter and
 * the output's energy and peak, in Q15 fixed point. */
#include "kernel.h"

enum {
  SAMPLES = 65536,
  TAPS = 32,
  DECIMATION_TAPS = 64,
  DECIMATION = 4,
  PASSES = 4,
};

static int16_t input[SAMPLES + DECIMATION_TAPS];
static int16_t lowpass[TAPS], decimation_filter[DECIMATION_TAPS];
static int16_t filtered[SAMPLES];
static int16_t decimated[SAMPLES / DECIMATION];

/* A square wave with a slowly rising pitch, a triangle wave and noise. */
static void make_input(void) {
  int32_t phase = 0;
  for (int n = 0; n < SAMPLES + DECIMATION_TAPS; n++) {
    int32_t period = 40 + n / 2048;
    phase = (phase + 1) % period;
    int32_t square = phase < period / 2 ? 6000 : -6000;
    int32_t triangle = (n % 512 < 256 ? n % 256 : 255 - n % 256) * 32 - 4096;
    input[n] = (int16_t)(square + triangle + kernel_random_range(-2048, 2048));
  }
}

/* Triangular windows scaled so that the taps sum to about 1.0 in Q15. */
static void make_filters(void) {
  int32_t sum = 0;
  for (int k = 0; k < TAPS; k++) sum += (k + 1) * (TAPS - k);
  for (int k = 0; k < TAPS; k++) lowpass[k] = (int16_t)((k + 1) * (TAPS - k) * 32767 / sum);
  sum = 0;
  for (int k = 0; k < DECIMATION_TAPS; k++) sum += (k + 1) * (DECIMATION_TAPS - k);
  for (int k = 0; k < DECIMATION_TAPS; k++)
    decimation_filter[k] = (int16_t)((k + 1) * (DECIMATION_TAPS - k) * 32767 / sum);
}

static int16_t saturate16(int32_t value) {
  return (int16_t)(value > 32767 ? 32767 : value < -32768 ? -32768 : value);
}

static void fir_lowpass(void) {
  for (int n = 0; n < SAMPLES; n++) {
    int32_t acc = 0;
    for (int k = 0; k < TAPS; k++) acc += lowpass[k] * input[n + k];
    filtered[n] = saturate16(acc >> 15);
  }
}

static void fir_decimate(void) {
  for (int m = 0; m < SAMPLES / DECIMATION; m++) {
    const int16_t* x = &input[m * DECIMATION];
    int32_t acc = 0;
    for (int k = 0; k < DECIMATION_TAPS; k++) acc += decimation_filter[k] * x[k];
    decimated[m] = saturate16(acc >> 15);
  }
}

static Checksum energy_and_peak(Checksum sum) {
  int64_t energy = 0;
  int32_t peak = 0;
  for (int n = 0; n < SAMPLES; n++) {
    int32_t value = filtered[n];
    energy += value * value;
    if (value > peak) peak = value;
    if (-value > peak) peak = -value;
  }
  for (int m = 0; m < SAMPLES / DECIMATION; m++) sum = checksum_add(sum, (uint16_t)decimated[m]);
  sum = checksum_add(sum, (uint64_t)energy);
  return checksum_add(sum, (uint64_t)peak);
}

int main(void) {
  kernel_seed(1);
  make_input();
  make_filters();
  Checksum sum = CHECKSUM_INIT;
  for (int pass = 0; pass < PASSES; pass++) {
    fir_lowpass();
    fir_decimate();
    sum = energy_and_peak(sum);
    input[pass] ^= 0x55; /* the next pass filters slightly different data */
  }
  checksum_print("fir", sum);
  return 0;
}
