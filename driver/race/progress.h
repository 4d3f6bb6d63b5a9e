// What a race tells the user while it runs: which loop of how many, the time so far, and the
// time left, estimated from the loops raced so far. Kept apart from the race's work so that
// the Racer only says what it is doing.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <numeric>
#include <utility>
#include <vector>

#include "race/race.h"

namespace looprace::race::detail {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

class ProgressReporter {
 public:
  explicit ProgressReporter(std::function<void(const RaceProgress&)> sink)
      : sink_(std::move(sink)), start_(Clock::now()) {}

  void add_loops(std::size_t n) { loop_count_ += n; }
  // The next loop begins: alone (timed, for the estimate of the time left) or in a batch.
  void start_loop() {
    ++loop_number_;
    loop_start_ = Clock::now();
  }
  // The loop begun last is decided; `raced`: by runs of this command, not from the store.
  void end_loop(bool raced) {
    if (raced) loop_seconds_.push_back(seconds_since(loop_start_));
  }
  std::size_t loop_count() const { return loop_count_; }
  double elapsed_seconds() const { return seconds_since(start_); }

  // Sends `p` with the loop count, the elapsed time and, once a loop was raced, the time left;
  // a batch of loops raced together (p.together) says itself how many are decided.
  void report(RaceProgress p) const {
    if (!sink_) return;
    if (!p.together) p.loop = loop_number_;
    p.loops = loop_count_;
    p.elapsed_seconds = elapsed_seconds();
    if (!loop_seconds_.empty()) {
      double per_loop = std::accumulate(loop_seconds_.begin(), loop_seconds_.end(), 0.0) /
                        static_cast<double>(loop_seconds_.size());
      double left = per_loop * static_cast<double>(loop_count_ - loop_number_ + 1) -
                    seconds_since(loop_start_);
      p.eta_seconds = std::max(0.0, left);
    }
    sink_(p);
  }

 private:
  std::function<void(const RaceProgress&)> sink_;
  Clock::time_point start_, loop_start_;
  std::size_t loop_number_ = 0, loop_count_ = 0;
  std::vector<double> loop_seconds_;  // of the loops raced alone
};

}  // namespace looprace::race::detail
