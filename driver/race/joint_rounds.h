// Racing several loops in the same program runs (`looprace race --together`). Each slot is one
// build in which every raced loop has one of its versions; one run of a slot observes all the
// loops at once. Every loop's plan runs in its own thread and asks for its versions as usual;
// once every plan still racing has asked, one joint round runs the fewest slots that carry every
// version asked for, each once, in a fresh random order. A loop's observation of a version
// comes from the slot chosen for it; what the other slots measured of it is left unused, so
// every plan sees exactly one observation per version per round, as when racing alone.
// Knows nothing of processes: a slot run is a callback.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <vector>

#include "plans/plan.h"

namespace looprace::race {

// slots[s][l]: the version of loop l in slot s.
using SlotAssignment = std::vector<std::vector<std::size_t>>;

// Spreads each loop's eligible versions (eligible[l], in any order) over as many slots as the
// loop with the most versions has: slot s gives loop l eligible[l][(s + shift_l) mod size],
// shift_l drawn from `seed`, so versions of different loops are paired differently. A loop
// with fewer versions repeats some of them. Every eligible list must be non-empty.
SlotAssignment assign_slots(const std::vector<std::vector<std::size_t>>& eligible,
                            std::uint64_t seed);

class JointRounds {
 public:
  // Runs slot `slot` once in joint round `round` (1-based); returns each loop's observation
  // (nullopt: that loop was not observed, e.g. the run failed).
  using RunSlot = std::function<std::vector<std::optional<plans::Observation>>(std::size_t slot,
                                                                               std::size_t round)>;
  // Called after every joint round, on the calling thread of run().
  using AfterRound = std::function<void(std::size_t round, std::size_t slots_run)>;

  // Rounds are numbered on from `rounds_before` (those of the batch already stored).
  JointRounds(SlotAssignment slots, std::size_t loops, RunSlot run_slot, std::uint64_t seed,
              std::size_t rounds_before = 0);

  // One observation of each listed version of `loop`: blocks the plan's thread until the joint
  // round ran. A version no slot carries gets nullopt (the plan disqualifies it).
  std::vector<std::optional<plans::Observation>> measure(std::size_t loop,
                                                         const std::vector<std::size_t>& versions);

  // Runs bodies[l] (loop l's plan, which calls measure(l, ...)) in its own thread and the joint
  // rounds on this one until every body returned. Rethrows the first exception of a body or of
  // a slot run, after stopping and joining every thread.
  void run(const std::vector<std::function<void()>>& bodies, const AfterRound& after = {});

  std::size_t rounds() const { return round_; }  // including rounds_before
  std::size_t slot_runs() const { return slot_runs_; }

 private:
  struct Request {
    bool asked = false;
    std::vector<std::size_t> versions;
    std::vector<std::optional<plans::Observation>> answer;
    bool answered = false;
  };
  // The slots of this round and, per request, the slot serving each version (or none).
  std::vector<std::size_t> choose_slots(
      std::vector<std::vector<std::optional<std::size_t>>>& serving);
  // Starts bodies[l] in a thread each; a body's exception goes to errors[l].
  std::vector<std::thread> start_bodies(const std::vector<std::function<void()>>& bodies,
                                        std::vector<std::exception_ptr>& errors);
  // Whether every loop still racing waits for an answer (mutex_ held).
  bool all_asked() const;
  // Hands each request the observations of the slots serving it (mutex_ held).
  void answer_requests(
      const std::vector<std::vector<std::optional<std::size_t>>>& serving,
      std::map<std::size_t, std::vector<std::optional<plans::Observation>>>& measured);
  // Waits for the requests, runs one joint round and answers them; false: the race is over.
  bool run_round(const AfterRound& after);

  SlotAssignment slots_;
  std::size_t loops_;
  RunSlot run_slot_;
  std::mt19937_64 order_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Request> requests_;
  std::vector<bool> finished_;
  bool aborted_ = false;
  bool failed_ = false;  // a body threw
  std::size_t round_ = 0;
  std::size_t slot_runs_ = 0;
};

}  // namespace looprace::race
