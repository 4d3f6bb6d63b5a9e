// Loop features for the table (docs/formats.md section 3): raw material for heuristics.
#ifndef LOOPRACE_PLUGIN_LOOP_FEATURES_H
#define LOOPRACE_PLUGIN_LOOP_FEATURES_H

#include "gcc_headers.h"

namespace looprace {

struct LoopFeatures {
  int blocks = 0;
  int stmts = 0;
  int loads = 0;
  int stores = 0;
  int calls = 0;
  int branches = 0;
  int exits = 0;
  int inner = 0;
  long long niter = -1;      // constant latch-execution count
  long long est_niter = -1;  // estimated latch executions
  long long max_niter = -1;  // upper bound on latch executions
};

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
