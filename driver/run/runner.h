// One program run of a variant: the run command with LOOPRACE_OUT pointing at a fresh records
// file, a time limit, optional pinning and layout padding; then its output fingerprint, the
// files it must reproduce, and the per-loop observations from the runtime records.
#pragma once

#include "run/observations.h"
#include "run/process.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace looprace::run {

struct RunSpec {
  std::string command;                       // run by /bin/sh -c
  std::filesystem::path cwd;                 // the user's directory, typically
  Environment env = Environment::current();  // plus e.g. LOOPRACE_OUTDIR of the variant
  std::filesystem::path records_file;        // LOOPRACE_OUT; removed before the run
  std::chrono::milliseconds timeout{0};
  std::optional<int> pin_cpu;
  // Layout randomization: a seeded random-length variable LOOPRACE_PAD (0..4095 bytes) moves
  // the stack and the environment, so a decision is not made for one lucky alignment.
  std::optional<std::uint64_t> layout_seed;
  // Files the run writes, relative to cwd; fingerprinted after the run. Never deleted: a file
  // the run leaves untouched (same modification time and size as before) is "not written".
  std::vector<std::filesystem::path> check_files;
  // Files the run loads (the build's executables and shared objects) whose cached pages are
  // dropped and read back before it, so that every run finds them in newly allocated pages.
  // Otherwise a build keeps the physical placement its first run happened to get: two copies
  // of one executable differed by 1.1 % in every run (benchmarks/page-placement).
  std::vector<std::filesystem::path> fresh_pages;
  CaptureLimits limits;
};

struct FileFingerprint {
  std::filesystem::path path;
  bool exists = false;
  bool written = false;    // created or modified during the run
  CapturedOutput content;  // digest, size and first bytes (tail unused)
};

struct RunResult {
  ProcessResult process;  // stdout captured in process.out, stderr in process.err
  RunObservations observations;
  std::vector<FileFingerprint> files;  // same order as RunSpec::check_files
  std::size_t env_padding = 0;         // length of LOOPRACE_PAD (0 without layout_seed)
};

// Drops the cached pages of `files` (those no process maps) and reads the files back into
// pages elsewhere (`seed` varies where): the run finds them cached, in newly allocated pages,
// and does not pay for reading them (dropped only, a 3 KB larger file made a 4 ms program's
// CPU time 2 % longer). Errors are ignored: a file that is gone or still mapped only keeps
// its placement.
void reload_pages(const std::vector<std::filesystem::path>& files, std::uint64_t seed);

// Length of the environment padding for a layout seed (deterministic).
std::size_t env_padding_length(std::uint64_t layout_seed);

RunResult execute_run(const RunSpec& spec);

// Runs the specs one after the other in the given order (the caller shuffles).
std::vector<RunResult> execute_in_order(const std::vector<RunSpec>& specs);

// What the output check compares against the baseline's run.
struct CheckOptions {
  bool check_output = true;  // stdout bytes and exit status
};

enum class Failure {
  none,
  spawn_failed,
  timed_out,
  crashed,         // killed by a signal
  status_differs,  // exit status differs from the baseline's
  output_differs,  // stdout differs
  file_differs,    // a --check-file differs or is missing
  no_records,      // the run finished but no process wrote its records
};

struct Judgement {
  Failure failure = Failure::none;
  std::string message;  // readable; for differences names the first differing byte and line
  bool ok() const { return failure == Failure::none; }
};

// Judges `candidate` against `baseline` (a run of the baseline variant that succeeded).
// `need_records`: whether the run had instrumented loops and must have written records.
Judgement judge_run(const RunResult& baseline, const RunResult& candidate,
                    const CheckOptions& options, bool need_records);

// Readable first difference between two captured streams, or nullopt when they are equal.
std::optional<std::string> describe_difference(const CapturedOutput& expected,
                                               const CapturedOutput& actual,
                                               const std::string& what);

const char* failure_name(Failure failure);  // "timed-out", "crashed", "output-differs", ...

}  // namespace looprace::run
