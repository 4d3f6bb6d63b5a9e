#include "run/process.h"

#include "run/digest.h"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <optional>

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace looprace::run {

Environment Environment::current() {
  Environment env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    auto eq = text.find('=');
    if (eq == std::string_view::npos) continue;
    env.vars_[std::string(text.substr(0, eq))] = std::string(text.substr(eq + 1));
  }
  return env;
}

void Environment::set(const std::string& name, const std::string& value) { vars_[name] = value; }

void Environment::unset(const std::string& name) { vars_.erase(name); }

std::optional<std::string> Environment::get(const std::string& name) const {
  auto it = vars_.find(name);
  if (it == vars_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> Environment::entries() const {
  std::vector<std::string> result;
  result.reserve(vars_.size());
  for (const auto& [name, value] : vars_) result.push_back(name + "=" + value);
  return result;
}

namespace {

// Process groups of the children being waited for; lock-free so a signal handler can read it.
constexpr std::size_t kGroupSlots = 256;
std::atomic<pid_t> running_groups[kGroupSlots];

void forget_group(pid_t group) {
  for (auto& slot : running_groups) {
    pid_t expected = group;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

void remember_group(pid_t group) {
  for (auto& slot : running_groups) {
    pid_t expected = 0;
    if (slot.compare_exchange_strong(expected, group)) return;
  }
  // More than kGroupSlots children at once: this one is not killed on Ctrl-C, nothing worse.
}

void kill_children_and_die(int signal_number) {
  kill_running_children();
  ::signal(signal_number, SIG_DFL);
  raise(signal_number);
}

// Installs kill_children_and_die for the terminating signals that still have their default
// action (a driver with its own handlers calls kill_running_children() itself).
void install_terminate_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction current {};
      if (sigaction(signal_number, nullptr, &current) == 0 && current.sa_handler == SIG_DFL &&
          !(current.sa_flags & SA_SIGINFO)) {
        struct sigaction handler {};
        handler.sa_handler = kill_children_and_die;
        sigemptyset(&handler.sa_mask);
        sigaction(signal_number, &handler, nullptr);
      }
    }
  });
}

// Accumulates one stream into a CapturedOutput without keeping more than the limits.
class Capture {
 public:
  Capture(std::size_t head_limit, std::size_t tail_limit)
      : head_limit_(head_limit), tail_limit_(tail_limit) {}

  void add(const char* data, std::size_t size) {
    std::string_view bytes(data, size);
    digest_.update(bytes);
    out_.size += size;
    if (out_.head.size() < head_limit_) {
      out_.head.append(bytes.substr(0, head_limit_ - out_.head.size()));
    }
    out_.tail.append(bytes);
    // Trim in chunks so that a chatty build does not make this quadratic.
    if (out_.tail.size() > 2 * tail_limit_) out_.tail.erase(0, out_.tail.size() - tail_limit_);
  }

  CapturedOutput finish() {
    if (out_.tail.size() > tail_limit_) out_.tail.erase(0, out_.tail.size() - tail_limit_);
    out_.digest = digest_.hex();
    return std::move(out_);
  }

 private:
  std::size_t head_limit_, tail_limit_;
  Digest digest_;
  CapturedOutput out_;
};

double seconds(const timeval& tv) { return double(tv.tv_sec) + double(tv.tv_usec) / 1e6; }

struct Pipe {
  int read = -1, write = -1;
  bool open() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return false;
    read = fds[0];
    write = fds[1];
    return true;
  }
  void close_read() {
    if (read >= 0) ::close(read);
    read = -1;
  }
  void close_write() {
    if (write >= 0) ::close(write);
    write = -1;
  }
};

// In the child between fork and exec: only async-signal-safe calls. Never returns.
// Tells the parent, through the report pipe, which step failed and why.
[[noreturn]] void child_failed(int report_fd, const char* what) {
  int code = errno;
  (void)!write(report_fd, &code, sizeof code);
  (void)!write(report_fd, what, strlen(what));
  _exit(127);
}

// The group leader's answer to its parent's death: kill the group (the shell and whatever it
// started, which the kernel's parent-death signal would leave running). Async-signal-safe.
void kill_own_group(int) {
  kill(0, SIGKILL);
  _exit(137);
}

