/* Record lines, formatted by hand: snprintf is not async-signal-safe. */
#include "rt_format.h"

#include <string.h>

static char* put_text(char* out, const char* text) {
  size_t length = strlen(text);
  memcpy(out, text, length);
  return out + length;
}

static char* put_u64(char* out, uint64_t value) {
  char digits[20];
  size_t count = 0;
  do {
    digits[count++] = (char)('0' + value % 10);
    value /= 10;
  } while (value != 0);
  while (count > 0) *out++ = digits[--count];
  return out;
}

static char* put_i64(char* out, int64_t value) {
  if (value < 0) {
    *out++ = '-';
    return put_u64(out, -(uint64_t)value);
  }
  return put_u64(out, (uint64_t)value);
}

static char* put_hex16(char* out, uint64_t value) {
  static const char hex[] = "0123456789abcdef";
  for (int shift = 60; shift >= 0; shift -= 4) *out++ = hex[(value >> shift) & 0xf];
  return out;
}

static char* put_field(char* out, const char* key, uint64_t value) {
  *out++ = ' ';
  out = put_text(out, key);
  *out++ = '=';
  return put_u64(out, value);
}

/* " hist=BUCKET:ENTRIES:CYCLES,..." over the non-empty buckets; nothing when all are empty. */
static char* put_histogram(char* out, const struct rt_loop_line* loop) {
  const char* separator = " hist=";
  for (unsigned b = 0; b < RT_HIST_MAX; ++b) {
    if (loop->hist_entries[b] == 0) continue;
    out = put_text(out, separator);
    separator = ",";
    out = put_u64(out, b);
    *out++ = ':';
    out = put_u64(out, loop->hist_entries[b]);
    *out++ = ':';
    out = put_u64(out, loop->hist_cycles[b]);
  }
  return out;
}

static char* put_head(char* out, const char* kind, const struct rt_process_line* process) {
  out = put_text(out, "looprace-rt ");
  out = put_u64(out, RT_FORMAT_VERSION);
  *out++ = ' ';
  out = put_text(out, kind);
  out = put_text(out, " pid=");
  out = put_i64(out, process->pid);
  out = put_text(out, " ppid=");
  out = put_i64(out, process->ppid);
  return put_field(out, "forked", process->forked ? 1 : 0);
}

size_t rt_format_loop_line(char* out, const struct rt_process_line* process,
                           const struct rt_loop_line* loop) {
  char* end = put_head(out, "loop", process);
  end = put_text(end, " id=");
  end = put_hex16(end, loop->id);
  end = put_field(end, "entries", loop->entries);
  end = put_field(end, "cycles", loop->cycles);
  end = put_field(end, "min", loop->min);
  end = put_field(end, "max", loop->max);
  end = put_field(end, "migrated", loop->migrated);
  end = put_field(end, "nested", loop->nested);
  end = put_field(end, "threads", loop->threads);
  end = put_histogram(end, loop);
  *end++ = '\n';
  return (size_t)(end - out);
}

size_t rt_format_end_line(char* out, const struct rt_process_line* process,
                          const struct rt_end_line* end_line) {
  char* end = put_head(out, "end", process);
  end = put_field(end, "loops", end_line->loops);
  end = put_text(end, end_line->how == RT_EXIT_SIGNAL ? " how=signal" : " how=exit");
  end = put_text(end, " status=");
  end = put_i64(end, end_line->status);
  end = put_field(end, "tsc_hz", end_line->tsc_hz);
  end = put_field(end, "probe", end_line->probe);
  end = put_field(end, "probe_call", end_line->probe_call);
  end = put_field(end, "dropped", end_line->dropped);
  end = put_field(end, "nivcsw", end_line->nivcsw);
  end = put_field(end, "run_delay_ns", end_line->run_delay_ns);
  end = put_field(end, "steal_ticks", end_line->steal_ticks);
  end = put_field(end, "off_cpu_ns", end_line->off_cpu_ns);
  *end++ = '\n';
  return (size_t)(end - out);
}
