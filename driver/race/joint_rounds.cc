#include "race/joint_rounds.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <thread>
#include <utility>

namespace looprace::race {
namespace {

// Thrown into the plans' threads to stop them when the joint race fails.
struct Aborted {};

}  // namespace

SlotAssignment assign_slots(const std::vector<std::vector<std::size_t>>& eligible,
                            std::uint64_t seed) {
  std::size_t count = 0;
  for (const auto& versions : eligible) {
    if (versions.empty()) throw std::invalid_argument("assign_slots: a loop has no version");
    count = std::max(count, versions.size());
  }
  std::mt19937_64 random(seed);
  SlotAssignment slots(count, std::vector<std::size_t>(eligible.size()));
  for (std::size_t l = 0; l < eligible.size(); ++l) {
    const std::size_t size = eligible[l].size();
    const std::size_t shift = random() % size;
    for (std::size_t s = 0; s < count; ++s) slots[s][l] = eligible[l][(s + shift) % size];
  }
  return slots;
}

JointRounds::JointRounds(SlotAssignment slots, std::size_t loops, RunSlot run_slot,
                         std::uint64_t seed, std::size_t rounds_before)
    : slots_(std::move(slots)),
      loops_(loops),
      run_slot_(std::move(run_slot)),
      order_(seed),
      round_(rounds_before) {}

std::vector<std::optional<plans::Observation>> JointRounds::measure(
    std::size_t loop, const std::vector<std::size_t>& versions) {
  if (versions.empty()) return {};
  std::unique_lock lock(mutex_);
  if (aborted_) throw Aborted{};
  Request& request = requests_.at(loop);
  request.versions = versions;
  request.asked = true;
  request.answered = false;
  changed_.notify_all();
  changed_.wait(lock, [&] { return request.answered || aborted_; });
  if (!request.answered) throw Aborted{};
  request.answered = false;
  return std::move(request.answer);
}

std::vector<std::size_t> JointRounds::choose_slots(
    std::vector<std::vector<std::optional<std::size_t>>>& serving) {
  // Greedy set cover: the slot carrying most of the versions still unserved, until every
  // version some slot carries is served. Ties go to the lowest slot, so rounds are reproducible.
  serving.assign(loops_, {});
  for (std::size_t l = 0; l < loops_; ++l) serving[l].assign(requests_[l].versions.size(), {});
  std::vector<std::size_t> chosen;
  for (;;) {
    std::size_t best = slots_.size(), best_count = 0;
    for (std::size_t s = 0; s < slots_.size(); ++s) {
      std::size_t count = 0;
      for (std::size_t l = 0; l < loops_; ++l) {
        if (!requests_[l].asked) continue;
        for (std::size_t i = 0; i < requests_[l].versions.size(); ++i) {
          if (!serving[l][i] && slots_[s][l] == requests_[l].versions[i]) ++count;
        }
      }
      if (count > best_count) {
        best = s;
        best_count = count;
      }
    }
    if (best == slots_.size()) break;
    chosen.push_back(best);
    for (std::size_t l = 0; l < loops_; ++l) {
      if (!requests_[l].asked) continue;
      for (std::size_t i = 0; i < requests_[l].versions.size(); ++i) {
        if (!serving[l][i] && slots_[best][l] == requests_[l].versions[i]) serving[l][i] = best;
      }
    }
  }
  return chosen;
}

// Starts one thread per loop running its body. A body's exception (other than Aborted, which
// only says the race stopped) goes to errors[l] and stops the rounds; either way the loop
// counts as finished, so the rounds no longer wait for it.
std::vector<std::thread> JointRounds::start_bodies(const std::vector<std::function<void()>>& bodies,
                                                   std::vector<std::exception_ptr>& errors) {
  std::vector<std::thread> threads;
  for (std::size_t l = 0; l < loops_; ++l) {
    threads.emplace_back([&, l] {
      std::exception_ptr error;
      try {
        bodies[l]();
      } catch (const Aborted&) {
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard lock(mutex_);
      errors[l] = error;
      failed_ = failed_ || error;
      finished_[l] = true;
      changed_.notify_all();
    });
  }
  return threads;
}

// Whether every loop still racing has asked for its next observations (with mutex_ held).
bool JointRounds::all_asked() const {
  for (std::size_t l = 0; l < loops_; ++l) {
    if (!finished_[l] && !(requests_[l].asked && !requests_[l].answered)) return false;
  }
  return true;
}

// Gives every request the observations of the slots serving its versions (with mutex_ held).
void JointRounds::answer_requests(
    const std::vector<std::vector<std::optional<std::size_t>>>& serving,
    std::map<std::size_t, std::vector<std::optional<plans::Observation>>>& measured) {
  for (std::size_t l = 0; l < loops_; ++l) {
    Request& request = requests_[l];
    if (!request.asked) continue;
    request.answer.assign(request.versions.size(), std::nullopt);
    for (std::size_t i = 0; i < request.versions.size(); ++i) {
      if (serving[l][i]) request.answer[i] = measured[*serving[l][i]][l];
    }
    request.asked = false;
    request.answered = true;
  }
}

// Waits until every loop still racing has asked, then runs one joint round and answers them.
// Slots run without the lock, so the plans' threads are not held up. False: no round is left
// (every body returned, or one failed).
bool JointRounds::run_round(const AfterRound& after) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return failed_ || all_asked(); });
  if (failed_ || std::all_of(finished_.begin(), finished_.end(), [](bool f) { return f; })) {
    return false;
  }
  std::vector<std::vector<std::optional<std::size_t>>> serving;
  std::vector<std::size_t> chosen = choose_slots(serving);
  // Interleaving in a fresh random order makes slow drift of the machine hit all slots alike.
  std::shuffle(chosen.begin(), chosen.end(), order_);
  const std::size_t round = ++round_;
  lock.unlock();

  std::map<std::size_t, std::vector<std::optional<plans::Observation>>> measured;
  for (std::size_t s : chosen) {
    measured[s] = run_slot_(s, round);
    measured[s].resize(loops_);
    ++slot_runs_;
  }

  lock.lock();
  answer_requests(serving, measured);
  changed_.notify_all();
  lock.unlock();
  if (after) after(round, chosen.size());
  return true;
}

// The plans race in their threads while this one runs the joint rounds; whatever ends the race
// (every body returned, a body or a slot run threw), every thread is stopped and joined before
// the first error is rethrown: a slot run's, else the first loop's.
void JointRounds::run(const std::vector<std::function<void()>>& bodies, const AfterRound& after) {
  requests_.assign(loops_, {});
  finished_.assign(loops_, false);
  aborted_ = false;
  failed_ = false;
  std::vector<std::exception_ptr> errors(loops_);
  std::vector<std::thread> threads = start_bodies(bodies, errors);
  std::exception_ptr failure;
  try {
    while (run_round(after)) {
    }
  } catch (...) {
    failure = std::current_exception();
  }
  {
    std::lock_guard lock(mutex_);
    aborted_ = true;
    changed_.notify_all();
  }
  for (auto& thread : threads) thread.join();
  if (failure) std::rethrow_exception(failure);
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace looprace::race
