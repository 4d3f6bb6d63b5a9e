#include "race/live_sampler.h"

#include <algorithm>
#include <utility>

namespace looprace::race {

LiveSampler::LiveSampler(Recorded recorded, Measure measure, std::uint64_t seed)
    : recorded_(std::move(recorded)), measure_(std::move(measure)), order_(seed) {}

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
  // Interleaving in a fresh random order makes slow drift of the machine hit all versions alike.
  std::shuffle(to_run.begin(), to_run.end(), order_);
  for (std::size_t i : to_run) {
    out[i] = measure_(versions[i], round_);
    ++measured_;
  }
  return out;
}

}  // namespace looprace::race
