/* ADPCM speech coding (MediaBench "adpcm" style): the IMA/DVI 4-bit ADPCM algorithm, encoder and
 * decoder written for this suite, run over generated speech-like audio. */
#include "kernel.h"

enum {
  SAMPLES = 131072,
  PASSES = 2,
};

static const int8_t index_adjust[8] = {-1, -1, -1, -1, 2, 4, 6, 8};

/* The IMA ADPCM quantizer step sizes (a published standard table). */
static const int16_t step_sizes[89] = {
    7,     8,     9,     10,    11,    12,    13,    14,    16,    17,    19,   21,    23,
    25,    28,    31,    34,    37,    41,    45,    50,    55,    60,    66,   73,    80,
    88,    97,    107,   118,   130,   143,   157,   173,   190,   209,   230,  253,   279,
    307,   337,   371,   408,   449,   494,   544,   598,   658,   724,   796,  876,   963,
    1060,  1166,  1282,  1411,  1552,  1707,  1878,  2066,  2272,  2499,  2749, 3024,  3327,
    3660,  4026,  4428,  4871,  5358,  5894,  6484,  7132,  7845,  8630,  9493, 10442, 11487,
    12635, 13899, 15289, 16818, 18500, 20350, 22385, 24623, 27086, 29794, 32767};

typedef struct {
  int32_t predicted;
  int32_t index;
} CoderState;

static int16_t audio[SAMPLES];
static uint8_t packed[SAMPLES / 2];
static int16_t decoded[SAMPLES];

/* Voiced-speech-like audio: a pulse train with a gliding pitch through a decaying resonance, an
 * envelope in syllables, and noise. */
static void make_audio(void) {
  int32_t resonance = 0, previous = 0, phase = 0;
  for (int n = 0; n < SAMPLES; n++) {
    int32_t pitch_period = 60 + (n / 400) % 40;
    phase = (phase + 1) % pitch_period;
    int32_t excitation = (phase == 0 ? 12000 : 0) + kernel_random_range(-300, 300);
    int32_t next = excitation + (resonance * 29) / 16 - (previous * 15) / 16;
    previous = resonance;
    resonance = next > 30000 ? 30000 : next < -30000 ? -30000 : next;
    int32_t envelope = (n % 4000) < 2500 ? (n % 4000) / 10 : (4000 - n % 4000) / 6;
    int32_t sample = resonance * envelope / 256;
    audio[n] = (int16_t)(sample > 32767 ? 32767 : sample < -32768 ? -32768 : sample);
  }
}

static int32_t clamp_sample(int32_t value) {
  return value > 32767 ? 32767 : value < -32768 ? -32768 : value;
}

static int32_t clamp_index(int32_t index) { return index < 0 ? 0 : index > 88 ? 88 : index; }

/* One 4-bit code: sign bit and three magnitude bits, each halving the step. */
static uint8_t encode_sample(CoderState* state, int32_t sample) {
  int32_t step = step_sizes[state->index];
  int32_t difference = sample - state->predicted;
  uint8_t code = 0;
  if (difference < 0) {
    code = 8;
    difference = -difference;
  }
  int32_t change = step >> 3;
  for (uint8_t bit = 4; bit != 0; bit >>= 1) {
    if (difference >= step) {
      code |= bit;
      difference -= step;
      change += step;
    }
    step >>= 1;
  }
  state->predicted = clamp_sample(code & 8 ? state->predicted - change : state->predicted + change);
  state->index = clamp_index(state->index + index_adjust[code & 7]);
  return code;
}

static void encode(void) {
  CoderState state = {0, 0};
  for (int n = 0; n < SAMPLES; n += 2) {
    uint8_t low = encode_sample(&state, audio[n]);
    uint8_t high = encode_sample(&state, audio[n + 1]);
    packed[n / 2] = (uint8_t)(low | high << 4);
  }
}

static void decode(void) {
  CoderState state = {0, 0};
  for (int n = 0; n < SAMPLES; n++) {
    uint8_t code = n % 2 == 0 ? packed[n / 2] & 0xF : packed[n / 2] >> 4;
    int32_t step = step_sizes[state.index];
    int32_t change = step >> 3;
    if (code & 4) change += step;
    if (code & 2) change += step >> 1;
    if (code & 1) change += step >> 2;
    state.predicted = clamp_sample(code & 8 ? state.predicted - change : state.predicted + change);
    state.index = clamp_index(state.index + index_adjust[code & 7]);
    decoded[n] = (int16_t)state.predicted;
  }
}

static Checksum quality(Checksum sum) {
  int64_t signal = 0, noise = 0;
  for (int n = 0; n < SAMPLES; n++) {
    int32_t error = decoded[n] - audio[n];
    signal += audio[n] * audio[n];
    noise += error * error;
  }
  uint64_t codes = 0;
  for (int n = 0; n < SAMPLES / 2; n++) codes = codes * 131u + packed[n];
  sum = checksum_add(sum, (uint64_t)signal);
  sum = checksum_add(sum, (uint64_t)noise);
  return checksum_add(sum, codes);
}

int main(void) {
  kernel_seed(7);
  make_audio();
  Checksum sum = CHECKSUM_INIT;
  for (int pass = 0; pass < PASSES; pass++) {
    encode();
    decode();
    sum = quality(sum);
    audio[pass] ^= 0x11;
  }
  checksum_print("adpcm", sum);
  return 0;
}
