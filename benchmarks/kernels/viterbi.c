/* Viterbi decoding (the channel decoder of MediaBench-era communication code): a rate-1/2,
 * constraint-length-7 convolutional code (generators 171 and 133 octal), a noisy channel with
 * 8-bit soft symbols, a 64-state soft-decision Viterbi decoder and the bit error count. */
#include "kernel.h"

enum {
  BITS = 16384,
  CONSTRAINT = 7,
  STATES = 1 << (CONSTRAINT - 1),
  GENERATOR_A = 0171,
  GENERATOR_B = 0133,
};

static uint8_t message[BITS + CONSTRAINT - 1]; /* ends with zeros that flush the encoder */
static int8_t symbols[2 * (BITS + CONSTRAINT - 1)];
static uint8_t decisions[BITS + CONSTRAINT - 1][STATES];
static uint8_t decoded[BITS + CONSTRAINT - 1];
static uint8_t expected_output[2 * STATES][2]; /* by (state << 1 | input bit) */
static uint64_t channel_flips;                 /* symbols whose sign the noise flipped */

static int parity(uint32_t value) { return __builtin_parity(value); }

static void make_tables(void) {
  for (int state = 0; state < STATES; state++)
    for (int bit = 0; bit < 2; bit++) {
      uint32_t shift_register = (uint32_t)(bit << (CONSTRAINT - 1) | state);
      expected_output[state << 1 | bit][0] = (uint8_t)parity(shift_register & GENERATOR_A);
      expected_output[state << 1 | bit][1] = (uint8_t)parity(shift_register & GENERATOR_B);
    }
}

/* State = the last six input bits, newest in bit 5. */
static void encode_and_transmit(void) {
  for (int i = 0; i < BITS; i++) message[i] = (uint8_t)(kernel_random() & 1);
  for (int i = BITS; i < BITS + CONSTRAINT - 1; i++) message[i] = 0;
  uint32_t state = 0;
  for (int i = 0; i < BITS + CONSTRAINT - 1; i++) {
    const uint8_t* out = expected_output[state << 1 | message[i]];
    for (int j = 0; j < 2; j++) {
      /* bit 0 -> +64, bit 1 -> -64, plus noise that sometimes flips the sign */
      int32_t symbol = (out[j] ? -64 : 64) + kernel_random_range(-90, 90);
      symbols[2 * i + j] = (int8_t)(symbol < -127 ? -127 : symbol > 127 ? 127 : symbol);
      channel_flips += (symbol < 0) != out[j];
    }
    state = (state >> 1) | (uint32_t)message[i] << (CONSTRAINT - 2);
  }
}

/* Branch metric: distance of the received pair from the pair a transition would send. */
static int32_t branch_metric(const int8_t* received, const uint8_t* sent) {
  return (sent[0] ? 127 + received[0] : 127 - received[0]) +
         (sent[1] ? 127 + received[1] : 127 - received[1]);
}

static void decode(void) {
  static uint32_t metrics[STATES], next_metrics[STATES];
  for (int state = 0; state < STATES; state++) metrics[state] = state == 0 ? 0 : 1u << 20;
  for (int i = 0; i < BITS + CONSTRAINT - 1; i++) {
    const int8_t* received = &symbols[2 * i];
    /* Add-compare-select: the new state s came from (s << 1) & 63 or that | 1, input bit s >> 5. */
    for (int state = 0; state < STATES; state++) {
      int bit = state >> (CONSTRAINT - 2);
      int from0 = (state << 1) & (STATES - 1), from1 = from0 | 1;
      uint32_t via0 =
          metrics[from0] + (uint32_t)branch_metric(received, expected_output[from0 << 1 | bit]);
      uint32_t via1 =
          metrics[from1] + (uint32_t)branch_metric(received, expected_output[from1 << 1 | bit]);
      decisions[i][state] = via1 < via0;
      next_metrics[state] = via1 < via0 ? via1 : via0;
    }
    uint32_t smallest = next_metrics[0];
    for (int state = 1; state < STATES; state++)
      if (next_metrics[state] < smallest) smallest = next_metrics[state];
    for (int state = 0; state < STATES; state++) metrics[state] = next_metrics[state] - smallest;
  }
  /* Traceback from state 0: the flush bits drove the encoder there. */
  uint32_t state = 0;
  for (int i = BITS + CONSTRAINT - 2; i >= 0; i--) {
    decoded[i] = (uint8_t)(state >> (CONSTRAINT - 2));
    state = ((state << 1) & (STATES - 1)) | decisions[i][state];
  }
}

int main(void) {
  kernel_seed(11);
  make_tables();
  encode_and_transmit();
  decode();
  uint64_t errors = 0, bits_hash = 0;
  for (int i = 0; i < BITS; i++) {
    errors += decoded[i] != message[i];
    bits_hash = bits_hash * 3u + decoded[i];
  }
  Checksum sum = checksum_add(CHECKSUM_INIT, errors);
  sum = checksum_add(sum, bits_hash);
  checksum_print("viterbi", checksum_add(sum, channel_flips));
  return 0;
}