// The group leader between the driver and the shell: waits for the shell and ends the way it
// ended, so the driver sees the shell's status; the shell's resource use (its program's
// included) goes to the driver through `usage_fd`.
[[noreturn]] void watch_shell(pid_t shell, int usage_fd) {
  int status = 0;
  rusage usage{};
  while (wait4(shell, &status, 0, &usage) < 0) {
    if (errno != EINTR) _exit(127);
  }
  (void)!write(usage_fd, &usage, sizeof usage);
  close(usage_fd);
  if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
  int signal_number = WTERMSIG(status);
  signal(signal_number, SIG_DFL);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, signal_number);
  sigprocmask(SIG_UNBLOCK, &only, nullptr);
  kill(getpid(), signal_number);
  _exit(128 + signal_number);
}

[[noreturn]] void exec_child(const ProcessSpec& spec, const Pipe& out, const Pipe& err,
                             char* const argv[], char* const envp[], int report_fd, int usage_fd,
                             pid_t parent) {
  auto fail = [report_fd](const char* what) { child_failed(report_fd, what); };
  setpgid(0, 0);
  // The driver may ignore or block signals; the program must start with defaults.
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  signal(SIGPIPE, SIG_DFL);
  int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd < 0) fail("open /dev/null");
  if (dup2(null_fd, 0) < 0 || dup2(out.write, 1) < 0) fail("dup2");
  if (dup2(spec.merge_stderr ? out.write : err.write, 2) < 0) fail("dup2");
  if (!spec.cwd.empty() && chdir(spec.cwd.c_str()) != 0) fail("chdir");
  if (spec.pin_cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(*spec.pin_cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) fail("sched_setaffinity");
  }
  // If the driver is killed outright (kill -9), the whole group goes with it.
  struct sigaction on_parent_death {};
  on_parent_death.sa_handler = kill_own_group;
  sigemptyset(&on_parent_death.sa_mask);
  sigaction(SIGTERM, &on_parent_death, nullptr);
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) kill_own_group(SIGTERM);  // it died before prctl
  // vfork: the shell shares this process's memory until it execs, so neither copying the
  // driver's page tables nor tearing them down again is counted as the program's CPU time
  // (tens of milliseconds for a large driver, more than a short program's whole run).
  pid_t shell = vfork();
  if (shell < 0) fail("vfork");
  if (shell == 0) {
    execve("/bin/sh", argv, envp);  // handlers reset to default: the shell starts clean
    child_failed(report_fd, "execve /bin/sh");
  }
  close(report_fd);
  watch_shell(shell, usage_fd);
}

// What the child execs, prepared before fork because the child may then only call
// async-signal-safe code. Not copyable: argv and envp point into its own strings.
struct ExecArgs {
  explicit ExecArgs(const ProcessSpec& spec)
      : env_strings(spec.env.entries()), command(spec.command) {
    for (auto& entry : env_strings) envp.push_back(entry.data());
    envp.push_back(nullptr);
  }
  ExecArgs(const ExecArgs&) = delete;
  ExecArgs& operator=(const ExecArgs&) = delete;

  std::vector<std::string> env_strings;
  std::vector<char*> envp;
  std::string sh = "sh", dash_c = "-c", command;
  char* argv[4] = {sh.data(), dash_c.data(), command.data(), nullptr};
};

// The child's stdout and stderr, and the report pipe that carries a failed exec's errno.
struct ChildPipes {
  Pipe out, err, report, usage;
  void close_reads() {
    out.close_read(), err.close_read(), report.close_read(), usage.close_read();
  }
  void close_writes() {
    out.close_write(), err.close_write(), report.close_write(), usage.close_write();
  }
};

using Clock = std::chrono::steady_clock;

// Starts the child (exec_child) with the pipes' write ends, keeping their read ends here, and
// records its process group so that Ctrl-C kills it. `start` is when the child was forked.
// Returns its pid, or -1 with `error` saying why no child started.
pid_t spawn(const ProcessSpec& spec, const ExecArgs& args, ChildPipes& pipes,
            Clock::time_point& start, std::string& error) {
  if (!pipes.out.open() || !pipes.err.open() || !pipes.report.open() || !pipes.usage.open()) {
    error = fmt::format("cannot create a pipe: {}", strerror(errno));
    pipes.close_reads(), pipes.close_writes();
    return -1;
  }
  install_terminate_handlers();
  start = Clock::now();
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0)
    exec_child(spec, pipes.out, pipes.err, args.argv, args.envp.data(), pipes.report.write,
               pipes.usage.write, parent);
  pipes.close_writes();
  if (pid < 0) {
    error = fmt::format("cannot fork: {}", strerror(errno));
    pipes.close_reads();
    return -1;
  }
  // Also from the parent, so that a kill of the group cannot race the child's own setpgid.
  setpgid(pid, pid);
  remember_group(pid);
  return pid;
}

