/* Cycles one instrumented loop entry costs, against the physical floor, in one interleaved run.
 *
 * Each round times a batch of back-to-back executions of every variant, in a fresh shuffled
 * order, and reports ticks per execution:
 *   floor         lfence; rdtsc ... rdtscp; lfence  (the bare serialized TSC read pair)
 *   unserialized  rdtsc ... rdtsc                   (reference)
 *   reads         rdtscp; lfence ... rdtscp; lfence (what the plugin emits, without the call)
 *   instrumented  reads + __looprace_record         (the full entry/exit of an empty loop)
 *   instrumented_rdpid  the same with the entry-cpu=rdpid entry (needs a CPU with rdpid)
 *   fir           one call of fir_filter_block on 512 samples (a real loop entry, >= 12,000
 *                 cycles; the same function code in both fir variants, so no layout effect)
 *   fir_floor     the same call inside the floor pair
 *   fir_reads     the same call inside the plugin's reads, without the runtime call
 *   fir_instrumented  the same call inside the full instrumented entry/exit
 * Ratios are taken per round (same round, same machine state), then summarized by their median
 * and quartiles: instrumented/floor (target <= 1.25) and fir_instrumented/fir (the slowdown of a
 * real entry; target <= 1.005), with fir_instrumented - fir the ticks added in context.
 *
 * usage: rt_overhead [rounds] [raw-output-file]
 * The runtime records only when LOOPRACE_OUT is set; without it the harness re-executes itself
 * with LOOPRACE_OUT=/dev/null so that the measured path is the recording one. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fir_kernel.h"
#include "looprace_rt.h"
#include "looprace_tsc.h"

#define ITERATIONS 1000
#define FIR_ITERATIONS 20
#define FIR_LENGTH 512
#define VARIANTS 9
#define BENCH_LOOP_ID UINT64_C(0x0123456789abcdef)

static volatile uint64_t sink;
static float fir_coefficients[FIR_TAPS];
static float fir_in[FIR_LENGTH + FIR_TAPS - 1];
static float fir_out[FIR_LENGTH];

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

/* The empty loop's full entry and exit; `rdpid` is a constant at each call, so the branch
 * folds away and each variant times only its own entry read. */
static inline __attribute__((always_inline)) uint64_t instrumented_batch(int rdpid) {
  uint32_t cpu, cpu0, cpu1;
  uint64_t start = looprace_tsc_read(&cpu);
  for (int i = 0; i < ITERATIONS; ++i) {
    uint64_t t0 = rdpid ? looprace_tsc_read_entry_rdpid(&cpu0) : looprace_tsc_read(&cpu0);
    uint64_t t1 = looprace_tsc_read(&cpu1);
    __looprace_record(BENCH_LOOP_ID, t0, t1, cpu0, cpu1);
  }
  return looprace_tsc_read(&cpu) - start;
}

static uint64_t run_instrumented(void) { return instrumented_batch(0); }

static uint64_t run_instrumented_rdpid(void) { return instrumented_batch(1); }

static uint64_t run_fir(void) {
  uint32_t cpu;
  uint64_t start = looprace_tsc_read(&cpu);
  for (int i = 0; i < FIR_ITERATIONS; ++i)
    fir_filter_block(fir_coefficients, fir_in, fir_out, FIR_LENGTH);
  return looprace_tsc_read(&cpu) - start;
}

static uint64_t run_fir_floor(void) {
  uint32_t cpu;
  uint64_t start = looprace_tsc_read(&cpu), total = 0;
  for (int i = 0; i < FIR_ITERATIONS; ++i) {
    __builtin_ia32_lfence();
    uint64_t t0 = __builtin_ia32_rdtsc();
    fir_filter_block(fir_coefficients, fir_in, fir_out, FIR_LENGTH);
    unsigned aux;
    uint64_t t1 = __builtin_ia32_rdtscp(&aux);
    __builtin_ia32_lfence();
    total += t1 - t0;
  }
  sink = total;
  return looprace_tsc_read(&cpu) - start;
}

static uint64_t run_fir_reads(void) {
  uint32_t cpu, cpu0, cpu1;
  uint64_t start = looprace_tsc_read(&cpu), total = 0;
  for (int i = 0; i < FIR_ITERATIONS; ++i) {
    uint64_t t0 = looprace_tsc_read(&cpu0);
    fir_filter_block(fir_coefficients, fir_in, fir_out, FIR_LENGTH);
    uint64_t t1 = looprace_tsc_read(&cpu1);
    total += t1 - t0 + (cpu0 != cpu1);
  }
  sink = total;
  return looprace_tsc_read(&cpu) - start;
}

