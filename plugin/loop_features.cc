// Loop features: counted on the pristine pre-inlining GIMPLE of the early pass.
#include "loop_features.h"

namespace looprace {

LoopFeatures count_loop_features(class loop* loop) {
  LoopFeatures features;
  basic_block* body = get_loop_body(loop);
  features.blocks = static_cast<int>(loop->num_nodes);
  for (unsigned i = 0; i < loop->num_nodes; ++i) {
    for (gimple_stmt_iterator gsi = gsi_start_bb(body[i]); !gsi_end_p(gsi); gsi_next(&gsi)) {
      gimple* stmt = gsi_stmt(gsi);
      if (is_gimple_debug(stmt) || gimple_code(stmt) == GIMPLE_LABEL) continue;
      ++features.stmts;
      if (is_gimple_call(stmt)) {
        ++features.calls;
      } else if (gimple_code(stmt) == GIMPLE_COND || gimple_code(stmt) == GIMPLE_SWITCH) {
        ++features.branches;
      } else if (gimple_vdef(stmt)) {
        ++features.stores;
      } else if (gimple_vuse(stmt)) {
        ++features.loads;
      }
    }
  }
  free(body);
  features.exits = static_cast<int>(get_loop_exit_edges(loop).length());
  for (class loop* inner = loop->inner; inner; inner = inner->next) ++features.inner;
  return features;
}

void add_trip_counts(class loop* loop, LoopFeatures& features) {
  tree niter = number_of_latch_executions(loop);
  if (niter && TREE_CODE(niter) == INTEGER_CST && tree_fits_shwi_p(niter))
    features.niter = tree_to_shwi(niter);
  estimate_numbers_of_iterations(loop);
  features.est_niter = estimated_loop_iterations_int(loop);
  features.max_niter = max_loop_iterations_int(loop);
}

}  // namespace looprace
