/* Shared between the runtime's files; not installed. */
#ifndef LOOPRACE_RT_INTERNAL_H
#define LOOPRACE_RT_INTERNAL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "rt_format.h"

/* Distinct loops one thread can record (a power of two); more are counted in `dropped`. */
#define RT_TABLE_BITS 10
#define RT_TABLE_SLOTS (1u << RT_TABLE_BITS)

/* Entry-cycle histogram buckets, one per octave: bucket b holds the entries of 2^b to 2^(b+1) - 1
 * cycles (bucket 0 also those of 0 cycles). The driver tells an interrupted or preempted entry
 * from the loop's own work with it. */
#define RT_HIST_BUCKETS RT_HIST_MAX

/* Bucket of an entry of `cycles` ticks: its bit length less one, a single bsr. */
static inline unsigned rt_hist_bucket(uint64_t cycles) {
  return 63u - (unsigned)__builtin_clzll(cycles | 1);
}

/* Entries and their summed cycles in one bucket of one loop. */
struct rt_bucket {
  _Atomic uint64_t entries;
  _Atomic uint64_t cycles;
};

/* One loop in one table, one cache line. The owning thread writes it with plain (relaxed)
 * loads and stores, no read-modify-write; the exit writer may read it concurrently, hence the
 * atomic types. `entries` is stored last with release order and is 0 while the slot is free. */
struct rt_slot {
  _Alignas(64) _Atomic uint64_t entries;
  _Atomic uint64_t id;
  _Atomic uint64_t cycles;
  _Atomic uint64_t min;
  _Atomic uint64_t max;
  _Atomic uint64_t migrated;
  _Atomic uint64_t nested;
  /* End of the owner thread's latest finished activation; 0 when the current owner has not
   * recorded this loop. An activation that began before it enclosed that one (nesting). */
  _Atomic uint64_t last_t1;
};

/* The loop table of one thread at a time. Tables are never freed: when a thread exits its table
 * goes back to the pool with its counts, and the next new thread continues adding to them, so
 * nothing needs merging until process exit. The counters (slots, finished_threads) come first,
 * page-aligned, so a fork child can zero them with madvise instead of copying them. */
struct rt_table {
  struct rt_slot slots[RT_TABLE_SLOTS];
  struct rt_bucket histograms[RT_TABLE_SLOTS][RT_HIST_BUCKETS]; /* per slot, by rt_hist_bucket */
  /* Per slot: threads that recorded the loop and have since released this table. */
  _Atomic uint32_t finished_threads[RT_TABLE_SLOTS];
  _Alignas(4096) _Atomic uint64_t dropped; /* entries that found the table full */
  _Atomic int in_use;                      /* owned by a live thread */
  struct rt_table* next;                   /* registry link, set before publication */
};

/* Byte count of the counters at the start of struct rt_table. */
#define RT_TABLE_COUNTERS_SIZE offsetof(struct rt_table, dropped)

/* Set once at start-up when LOOPRACE_OUT names a usable destination. */
extern _Atomic int rt_enabled;

/* Makes `table` the calling thread's table (NULL: the thread claims one on its next record) and
 * returns the previous one. Used to measure the probe against a scratch table. */
struct rt_table* rt_swap_thread_table(struct rt_table* table);
/* Start-up: creates the thread-exit key. Returns 0 on failure. */
int rt_tables_init(void);
/* In a fork child: forgets every count inherited from the parent. */
void rt_tables_reset_after_fork(void);
/* Sums every table into `out` (loops sorted by id); returns the number of loops. Entries that
 * did not fit are added to *dropped. Async-signal-safe. */
uint64_t rt_tables_collect(struct rt_loop_line* out, uint64_t* dropped);

/* Clock (rt_clock.c). */
void rt_clock_start(void);
/* TSC ticks per second; async-signal-safe. */
uint64_t rt_clock_tsc_hz(void);
/* Measures the probe cost: median t1 - t0 of an empty region, and median ticks added by an
 * empty entry/exit pair with its __looprace_record call. */
void rt_clock_measure_probe(uint64_t* probe, uint64_t* probe_call);

/* Machine disturbance (rt_machine.c). At start-up: remembers the steal counter and the time. At
 * exit, async-signal-safe: involuntary context switches, run-queue wait of the calling thread
 * (ns), steal ticks since start-up, and the ns of wall time the process spent off every CPU
 * (wall time less its CPU time, over all its threads). */
void rt_machine_start(void);
void rt_machine_read(uint64_t* nivcsw, uint64_t* run_delay_ns, uint64_t* steal_ticks,
                     uint64_t* off_cpu_ns);

#endif
