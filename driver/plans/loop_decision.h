// One loop's decision in unroll factors: what the race built once and the store keeps, and what
// the summary, the profile, the report and the export read. A plan decides over versions
// (plans::Decision); the race maps them to factors here, so no reader maps them again. The
// Speedup-Test against factor 0 is computed from the runs the decision keeps, by one function,
// so the profile's evidence and the report never disagree. Pure: no store, no processes.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "plans/plan.h"
#include "stats/entry_filter.h"
#include "stats/speedup_test.h"

namespace looprace::plans {

// Where the decision's speedup against factor 0 comes from.
enum class SpeedupSource {
  kSameCode,      // the chosen factor has factor 0's code: speedup 1 by construction
  kConfirmation,  // fresh interleaved runs of factor 0 and the chosen factor after the race
  kRace,          // the race's own observations (--confirm 0): they chose the factor, so flatter it
  kNone,          // fewer than 2 observations of one of the two
};
const char* speedup_source_name(SpeedupSource source);  // "baseline", "confirmation", ...

struct SpeedupEvidence {
  SpeedupSource source = SpeedupSource::kNone;
  std::vector<double> baseline, chosen;  // cycles of factor 0 and of the chosen factor
  double confidence = 0.95;              // of the Speedup-Test on them (the race's --confidence)
  // The test of their ratio: paired_trimmed on confirmation pairs (--confirm-test), Welch's
  // on the race's own observations, which are not paired.
  stats::RatioTest ratio_test = stats::RatioTest::welch_log;
  // Each pair's code layout, when the confirmation took layouts of its own (empty otherwise).
  std::vector<int> layouts = {};
};

// One round of the race with every version named by its factor (its group's representative).
struct FactorRound {
  std::size_t round = 0;
  std::vector<int> sampled, survivors, losers;
  bool set_aside = false;  // plans::RoundTrace::set_aside
};

// The chosen factor against the best factor the race eliminated, in fresh pairs after a
// confirmed change: the runner-up joined the winners unless the choice was shown faster by
// more than epsilon.
struct RunnerUpCheck {
  int factor = 0;
  std::size_t pairs = 0;
  double speedup = 1, ci_low = 1, ci_high = 1;  // runner-up time / chosen time
  bool joined = false;
};

struct LoopDecision {
  std::string loop_id;
  std::string plan;                    // Plan::describe()
  int chosen = 0;                      // the factor the profile writes
  std::vector<int> winners;            // factors tied for best (every factor of each winning group)
  std::map<int, std::size_t> samples;  // observations per raced group, by representative
  std::map<int, int> groups;           // factor -> its code group's representative
  bool cap_hit = false;                // stopped by the sample cap, not by statistics
  std::vector<FactorRound> rounds;     // the plan's rounds
  // Rounds the plan set aside as disturbed as a whole (FactorRound::set_aside).
  std::size_t rounds_set_aside() const;
  std::map<int, std::string> disqualified;  // factor -> why it was not raced or lost
  SpeedupEvidence speedup;
  // The plan's choice when GCC's default was kept because the confirmation runs did not show
  // it faster by more than epsilon; `speedup` then holds those runs (that factor against 0).
  std::optional<int> unconfirmed;
  std::optional<RunnerUpCheck> runner_up;  // when one was timed
  std::string decided_at;                  // UTC ISO-8601

  // Observations of the winners' groups, in winner order: the profile's `samples=` evidence.
  std::vector<std::size_t> winner_samples() const;
  // The observations the plan decided on: filtered when its name says so (plan_on_observations).
  stats::ObservationKind observation() const;
  // The loops whose cycles adjusted its observations, as its plan's name says them
  // (plan_on_observations); empty when none did.
  std::vector<std::string> controls() const;
};

// The plan's name for a decision on `kind` of observations: filtered ones make another decision
// than raw sums, so their name says " on filtered"; observations of an enclosing loop (its id
// `through`, race/hot_selection.h) another than the loop's own, so it says " through ID";
// observations adjusted by other loops' cycles in the same runs (`controls`), another again:
// " controlled by ID,ID".
std::string plan_on_observations(const std::string& plan, stats::ObservationKind kind,
                                 const std::string& through = "",
                                 const std::vector<std::string>& controls = {});

// A plan's decision over versions in factors. `representatives[v]` is version v's factor,
// `group_of[f]` factor f's group representative; `factors` are the raced factors, in order.
// Every factor of a disqualified version's group gets `reasons[version]`, or "not observed".
LoopDecision in_factors(const Decision& decision, const std::vector<int>& representatives,
                        const std::vector<int>& group_of, const std::vector<int>& factors,
                        const std::map<std::size_t, std::string>& reasons);

// The Speedup-Test of the chosen factor against factor 0 on the decision's evidence, at its
// confidence; nullopt when there is none to test (same code, too few runs).
std::optional<stats::SpeedupTestResult> speedup_of(const SpeedupEvidence& evidence);

}  // namespace looprace::plans
