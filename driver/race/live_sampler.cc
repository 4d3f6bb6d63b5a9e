#include "race/live_sampler.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <utility>

namespace looprace::race {

LiveSampler::LiveSampler(Recorded recorded, Measure measure, std::uint64_t seed)
    : LiveSampler(std::move(recorded),
                  [measure = std::move(measure), order = std::mt19937_64(seed)](
                      const std::vector<std::size_t>& versions, std::size_t round) mutable {
                    // Interleaving in a fresh random order makes slow drift of the machine hit
                    // all versions alike.
                    std::vector<std::size_t> positions(versions.size());
                    std::iota(positions.begin(), positions.end(), 0);
                    std::shuffle(positions.begin(), positions.end(), order);
                    std::vector<std::optional<plans::Observation>> out(versions.size());
                    for (std::size_t i : positions) out[i] = measure(versions[i], round);
                    return out;
                  }) {}

LiveSampler::LiveSampler(Recorded recorded, MeasureRound measure)
    : recorded_(std::move(recorded)), measure_(std::move(measure)) {}

std::vector<std::optional<plans::Observation>> LiveSampler::round(
    const std::vector<std::size_t>& versions) {
  ++round_;
  std::vector<std::optional<plans::Observation>> out(versions.size());
  std::vector<std::size_t> to_run;  // positions in `versions`
  for (std::size_t i = 0; i < versions.size(); ++i) {
    std::size_t v = versions[i];
    if (v < recorded_.size() && !recorded_[v].empty()) {
      out[i] = recorded_[v].front();
      recorded_[v].pop_front();
      ++replayed_;
    } else {
      to_run.push_back(i);
    }
  }
  if (to_run.empty()) return out;
  std::vector<std::size_t> new_versions;
  for (std::size_t i : to_run) new_versions.push_back(versions[i]);
  auto measured = measure_(new_versions, round_);
  for (std::size_t k = 0; k < to_run.size(); ++k) out[to_run[k]] = measured.at(k);
  measured_ += to_run.size();
  return out;
}

}  // namespace looprace::race