static uint64_t run_fir_instrumented(void) {
  uint32_t cpu, cpu0, cpu1;
  uint64_t start = looprace_tsc_read(&cpu);
  for (int i = 0; i < FIR_ITERATIONS; ++i) {
    uint64_t t0 = looprace_tsc_read(&cpu0);
    fir_filter_block(fir_coefficients, fir_in, fir_out, FIR_LENGTH);
    uint64_t t1 = looprace_tsc_read(&cpu1);
    __looprace_record(BENCH_LOOP_ID + 1, t0, t1, cpu0, cpu1);
  }
  return looprace_tsc_read(&cpu) - start;
}

enum {
  FLOOR,
  UNSERIALIZED,
  READS,
  INSTRUMENTED,
  FIR,
  FIR_FLOOR,
  FIR_READS,
  FIR_INSTRUMENTED,
  INSTRUMENTED_RDPID
};

static const struct {
  const char* name;
  uint64_t (*run)(void);
  int iterations;
} variants[VARIANTS] = {{"floor", run_floor, ITERATIONS},
                        {"unserialized", run_unserialized, ITERATIONS},
                        {"reads", run_reads, ITERATIONS},
                        {"instrumented", run_instrumented, ITERATIONS},
                        {"fir", run_fir, FIR_ITERATIONS},
                        {"fir_floor", run_fir_floor, FIR_ITERATIONS},
                        {"fir_reads", run_fir_reads, FIR_ITERATIONS},
                        {"fir_instrumented", run_fir_instrumented, FIR_ITERATIONS},
                        {"instrumented_rdpid", run_instrumented_rdpid, ITERATIONS}};

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
  printf("%-30s median %8.3f   q1 %8.3f   q3 %8.3f\n", name, quantile(values, rounds, 0.5),
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
  double* rdpid_ratio = malloc(sizeof(double) * (size_t)rounds);
  double* fir_ratio = malloc(sizeof(double) * (size_t)rounds);
  double* fir_added = malloc(sizeof(double) * (size_t)rounds);
  double* fir_floor_ratio = malloc(sizeof(double) * (size_t)rounds);
  double* fir_floor_added = malloc(sizeof(double) * (size_t)rounds);
  for (int v = 0; v < VARIANTS; ++v) ticks[v] = malloc(sizeof(double) * (size_t)rounds);
  if (raw) {
    fprintf(raw, "round");
    for (int v = 0; v < VARIANTS; ++v) fprintf(raw, " %s", variants[v].name);
    fprintf(raw, "\n");
  }
  for (int k = 0; k < FIR_TAPS; ++k) fir_coefficients[k] = 1.0f / (float)(k + 2);
  for (int n = 0; n < FIR_LENGTH + FIR_TAPS - 1; ++n) fir_in[n] = (float)((n * 7919) % 1000) / 1000;

  srand(42);
  for (int v = 0; v < VARIANTS; ++v) variants[v].run(); /* warm-up */
  for (int round = 0; round < rounds; ++round) {
    int order[VARIANTS];
    for (int v = 0; v < VARIANTS; ++v) order[v] = v;
    for (int i = VARIANTS - 1; i > 0; --i) {
      int j = rand() % (i + 1), swap = order[i];
      order[i] = order[j];
      order[j] = swap;
    }
    for (int i = 0; i < VARIANTS; ++i)
      ticks[order[i]][round] = (double)variants[order[i]].run() / variants[order[i]].iterations;
    ratio[round] = ticks[INSTRUMENTED][round] / ticks[FLOOR][round];
    reads_ratio[round] = ticks[READS][round] / ticks[FLOOR][round];
    rdpid_ratio[round] = ticks[INSTRUMENTED_RDPID][round] / ticks[FLOOR][round];
    fir_ratio[round] = ticks[FIR_INSTRUMENTED][round] / ticks[FIR][round];
    fir_added[round] = ticks[FIR_INSTRUMENTED][round] - ticks[FIR][round];
    fir_floor_ratio[round] = ticks[FIR_FLOOR][round] / ticks[FIR][round];
    fir_floor_added[round] = ticks[FIR_FLOOR][round] - ticks[FIR][round];
    if (raw) {
      fprintf(raw, "%d", round);
      for (int v = 0; v < VARIANTS; ++v) fprintf(raw, " %.2f", ticks[v][round]);
      fprintf(raw, "\n");
    }
  }
  printf("TSC ticks per execution, %d rounds (batches of %d, fir %d), interleaved:\n", rounds,
         ITERATIONS, FIR_ITERATIONS);
  for (int v = 0; v < VARIANTS; ++v) summarize(variants[v].name, ticks[v], rounds);
  summarize("ratio instrumented/floor", ratio, rounds);
  summarize("ratio reads/floor", reads_ratio, rounds);
  summarize("ratio instrumented_rdpid/floor", rdpid_ratio, rounds);
  summarize("ratio fir_instrumented/fir", fir_ratio, rounds);
  summarize("ticks added to a fir entry", fir_added, rounds);
  summarize("ratio fir_floor/fir", fir_floor_ratio, rounds);
  summarize("ticks the floor adds to fir", fir_floor_added, rounds);
  if (raw) fclose(raw);
  return 0;
}
