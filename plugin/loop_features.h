// Loop features for the table (docs/formats.md section 3): raw material for heuristics.
#ifndef LOOPRACE_PLUGIN_LOOP_FEATURES_H
#define LOOPRACE_PLUGIN_LOOP_FEATURES_H

#include "gcc_headers.h"

namespace looprace {

struct LoopFeatures {
  long long blocks = 0;
  long long stmts = 0;
  long long loads = 0;
  long long stores = 0;
  long long calls = 0;
  long long branches = 0;
  long long exits = 0;
  long long inner = 0;
  long long niter = -1;      // constant latch-execution count
  long long est_niter = -1;  // estimated latch executions
  long long max_niter = -1;  // upper bound on latch executions
};

// The features as the `features` object of a table row (docs/formats.md section 3).
nlohmann::ordered_json features_json(const LoopFeatures& features);

// The value of the feature named `name` (the table's key); nullopt for a name that is not one.
std::optional<float> loop_feature(const LoopFeatures& features, std::string_view name);

// Counts the structural features of loop (whole body, inner loops included). Read-only.
LoopFeatures count_loop_features(class loop* loop);

// Fills the trip-count features of every loop of fun, when every loop already has a preheader
// and a single latch (what SCEV relies on). It never creates them, since changing the CFG here
// would change the code GCC generates; otherwise trip counts stay -1. features[i] belongs to
// loops[i]. Needs loops initialized read-only, as in the early pass.
void add_trip_counts(function* fun, const std::vector<class loop*>& loops,
                     std::vector<LoopFeatures>& features);

}  // namespace looprace

#endif  // LOOPRACE_PLUGIN_LOOP_FEATURES_H
