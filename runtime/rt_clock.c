/* TSC frequency and probe cost, written with the records so the driver can convert and
 * correct cycle counts. */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "looprace_rt.h"
#include "looprace_tsc.h"
#include "rt_internal.h"

/* Shortest calibration window against CLOCK_MONOTONIC_RAW: clock reads cost tens of
 * nanoseconds, so 1 ms gives the frequency to about 1e-4. */
#define CALIBRATION_MIN_NS 1000000
#define PROBE_PAIRS 501
#define PROBE_BATCHES 31
#define PROBE_BATCH_CALLS 32
/* Loop id of the probe's records, which go to a scratch table and are never written. */
#define PROBE_LOOP_ID UINT64_C(0x6c6f6f7072616365)

static uint64_t known_tsc_hz;
static uint64_t start_ticks;
static uint64_t start_ns;

/* Decimal digits at the start of `text` (0 when there are none). */
static uint64_t leading_number(const char* text, size_t length) {
  uint64_t value = 0;
  for (size_t i = 0; i < length && text[i] >= '0' && text[i] <= '9'; ++i)
    value = value * 10 + (uint64_t)(text[i] - '0');
  return value;
}

/* The driver passes the frequency its first run measured (LOOPRACE_TSC_HZ), so that no later
 * run waits for a calibration window: a program shorter than it would otherwise last 1 ms. */
static uint64_t given_tsc_hz(void) {
  const char* given = getenv("LOOPRACE_TSC_HZ");
  return given == NULL ? 0 : leading_number(given, 20);
}

/* The kernel knows the TSC frequency on some machines (not in most VMs). */
static uint64_t read_kernel_tsc_hz(void) {
  int fd = open("/sys/devices/system/cpu/cpu0/tsc_freq_khz", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[32];
  ssize_t length = read(fd, text, sizeof text - 1);
  close(fd);
  return length > 0 ? leading_number(text, (size_t)length) * 1000 : 0;
}

/* A TSC value and the CLOCK_MONOTONIC_RAW time taken at the same moment (the middle of two
 * TSC reads around the clock read). */
static void sample_clocks(uint64_t* ticks, uint64_t* ns) {
  uint32_t cpu;
  struct timespec now;
  uint64_t before = looprace_tsc_read(&cpu);
  clock_gettime(CLOCK_MONOTONIC_RAW, &now);
  uint64_t after = looprace_tsc_read(&cpu);
  *ticks = before + (after - before) / 2;
  *ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

void rt_clock_start(void) {
  known_tsc_hz = given_tsc_hz();
  if (known_tsc_hz == 0) known_tsc_hz = read_kernel_tsc_hz();
  if (known_tsc_hz == 0) sample_clocks(&start_ticks, &start_ns);
}

uint64_t rt_clock_tsc_hz(void) {
  if (known_tsc_hz != 0) return known_tsc_hz;
  uint64_t ticks, ns;
  do sample_clocks(&ticks, &ns);
  while (ns - start_ns < CALIBRATION_MIN_NS);
  return (uint64_t)((double)(ticks - start_ticks) * 1e9 / (double)(ns - start_ns) + 0.5);
}

static int compare_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return (x > y) - (x < y);
}

static uint64_t median(uint64_t* values, size_t count) {
  qsort(values, count, sizeof *values, compare_u64);
  return values[count / 2];
}

void rt_clock_measure_probe(uint64_t* probe, uint64_t* probe_call) {
  static struct rt_table scratch;
  uint64_t samples[PROBE_PAIRS];
  uint32_t cpu0, cpu1;
  for (size_t i = 0; i < PROBE_PAIRS; ++i) {
    uint64_t t0 = looprace_tsc_read(&cpu0);
    uint64_t t1 = looprace_tsc_read(&cpu1);
    samples[i] = t1 - t0;
  }
  *probe = median(samples, PROBE_PAIRS);

  struct rt_table* previous = rt_swap_thread_table(&scratch);
  for (size_t batch = 0; batch < PROBE_BATCHES; ++batch) {
    uint64_t start = looprace_tsc_read(&cpu0);
    for (size_t call = 0; call < PROBE_BATCH_CALLS; ++call) {
      uint64_t t0 = looprace_tsc_read(&cpu0);
      uint64_t t1 = looprace_tsc_read(&cpu1);
      __looprace_record(PROBE_LOOP_ID, t0, t1, cpu0, cpu1);
    }
    samples[batch] = (looprace_tsc_read(&cpu1) - start) / PROBE_BATCH_CALLS;
  }
  rt_swap_thread_table(previous);
  *probe_call = median(samples, PROBE_BATCHES);
}
