/* Formatting of the record lines (docs/formats.md section 6) with async-signal-safe code only:
 * the runtime formats them in a signal handler. Also used by the parser's round-trip test. */
#ifndef LOOPRACE_RT_FORMAT_H
#define LOOPRACE_RT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RT_FORMAT_VERSION 1
/* Longest line either function writes, newline included: the loop line's fixed fields and up
 * to 64 histogram buckets of " b:entries:cycles" (at most 2 + 20 + 20 + 3 characters each). */
#define RT_LINE_MAX (320 + 64 * 45)
#define RT_HIST_MAX 64

struct rt_process_line {
  int64_t pid;
  int64_t ppid;
  int forked;
};

struct rt_loop_line {
  uint64_t id;
  uint64_t entries;
  uint64_t cycles;
  uint64_t min;
  uint64_t max;
  uint64_t migrated;
  uint64_t nested;
  uint64_t threads;
  /* Entry-cycle histogram: entries and summed cycles per bucket (runtime/rt_internal.h). */
  uint64_t hist_entries[RT_HIST_MAX];
  uint64_t hist_cycles[RT_HIST_MAX];
};

enum rt_exit_how { RT_EXIT_NORMAL, RT_EXIT_SIGNAL };

struct rt_end_line {
  uint64_t loops;
  enum rt_exit_how how;
  int64_t status;
  uint64_t tsc_hz;
  uint64_t probe;
  uint64_t probe_call;
  uint64_t dropped;
  /* What the machine did to the process while it ran: involuntary context switches (all
   * threads), nanoseconds its main thread waited runnable for a CPU, and the host's steal time
   * in clock ticks over the process's life (0 where the kernel does not say). */
  uint64_t nivcsw;
  uint64_t run_delay_ns;
  uint64_t steal_ticks;
  uint64_t off_cpu_ns; /* wall time less CPU time since start-up */
};

/* Each writes one '\n'-terminated line (at most RT_LINE_MAX bytes) at `out` and returns its
 * length. */
size_t rt_format_loop_line(char* out, const struct rt_process_line* process,
                           const struct rt_loop_line* loop);
size_t rt_format_end_line(char* out, const struct rt_process_line* process,
                          const struct rt_end_line* end);

#ifdef __cplusplus
}
#endif

#endif
