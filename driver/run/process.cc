#include "run/process.h"

#include "run/digest.h"

#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

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
// ended, so the driver sees the shell's status (and, through wait4, its resource use).
[[noreturn]] void watch_shell(pid_t shell) {
  int status = 0;
  while (waitpid(shell, &status, 0) < 0) {
    if (errno != EINTR) _exit(127);
  }
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
                             char* const argv[], char* const envp[], int report_fd, pid_t parent) {
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
  pid_t shell = fork();
  if (shell < 0) fail("fork");
  if (shell == 0) {
    execve("/bin/sh", argv, envp);  // handlers reset to default: the shell starts clean
    child_failed(report_fd, "execve /bin/sh");
  }
  close(report_fd);
  watch_shell(shell);
}

}  // namespace

ProcessResult run_process(const ProcessSpec& spec) {
  ProcessResult result;
  // Everything the child needs is prepared before fork: it may only call async-signal-safe code.
  std::vector<std::string> env_strings = spec.env.entries();
  std::vector<char*> envp;
  for (auto& entry : env_strings) envp.push_back(entry.data());
  envp.push_back(nullptr);
  std::string sh = "sh", dash_c = "-c", command = spec.command;
  char* argv[] = {sh.data(), dash_c.data(), command.data(), nullptr};

  Pipe out, err, report;
  if (!out.open() || !err.open() || !report.open()) {
    result.spawn_error = fmt::format("cannot create a pipe: {}", strerror(errno));
    out.close_read(), out.close_write(), err.close_read(), err.close_write();
    report.close_read(), report.close_write();
    return result;
  }
  install_terminate_handlers();
  auto start = std::chrono::steady_clock::now();
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) exec_child(spec, out, err, argv, envp.data(), report.write, parent);
  out.close_write();
  err.close_write();
  report.close_write();
  if (pid < 0) {
    result.spawn_error = fmt::format("cannot fork: {}", strerror(errno));
    out.close_read(), err.close_read(), report.close_read();
    return result;
  }
  // Also from the parent, so that a kill of the group cannot race the child's own setpgid.
  setpgid(pid, pid);
  remember_group(pid);

  // The report pipe closes on a successful exec; otherwise it carries errno and what failed.
  {
    char buffer[256];
    ssize_t got;
    std::string report_text;
    while ((got = read(report.read, buffer, sizeof buffer)) > 0) report_text.append(buffer, got);
    report.close_read();
    if (report_text.size() >= sizeof(int)) {
      int code;
      memcpy(&code, report_text.data(), sizeof code);
      result.spawn_error =
          fmt::format("{} failed: {}", report_text.substr(sizeof code), strerror(code));
    }
  }

  Capture out_capture(spec.limits.head_bytes, spec.limits.tail_bytes);
  Capture err_capture(spec.limits.head_bytes, spec.limits.tail_bytes);
  fcntl(out.read, F_SETFL, O_NONBLOCK);
  fcntl(err.read, F_SETFL, O_NONBLOCK);
  using Clock = std::chrono::steady_clock;
  // After the shell ends, stragglers of its group are killed and the pipes drained for at most
  // this long (a descendant that left the group may hold them open).
  constexpr auto kDrain = std::chrono::seconds(1);
  // Readable when the child ends, so one poll() waits for output, the end and the time limit.
  // (The syscall itself: glibc 2.36 declares pidfd_open without C linkage for C++.)
  int pidfd = int(syscall(SYS_pidfd_open, pid, 0));
  bool timed_out = false, reaped = false;
  int status = 0;
  rusage usage{};
  Clock::time_point drain_deadline;
  std::vector<char> buffer(64 * 1024);
  auto reap = [&](int flags) {
    pid_t done = wait4(pid, &status, flags, &usage);
    if (done == pid || (done < 0 && errno != EINTR)) {
      reaped = true;
      kill(-pid, SIGKILL);
      drain_deadline = Clock::now() + kDrain;
    }
  };
  for (;;) {
    if (!reaped) reap(WNOHANG);
    if (reaped && out.read < 0 && err.read < 0) break;
    auto now = Clock::now();
    if (!reaped && spec.timeout.count() > 0 && now >= start + spec.timeout) {
      timed_out = true;
      kill(-pid, SIGKILL);
      while (!reaped) reap(0);
      continue;
    }
    if (reaped && now >= drain_deadline) break;
    auto until = reaped ? drain_deadline : start + spec.timeout;
    int wait_ms = -1;
    if (reaped || spec.timeout.count() > 0) {
      wait_ms = int(std::chrono::ceil<std::chrono::milliseconds>(until - now).count());
    }
    if (!reaped && pidfd < 0) wait_ms = wait_ms < 0 ? 20 : std::min(wait_ms, 20);
    pollfd fds[3];
    nfds_t count = 0;
    if (out.read >= 0) fds[count++] = {out.read, POLLIN, 0};
    if (err.read >= 0) fds[count++] = {err.read, POLLIN, 0};
    if (!reaped && pidfd >= 0) fds[count++] = {pidfd, POLLIN, 0};
    if (poll(fds, count, wait_ms) <= 0) continue;
    for (nfds_t i = 0; i < count; ++i) {
      if (fds[i].revents == 0 || fds[i].fd == pidfd) continue;
      bool is_out = fds[i].fd == out.read;
      for (;;) {
        ssize_t got = read(fds[i].fd, buffer.data(), buffer.size());
        if (got > 0) {
          (is_out ? out_capture : err_capture).add(buffer.data(), std::size_t(got));
          continue;
        }
        if (got < 0 && errno == EINTR) continue;
        if (got == 0 || errno != EAGAIN) (is_out ? out : err).close_read();
        break;
      }
    }
  }
  if (pidfd >= 0) close(pidfd);
  forget_group(pid);
  out.close_read();
  err.close_read();
  result.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.user_seconds = seconds(usage.ru_utime);
  result.system_seconds = seconds(usage.ru_stime);
  result.out = out_capture.finish();
  result.err = err_capture.finish();
  if (!result.spawn_error.empty()) {
    result.ending = Ending::spawn_failed;
  } else if (timed_out) {
    result.ending = Ending::timed_out;
    result.term_signal = SIGKILL;
  } else if (WIFSIGNALED(status)) {
    result.ending = Ending::signaled;
    result.term_signal = WTERMSIG(status);
  } else {
    result.ending = Ending::exited;
    result.exit_status = WEXITSTATUS(status);
  }
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
