/* Instrumented test program for the runtime's integration tests. It calls __looprace_record
 * either with the serialized TSC sequence the plugin emits (looprace_tsc.h) or with chosen
 * t0/t1 values, so that the records can be checked exactly.
 *
 * usage: rt_test_program <mode> [arguments]   (modes below, in main) */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "looprace_rt.h"
#include "looprace_tsc.h"

static volatile uint64_t sink;

/* A short real loop, timed as the plugin would time it. */
static void timed_loop(uint64_t loop_id, int length) {
  uint32_t cpu0, cpu1;
  uint64_t t0 = looprace_tsc_read(&cpu0);
  for (int i = 0; i < length; ++i) sink += (uint64_t)i * (uint64_t)i;
  uint64_t t1 = looprace_tsc_read(&cpu1);
  __looprace_record(loop_id, t0, t1, cpu0, cpu1);
}

/* Entries of `cycles` ticks each that neither migrate nor nest. */
static void record_synthetic(uint64_t loop_id, int entries, uint64_t cycles) {
  static __thread uint64_t clock = 1000;
  for (int i = 0; i < entries; ++i) {
    __looprace_record(loop_id, clock, clock + cycles, 3, 3);
    clock += cycles + 1;
  }
}

/* Recursion through one loop: each activation encloses the deeper ones. */
static void nested_loop(uint64_t loop_id, int depth) {
  uint32_t cpu0, cpu1;
  uint64_t t0 = looprace_tsc_read(&cpu0);
  for (int i = 0; i < 1 + (depth > 0); ++i)
    if (i == 1) nested_loop(loop_id, depth - 1);
  uint64_t t1 = looprace_tsc_read(&cpu1);
  __looprace_record(loop_id, t0, t1, cpu0, cpu1);
}

struct thread_work {
  pthread_barrier_t* start;
  int index;
  int entries;
};

static void* thread_main(void* argument) {
  struct thread_work* work = argument;
  pthread_barrier_wait(work->start);
  record_synthetic(0x30, work->entries, 7);
  record_synthetic(0x100 + (uint64_t)work->index, 1, 5);
  timed_loop(0x31, 100);
  return NULL;
}

/* Two waves of `count` threads running the same loops at once; the second wave reuses the
 * tables the first released. */
static int run_threads(int count, int entries) {
  for (int wave = 0; wave < 2; ++wave) {
    pthread_t threads[count];
    struct thread_work work[count];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)count);
    for (int i = 0; i < count; ++i) {
      work[i] = (struct thread_work){&start, wave * count + i, entries};
      if (pthread_create(&threads[i], NULL, thread_main, &work[i]) != 0) return 1;
    }
    for (int i = 0; i < count; ++i) pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&start);
  }
  return 0;
}

/* The parent records before and after a fork; the child records its own entries and exits. */
static int run_fork(void) {
  record_synthetic(0x40, 5, 10);
  pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    record_synthetic(0x40, 3, 10);
    record_synthetic(0x41, 1, 10);
    exit(4);
  }
  int status;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 4)
    return 1;
  record_synthetic(0x40, 2, 10);
  return 0;
}

static void on_term(int signal_number) {
  (void)signal_number;
  exit(3);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  const char* argument = argc > 2 ? argv[2] : "0";
  int number = atoi(argument);
  printf("mode %s\n", mode);
  fflush(stdout);

  if (strcmp(mode, "exact") == 0) {
    /* id 1: 100 and 200 ticks; the first migrates, the second began inside the first. */
    __looprace_record(1, 100, 300, 0, 1);
    __looprace_record(1, 150, 250, 2, 2);
    for (int i = 0; i < 10; ++i) timed_loop(2, 1000);
    return number; /* the exit status to report */
  }
  if (strcmp(mode, "nothing") == 0) return number;
  if (strcmp(mode, "nested") == 0) {
    nested_loop(0x50, number);
    return 0;
  }
  if (strcmp(mode, "threads") == 0) return run_threads(number, atoi(argc > 3 ? argv[3] : "1"));
  if (strcmp(mode, "fork") == 0) return run_fork();
  if (strcmp(mode, "many") == 0) {
    /* argv[3], when given, is a file to wait for: concurrent writers then exit together. */
    while (argc > 3 && access(argv[3], F_OK) != 0) usleep(200);
    for (int id = 1; id <= number; ++id) record_synthetic((uint64_t)id, 1, (uint64_t)id);
    return 0;
  }
  if (strcmp(mode, "signal") == 0) {
    record_synthetic(0x60, 4, 9);
    raise(number);
    return 0;
  }
  if (strcmp(mode, "segv") == 0) {
    record_synthetic(0x60, 4, 9);
    volatile int* nowhere = NULL;
    // cppcheck-suppress nullPointer ; the fault is the point of this mode
    *nowhere = 1;
    return 0;
  }
  if (strcmp(mode, "abort") == 0) {
    record_synthetic(0x60, 4, 9);
    abort();
  }
  if (strcmp(mode, "own-handler") == 0) {
    /* The program's own handler replaces the runtime's; its exit() still writes the records. */
    signal(SIGTERM, on_term);
    record_synthetic(0x60, 4, 9);
    raise(SIGTERM);
    return 0;
  }
  if (strcmp(mode, "chdir") == 0) {
    record_synthetic(0x70, 1, 9);
    return chdir("/") == 0 ? 0 : 1;
  }
  if (strcmp(mode, "remove") == 0) {
    /* The destination disappears during the run: argument = its file, argv[3] = its directory. */
    record_synthetic(0x70, 1, 9);
    if (unlink(argument) != 0 || rmdir(argv[3]) != 0) return 1;
    return 5;
  }
  fprintf(stderr, "rt_test_program: unknown mode '%s'\n", mode);
  return 100;
}
