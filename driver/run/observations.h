// Sums the runtime records of one program run (docs/formats.md section 6) into per-loop
// observations. A loop's observation is the sum of `cycles` over the run's processes; a run in
// which no process wrote its `end` line is a missing observation, never a zero.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stats/entry_filter.h"

namespace looprace::run {

using stats::ObservationKind;

struct LoopTotals {
  std::uint64_t cycles = 0;  // summed over processes
  std::uint64_t entries = 0;
  std::uint64_t min = 0;       // smallest entry over processes
  std::uint64_t max = 0;       // largest entry over processes
  std::uint64_t migrated = 0;  // entries that changed CPU between entry and exit
  std::uint64_t nested = 0;    // nested or re-entered activations
  unsigned processes = 0;      // processes that recorded this loop
  // Entry-cycle histogram summed over processes: entries and cycles per octave bucket.
  std::array<std::uint64_t, 64> hist_entries{};
  std::array<std::uint64_t, 64> hist_cycles{};
};

// The filtered value of one loop in one run, and how it was obtained.
struct FilteredObservation {
  std::optional<double> cycles;  // none: the run was visibly disturbed and could not be filtered
  std::uint64_t disturbed = 0;   // entries taken out (0 when filtered as a whole run)
  bool by_entries = false;       // true: stats::filter_entries applied; false: the run as a whole
};

struct RunObservations {
  unsigned processes_ended = 0;             // processes that wrote an `end` line
  unsigned processes_signaled = 0;          // of those, ended by a signal (how=signal)
  unsigned forked = 0;                      // of those, fork children without exec
  std::map<std::string, LoopTotals> loops;  // by loop id (16 hex digits)
  std::optional<double> tsc_hz;             // from the first `end` line that has it
  std::optional<double> probe_cycles;       // median over processes of the empty-probe cost
  std::vector<std::string> problems;        // malformed lines, loop lines without an `end`
  std::uint64_t nivcsw = 0;                 // involuntary context switches, summed over processes
  std::uint64_t steal_ticks = 0;  // the host's steal time while the processes ran (largest)
  std::uint64_t off_cpu_ns = 0;   // wall time less CPU time, summed over processes
  // Other work visibly took the CPU from the run: its processes were off every CPU for longer
  // than kOffCpuDisturbedNs, or the host stole time from the virtual machine. Involuntary
  // context switches are kept but are no such sign: quiet runs of a few ms show one or two.
  // Quiet runs of the demo were off the CPU for at most 70 us
  // (benchmarks/results/observation-fidelity.md); a preemption by another task takes a
  // scheduler slice, milliseconds.
  static constexpr std::uint64_t kOffCpuDisturbedNs = 250'000;
  bool visibly_disturbed() const { return steal_ticks > 0 || off_cpu_ns > kOffCpuDisturbedNs; }

  // Something was written by at least one process that finished writing.
  bool complete() const { return processes_ended > 0; }
  // Cycles of loop `id` in this run: nullopt when the run is incomplete or the loop never ran.
  std::optional<double> cycles(const std::string& id) const;
  // The share of loop `id`'s cycles that is probe bias (entries x probe / cycles, capped at 1):
  // near 1, the loop's entries are too short to time one by one. nullopt without data.
  std::optional<double> probe_share(const std::string& id) const;
  // Loop `id`'s filtered value (see ObservationKind); nullopt when the loop has no raw value.
  std::optional<FilteredObservation> filtered(const std::string& id) const;
  // The value a race on `kind` observations takes; nullopt when there is none.
  std::optional<double> value(const std::string& id, ObservationKind kind) const;
};

// Parses the records text (possibly several processes' blocks, in any order).
RunObservations summarize_records(const std::string& text);
// Reads LOOPRACE_OUT's file; a missing file gives an incomplete (empty) result.
RunObservations read_records_file(const std::filesystem::path& file);

}  // namespace looprace::run
