// Child processes for builds and runs: `/bin/sh -c COMMAND` in its own process group, stdin from
// /dev/null, with a chosen working directory and environment, an optional time limit (the whole
// group is killed) and optional CPU pinning. Output is captured bounded: a digest of every byte,
// the first bytes (for difference messages) and the last bytes (for error tails).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace looprace::run {

// The variables a child process sees. Starts empty; Environment::current() copies ours.
class Environment {
 public:
  static Environment current();
  void set(const std::string& name, const std::string& value);
  void unset(const std::string& name);
  std::optional<std::string> get(const std::string& name) const;
  const std::map<std::string, std::string>& variables() const { return vars_; }
  // "NAME=value" strings, sorted by name (what execve wants, and deterministic).
  std::vector<std::string> entries() const;

 private:
  std::map<std::string, std::string> vars_;
};

// How much of a stream to keep besides its digest.
struct CaptureLimits {
  std::size_t head_bytes = 64 * 1024;
  std::size_t tail_bytes = 16 * 1024;
};

struct CapturedOutput {
  std::string digest;      // FNV-1a 64 of every byte, 16 hex digits
  std::uint64_t size = 0;  // bytes seen
  std::string head;        // the first CaptureLimits::head_bytes bytes
  std::string tail;        // the last CaptureLimits::tail_bytes bytes
  bool complete() const { return head.size() == size; }  // head holds everything
};

enum class Ending {
  exited,        // exit_status is valid
  signaled,      // term_signal is valid
  timed_out,     // the time limit expired and the group was killed
  spawn_failed,  // the shell could not be started (spawn_error says why)
};

struct ProcessSpec {
  std::string command;        // run by /bin/sh -c
  std::filesystem::path cwd;  // empty: the current directory
  Environment env = Environment::current();
  std::chrono::milliseconds timeout{0};  // 0: no limit
  std::optional<int> pin_cpu;            // sched_setaffinity of the child to this CPU
  bool merge_stderr = false;             // stderr into `out` (builds) or captured apart (runs)
  CaptureLimits limits;
};

struct ProcessResult {
  Ending ending = Ending::spawn_failed;
  int exit_status = -1;
  int term_signal = 0;
  std::string spawn_error;
  CapturedOutput out;  // stdout (plus stderr when merged)
  CapturedOutput err;  // stderr when not merged
  double wall_seconds = 0, user_seconds = 0, system_seconds = 0;

  bool succeeded() const { return ending == Ending::exited && exit_status == 0; }
  // CPU time of the processes: far less sensitive than wall time to the waiting a loaded
  // machine adds.
  double cpu_seconds() const { return user_seconds + system_seconds; }
  // "exit status 2", "killed by signal 11 (Segmentation fault)", "timed out after 10 s", ...
  std::string describe() const;
};

// Safe to call from several threads at once. While children run, SIGINT, SIGTERM and SIGHUP
// (when they still have their default action) first kill every running child's process group,
// then end this process as they would have: Ctrl-C leaves no build or program behind.
ProcessResult run_process(const ProcessSpec& spec);

// Kills (SIGKILL) the process groups of all children run_process() is waiting for.
// Async-signal-safe: for drivers that install their own SIGINT/SIGTERM handlers.
void kill_running_children();

// The last `count` lines of `text` (without a partial first line when cut).
std::string last_lines(const std::string& text, std::size_t count);

}  // namespace looprace::run
