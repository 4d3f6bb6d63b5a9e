// Loop features: counted on the pristine pre-inlining GIMPLE of the early pass.
#include "loop_features.h"

namespace looprace {

namespace {

// Every feature by its table key: the one list the table rows and the model inputs read.
struct Field {
  const char* key;
  long long LoopFeatures::*member;
};

const Field kFields[] = {
    {"blocks", &LoopFeatures::blocks},       {"stmts", &LoopFeatures::stmts},
    {"loads", &LoopFeatures::loads},         {"stores", &LoopFeatures::stores},
    {"calls", &LoopFeatures::calls},         {"branches", &LoopFeatures::branches},
    {"exits", &LoopFeatures::exits},         {"inner", &LoopFeatures::inner},
    {"niter", &LoopFeatures::niter},         {"est_niter", &LoopFeatures::est_niter},
    {"max_niter", &LoopFeatures::max_niter},
};

}  // namespace

nlohmann::ordered_json features_json(const LoopFeatures& features) {
  nlohmann::ordered_json json = nlohmann::ordered_json::object();
  for (const Field& field : kFields) json[field.key] = features.*field.member;
  return json;
}

std::optional<float> loop_feature(const LoopFeatures& features, std::string_view name) {
  for (const Field& field : kFields)
    if (name == field.key) return static_cast<float>(features.*field.member);
  return std::nullopt;
}

LoopFeatures count_loop_features(class loop* loop) {
  LoopFeatures features;
  basic_block* body = get_loop_body(loop);
  features.blocks = loop->num_nodes;
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
  features.exits = get_loop_exit_edges(loop).length();
  for (class loop* inner = loop->inner; inner; inner = inner->next) ++features.inner;
  return features;
}

namespace {

// True when loop has one latch and one entry edge from a block that only leads to the header:
// the preheader that loop_optimizer_init (LOOPS_HAVE_PREHEADERS) would otherwise create.
bool has_preheader(class loop* loop) {
  if (!loop->latch) return false;
  edge entry = nullptr;
  edge e;
  edge_iterator ei;
  FOR_EACH_EDGE(e, ei, loop->header->preds) {
    if (e->src == loop->latch) continue;
    if (entry) return false;
    entry = e;
  }
  return entry && !(entry->flags & EDGE_COMPLEX) && single_succ_p(entry->src) &&
         entry->src != ENTRY_BLOCK_PTR_FOR_FN(cfun);
}

// The iteration bounds GCC caches in a loop. The analysis below records bounds there; they are
// put back afterwards so that later passes compute exactly what they would without the plugin.
struct CachedBounds {
  tree nb_iterations;
  widest_int upper_bound, likely_upper_bound, estimate;
  bool any_upper_bound, any_likely_upper_bound, any_estimate;
  enum loop_estimation estimate_state;

  explicit CachedBounds(class loop* loop)
      : nb_iterations(loop->nb_iterations),
        upper_bound(loop->nb_iterations_upper_bound),
        likely_upper_bound(loop->nb_iterations_likely_upper_bound),
        estimate(loop->nb_iterations_estimate),
        any_upper_bound(loop->any_upper_bound),
        any_likely_upper_bound(loop->any_likely_upper_bound),
        any_estimate(loop->any_estimate),
        estimate_state(loop->estimate_state) {}

  void restore(class loop* loop) const {
    loop->nb_iterations = nb_iterations;
    loop->nb_iterations_upper_bound = upper_bound;
    loop->nb_iterations_likely_upper_bound = likely_upper_bound;
    loop->nb_iterations_estimate = estimate;
    loop->any_upper_bound = any_upper_bound;
    loop->any_likely_upper_bound = any_likely_upper_bound;
    loop->any_estimate = any_estimate;
    loop->estimate_state = estimate_state;
  }
};

}  // namespace

void add_trip_counts(function* fun, const std::vector<class loop*>& loops,
                     std::vector<LoopFeatures>& features) {
  std::vector<std::pair<class loop*, CachedBounds>> cached;
  for (class loop* loop : loops_list(fun, 0)) {
    if (!has_preheader(loop)) return;
    cached.emplace_back(loop, CachedBounds(loop));
  }
  // The CFG already is what these flags promise; they only let SCEV ask for preheaders.
  bool multiple_latches = loops_state_satisfies_p(fun, LOOPS_MAY_HAVE_MULTIPLE_LATCHES);
  bool preheaders = loops_state_satisfies_p(fun, LOOPS_HAVE_PREHEADERS);
  loops_state_clear(fun, LOOPS_MAY_HAVE_MULTIPLE_LATCHES);
  loops_state_set(fun, LOOPS_HAVE_PREHEADERS);
  scev_initialize();
  for (std::size_t i = 0; i < loops.size(); ++i) {
    tree niter = number_of_latch_executions(loops[i]);
    if (niter && TREE_CODE(niter) == INTEGER_CST && tree_fits_shwi_p(niter))
      features[i].niter = tree_to_shwi(niter);
    estimate_numbers_of_iterations(loops[i]);
    features[i].est_niter = estimated_loop_iterations_int(loops[i]);
    features[i].max_niter = max_loop_iterations_int(loops[i]);
  }
  scev_finalize();
  free_numbers_of_iterations_estimates(fun);
  for (const auto& [loop, bounds] : cached) bounds.restore(loop);
  if (multiple_latches) loops_state_set(fun, LOOPS_MAY_HAVE_MULTIPLE_LATCHES);
  if (!preheaders) loops_state_clear(fun, LOOPS_HAVE_PREHEADERS);
}

}  // namespace looprace
