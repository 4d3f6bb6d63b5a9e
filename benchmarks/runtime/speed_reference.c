/* A run's speed reference for benchmarks/run-regimes, preloaded into the program
 * (LD_PRELOAD): two fixed workloads timed at the process's start and exit, the fastest of 8
 * tries each, appended to $SPEED_REFERENCE_OUT as
 * "pid=P latency=CYCLES throughput=CYCLES memory=CYCLES". The latency chain moves with the
 * core's clock; the throughput mix (independent multiply chains, L1 loads and stores) also with
 * a hyperthread sibling sharing the core's ports; the memory chase (dependent loads over 2 MiB,
 * past a core's L2) with the shared cache and memory. If a loop's run-to-run spread is the
 * machine's speed, it follows these. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <x86intrin.h>

enum { kTries = 8, kSteps = 5000, kWords = 512, kLines = 32768, kChase = 2000 };

static uint64_t latency_best = UINT64_MAX, throughput_best = UINT64_MAX, memory_best = UINT64_MAX;
static uint32_t* lines;  // lines[16 * i]: the next line of a random cycle over kLines lines
static uint32_t chased;  // where the chase stopped: each try goes on to lines it has not seen
static uint64_t words[kWords];
static volatile uint64_t sink;

static inline uint64_t serialized_tsc(void) {
  unsigned aux;
  _mm_lfence();
  uint64_t t = __rdtscp(&aux);
  _mm_lfence();
  return t;
}

static uint64_t latency_chain(void) {
  uint64_t x = 1, start = serialized_tsc();
  for (int i = 0; i < kSteps; i++) {
    __asm__ volatile("" : "+r"(x));
    x = x * 3 + 1;
  }
  uint64_t cycles = serialized_tsc() - start;
  sink = x;
  return cycles;
}

static uint64_t throughput_mix(void) {
  uint64_t a = 1, b = 2, c = 3, d = 4, start = serialized_tsc();
  for (int i = 0; i < kSteps; i++) {
    a = a * 5 + words[i & (kWords - 1)];
    b = b * 7 + words[(i + 64) & (kWords - 1)];
    c = (c * 9) ^ words[(i + 128) & (kWords - 1)];
    d = d * 11 + (a >> 3);
    words[(i * 7) & (kWords - 1)] = b ^ c;
    __asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d));
  }
  uint64_t cycles = serialized_tsc() - start;
  sink = a + b + c + d;
  return cycles;
}

// One random cycle through the lines (Sattolo's shuffle), so that no prefetcher guesses the next.
static void make_chase(void) {
  lines = malloc(sizeof(uint32_t) * 16 * kLines);
  if (!lines) return;
  uint32_t* order = malloc(sizeof(uint32_t) * kLines);
  if (!order) return;
  for (uint32_t i = 0; i < kLines; i++) order[i] = i;
  uint64_t state = 88172645463325252ull;
  for (uint32_t i = kLines - 1; i > 0; i--) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    uint32_t j = (uint32_t)(state % i), swap = order[i];
    order[i] = order[j], order[j] = swap;
  }
  for (uint32_t i = 0; i < kLines; i++) lines[16 * order[i]] = order[(i + 1) % kLines];
  free(order);
}

static uint64_t memory_chase(void) {
  uint32_t at = chased;
  uint64_t start = serialized_tsc();
  for (int i = 0; i < kChase; i++) at = lines[16 * at];
  uint64_t cycles = serialized_tsc() - start;
  chased = at;
  return cycles;
}

static void measure(void) {
  for (int t = 0; t < kTries; t++) {
    uint64_t latency = latency_chain(), throughput = throughput_mix();
    if (latency < latency_best) latency_best = latency;
    if (throughput < throughput_best) throughput_best = throughput;
    if (lines) {
      uint64_t memory = memory_chase();
      if (memory < memory_best) memory_best = memory;
    }
  }
}

__attribute__((constructor)) static void at_start(void) {
  make_chase();
  measure();
}

__attribute__((destructor)) static void at_exit(void) {
  const char* path = getenv("SPEED_REFERENCE_OUT");
  if (!path) return;
  measure();
  FILE* out = fopen(path, "a");
  if (!out) return;
  fprintf(out, "pid=%ld latency=%llu throughput=%llu memory=%llu\n", (long)getpid(),
          (unsigned long long)latency_best, (unsigned long long)throughput_best,
          (unsigned long long)memory_best);
  fclose(out);
}
