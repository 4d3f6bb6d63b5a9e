/* What the machine did to the process while it ran, read at exit with async-signal-safe calls
 * only (open, read, close, getrusage): the driver uses it to tell a run that other work
 * disturbed from the loop's own time. */
#include <fcntl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "rt_internal.h"

static uint64_t steal_at_start;
static uint64_t wall_at_start_ns;
static uint64_t cpu_at_start_ns;

static uint64_t clock_ns(clockid_t clock) {
  struct timespec now;
  if (clock_gettime(clock, &now) != 0) return 0;
  return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Reads up to `size` - 1 bytes of `path` into `text`, NUL-terminated; 0 bytes on failure. */
static size_t read_small_file(const char* path, char* text, size_t size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t length = read(fd, text, size - 1);
  close(fd);
  if (length < 0) length = 0;
  text[length] = '\0';
  return (size_t)length;
}

/* The `index`-th (0-based) blank-separated unsigned number in `text`, skipping non-digit
 * words; 0 when there are fewer. */
static uint64_t nth_number(const char* text, unsigned index) {
  unsigned seen = 0;
  while (*text != '\0' && *text != '\n') {
    while (*text == ' ') ++text;
    int is_number = *text >= '0' && *text <= '9';
    uint64_t value = 0;
    for (; *text != ' ' && *text != '\0' && *text != '\n'; ++text)
      value = value * 10 + (uint64_t)(*text - '0');
    if (is_number && seen++ == index) return value;
  }
  return 0;
}

/* Steal ticks of the whole machine: the 8th number of /proc/stat's first ("cpu") line. */
static uint64_t read_steal(void) {
  char text[512];
  if (read_small_file("/proc/stat", text, sizeof text) == 0) return 0;
  return nth_number(text, 7);
}

void rt_machine_start(void) {
  steal_at_start = read_steal();
  wall_at_start_ns = clock_ns(CLOCK_MONOTONIC);
  cpu_at_start_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

void rt_machine_read(uint64_t* nivcsw, uint64_t* run_delay_ns, uint64_t* steal_ticks,
                     uint64_t* off_cpu_ns) {
  /* A CPU-bound process is off a CPU only when something else took it (or it waited for I/O). */
  uint64_t wall = clock_ns(CLOCK_MONOTONIC) - wall_at_start_ns;
  uint64_t cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu_at_start_ns;
  *off_cpu_ns = wall > cpu ? wall - cpu : 0;
  struct rusage usage;
  *nivcsw = getrusage(RUSAGE_SELF, &usage) == 0 ? (uint64_t)usage.ru_nivcsw : 0;
  char text[128];
  /* "on-CPU ns, waiting-runnable ns, timeslices" of the calling thread. */
  *run_delay_ns =
      read_small_file("/proc/thread-self/schedstat", text, sizeof text) ? nth_number(text, 1) : 0;
  uint64_t steal = read_steal();
  *steal_ticks = steal > steal_at_start ? steal - steal_at_start : 0;
}
