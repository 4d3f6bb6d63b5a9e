// Replay: simulates sampling plans on recorded observations the way seeds/000 section 5 does.
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
  // Rounds a replay can draw: the fewest observations of any version.
  std::size_t rounds() const;
};

using Dataset = std::vector<LoopData>;

// Reads CSV with header `loop,version,cycles`, one observation per row in recorded order.
// Versions sort numerically when all are integers. Throws std::invalid_argument naming
// `source` and the line for a bad header, field or value (cycles must be finite and > 0), and
// for a version with fewer than 2 observations.
Dataset read_dataset_csv(std::istream& in, const std::string& source);

struct ReplayOptions {
  std::size_t repetitions = 100;
  std::uint64_t seed = 1;
  double theta = 0.005;  // failure threshold: chosen slower than best by more than this
  unsigned threads = 2;
};

struct ReplayOutcome {
  double failure_rate = 0.0;  // over all loops and repetitions
  double mean_samples = 0.0;  // average observations per version
  double cap_rate = 0.0;      // fraction of repetitions that hit the sample cap
  double mean_winners = 0.0;  // average size of the winner set
};

// Replays every plan on every loop. The same seed gives the same outcomes whatever the thread
// count, and every plan sees the same random orders. Throws std::runtime_error when a plan
// asks for more rounds than a loop recorded.
std::vector<ReplayOutcome> replay(const std::vector<const Plan*>& plans, const Dataset& data,
                                  const ReplayOptions& options);

}  // namespace looprace::plans