// The report pipe closes on a successful exec; otherwise it carries errno and what failed.
// Returns "<what> failed: <reason>", or "" when the exec succeeded. Closes the pipe.
std::string read_exec_report(Pipe& report) {
  char buffer[256];
  ssize_t got;
  std::string report_text;
  while ((got = read(report.read, buffer, sizeof buffer)) > 0) report_text.append(buffer, got);
  report.close_read();
  if (report_text.size() < sizeof(int)) return "";
  int code;
  memcpy(&code, report_text.data(), sizeof code);
  return fmt::format("{} failed: {}", report_text.substr(sizeof code), strerror(code));
}

// The shell's resource use as its watcher measured it, or none when the watcher did not say
// (killed at a time-out). Closes the pipe; the watcher has ended, so the read does not wait.
std::optional<rusage> read_shell_usage(Pipe& usage) {
  rusage shell{};
  const ssize_t got = read(usage.read, &shell, sizeof shell);
  usage.close_read();
  if (got != static_cast<ssize_t>(sizeof shell)) return std::nullopt;
  return shell;
}

// How a watched child ended and what it wrote.
struct Watched {
  bool timed_out = false;
  int status = 0;  // of wait4
  rusage usage{};
  CapturedOutput out, err;
};

// After the shell ends, stragglers of its group are killed and the pipes drained for at most
// this long (a descendant that left the group may hold them open).
constexpr auto kDrain = std::chrono::seconds(1);

// Waits for a started child while capturing its stdout and stderr, and kills its group when it
// outlives spec.timeout. A pidfd is readable when the child ends, so one poll() waits for
// output, the end and the time limit; without one, it polls every 20 ms.
class ChildWatch {
 public:
  ChildWatch(const ProcessSpec& spec, pid_t pid, Clock::time_point start, ChildPipes& pipes)
      : spec_(spec),
        pid_(pid),
        start_(start),
        pipes_(pipes),
        out_(spec.limits.head_bytes, spec.limits.tail_bytes),
        err_(spec.limits.head_bytes, spec.limits.tail_bytes),
        buffer_(64 * 1024) {}

  // Returns once the child is reaped and both pipes are closed, or kDrain after the reap.
  Watched run() {
    fcntl(pipes_.out.read, F_SETFL, O_NONBLOCK);
    fcntl(pipes_.err.read, F_SETFL, O_NONBLOCK);
    // (The syscall itself: glibc 2.36 declares pidfd_open without C linkage for C++.)
    pidfd_ = int(syscall(SYS_pidfd_open, pid_, 0));
    while (step()) {
    }
    if (pidfd_ >= 0) close(pidfd_);
    done_.out = out_.finish();
    done_.err = err_.finish();
    return std::move(done_);
  }

 private:
  // One turn of the wait: reap, enforce the time limit, or wait for output. False: done.
  bool step() {
    if (!reaped_) reap(WNOHANG);
    if (reaped_ && pipes_.out.read < 0 && pipes_.err.read < 0) return false;
    auto now = Clock::now();
    if (!reaped_ && spec_.timeout.count() > 0 && now >= start_ + spec_.timeout) {
      done_.timed_out = true;
      kill(-pid_, SIGKILL);
      while (!reaped_) reap(0);
      return true;
    }
    if (reaped_ && now >= drain_deadline_) return false;
    poll_and_read(wait_ms(now));
    return true;
  }

  // Reaps the child if it ended (or waits for it, with flags 0), then kills the rest of its
  // group and starts the drain.
  void reap(int flags) {
    pid_t ended = wait4(pid_, &done_.status, flags, &done_.usage);
    if (ended == pid_ || (ended < 0 && errno != EINTR)) {
      reaped_ = true;
      kill(-pid_, SIGKILL);
      drain_deadline_ = Clock::now() + kDrain;
    }
  }

  // How long poll() may wait: until the drain ends or the time limit (-1: no limit).
  int wait_ms(Clock::time_point now) const {
    auto until = reaped_ ? drain_deadline_ : start_ + spec_.timeout;
    int ms = -1;
    if (reaped_ || spec_.timeout.count() > 0) {
      ms = int(std::chrono::ceil<std::chrono::milliseconds>(until - now).count());
    }
    if (!reaped_ && pidfd_ < 0) ms = ms < 0 ? 20 : std::min(ms, 20);
    return ms;
  }

