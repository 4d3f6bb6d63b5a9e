#include "stats/disturbed_rounds.h"

#include <algorithm>
#include <cmath>

#include "stats/speedup_test.h"

namespace looprace::stats {

// The boundary of the lowest tenth rather than the minimum, which one lucky run would set.
double fast_level(std::vector<double> logs) {
  if (logs.empty()) return 0.0;
  const auto k = logs.begin() + static_cast<std::ptrdiff_t>((logs.size() - 1) / 10);
  std::nth_element(logs.begin(), k, logs.end());
  return *k;
}

std::vector<double> fast_levels(const std::vector<RoundLogs>& rounds, std::size_t versions) {
  std::vector<std::vector<double>> logs(versions);
  for (const RoundLogs& r : rounds)
    for (std::size_t i = 0; i < r.versions.size(); ++i) logs[r.versions[i]].push_back(r.logs[i]);
  std::vector<double> levels(versions, 0.0);
  for (std::size_t v = 0; v < versions; ++v) levels[v] = fast_level(std::move(logs[v]));
  return levels;
}

std::vector<bool> undisturbed_rounds(const std::vector<RoundLogs>& rounds, std::size_t versions,
                                     double limit) {
  std::vector<bool> kept(rounds.size(), true);
  if (!(limit > 1.0)) return kept;
  const std::vector<double> fast = fast_levels(rounds, versions);
  const double bound = std::log(limit);
  std::vector<double> above;
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    if (rounds[r].versions.empty()) continue;
    above.clear();
    for (std::size_t i = 0; i < rounds[r].versions.size(); ++i)
      above.push_back(rounds[r].logs[i] - fast[rounds[r].versions[i]]);
    kept[r] = median(above) <= bound;
  }
  return kept;
}

}  // namespace looprace::stats
