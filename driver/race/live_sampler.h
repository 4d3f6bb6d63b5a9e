// The sampler a live race hands to its plan. It first replays the observations already in the
// store, in the order they were recorded, and only then runs the program: since a plan is
// deterministic given its data, running the same race command again continues where an
// interrupted race stopped.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "plans/plan.h"

namespace looprace::race {

class LiveSampler : public plans::Sampler {
 public:
  // Takes one new observation of `version` in plan round `round` (1-based): runs the program,
  // judges and stores the run. nullopt: the version could not be observed (disqualified).
  using Measure =
      std::function<std::optional<plans::Observation>(std::size_t version, std::size_t round)>;
  // Takes one new observation of each of `versions` at once, in plan round `round` (e.g. in
  // joint rounds shared with other loops' plans).
  using MeasureRound = std::function<std::vector<std::optional<plans::Observation>>(
      const std::vector<std::size_t>& versions, std::size_t round)>;
  // What the store already holds per version, oldest first (nullopt = a disqualifying run).
  using Recorded = std::vector<std::deque<std::optional<plans::Observation>>>;

  // Runs the new observations one by one, in a fresh random order every round.
  LiveSampler(Recorded recorded, Measure measure, std::uint64_t seed);
  LiveSampler(Recorded recorded, MeasureRound measure);

  // One observation of each listed version; the new runs go in a fresh random order.
  std::vector<std::optional<plans::Observation>> round(
      const std::vector<std::size_t>& versions) override;

  std::size_t replayed() const { return replayed_; }  // observations taken from the store
  std::size_t measured() const { return measured_; }  // observations taken by running
  std::size_t rounds() const { return round_; }

 private:
  Recorded recorded_;
  MeasureRound measure_;
  std::size_t round_ = 0;
  std::size_t replayed_ = 0;
  std::size_t measured_ = 0;
};

}  // namespace looprace::race
