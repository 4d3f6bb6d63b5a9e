// Sampling plans: decide which version is fastest from observations pulled through a Sampler.
// Plans know nothing about processes, files or compilers, so the same code races live
// programs and replays recorded data.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace looprace::plans {

// Cycles the target loop took in one program run (raw, > 0). Plans that work on logs take the
// log themselves. `control`: cycles the run's control loops took (their geometric mean, > 0),
// loops no version changes, timed in the same run to measure how fast the machine ran it; a
// plan adjusts the cycles by them (stats/covariate.h). A plan's observations have a control
// all or none.
struct Observation {
  Observation(double cycles, std::optional<double> control = std::nullopt)  // NOLINT: implicit
      : cycles(cycles), control(control) {}
  double cycles;
  std::optional<double> control;
  bool operator==(const Observation&) const = default;
};

// Where observations come from. One call is one round: one new observation of each listed
// version. The sampler picks the order (the live driver shuffles it every round), so blocked
// plans can pair the observations of one round.
class Sampler {
 public:
  virtual ~Sampler() = default;
  // Result has the same length and order as `versions`. std::nullopt means the version could
  // not be observed (crash, wrong output, time-out): the plan disqualifies it for good.
  virtual std::vector<std::optional<Observation>> round(
      const std::vector<std::size_t>& versions) = 0;
};

// What happened in one round of a plan, for progress display and reports.
struct RoundTrace {
  std::size_t round = 0;               // 1-based
  std::vector<std::size_t> sampled;    // versions observed this round
  std::vector<std::size_t> survivors;  // versions still in the race after the round
  std::vector<std::size_t> losers;     // versions out after this round (may come back)
  // Set aside by the end of the plan as a round the machine slowed as a whole (a blocked race
  // with a round limit): its observations count for nothing.
  bool set_aside = false;
};

struct Decision {
  std::size_t chosen = 0;                 // lowest mean among the winners
  std::vector<std::size_t> winners;       // the statistically tied set of best versions
  std::vector<std::size_t> samples;       // observations taken, per version
  std::vector<std::size_t> disqualified;  // versions the sampler could not observe
  bool cap_hit = false;                   // stopped by the sample cap, not by statistics
  std::vector<RoundTrace> rounds;
};

// Called after every round; lets the driver show progress without knowing plan internals.
using RoundObserver = std::function<void(const RoundTrace&)>;

class Plan {
 public:
  virtual ~Plan() = default;
  // Short name and parameters, e.g. "race(alpha_lt=0.05,alpha_eq=0.05,eps=0.005,cap=200)".
  virtual std::string describe() const = 0;
  // Races `versions` versions (numbered 0..versions-1) until the plan decides.
  virtual Decision run(std::size_t versions, Sampler& sampler,
                       const RoundObserver& observer = {}) const = 0;
};

}  // namespace looprace::plans
