// Derived views of a store that several commands share: loop hotness from the hotness runs, and
// the raced observations per loop and factor (the dataset `looprace replay --store` simulates
// sampling plans on).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "store/store.h"

namespace looprace::store {

// Hotness of one loop: cycles per run and share of the program's cycles, net of the probe's
// bias, so that a short loop entered millions of times does not rank high for the cycles its
// own probes spend.
struct Hotness {
  std::string id;
  double cycles_per_run = 0;  // measured cycles minus entries x the probe's bias
  double entries_per_run = 0;
  double share = 0;  // of the program's cycles (wall time x TSC rate), 0..1; 0 when unknown
  // Each entry took under twice the probe's bias, so the net time of one entry is lost in the
  // probe's own (an 8-iteration inner loop entered half a million times measures about the
  // probe alone): its cycles are then the measured ones, probes included, an upper bound that
  // bound_by_enclosing tightens, instead of a figure near 0 that would hide the loop from --hot.
  bool short_entries = false;
  bool bounded_by_enclosing = false;  // cycles and share are the enclosing loop's
  // The cycles and share are an upper bound, not a measurement.
  bool is_bound() const { return short_entries || bounded_by_enclosing; }
};

// One run of a hotness build: the loops of one nest depth instrumented ("depth:D"), or, in
// stores before those, every loop at once ("").
struct HotnessSample {
  std::string build;
  double wall_seconds = 0;
  std::uint64_t off_cpu_ns = 0;  // the run's wall time less its CPU time
  double tsc_hz = 0;             // 0 when unknown
  double probe_cycles = 0;       // bias of one entry's t1 - t0 (empty region); 0 when unknown
  std::map<std::string, std::pair<double, double>> loops;  // id -> (cycles, entries)
};

// The time a plain run took on its CPU: its wall time less what it spent off the CPU (waiting
// for another process, or for the host). On a loaded machine every one of a few short runs
// waits, and its wall time once shrank a 2.3 % loop's share below 1 %.
inline double undisturbed_seconds(double wall_seconds, std::uint64_t off_cpu_ns) {
  const double off = static_cast<double>(off_cpu_ns) / 1e9;
  return off < wall_seconds ? wall_seconds - off : wall_seconds;
}

// The time a plain run took on a CPU, what hotness shares are of: its processes' CPU time
// (`cpu_seconds`, user + system; 0 when not measured) when that is the shorter, else
// undisturbed_seconds. The runtime counts the wait only from its start, so a run that waited
// for a CPU before (a fresh process on a loaded machine) kept that wait: gsm-toast's plain runs
// took 11.6-20 ms beside a test build, for 4 ms of work, and every share shrank threefold. A
// program of several threads takes more CPU than wall time, and keeps undisturbed_seconds.
inline double plain_run_seconds(double wall_seconds, std::uint64_t off_cpu_ns, double cpu_seconds) {
  const double undisturbed = undisturbed_seconds(wall_seconds, off_cpu_ns);
  return cpu_seconds > 0 && cpu_seconds < undisturbed ? cpu_seconds : undisturbed;
}

// The loops that ran, hottest first. A loop's cycles per run are those of the middle run of the
// build that timed it, less the share of that run spent off the CPU, and its share is of
// `plain_cycles`, the cycles of the least disturbed plain run (no probes: the baseline's);
// without it (0), of the hotness runs' own mean, which probes inflate.
std::vector<Hotness> rank_hotness(const std::vector<HotnessSample>& samples,
                                  double plain_cycles = 0);

// Where a loop sits in its function: nest depth (1: outermost) and preorder index, so that a
// loop's enclosing loop is the nearest one before it at depth - 1.
struct LoopPlace {
  std::string function;
  int depth = 0;
  int index = 0;
};

// The loop `place` is nested in: the nearest loop before it in preorder at depth - 1, in the
// same function; nullopt for an outermost loop.
std::optional<std::string> enclosing_loop(const LoopPlace& place,
                                          const std::map<std::string, LoopPlace>& places);

// Probes change the code they time (an instrumented three-iteration loop is no longer unrolled
// completely, and can measure more than the uninstrumented loop around it): a loop takes at
// most what its enclosing loop took. Hottest first.
std::vector<Hotness> bound_by_enclosing(std::vector<Hotness> ranking,
                                        const std::map<std::string, LoopPlace>& places);

// The hotness runs stored for `program`, ranked against the baseline runs of the session that
// took them (the shortest) and bounded by enclosing loops as the race ranked them; empty when
// none were stored. The TSC frequency and probe cost are that session's facts (`tsc_hz` and
// `probe_cycles` when it has none): hotness is measured once per store, and every later
// session and report then computes the same shares, so that a rerun of a race whose plans
// depend on them (--indifference program) names the same plans.
std::vector<Hotness> stored_hotness(const Store& store, std::int64_t program, double tsc_hz,
                                    double probe_cycles);

// Observations of one loop's race: cycles per factor in recorded order (only the factors that
// were raced, i.e. the lowest factor of each group of byte-identical variants), plus which
// factor's code each factor shares.
struct LoopDataset {
  std::string loop_id;
  std::map<int, std::vector<double>> cycles;  // raced factor -> cycles per run
  std::map<int, int> group_of;                // factor -> raced factor with the same code
  std::vector<LoopRaceRun> runs;              // every race run of the loop, as read
  // When its decision says the race adjusted its observations by other loops' cycles
  // (`race --controls`): those loops, each run's control by run id, and the controls beside
  // `cycles` (same shape). Empty otherwise.
  std::vector<std::string> control_loops;
  std::map<std::int64_t, double> control_of_run;
  std::map<int, std::vector<double>> controls;
};

// Every raced loop of `program`, in the order its race started, with the observations of
// `kind` (a run without such a value is left out). A loop raced with controls has each run's
// control (stats::combined_control), each control loop centered on its median over the loop's
// race runs; a run that timed none of them is left out, as the race's resume leaves it.
std::vector<LoopDataset> load_race_dataset(
    const Store& store, std::int64_t program,
    stats::ObservationKind kind = stats::ObservationKind::kRaw);

}  // namespace looprace::store
