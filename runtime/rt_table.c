/* The hot path and the per-thread loop tables. */
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "looprace_rt.h"
#include "rt_internal.h"

/* initial-exec: one %fs-relative load in the executable (the linker relaxes it to local-exec)
 * and still valid when the archive is linked into a shared object loaded at start-up. */
static __thread struct rt_table* thread_table __attribute__((tls_model("initial-exec")));
static _Atomic(struct rt_table*) registry;
static pthread_key_t release_key;
/* Entries lost because no table could be mapped for their thread. */
static _Atomic uint64_t unmapped_entries;

static inline uint64_t load(const _Atomic uint64_t* counter) {
  return atomic_load_explicit(counter, memory_order_relaxed);
}

static inline void store(_Atomic uint64_t* counter, uint64_t value) {
  atomic_store_explicit(counter, value, memory_order_relaxed);
}

/* Fibonacci hashing: loop ids are hashes already, but tests and hand instrumentation use small
 * ids, which the multiplication spreads over the table. */
static inline size_t hash_index(uint64_t loop_id, unsigned bits) {
  return (size_t)((loop_id * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - bits));
}

/* Open addressing with linear probing; a slot is free while its entries count is 0. Returns
 * the slot's index (its histogram's too), or RT_TABLE_SLOTS when the table is full. */
static inline size_t find_slot(struct rt_table* table, uint64_t loop_id) {
  size_t index = hash_index(loop_id, RT_TABLE_BITS);
  for (unsigned probes = 0; probes < RT_TABLE_SLOTS; ++probes) {
    struct rt_slot* slot = &table->slots[index];
    if (load(&slot->entries) == 0) {
      store(&slot->id, loop_id);
      store(&slot->min, UINT64_MAX);
      return index;
    }
    if (load(&slot->id) == loop_id) return index;
    index = (index + 1) & (RT_TABLE_SLOTS - 1);
  }
  return RT_TABLE_SLOTS;
}

static void release_thread_table(void* value) {
  struct rt_table* table = value;
  for (unsigned i = 0; i < RT_TABLE_SLOTS; ++i) {
    struct rt_slot* slot = &table->slots[i];
    if (load(&slot->last_t1) == 0) continue;
    store(&slot->last_t1, 0);
    atomic_store_explicit(
        &table->finished_threads[i],
        atomic_load_explicit(&table->finished_threads[i], memory_order_relaxed) + 1,
        memory_order_relaxed);
  }
  if (thread_table == table) thread_table = NULL;
  atomic_store_explicit(&table->in_use, 0, memory_order_release);
}

/* A thread's first record: reuse a table released by an exited thread, or map a new one. */
static struct rt_table* claim_thread_table(void) {
  if (!atomic_load_explicit(&rt_enabled, memory_order_acquire)) return NULL;
  struct rt_table* table;
  for (table = atomic_load(&registry); table != NULL; table = table->next) {
    int released = 0;
    if (atomic_compare_exchange_strong(&table->in_use, &released, 1)) break;
  }
  if (table == NULL) {
    void* memory =
        mmap(NULL, sizeof *table, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) return NULL;
    table = memory;
    atomic_store(&table->in_use, 1);
    table->next = atomic_load(&registry);
    while (!atomic_compare_exchange_weak(&registry, &table->next, table)) {
    }
  }
  thread_table = table;
  pthread_setspecific(release_key, table);
  return table;
}

/* Adds one activation to the calling thread's table. */
static inline __attribute__((always_inline)) void record_into(struct rt_table* table,
                                                              uint64_t loop_id, uint64_t t0,
                                                              uint64_t t1, uint32_t cpu0,
                                                              uint32_t cpu1) {
  size_t index = find_slot(table, loop_id);
  if (__builtin_expect(index == RT_TABLE_SLOTS, 0)) {
    store(&table->dropped, load(&table->dropped) + 1);
    return;
  }
  struct rt_slot* slot = &table->slots[index];
  uint64_t cycles = t1 > t0 ? t1 - t0 : 0;
  store(&slot->cycles, load(&slot->cycles) + cycles);
  struct rt_bucket* bucket = &table->histograms[index][rt_hist_bucket(cycles)];
  store(&bucket->entries, load(&bucket->entries) + 1);
  store(&bucket->cycles, load(&bucket->cycles) + cycles);
  if (cycles < load(&slot->min)) store(&slot->min, cycles);
  if (cycles > load(&slot->max)) store(&slot->max, cycles);
  if (cpu0 != cpu1) store(&slot->migrated, load(&slot->migrated) + 1);
  uint64_t last_t1 = load(&slot->last_t1);
  if (t0 < last_t1) store(&slot->nested, load(&slot->nested) + 1);
  if (t1 > last_t1) store(&slot->last_t1, t1);
  atomic_store_explicit(&slot->entries, load(&slot->entries) + 1, memory_order_release);
}

