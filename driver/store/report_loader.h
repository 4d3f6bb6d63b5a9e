// Fills the report model (report/model.h) from a store: what `looprace report` and
// `looprace export` render.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/model.h"
#include "store/store.h"

namespace looprace::store {

// The report of one program in `store` (the latest one when the store holds several, i.e. was
// forced), with the machine facts of its latest session. `loops` (ids or id prefixes) keeps only
// those loops; a selector matching no raced loop throws StoreError. Loops whose race was
// interrupted appear with their observations and no decision. The loops' observations are of
// `kind`; without one, of the kind the latest decision was made on (decided_observation), so
// that the figures shown are those the decisions rest on.
report::Report load_report(const Store& store, const std::vector<std::string>& loops = {},
                           std::optional<stats::ObservationKind> kind = std::nullopt);

// The observations the program's latest decision was made on; raw sums when there is none.
stats::ObservationKind decided_observation(const Store& store, std::int64_t program);

}  // namespace looprace::store
