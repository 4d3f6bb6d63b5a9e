/* Radix-2 FFT (UTDSP "fft" style), double precision: forward transform of 1024-point frames,
 * power spectrum, inverse transform, and the round-trip error. */
#include "kernel.h"

enum {
  LOG2_POINTS = 10,
  POINTS = 1 << LOG2_POINTS,
  FRAMES = 24,
};

static double twiddle_re[POINTS / 2], twiddle_im[POINTS / 2];
static double signal_re[POINTS], signal_im[POINTS];
static double frame_re[POINTS], frame_im[POINTS];
static double power[POINTS / 2];

/* Twiddles w^k = exp(-2 pi i k / N) by repeated rotation: no libm, identical at every -O level. */
static void make_twiddles(void) {
  /* cos and sin of 2 pi / 1024, to double precision */
  const double step_cos = 0.99998117528260110909, step_sin = 0.00613588464915447536;
  double re = 1.0, im = 0.0;
  for (int k = 0; k < POINTS / 2; k++) {
    twiddle_re[k] = re;
    twiddle_im[k] = -im;
    double next_re = re * step_cos - im * step_sin;
    im = re * step_sin + im * step_cos;
    re = next_re;
  }
}

static void make_frame(int frame) {
  for (int n = 0; n < POINTS; n++) {
    int tone = (n * (7 + frame) + n * n / 97) % 64;
    signal_re[n] = (tone < 32 ? 0.5 : -0.5) + 0.1 * kernel_random_unit();
    signal_im[n] = 0.0;
  }
}

static void bit_reverse_copy(const double* re, const double* im) {
  for (int n = 0; n < POINTS; n++) {
    unsigned reversed = 0;
    for (int bit = 0; bit < LOG2_POINTS; bit++)
      reversed |= ((n >> bit) & 1u) << (LOG2_POINTS - 1 - bit);
    frame_re[reversed] = re[n];
    frame_im[reversed] = im[n];
  }
}

/* In-place decimation-in-time butterflies on frame_*; inverse uses conjugated twiddles. */
static void butterflies(int inverse) {
  for (int half = 1; half < POINTS; half *= 2) {
    int twiddle_stride = POINTS / (2 * half);
    for (int start = 0; start < POINTS; start += 2 * half) {
      for (int j = 0; j < half; j++) {
        double w_re = twiddle_re[j * twiddle_stride];
        double w_im = inverse ? -twiddle_im[j * twiddle_stride] : twiddle_im[j * twiddle_stride];
        int top = start + j, bottom = top + half;
        double t_re = w_re * frame_re[bottom] - w_im * frame_im[bottom];
        double t_im = w_re * frame_im[bottom] + w_im * frame_re[bottom];
        frame_re[bottom] = frame_re[top] - t_re;
        frame_im[bottom] = frame_im[top] - t_im;
        frame_re[top] += t_re;
        frame_im[top] += t_im;
      }
    }
  }
}

static Checksum transform_frame(Checksum sum) {
  bit_reverse_copy(signal_re, signal_im);
  butterflies(0);
  for (int k = 0; k < POINTS / 2; k++)
    power[k] = frame_re[k] * frame_re[k] + frame_im[k] * frame_im[k];
  static double spectrum_re[POINTS], spectrum_im[POINTS];
  memcpy(spectrum_re, frame_re, sizeof spectrum_re);
  memcpy(spectrum_im, frame_im, sizeof spectrum_im);
  bit_reverse_copy(spectrum_re, spectrum_im);
  butterflies(1);
  double error = 0.0;
  for (int n = 0; n < POINTS; n++) {
    double difference = frame_re[n] / POINTS - signal_re[n];
    error += difference * difference + frame_im[n] / POINTS * (frame_im[n] / POINTS);
  }
  for (int k = 0; k < POINTS / 2; k += 8) sum = checksum_add_double(sum, power[k]);
  return checksum_add_double(sum, error);
}

int main(void) {
  kernel_seed(5);
  make_twiddles();
  Checksum sum = CHECKSUM_INIT;
  for (int frame = 0; frame < FRAMES; frame++) {
    make_frame(frame);
    sum = transform_frame(sum);
  }
  checksum_print("fft", sum);
  return 0;
}