  // Waits up to `ms` for output or the child's end, and reads what is ready.
  void poll_and_read(int ms) {
    pollfd fds[3];
    nfds_t count = 0;
    if (pipes_.out.read >= 0) fds[count++] = {pipes_.out.read, POLLIN, 0};
    if (pipes_.err.read >= 0) fds[count++] = {pipes_.err.read, POLLIN, 0};
    if (!reaped_ && pidfd_ >= 0) fds[count++] = {pidfd_, POLLIN, 0};
    if (poll(fds, count, ms) <= 0) return;
    for (nfds_t i = 0; i < count; ++i) {
      if (fds[i].revents == 0 || fds[i].fd == pidfd_) continue;
      read_available(fds[i].fd == pipes_.out.read ? pipes_.out : pipes_.err);
    }
  }

  // Reads a pipe until it would block; closes it at its end or on an error.
  void read_available(Pipe& pipe) {
    Capture& capture = &pipe == &pipes_.out ? out_ : err_;
    for (;;) {
      ssize_t got = read(pipe.read, buffer_.data(), buffer_.size());
      if (got > 0) {
        capture.add(buffer_.data(), std::size_t(got));
        continue;
      }
      if (got < 0 && errno == EINTR) continue;
      if (got == 0 || errno != EAGAIN) pipe.close_read();
      break;
    }
  }

  const ProcessSpec& spec_;
  pid_t pid_;
  Clock::time_point start_;
  ChildPipes& pipes_;
  Capture out_, err_;
  std::vector<char> buffer_;
  int pidfd_ = -1;
  bool reaped_ = false;
  Clock::time_point drain_deadline_;
  Watched done_;
};

// The result's ending from how the child ended: a failed start, the time limit, a signal or
// an exit status.
void set_ending(ProcessResult& result, const Watched& watched) {
  if (!result.spawn_error.empty()) {
    result.ending = Ending::spawn_failed;
  } else if (watched.timed_out) {
    result.ending = Ending::timed_out;
    result.term_signal = SIGKILL;
  } else if (WIFSIGNALED(watched.status)) {
    result.ending = Ending::signaled;
    result.term_signal = WTERMSIG(watched.status);
  } else {
    result.ending = Ending::exited;
    result.exit_status = WEXITSTATUS(watched.status);
  }
}

}  // namespace

// Runs spec.command under /bin/sh in its own process group (see exec_child), capturing its
// output within the limits and killing the group at the time limit.
ProcessResult run_process(const ProcessSpec& spec) {
  ProcessResult result;
  const ExecArgs args(spec);
  ChildPipes pipes;
  Clock::time_point start;
  const pid_t pid = spawn(spec, args, pipes, start, result.spawn_error);
  if (pid < 0) return result;
  result.spawn_error = read_exec_report(pipes.report);
  Watched watched = ChildWatch(spec, pid, start, pipes).run();
  forget_group(pid);
  pipes.out.close_read();
  pipes.err.close_read();
  result.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  // The watcher's own use (a fork of the driver) is not the program's.
  const rusage usage = read_shell_usage(pipes.usage).value_or(watched.usage);
  result.user_seconds = seconds(usage.ru_utime);
  result.system_seconds = seconds(usage.ru_stime);
  result.out = std::move(watched.out);
  result.err = std::move(watched.err);
  set_ending(result, watched);
  return result;
}

void kill_running_children() {
  for (auto& slot : running_groups) {
    pid_t group = slot.load();
    if (group > 0) kill(-group, SIGKILL);
  }
}

std::string ProcessResult::describe() const {
  switch (ending) {
    case Ending::exited:
      return fmt::format("exit status {}", exit_status);
    case Ending::signaled:
      return fmt::format("killed by signal {} ({})", term_signal, strsignal(term_signal));
    case Ending::timed_out:
      return fmt::format("timed out after {:.3g} s", wall_seconds);
    case Ending::spawn_failed:
      return fmt::format("could not start: {}", spawn_error);
  }
  return "unknown";
}

std::string last_lines(const std::string& text, std::size_t count) {
  if (count == 0) return {};
  std::size_t end = text.size();
  if (end > 0 && text[end - 1] == '\n') --end;  // a final newline does not start a line
  std::size_t pos = end;
  std::size_t lines = 0;
  while (pos > 0) {
    if (text[pos - 1] == '\n' && ++lines == count) break;
    --pos;
  }
  return text.substr(pos);
}

}  // namespace looprace::run
