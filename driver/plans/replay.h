// Replay: simulates sampling plans on recorded observations the way Raced Profiles section 5 does.
// For each loop and repetition the recorded rounds are drawn in a fresh random order (one
// permutation of round indices shared by all versions, each version taking them in turn, so
// versions observed in the same rounds keep real pairs for blocked plans); a
// repetition fails when the chosen version's true mean (mean of all its recorded cycles) is
// more than theta slower than the best version's.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "plans/plan.h"

namespace looprace::plans {

struct LoopData {
  std::string loop;
  std::vector<std::string> versions;        // version labels (e.g. unroll factors), sorted
  std::vector<std::vector<double>> cycles;  // per version, in recorded order
  // Beside each observation, its run's control (plans::Observation); empty: none recorded.
  std::vector<std::vector<double>> controls;
  // Rounds a replay can draw: the fewest observations of any version.
  std::size_t rounds() const;
};

using Dataset = std::vector<LoopData>;

// Reads CSV with header `loop,version,cycles` or `loop,version,cycles,control`, one
// observation per row in recorded order. Versions sort numerically when all are integers.
// Throws std::invalid_argument naming `source` and the line for a bad header, field or value
// (cycles and controls must be finite and > 0), and for a version with fewer than 2
// observations. A replay of observations with controls judges each version by its mean
// adjusted by them (stats::adjusted_cycles on all its recorded observations).
Dataset read_dataset_csv(std::istream& in, const std::string& source);

struct ReplayOptions {
  std::size_t repetitions = 100;
  std::uint64_t seed = 1;
  double theta = 0.005;  // failure threshold: chosen slower than best by more than this
  unsigned threads = 2;
  // > 1: the true means count only the recorded rounds this round limit keeps
  // (stats/disturbed_rounds.h); 0: every recorded observation.
  double truth_round_limit = 0.0;
};

struct ReplayOutcome {
  double failure_rate = 0.0;  // over all loops and repetitions
  double mean_samples = 0.0;  // average observations per version
  double cap_rate = 0.0;      // fraction of repetitions that hit the sample cap
  double mean_winners = 0.0;  // average size of the winner set
  // Failure judged by geometric means (exp of the mean log cycles), the races' own criterion:
  // under heavy-tailed noise the version with the lowest geometric mean may be more than theta
  // slower by arithmetic mean, and the races then fail even with all the data.
  double failure_rate_geometric = 0.0;
};

// One version of one loop under one plan, over all repetitions (Raced Profiles Figures 7-10).
struct VersionReplay {
  std::size_t recorded = 0;  // observations recorded
  double true_mean = 0.0;    // of all recorded cycles
  double true_sd = 0.0;
  bool acceptable = false;            // true mean within theta of the best version's
  double true_geometric_mean = 0.0;   // exp of the mean log of all recorded cycles
  bool acceptable_geometric = false;  // within theta of the best by geometric mean
  double samples_mean = 0.0;          // observations the plan took per repetition
  double samples_sd = 0.0;
  double sampled_mean = 0.0;     // cycles of every observation the plan took, pooled over
  double sampled_sd = 0.0;       // repetitions (0 when it took none)
  std::size_t winner_count = 0;  // repetitions that put it in the winner set
  std::size_t chosen_count = 0;  // repetitions that chose it
};

// One loop under one plan.
struct LoopReplay {
  std::string loop;
  std::vector<std::string> versions;
  std::vector<VersionReplay> per_version;  // same order as versions
  std::size_t repetitions = 0;
  double failure_rate = 0.0;
  double failure_rate_geometric = 0.0;
  double cap_rate = 0.0;
  double mean_samples = 0.0;  // average observations per version and repetition
  double mean_winners = 0.0;
};

// Replays every plan on every loop: result[p][l] is plan p on loop l. The same seed gives the
// same results whatever the thread count, and every plan sees the same random orders (they
// depend on the seed, the loop's position in the dataset and the repetition). Throws
// std::runtime_error when a plan asks for more rounds than a loop recorded.
std::vector<std::vector<LoopReplay>> replay_per_loop(const std::vector<const Plan*>& plans,
                                                     const Dataset& data,
                                                     const ReplayOptions& options);

// Each plan's per-loop results averaged over its loops (every loop weighs the same).
std::vector<ReplayOutcome> summarize(const std::vector<std::vector<LoopReplay>>& per_loop);

// summarize(replay_per_loop(...)).
std::vector<ReplayOutcome> replay(const std::vector<const Plan*>& plans, const Dataset& data,
                                  const ReplayOptions& options);

// CSV, one row per loop and version, headed by kPerLoopCsvHeader; `plan` names the setting.
extern const char* const kPerLoopCsvHeader;
void write_per_loop_csv(std::ostream& out, const std::string& plan,
                        const std::vector<LoopReplay>& loops);

}  // namespace looprace::plans
