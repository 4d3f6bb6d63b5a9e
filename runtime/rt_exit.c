/* Start-up and exit: reads LOOPRACE_OUT, measures clock and probe, and writes the records once
 * per process at exit, on a catchable fatal signal, and in fork children that exit. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_internal.h"

_Atomic int rt_enabled;

/* Absolute, so that a chdir() in the program does not move the records. */
static char destination[PATH_MAX];
static uint64_t probe_ticks;
static uint64_t probe_call_ticks;
static struct rt_process_line process;
/* Set by the first writer, so that a process writes its records once. */
static _Atomic int records_claimed;
static struct rt_loop_line loop_lines[RT_TABLE_SLOTS];
static char output[(RT_TABLE_SLOTS + 1) * RT_LINE_MAX];

/* Signals whose default action ends the process and that a handler can catch. */
static const int fatal_signals[] = {SIGHUP,  SIGINT,  SIGQUIT, SIGILL,    SIGABRT, SIGBUS,
                                    SIGFPE,  SIGUSR1, SIGSEGV, SIGUSR2,   SIGPIPE, SIGALRM,
                                    SIGTERM, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGSYS};
#define FATAL_SIGNAL_COUNT (sizeof fatal_signals / sizeof fatal_signals[0])

/* One write() of the concatenated NULL-terminated `parts` to stderr; async-signal-safe. */
static void warn(const char* const* parts) {
  char message[PATH_MAX + 512];
  size_t length = 0;
  for (; *parts != NULL; ++parts) {
    size_t part = strlen(*parts);
    if (part > sizeof message - 1 - length) part = sizeof message - 1 - length;
    memcpy(message + length, *parts, part);
    length += part;
  }
  message[length++] = '\n';
  ssize_t ignored = write(STDERR_FILENO, message, length);
  (void)ignored;
}

static void warn_destination(const char* what, int error) {
  /* strerrordesc_np, unlike strerror, neither allocates nor translates. */
  const char* reason = strerrordesc_np(error);
  const char* parts[] = {"looprace: ",
                         what,
                         " LOOPRACE_OUT=",
                         destination,
                         ": ",
                         reason != NULL ? reason : "unknown error",
                         "; the loop records of this process are lost",
                         NULL};
  warn(parts);
}

static int write_all(int fd, const char* data, size_t length) {
  while (length > 0) {
    ssize_t written = write(fd, data, length);
    if (written < 0) {
      if (errno == EINTR) continue;
      return 0;
    }
    data += written;
    length -= (size_t)written;
  }
  return 1;
}

/* Formats every loop and the end line into one buffer and appends it with a single write(), so
 * that concurrent processes never interleave partial records. Async-signal-safe. */
static void write_records(enum rt_exit_how how, int status) {
  if (!atomic_load(&rt_enabled) || atomic_exchange(&records_claimed, 1)) return;
  int saved_errno = errno;
  uint64_t dropped = 0;
  uint64_t loops = rt_tables_collect(loop_lines, &dropped);
  process.pid = getpid();
  size_t length = 0;
  for (uint64_t i = 0; i < loops; ++i)
    length += rt_format_loop_line(output + length, &process, &loop_lines[i]);
  struct rt_end_line end = {.loops = loops,
                            .how = how,
                            .status = status,
                            .tsc_hz = rt_clock_tsc_hz(),
                            .probe = probe_ticks,
                            .probe_call = probe_call_ticks,
                            .dropped = dropped};
  rt_machine_read(&end.nivcsw, &end.run_delay_ns, &end.steal_ticks, &end.off_cpu_ns);
  length += rt_format_end_line(output + length, &process, &end);

  int fd = open(destination, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) {
    warn_destination("cannot open", errno);
  } else {
    if (!write_all(fd, output, length)) warn_destination("cannot write to", errno);
    close(fd);
  }
  if (dropped != 0) {
    const char* parts[] = {"looprace: some loop entries were not recorded (a thread ran more than ",
                           "1024 distinct instrumented loops); see dropped= in LOOPRACE_OUT", NULL};
    warn(parts);
  }
  errno = saved_errno;
}

static void block_fatal_signals(sigset_t* previous) {
  sigset_t fatal;
  sigemptyset(&fatal);
  for (size_t i = 0; i < FATAL_SIGNAL_COUNT; ++i) sigaddset(&fatal, fatal_signals[i]);
  pthread_sigmask(SIG_BLOCK, &fatal, previous);
}

