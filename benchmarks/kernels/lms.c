/* LMS adaptive filter (UTDSP "lms" style), single precision: a 32-tap adaptive filter learns an
 * unknown 32-tap system from its noisy output (system identification). */
#include "kernel.h"

enum {
  SAMPLES = 16384,
  TAPS = 32,
  PASSES = 3,
};

static const float step_size = 0.01f;

static float unknown_system[TAPS];
static float input[SAMPLES + TAPS];
static float desired[SAMPLES];
static float weights[TAPS];
static float errors[SAMPLES];

static void make_problem(void) {
  for (int k = 0; k < TAPS; k++)
    unknown_system[k] = (float)kernel_random_unit() * (float)(TAPS - k) / TAPS;
  for (int n = 0; n < SAMPLES + TAPS; n++) input[n] = (float)kernel_random_unit();
}

/* The unknown system's response plus a little measurement noise. */
static void make_desired(void) {
  for (int n = 0; n < SAMPLES; n++) {
    const float* x = &input[n];
    float y = 0.0f;
    for (int k = 0; k < TAPS; k++) y += unknown_system[k] * x[TAPS - 1 - k];
    desired[n] = y + 0.001f * (float)kernel_random_unit();
  }
}

static void adapt(void) {
  float delay_line[TAPS] = {0};
  for (int k = 0; k < TAPS; k++) weights[k] = 0.0f;
  for (int n = 0; n < SAMPLES; n++) {
    for (int k = TAPS - 1; k > 0; k--) delay_line[k] = delay_line[k - 1];
    delay_line[0] = input[n + TAPS - 1];
    float estimate = 0.0f;
    for (int k = 0; k < TAPS; k++) estimate += weights[k] * delay_line[k];
    float error = desired[n] - estimate;
    errors[n] = error;
    float scaled_error = step_size * error;
    for (int k = 0; k < TAPS; k++) weights[k] += scaled_error * delay_line[k];
  }
}

static Checksum misalignment(Checksum sum) {
  double distance = 0.0, norm = 0.0;
  for (int k = 0; k < TAPS; k++) {
    double difference = (double)weights[k] - unknown_system[k];
    distance += difference * difference;
    norm += (double)unknown_system[k] * unknown_system[k];
  }
  double late_error = 0.0;
  for (int n = SAMPLES - 1024; n < SAMPLES; n++) late_error += (double)errors[n] * errors[n];
  for (int k = 0; k < TAPS; k++) sum = checksum_add_double(sum, weights[k]);
  sum = checksum_add_double(sum, distance / norm);
  return checksum_add_double(sum, late_error);
}

int main(void) {
  kernel_seed(4);
  make_problem();
  Checksum sum = CHECKSUM_INIT;
  for (int pass = 0; pass < PASSES; pass++) {
    make_desired();
    adapt();
    sum = misalignment(sum);
  }
  checksum_print("lms", sum);
  return 0;
}
