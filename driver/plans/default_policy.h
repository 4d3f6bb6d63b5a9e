// When a profile may change GCC's own choice. A race makes many comparisons, and on a noisy
// machine some factor always looks a little faster; the race's own observations chose that
// factor and so flatter it. A profile line that changes the code is written only when fresh
// confirmation runs of the chosen factor and factor 0, taken after the race, show the chosen
// factor faster by more than epsilon, whether or not factor 0 survived the race. Pure: it sees
// observations, not processes.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace looprace::plans {

struct DefaultPolicy {
  bool prefer_default = true;  // false: the plan's choice stands (--no-prefer-default)
  std::size_t confirm = 30;    // confirmation runs wanted of each; 0: the plan's choice stands
  double confidence = 0.95;
  double epsilon = 0.005;  // the race's margin of "equal"
};

struct DefaultDecision {
  bool keep_default = false;
  std::string reason;  // why, in words, for the summary
};

// Whether factor 0 is kept instead of the plan's choice. `baseline` and `chosen` are the
// confirmation runs' observations (cycles), taken in pairs.
DefaultDecision decide_default(const DefaultPolicy& policy, bool chosen_is_default,
                               bool default_disqualified, const std::vector<double>& baseline,
                               const std::vector<double>& chosen);

}  // namespace looprace::plans