/* Normal return from main and exit(): on_exit, unlike atexit, passes the exit status. Fatal
 * signals wait until the records are out, then act as they would have. */
static void on_process_exit(int status, void* unused) {
  (void)unused;
  sigset_t previous;
  block_fatal_signals(&previous);
  write_records(RT_EXIT_NORMAL, status & 0xff); /* what the parent's wait() sees */
  pthread_sigmask(SIG_SETMASK, &previous, NULL);
}

/* Writes the records, then lets the signal do what it would have done without us. */
static void on_fatal_signal(int signal_number) {
  write_records(RT_EXIT_SIGNAL, signal_number);
  struct sigaction default_action = {.sa_handler = SIG_DFL};
  sigemptyset(&default_action.sa_mask);
  sigaction(signal_number, &default_action, NULL);
  /* Blocked until the handler returns, then delivered with the default action; a fault
   * (SIGSEGV, ...) instead repeats when the instruction runs again. */
  raise(signal_number);
}

/* Only signals the program has not claimed (still SIG_DFL at start-up); a handler the program
 * installs later replaces ours, and exit() from it still writes the records. */
static void install_signal_handlers(void) {
  struct sigaction action = {.sa_handler = on_fatal_signal, .sa_flags = SA_ONSTACK};
  sigemptyset(&action.sa_mask);
  for (size_t i = 0; i < FATAL_SIGNAL_COUNT; ++i) sigaddset(&action.sa_mask, fatal_signals[i]);
  for (size_t i = 0; i < FATAL_SIGNAL_COUNT; ++i) {
    struct sigaction current;
    if (sigaction(fatal_signals[i], NULL, &current) == 0 && !(current.sa_flags & SA_SIGINFO) &&
        current.sa_handler == SIG_DFL)
      sigaction(fatal_signals[i], &action, NULL);
  }
}

/* The child starts from zero and writes its own records, marked forked=1. */
static void after_fork_in_child(void) {
  process.ppid = getppid();
  process.forked = 1;
  atomic_store(&records_claimed, 0);
  rt_tables_reset_after_fork();
}

/* Makes `value` absolute in `destination` and checks it can be opened for appending (the file
 * is created, empty, if missing). Returns 0 after explaining on stderr why not. */
static int set_destination(const char* value) {
  if (value[0] == '\0') {
    const char* parts[] = {"looprace: LOOPRACE_OUT is set but empty; no loop records are written",
                           NULL};
    warn(parts);
    return 0;
  }
  size_t prefix = 0;
  if (value[0] != '/') {
    if (getcwd(destination, sizeof destination) == NULL) {
      const char* parts[] = {"looprace: cannot resolve the relative LOOPRACE_OUT=", value,
                             ": the current directory is unknown; no loop records are written",
                             NULL};
      warn(parts);
      return 0;
    }
    prefix = strlen(destination);
    destination[prefix++] = '/';
  }
  if (prefix + strlen(value) >= sizeof destination) {
    const char* parts[] = {"looprace: LOOPRACE_OUT=", value,
                           " is too long for a path; no loop records are written", NULL};
    warn(parts);
    return 0;
  }
  strcpy(destination + prefix, value);
  int fd = open(destination, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) {
    warn_destination("cannot open", errno);
    return 0;
  }
  close(fd);
  return 1;
}

/* Priority 101, the first one available to programs: runs before the constructors of
 * instrumented code, so their loops are recorded too. */
__attribute__((constructor(101))) static void start_runtime(void) {
  const char* value = getenv("LOOPRACE_OUT");
  if (value == NULL || !set_destination(value)) return;
  if (!rt_tables_init()) {
    const char* parts[] = {"looprace: cannot create a thread key; no loop records are written",
                           NULL};
    warn(parts);
    return;
  }
  process.pid = getpid();
  process.ppid = getppid();
  rt_clock_start();
  rt_machine_start();
  rt_clock_measure_probe(&probe_ticks, &probe_call_ticks);
  pthread_atfork(NULL, NULL, after_fork_in_child);
  on_exit(on_process_exit, NULL);
  install_signal_handlers();
  atomic_store_explicit(&rt_enabled, 1, memory_order_release);
}
