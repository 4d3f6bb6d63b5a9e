/* The serialized TSC read the looprace plugin emits on loop entry and on every loop exit
 * (docs/formats.md section 4): rdtscp waits for earlier instructions to finish, the lfence keeps
 * later ones from starting before the read. For hand-instrumented code, tests and benchmarks:
 *
 *   uint32_t cpu0, cpu1;
 *   uint64_t t0 = looprace_tsc_read(&cpu0);
 *   ... the loop ...
 *   uint64_t t1 = looprace_tsc_read(&cpu1);
 *   __looprace_record(id, t0, t1, cpu0, cpu1);
 */
#ifndef LOOPRACE_TSC_H
#define LOOPRACE_TSC_H

#include <stdint.h>

static inline __attribute__((always_inline)) uint64_t looprace_tsc_read(uint32_t* cpu) {
  unsigned int aux;
  uint64_t ticks = __builtin_ia32_rdtscp(&aux);
  __builtin_ia32_lfence();
  *cpu = aux;
  return ticks;
}

/* The cheaper entry read the plugin emits with -fplugin-arg-looprace-entry-cpu=rdpid: the
 * processor id by rdpid, then the floor's `lfence; rdtsc`. Only for CPUs that have rdpid
 * (CPUID leaf 7, ECX bit 22); others fault. */
static inline __attribute__((always_inline)) uint64_t looprace_tsc_read_entry_rdpid(uint32_t* cpu) {
  uint64_t id;
  __asm__ volatile("rdpid %0" : "=r"(id));
  __builtin_ia32_lfence();
  *cpu = (uint32_t)id;
  return __builtin_ia32_rdtsc();
}

#endif