/* Out of line, so that the hot path needs no stack frame. */
static __attribute__((noinline, cold)) void record_first_in_thread(uint64_t loop_id, uint64_t t0,
                                                                   uint64_t t1, uint32_t cpu0,
                                                                   uint32_t cpu1) {
  struct rt_table* table = claim_thread_table();
  if (table != NULL)
    record_into(table, loop_id, t0, t1, cpu0, cpu1);
  else if (atomic_load_explicit(&rt_enabled, memory_order_relaxed))
    atomic_fetch_add_explicit(&unmapped_entries, 1, memory_order_relaxed);
}

void __looprace_record(uint64_t loop_id, uint64_t t0, uint64_t t1, uint32_t cpu0, uint32_t cpu1) {
  struct rt_table* table = thread_table;
  if (__builtin_expect(table == NULL, 0))
    record_first_in_thread(loop_id, t0, t1, cpu0, cpu1);
  else
    record_into(table, loop_id, t0, t1, cpu0, cpu1);
}

struct rt_table* rt_swap_thread_table(struct rt_table* table) {
  struct rt_table* previous = thread_table;
  thread_table = table;
  return previous;
}

int rt_tables_init(void) { return pthread_key_create(&release_key, release_thread_table) == 0; }

void rt_tables_reset_after_fork(void) {
  for (struct rt_table* table = atomic_load(&registry); table != NULL; table = table->next) {
    /* Private anonymous pages read back as zeros after MADV_DONTNEED: nothing is copied. */
    if (madvise(table, RT_TABLE_COUNTERS_SIZE, MADV_DONTNEED) != 0)
      memset(table, 0, RT_TABLE_COUNTERS_SIZE);
    store(&table->dropped, 0);
    if (table != thread_table) atomic_store(&table->in_use, 0);
  }
  store(&unmapped_entries, 0);
}

static void add_slot(struct rt_loop_line* line, const struct rt_table* table, unsigned i,
                     uint64_t entries) {
  const struct rt_slot* slot = &table->slots[i];
  uint64_t min = load(&slot->min);
  uint64_t max = load(&slot->max);
  line->entries += entries;
  line->cycles += load(&slot->cycles);
  if (min < line->min) line->min = min;
  if (max > line->max) line->max = max;
  line->migrated += load(&slot->migrated);
  line->nested += load(&slot->nested);
  line->threads += atomic_load_explicit(&table->finished_threads[i], memory_order_relaxed) +
                   (load(&slot->last_t1) != 0);
  for (unsigned b = 0; b < RT_HIST_BUCKETS; ++b) {
    line->hist_entries[b] += load(&table->histograms[i][b].entries);
    line->hist_cycles[b] += load(&table->histograms[i][b].cycles);
  }
}

static void sort_by_id(struct rt_loop_line* lines, uint64_t count) {
  for (uint64_t i = 1; i < count; ++i) {
    struct rt_loop_line line = lines[i];
    uint64_t j = i;
    for (; j > 0 && lines[j - 1].id > line.id; --j) lines[j] = lines[j - 1];
    lines[j] = line;
  }
}

uint64_t rt_tables_collect(struct rt_loop_line* out, uint64_t* dropped) {
  /* Index into `out` plus one by hashed id; twice the slots so probing stays short. */
  static uint32_t position[2 * RT_TABLE_SLOTS];
  memset(position, 0, sizeof position);
  uint64_t count = 0;
  *dropped += load(&unmapped_entries);
  for (struct rt_table* table = atomic_load(&registry); table != NULL; table = table->next) {
    *dropped += load(&table->dropped);
    for (unsigned i = 0; i < RT_TABLE_SLOTS; ++i) {
      uint64_t entries = atomic_load_explicit(&table->slots[i].entries, memory_order_acquire);
      if (entries == 0) continue;
      uint64_t id = load(&table->slots[i].id);
      size_t index = hash_index(id, RT_TABLE_BITS + 1);
      while (position[index] != 0 && out[position[index] - 1].id != id)
        index = (index + 1) & (2 * RT_TABLE_SLOTS - 1);
      if (position[index] == 0) {
        if (count == RT_TABLE_SLOTS) {
          *dropped += entries;
          continue;
        }
        out[count] = (struct rt_loop_line){.id = id, .min = UINT64_MAX};
        position[index] = (uint32_t)++count;
      }
      add_slot(&out[position[index] - 1], table, i, entries);
    }
  }
  sort_by_id(out, count);
  return count;
}
