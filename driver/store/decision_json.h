// The decisions table's JSON columns <-> plans::LoopDecision: the only place a decision is JSON.
// The columns keep the shape stores have had since schema 1 (factor keys as text), and the
// speedup column keeps the Speedup-Test's figures beside the runs they come from, for people
// and scripts reading the store with SQL; a reader takes the runs and computes the figures again
// (plans::speedup_of), so the figures can never drift from the runs.
#pragma once

#include <nlohmann/json.hpp>

#include "plans/loop_decision.h"

namespace looprace::store {

struct DecisionColumns {
  nlohmann::json winners, samples, groups, rounds, disqualified, speedup;
};

DecisionColumns to_columns(const plans::LoopDecision& d);
// Fills `d`'s fields from the columns; throws nlohmann::json::exception on a malformed column.
void from_columns(const DecisionColumns& c, plans::LoopDecision& d);

}  // namespace looprace::store
