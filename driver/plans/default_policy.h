// When a profile may change GCC's own choice. A race makes many comparisons, and on a noisy
// machine some factor always looks a little faster; the race's own observations chose that
// factor and so flatter it. A profile line that changes the code is written only when fresh
// confirmation runs of the chosen factor and factor 0, taken after the race, show the chosen
// factor faster by more than epsilon, whether or not factor 0 survived the race. The runs come
// in looks of doubling size (plans/sequential_looks.h): a real 10 % gain in a loop whose runs
// spread widely can leave 30 pairs straddling 1 + epsilon, and a fixed count would then keep
// the default in some races and confirm the gain in others. Pure: it sees observations, not
// processes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "plans/plan.h"
#include "plans/sequential_looks.h"
#include "stats/speedup_test.h"

namespace looprace::plans {

struct DefaultPolicy {
  bool prefer_default = true;  // false: the plan's choice stands (--no-prefer-default)
  // Pairs of confirmation runs, look by look; first_pairs 0: the plan's choice stands.
  SequentialLooks confirmation{30, 4, 0.95};
  double epsilon = 0.005;  // the race's margin of "equal"
  // The test of the pairs' speedup. Paired trimmed by default: on recorded runs under load it
  // confirmed more real gains with fewer pairs and no more false ones than Welch's on log
  // times, whose mean a few preempted runs pull (benchmarks/results/confirmation-replay.md).
  stats::RatioTest test = stats::RatioTest::paired_trimmed;
};

enum class ConfirmationOutcome {
  confirmed,   // faster by more than epsilon: the change is written
  not_faster,  // the interval lies below 1 + epsilon: GCC's default stays
  unresolved,  // it straddles 1 + epsilon (or too few runs to trust it): another look
};

// One look at the confirmation runs so far: `baseline` and `chosen` are the cycles of factor 0
// and of the chosen factor, taken in pairs (baseline[i] with chosen[i]), `layouts` each pair's
// code layout (empty: the pairs count as independent); `test` receives the Speedup-Test at the
// look's confidence with the policy's test of the ratio (untouched with fewer than two pairs,
// which leave the look unresolved).
ConfirmationOutcome judge_confirmation(const DefaultPolicy& policy,
                                       const std::vector<double>& baseline,
                                       const std::vector<double>& chosen,
                                       stats::SpeedupTestResult* test,
                                       const std::vector<int>& layouts = {});

struct DefaultDecision {
  bool keep_default = false;
  std::string reason;  // why, in words, for the summary
};

// Whether factor 0 is kept instead of the plan's choice, on the confirmation runs it is given;
// `set_aside` pairs more were taken and left out (undisturbed_pairs).
DefaultDecision decide_default(const DefaultPolicy& policy, bool chosen_is_default,
                               bool default_disqualified, const std::vector<double>& baseline,
                               const std::vector<double>& chosen,
                               const std::vector<int>& layouts = {}, std::size_t set_aside = 0);

// Paired runs of two builds: a[i] and b[i] ran one after the other, at code layout layouts[i]
// (layouts empty: the pairs count as independent).
struct RunPairs {
  std::vector<double> a, b;
  std::vector<int> layouts;
};

// The pairs the machine did not slow as a whole under --round-limit `limit` (<= 1: every pair):
// a pair is set aside when both its runs ran more than `limit` times slower than their build's
// fast level (stats::fast_level), taken over the race's own observations of it (`race_a`,
// `race_b`) as well as the pairs'. A confirmation taken wholly in the host's slow state, whose
// pairs alone would look undisturbed, is then seen to be slow, and the slow state's gain is not
// confirmed. Both runs, not their median as in a race's rounds: one build slow at one of the
// confirmation's code layouts is evidence against it, not the machine's state.
RunPairs undisturbed_pairs(const RunPairs& pairs, const std::vector<double>& race_a,
                           const std::vector<double>& race_b, double limit);

// GCC's default (version `base`) kept against the plan's choice: the fresh runs showed the
// two within epsilon or could not tell them apart, which is what the race calls tied, so
// `base` becomes the choice and joins the winners even where the race's own runs, which
// flattered its choice, had left it out.
void keep_default_in(Decision& decision, std::size_t base);

// The runner-up: of the versions the race eliminated (neither winners nor disqualified), the
// one with the lowest mean of the race's observations (`taken`, per version), GCC's default
// (`base`) left out, as the confirmation compares it already; none when no other was raced.
std::optional<std::size_t> runner_up(const Decision& decision,
                                     const std::vector<std::vector<double>>& taken,
                                     std::size_t base);

// `version` joins the winners (kept sorted): fresh runs could not show the choice faster than
// it by more than epsilon, so the race's elimination rested on its own layouts' luck.
void join_winners(Decision& decision, std::size_t version);

}  // namespace looprace::plans
