// The filtered observation: a loop's cycles in one run with the entries that other work visibly
// disturbed (an interrupt or a preemption landing inside the entry) taken out, from the run's
// entry-cycle histogram. On wall time the only error is other work included, so the least
// disturbed timing is the most accurate one; a sum over every entry lets one 10-million-cycle
// preemption outweigh fifty thousand 130-cycle entries.
//
// The rule (docs/formats.md, "Observations"):
//   1. A run needs at least kMinEntries entries: with fewer, the run's entries say nothing of a
//      typical one, and the caller falls back to judging the whole run (nullopt).
//   2. Disturbances are few per run (a preemption or two, the timer interrupts landing in the
//      loop): at most k = max(kLeastAllowance, kMaxDisturbedShare x entries) entries are taken
//      for disturbed. The median entry lies in histogram bucket m (octave buckets:
//      [2^m, 2^(m+1)) cycles); an entry in bucket m + kCapOctaves or above, at least 2x and up
//      to 4x the median entry and usually far more, is disturbed.
//   3. When more than k entries lie that high, they are the loop's own long entries
//      (data-dependent trip counts: a quarter of them 8x longer), and the (k+1)-th longest entry
//      is the loop's own work: the cap moves to kCapOctaves above its bucket, which keeps those
//      entries and still cuts a preemption inside one of them.
//   4. The filtered cycles are the kept entries' mean times the run's entry count: each
//      disturbed entry counts as a typical one, so runs stay comparable whatever number of
//      entries was disturbed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace looprace::stats {

// Which value of a loop in a run a race decides on.
enum class ObservationKind {
  kRaw,       // the sum of every entry's cycles
  kFiltered,  // disturbed entries taken out (filter_entries), or the raw sum of a run the
              // machine did not visibly disturb; none for a disturbed run that cannot be filtered
};
std::string to_string(ObservationKind kind);
// "raw" or "filtered"; throws std::invalid_argument naming the value otherwise.
ObservationKind observation_kind_from_string(const std::string& text);

// One non-empty octave bucket: entries of floor to 2 x floor - 1 cycles, with their cycle sum.
struct EntryBucket {
  std::uint64_t floor = 0;
  std::uint64_t entries = 0;
  std::uint64_t cycles = 0;
};

struct FilteredCycles {
  double cycles = 0;             // the filtered observation
  std::uint64_t disturbed = 0;   // entries taken out
  std::uint64_t cap_cycles = 0;  // entries of this many cycles or more were taken out
};

inline constexpr std::uint64_t kMinEntries = 32;
inline constexpr int kCapOctaves = 2;
inline constexpr double kMaxDisturbedShare = 0.01;
inline constexpr std::uint64_t kLeastAllowance = 5;

// The filtered cycles of one run from its histogram (buckets in increasing order); nullopt when
// the run has too few entries to tell disturbances from the loop's own work (step 1).
std::optional<FilteredCycles> filter_entries(const std::vector<EntryBucket>& histogram);

}  // namespace looprace::stats
