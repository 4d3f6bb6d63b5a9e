// Rounds the machine slowed as a whole. This VM's cores are hardware threads of a host shared
// with other tenants: for seconds at a time the same build runs up to 1.8 times slower, and the
// unroll factors do not slow alike (demo's fir_filter: every factor within 1 % of GCC's choice
// in the fast state, 3-10 % faster than it in the slow one; benchmarks/results/round-regimes.md).
// A race whose rounds mix the two states decides by the mix, so independent races disagree.
// The rounds of a blocked race observe their versions within a fraction of a second, in one
// state; a round whose versions all ran well above their own fast level ran with other work on
// the core, which, like an interrupted entry, is not the loop's own time. Pure: logs in, flags
// out.
#pragma once

#include <cstddef>
#include <vector>

namespace looprace::stats {

// One round of a blocked plan: the log observations of the versions it observed.
struct RoundLogs {
  std::vector<std::size_t> versions;
  std::vector<double> logs;  // same order as versions
};

// Whether each round is undisturbed: the median over its versions of (log - the version's
// fast level) is at most log(limit), a version's fast level being the lowest tenth of its
// logs over all `rounds`. Versions are numbered below `versions`. With limit <= 1 every round
// is kept. Later rounds can set aside earlier ones: a race that began in the slow state keeps
// its first rounds only until faster ones show what the loop's own time is.
std::vector<bool> undisturbed_rounds(const std::vector<RoundLogs>& rounds, std::size_t versions,
                                     double limit);

// A version's fast level: the lowest tenth's boundary of its logs (0 for none).
double fast_level(std::vector<double> logs);

// Each version's fast level over `rounds`.
std::vector<double> fast_levels(const std::vector<RoundLogs>& rounds, std::size_t versions);

}  // namespace looprace::stats
