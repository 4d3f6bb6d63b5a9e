/* CRC-32 (MiBench "crc32" style): the reflected IEEE 802.3 polynomial computed bit by bit, with a
 * 256-entry table, and with four tables (slicing by 4), over one long buffer and many short
 * packets. Every method must give the same CRC. */
#include "kernel.h"

enum {
  BUFFER_BYTES = 262144,
  PACKETS = 8192,
  PACKET_MAX = 64,
  PASSES = 4,
};

#define POLYNOMIAL 0xEDB88320u

static uint8_t buffer[BUFFER_BYTES];
static uint32_t table[4][256];
static uint32_t packet_crcs[PACKETS];
/* Start offset and length of each packet within the buffer. */
static int32_t packet_start[PACKETS], packet_length[PACKETS];

/* Text-like bytes with runs of zeros, as in a file system image. */
static void make_buffer(void) {
  for (int n = 0; n < BUFFER_BYTES; n++)
    buffer[n] = kernel_random() % 8 == 0 ? 0 : (uint8_t)kernel_random_range(32, 126);
  for (int p = 0; p < PACKETS; p++) {
    packet_length[p] = kernel_random_range(1, PACKET_MAX);
    packet_start[p] = kernel_random_range(0, BUFFER_BYTES - PACKET_MAX);
  }
}

static void make_tables(void) {
  for (uint32_t byte = 0; byte < 256; byte++) {
    uint32_t crc = byte;
    for (int bit = 0; bit < 8; bit++) crc = (crc >> 1) ^ (POLYNOMIAL & (0u - (crc & 1u)));
    table[0][byte] = crc;
  }
  for (int t = 1; t < 4; t++)
    for (int byte = 0; byte < 256; byte++)
      table[t][byte] = (table[t - 1][byte] >> 8) ^ table[0][table[t - 1][byte] & 0xFF];
}

static uint32_t crc_bitwise(const uint8_t* data, int length) {
  uint32_t crc = 0xFFFFFFFFu;
  for (int n = 0; n < length; n++) {
    crc ^= data[n];
    for (int bit = 0; bit < 8; bit++) crc = (crc >> 1) ^ (POLYNOMIAL & (0u - (crc & 1u)));
  }
  return ~crc;
}

static uint32_t crc_table(const uint8_t* data, int length) {
  uint32_t crc = 0xFFFFFFFFu;
  for (int n = 0; n < length; n++) crc = (crc >> 8) ^ table[0][(crc ^ data[n]) & 0xFF];
  return ~crc;
}

/* Four bytes per step; the tail (length % 4 bytes) goes byte by byte. */
static uint32_t crc_slice4(const uint8_t* data, int length) {
  uint32_t crc = 0xFFFFFFFFu;
  int n = 0;
  for (; n + 4 <= length; n += 4) {
    crc ^= (uint32_t)data[n] | (uint32_t)data[n + 1] << 8 | (uint32_t)data[n + 2] << 16 |
           (uint32_t)data[n + 3] << 24;
    crc = table[3][crc & 0xFF] ^ table[2][(crc >> 8) & 0xFF] ^ table[1][(crc >> 16) & 0xFF] ^
          table[0][crc >> 24];
  }
  for (; n < length; n++) crc = (crc >> 8) ^ table[0][(crc ^ data[n]) & 0xFF];
  return ~crc;
}

/* Short packets: the inner loops run 1 to PACKET_MAX times. */
static Checksum crc_packets(Checksum sum) {
  uint32_t mismatches = 0;
  for (int p = 0; p < PACKETS; p++) {
    const uint8_t* data = &buffer[packet_start[p]];
    uint32_t crc = crc_table(data, packet_length[p]);
    if (crc != crc_slice4(data, packet_length[p])) mismatches++;
    if (p % 16 == 0 && crc != crc_bitwise(data, packet_length[p])) mismatches++;
    packet_crcs[p] = crc;
  }
  uint32_t combined = 0;
  for (int p = 0; p < PACKETS; p++) combined = (combined << 1 | combined >> 31) ^ packet_crcs[p];
  sum = checksum_add(sum, combined);
  return checksum_add(sum, mismatches);
}

int main(void) {
  kernel_seed(12);
  make_buffer();
  make_tables();
  Checksum sum = CHECKSUM_INIT;
  for (int pass = 0; pass < PASSES; pass++) {
    uint32_t by_bit = crc_bitwise(buffer, BUFFER_BYTES / 4);
    uint32_t by_table = crc_table(buffer, BUFFER_BYTES);
    uint32_t by_slice = crc_slice4(buffer, BUFFER_BYTES);
    sum = checksum_add(sum, by_bit);
    sum = checksum_add(sum, by_table);
    sum = checksum_add(sum, by_slice != by_table);
    sum = crc_packets(sum);
    buffer[pass * 4099] ^= 0x5A; /* the next pass checks slightly different data */
  }
  checksum_print("crc32", sum);
  return 0;
}
