// Parser of the runtime records (docs/formats.md section 6): the lines liblooprace_rt appends to
// LOOPRACE_OUT at process exit. Each process writes its `loop` lines and its `end` line in one
// write(), so a process is complete exactly when its `end` line is there; a process that died
// before writing left nothing, and the caller treats that as a missing observation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace looprace::run {

inline constexpr int kRtRecordsVersion = 1;

// Entry-cycle histogram buckets of a `loop` line, one per octave: bucket b holds the entries of
// 2^b to 2^(b+1) - 1 cycles (bucket 0 those of 0 and 1).
inline constexpr int kRtHistogramBuckets = 64;

// One non-empty histogram bucket.
struct RtBucket {
  int bucket = 0;
  std::uint64_t entries = 0;
  std::uint64_t cycles = 0;  // summed over the bucket's entries
  bool operator==(const RtBucket&) const = default;
};

// The smallest entry, in cycles, that falls into `bucket`.
std::uint64_t rt_bucket_floor(int bucket);

// One `loop` line: what one process recorded for one instrumented loop.
struct RtLoopRecord {
  std::string id;                   // 16 lower-case hex digits (docs/formats.md section 1)
  std::uint64_t entries = 0;        // activations that reached a normal exit
  std::uint64_t cycles = 0;         // sum over entries of t1 - t0 (TSC ticks)
  std::uint64_t min = 0;            // smallest single entry
  std::uint64_t max = 0;            // largest single entry
  std::uint64_t migrated = 0;       // entries whose rdtscp processor id differed at entry and exit
  std::uint64_t nested = 0;         // entries that enclosed a finished activation of the same loop
  std::uint64_t threads = 0;        // threads that recorded the loop
  std::vector<RtBucket> histogram;  // non-empty buckets by increasing bucket; empty: not written
};

enum class RtExitHow { exit, signal };

// One process's block: its `loop` lines and the `end` line that closes them.
struct RtProcessRecords {
  long pid = 0;
  long ppid = 0;
  bool forked = false;  // a fork() child that did not exec
  RtExitHow how = RtExitHow::exit;
  int status = 0;                // exit status, or the signal number when how == signal
  std::uint64_t tsc_hz = 0;      // TSC ticks per second
  std::uint64_t probe = 0;       // median t1 - t0 of an empty instrumented region (bias per entry)
  std::uint64_t probe_call = 0;  // median ticks one empty entry/exit pair adds, the call included
  std::uint64_t dropped = 0;     // entries not recorded because a loop table was full
  std::uint64_t nivcsw = 0;      // involuntary context switches (0 when not written)
  std::uint64_t run_delay_ns = 0;  // ns the exiting thread waited runnable for a CPU
  std::uint64_t steal_ticks = 0;   // the host's steal time over the process's life
  std::uint64_t off_cpu_ns = 0;    // wall time less CPU time: runnable or waiting, not running
  std::vector<RtLoopRecord> loops;
};

struct RtParseProblem {
  std::size_t line = 0;  // 1-based line number in the parsed text
  std::string message;
};

struct RtRecords {
  std::vector<RtProcessRecords> processes;  // complete blocks, in the order they were written
  std::vector<RtParseProblem> problems;     // malformed lines and blocks without an `end` line
};

// Parses the whole contents of a records file. Never throws on bad input: every line that is not
// a well-formed record, and every `loop` line not closed by its process's `end` line, is reported
// in `problems` and left out of `processes`.
RtRecords parse_rt_records(std::string_view text);

}  // namespace looprace::run
