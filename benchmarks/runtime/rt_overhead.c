/* Cycles one instrumented loop entry costs, against the physical floor, in one interleaved run.
 *
 * Each round times a batch of ITERATIONS back-to-back executions of every variant, in a fresh
 * shuffled order, and reports ticks per execution:
 *   floor       lfence; rdtsc ... rdtscp; lfence  (the bare serialized TSC read pair)
 *   unserialized rdtsc ... rdtsc                  (reference)
 *   reads       rdtscp; lfence ... rdtscp; lfence (what the plugin emits, without the call)
 *   instrumented reads + __looprace_record        (the full entry/exit of an instrumented loop)
 * The ratio instrumented/floor is taken per round (same round, same machine state), then
 * summarized by its median and quartiles.
 *
 * usage: rt_overhead [rounds] [raw-output-file]
 * The runtime records only when LOOPRACE_OUT is set; without it the harness re-executes itself
 * with LOOPRACE_OUT=/dev/null so that the measured path is the recording one. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "looprace_rt.h"
#include "looprace_tsc.h"

#define ITERATIONS 1000
#define VARIANTS 4
#define BENCH_LOOP_ID UINT64_C(0x0123456789abcdef)

static volatile uint64_t sink;

static uint64_t run_floor(void) {
  uint32_t cpu;
  uint64_t start = looprace_tsc_read(&cpu), total = 0;
  for (int i = 0; i < ITERATIONS; ++i) {
    __builtin_ia32_lfence();
    uint64_t t0 = __builtin_ia32_rdtsc();
    unsigned aux;
    uint64_t t1 = __builtin_ia32_rdtscp(&aux);
    __builtin_ia32_lfence();
    total += t1 - t0;
  }
  sink = total;
  return looprace_tsc_read(&cpu) - start;
}

static uint64_t run_unserialized(void) {
  uint32_t cpu;
  uint64_t start = looprace_tsc_read(&cpu), total = 0;
  for (int i = 0; i < ITERATIONS; ++i) {
    uint64_t t0 = __builtin_ia32_rdtsc();
    uint64_t t1 = __builtin_ia32_rdtsc();
    total += t1 - t0;
  }
  sink = total;
  return looprace_tsc_read(&cpu) - start;
}

static uint64_t run_reads(void) {
  uint32_t cpu, cpu0, cpu1;
  uint64_t start = looprace_tsc_read(&cpu), total = 0;
  for (int i = 0; i < ITERATIONS; ++i) {
    uint64_t t0 = looprace_tsc_read(&cpu0);
    uint64_t t1 = looprace_tsc_read(&cpu1);
    total += t1 - t0 + (cpu0 != cpu1);
  }
  sink = total;
  return looprace_tsc_read(&cpu) - start;
}

static uint64_t run_instrumented(void) {
  uint32_t cpu, cpu0, cpu1;
  uint64_t start = looprace_tsc_read(&cpu);
  for (int i = 0; i < ITERATIONS; ++i) {
    uint64_t t0 = looprace_tsc_read(&cpu0);
    uint64_t t1 = looprace_tsc_read(&cpu1);
    __looprace_record(BENCH_LOOP_ID, t0, t1, cpu0, cpu1);
  }
  return looprace_tsc_read(&cpu) - start;
}

static const struct {
  const char* name;
  uint64_t (*run)(void);
} variants[VARIANTS] = {{"floor", run_floor},
                        {"unserialized", run_unserialized},
                        {"reads", run_reads},
                        {"instrumented", run_instrumented}};

static int compare_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Quantile q of sorted values, nearest rank. */
static double quantile(const double* sorted, int count, double q) {
  return sorted[(int)(q * (count - 1) + 0.5)];
}

static void summarize(const char* name, double* values, int rounds) {
  qsort(values, (size_t)rounds, sizeof *values, compare_double);
  printf("%-28s median %8.3f   q1 %8.3f   q3 %8.3f\n", name, quantile(values, rounds, 0.5),
         quantile(values, rounds, 0.25), quantile(values, rounds, 0.75));
}

int main(int argc, char** argv) {
  if (getenv("LOOPRACE_OUT") == NULL) {
    setenv("LOOPRACE_OUT", "/dev/null", 1);
    execv("/proc/self/exe", argv);
    perror("rt_overhead: re-exec with LOOPRACE_OUT=/dev/null");
    return 1;
  }
  int rounds = argc > 1 ? atoi(argv[1]) : 2000;
  if (rounds < 1) {
    fprintf(stderr, "rt_overhead: rounds must be a positive integer, got '%s'\n", argv[1]);
    return 2;
  }
  FILE* raw = NULL;
  if (argc > 2 && (raw = fopen(argv[2], "w")) == NULL) {
    perror(argv[2]);
    return 1;
  }
  double* ticks[VARIANTS];
  double* ratio = malloc(sizeof(double) * (size_t)rounds);
  double* reads_ratio = malloc(sizeof(double) * (size_t)rounds);
  for (int v = 0; v < VARIANTS; ++v) ticks[v] = malloc(sizeof(double) * (size_t)rounds);
  if (raw) fprintf(raw, "round floor unserialized reads instrumented\n");

  srand(42);
  for (int v = 0; v < VARIANTS; ++v) variants[v].run(); /* warm-up */
  for (int round = 0; round < rounds; ++round) {
    int order[VARIANTS] = {0, 1, 2, 3};
    for (int i = VARIANTS - 1; i > 0; --i) {
      int j = rand() % (i + 1), swap = order[i];
      order[i] = order[j];
      order[j] = swap;
    }
    for (int i = 0; i < VARIANTS; ++i)
      ticks[order[i]][round] = (double)variants[order[i]].run() / ITERATIONS;
    ratio[round] = ticks[3][round] / ticks[0][round];
    reads_ratio[round] = ticks[2][round] / ticks[0][round];
    if (raw)
      fprintf(raw, "%d %.2f %.2f %.2f %.2f\n", round, ticks[0][round], ticks[1][round],
              ticks[2][round], ticks[3][round]);
  }
  printf("TSC ticks per execution, %d rounds x %d executions, interleaved:\n", rounds, ITERATIONS);
  for (int v = 0; v < VARIANTS; ++v) summarize(variants[v].name, ticks[v], rounds);
  summarize("ratio instrumented/floor", ratio, rounds);
  summarize("ratio reads/floor", reads_ratio, rounds);
  if (raw) fclose(raw);
  return 0;
}
