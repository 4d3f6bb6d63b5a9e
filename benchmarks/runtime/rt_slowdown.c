/* Whole-program slowdown from instrumenting one hot loop. Any code change moves code, and the
 * code layout alone changes run time by a few percent (layout bias), so the program comes in L
 * layouts (different padding before its code), each built plain and instrumented. Every round
 * runs all 2L builds once in a fresh shuffled order; its ratio is the geometric mean over layouts
 * of instrumented/plain, for wall time and for CPU time (user + system). The median and
 * quartiles of the per-round ratios are reported.
 *
 * usage: rt_slowdown <rounds> <records-file> <L> <plain_1..plain_L> <instrumented_1..L> [args]
 * Every build gets LOOPRACE_OUT=<records-file> (truncated first); stdout is discarded. The
 * records then give the instrumented loop's cycles per entry. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

struct timing {
  double wall_s;
  double cpu_s;
};

static double seconds(struct timeval value) { return value.tv_sec + value.tv_usec * 1e-6; }

static struct timing run_once(char** argv) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  pid_t pid;
  if (posix_spawn(&pid, argv[0], &actions, NULL, argv, environ) != 0) {
    perror(argv[0]);
    exit(1);
  }
  int status;
  struct rusage usage;
  if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "rt_slowdown: %s failed (status %#x)\n", argv[0], status);
    exit(1);
  }
  clock_gettime(CLOCK_MONOTONIC, &end);
  posix_spawn_file_actions_destroy(&actions);
  return (struct timing){
      .wall_s = (double)(end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) * 1e-9,
      .cpu_s = seconds(usage.ru_utime) + seconds(usage.ru_stime)};
}

static int compare_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static void summarize(const char* name, double* values, int count) {
  qsort(values, (size_t)count, sizeof *values, compare_double);
  printf("%-26s median %.5f   q1 %.5f   q3 %.5f\n", name, values[count / 2], values[count / 4],
         values[(3 * count) / 4]);
}

/* Cycles per entry over every process block in the records file: the mean, and the smallest
 * entry (the mean includes preemptions, the smallest does not). */
static void summarize_records(const char* path) {
  FILE* file = fopen(path, "r");
  if (file == NULL) {
    perror(path);
    return;
  }
  char line[512];
  uint64_t entries = 0, cycles = 0, smallest = UINT64_MAX, processes = 0, probe = 0, probe_call = 0;
  while (fgets(line, sizeof line, file)) {
    const char* field;
    if ((field = strstr(line, " entries=")) != NULL) {
      uint64_t e, c, m;
      if (sscanf(field, " entries=%" SCNu64 " cycles=%" SCNu64 " min=%" SCNu64, &e, &c, &m) == 3) {
        entries += e;
        cycles += c;
        if (m < smallest) smallest = m;
      }
    } else if ((field = strstr(line, " probe=")) != NULL) {
      sscanf(field, " probe=%" SCNu64 " probe_call=%" SCNu64, &probe, &probe_call);
      ++processes;
    }
  }
  fclose(file);
  if (entries == 0) return;
  printf("records: %" PRIu64 " processes, %" PRIu64
         " entries, cycles per entry: mean %.0f, "
         "smallest %" PRIu64 "; probe=%" PRIu64 " probe_call=%" PRIu64 " (last process)\n",
         processes, entries, (double)cycles / (double)entries, smallest, probe, probe_call);
}

static void shuffle(int* order, int count) {
  for (int i = count - 1; i > 0; --i) {
    int j = rand() % (i + 1), swap = order[i];
    order[i] = order[j];
    order[j] = swap;
  }
}

int main(int argc, char** argv) {
  int layouts = argc > 3 ? atoi(argv[3]) : 0;
  if (argc < 4 || atoi(argv[1]) < 2 || layouts < 1 || argc < 4 + 2 * layouts) {
    fprintf(stderr,
            "usage: %s <rounds> <records-file> <L> <plain_1..L> <instrumented_1..L> [args]\n",
            argv[0]);
    return 2;
  }
  int rounds = atoi(argv[1]);
  const char* records = argv[2];
  FILE* truncate = fopen(records, "w");
  if (truncate == NULL) {
    perror(records);
    return 1;
  }
  fclose(truncate);
  setenv("LOOPRACE_OUT", records, 1);

  /* Command lines: builds[0..L) plain, builds[L..2L) instrumented, each with the arguments. */
  int builds = 2 * layouts, arguments = argc - 4 - builds;
  char*** commands = malloc(sizeof(char**) * (size_t)builds);
  for (int b = 0; b < builds; ++b) {
    commands[b] = malloc(sizeof(char*) * (size_t)(arguments + 2));
    commands[b][0] = argv[4 + b];
    for (int a = 0; a < arguments; ++a) commands[b][1 + a] = argv[4 + builds + a];
    commands[b][1 + arguments] = NULL;
  }
  double* wall = malloc(sizeof(double) * (size_t)rounds);
  double* cpu = malloc(sizeof(double) * (size_t)rounds);
  struct timing* times = malloc(sizeof(struct timing) * (size_t)builds);
  int* order = malloc(sizeof(int) * (size_t)builds);
  printf("round build layout wall_s cpu_s   (build 0..%d plain, %d..%d instrumented)\n",
         layouts - 1, layouts, builds - 1);
  srand(7);
  for (int b = 0; b < builds; ++b) run_once(commands[b]); /* warm-up: page cache, frequency */
  for (int round = 0; round < rounds; ++round) {
    for (int b = 0; b < builds; ++b) order[b] = b;
    shuffle(order, builds);
    for (int i = 0; i < builds; ++i) times[order[i]] = run_once(commands[order[i]]);
    double log_wall = 0, log_cpu = 0;
    for (int layout = 0; layout < layouts; ++layout) {
      log_wall += log(times[layouts + layout].wall_s / times[layout].wall_s);
      log_cpu += log(times[layouts + layout].cpu_s / times[layout].cpu_s);
    }
    wall[round] = exp(log_wall / layouts);
    cpu[round] = exp(log_cpu / layouts);
    for (int b = 0; b < builds; ++b)
      printf("%d %d %d %.6f %.6f\n", round, b, b % layouts, times[b].wall_s, times[b].cpu_s);
  }
  summarize("ratio instrumented/plain wall", wall, rounds);
  summarize("ratio instrumented/plain cpu", cpu, rounds);
  summarize_records(records);
  return 0;
}
