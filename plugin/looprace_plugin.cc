// looprace GCC plugin: entry point, arguments and diagnostics, the early loop pass, and the
// end-of-unit output. `gcc -fplugin=looprace.so -fplugin-arg-looprace-KEY=VALUE`, keys in
// docs/formats.md section 2.
#include "gcc_headers.h"
#include "instrument.h"
#include "layout_padding.h"
#include "loop_features.h"
#include "loop_identity.h"
#include "loop_selection.h"
#include "loop_table.h"
#include "unroll_control.h"
#include "verify.h"

int plugin_is_GPL_compatible;

namespace looprace {
namespace {

const plugin_info kPluginInfo = {
    "0.1.0",
    "looprace: per-loop unroll factors, loop table and loop timing.\n"
    "  -fplugin-arg-looprace-table=PATH         append the loop table (JSON Lines)\n"
    "  -fplugin-arg-looprace-unroll=SEL:F,...   factor F (0..16) for loops SEL (id, file:line:col, "
    "*)\n"
    "  -fplugin-arg-looprace-profile=PATH       factors from a looprace profile\n"
    "  -fplugin-arg-looprace-instrument=SEL,... time these loops (needs liblooprace_rt)\n"
    "  -fplugin-arg-looprace-entry-cpu=R        rdtscp (default) or rdpid: how a timed loop's\n"
    "                                           entry reads the processor id\n"
    "  -fplugin-arg-looprace-verify=PATH        append the factor GCC really applied per loop\n"
    "  -fplugin-arg-looprace-layout-seed=S      pad each function by its own seeded amount\n",
};

// Everything the arguments asked for, and what this translation unit has produced so far.
struct PluginState {
  std::optional<std::string> table_path;
  std::optional<std::string> verify_path;
  std::optional<std::uint64_t> layout_seed;
  UnrollControl unroll;
  std::vector<LoopSelector> instrument;
  EntryCpu entry_cpu = EntryCpu::rdtscp;
  LoopTable table;
  FactorVerifier verifier;
};

PluginState state;

// Parses one -fplugin-arg-looprace-KEY=VALUE; false after a GCC error naming the argument.
bool parse_argument(const plugin_argument& argument) {
  std::string key = argument.key;
  const char* value = argument.value;
  static const std::set<std::string> kKeys = {"table",  "unroll",      "profile",  "instrument",
                                              "verify", "layout-seed", "entry-cpu"};
  if (!kKeys.count(key)) {
    error(
        "looprace: unknown argument %<-fplugin-arg-looprace-%s%> (known: table, unroll, "
        "profile, instrument, verify, layout-seed, entry-cpu)",
        key.c_str());
    return false;
  }
  if (!value || !*value) {
    error("looprace: argument %<-fplugin-arg-looprace-%s%> needs a value (%<%s=...%>)", key.c_str(),
          key.c_str());
    return false;
  }
  std::string message;
  if (key == "table") {
    state.table_path = value;
  } else if (key == "verify") {
    state.verify_path = value;
  } else if (key == "entry-cpu") {
    if (std::strcmp(value, "rdtscp") != 0 && std::strcmp(value, "rdpid") != 0) {
      error("looprace: %<-fplugin-arg-looprace-entry-cpu=%s%>: expected rdtscp or rdpid", value);
      return false;
    }
    state.entry_cpu = std::strcmp(value, "rdpid") == 0 ? EntryCpu::rdpid : EntryCpu::rdtscp;
  } else if (key == "layout-seed") {
    char* end = nullptr;
    errno = 0;
    unsigned long long seed = std::strtoull(value, &end, 10);
    if (errno || *end || *value == '-') {
      error("looprace: %<-fplugin-arg-looprace-layout-seed=%s%>: expected a decimal number", value);
      return false;
    }
    state.layout_seed = seed;
  } else if (key == "unroll") {
    if (!state.unroll.add_requests(value, message)) {
      error("looprace: %<-fplugin-arg-looprace-unroll=%s%>: %s", value, message.c_str());
      return false;
    }
  } else if (key == "profile") {
    if (!state.unroll.load_profile(value, message)) {
      error("looprace: %<-fplugin-arg-looprace-profile%>: %s", message.c_str());
      return false;
    }
  } else {
    for (std::string_view item : split_list(value)) {
      auto selector = parse_selector(item);
      if (!selector) {
        error(
            "looprace: %<-fplugin-arg-looprace-instrument=%s%>: bad loop selector %qs "
            "(expected an id of 16 hex digits, FILE:LINE:COL or %<*%>)",
            value, std::string(item).c_str());
        return false;
      }
      state.instrument.push_back(std::move(*selector));
    }
  }
  return true;
}

// True when one of the instrument= selectors names loop.
bool instrumented(const LoopIdentity& loop) {
  for (const LoopSelector& selector : state.instrument)
    if (selector_matches(selector, loop)) return true;
  return false;
}

const pass_data kLoopPassData = {
    GIMPLE_PASS, "looprace", OPTGROUP_LOOP, TV_NONE, PROP_cfg | PROP_ssa, 0, 0, 0, 0,
};

// The early pass (right after "ssa": before inlining and every loop optimization, where
// `#pragma GCC unroll` is materialized too). Phase 1 is read-only: identities, features, trip
// counts, factors. Phase 2 modifies the CFG (preheaders) only for timing (instrument=), so a
// build that times nothing keeps GCC's code byte for byte.
class LoopPass : public gimple_opt_pass {
 public:
  explicit LoopPass(gcc::context* context) : gimple_opt_pass(kLoopPassData, context) {}

  bool gate(function* fun) final { return number_of_loops(fun) > 1; }

  unsigned int execute(function* fun) final {
    loop_optimizer_init(AVOID_CFG_MODIFICATIONS | LOOPS_HAVE_RECORDED_EXITS);
    std::vector<LoopIdentity> loops = identify_loops(fun);
    std::vector<LoopFeatures> features;
    for (const LoopIdentity& loop : loops) features.push_back(count_loop_features(loop.loop));

    std::vector<std::optional<int>> factors = state.unroll.factors_for(loops);
    std::vector<const LoopIdentity*> to_instrument;
    for (std::size_t i = 0; i < loops.size(); ++i) {
      if (factors[i]) {
        apply_unroll_factor(fun, loops[i].loop, *factors[i]);
        state.verifier.expect(loops[i], *factors[i]);
      }
      if (instrumented(loops[i])) to_instrument.push_back(&loops[i]);
    }

    if (state.table_path) {
      std::vector<class loop*> loop_objects;
      for (const LoopIdentity& loop : loops) loop_objects.push_back(loop.loop);
      add_trip_counts(fun, loop_objects, features);
    }

    unsigned int todo = 0;
    if (!to_instrument.empty() && prepare_instrumentation(state.entry_cpu)) {
      loop_optimizer_finalize();
      loop_optimizer_init(LOOPS_NORMAL | LOOPS_HAVE_RECORDED_EXITS);
      if (instrument_loops(fun, to_instrument) > 0) todo |= TODO_update_ssa_only_virtuals;
    }
    loop_optimizer_finalize();

    for (std::size_t i = 0; i < loops.size(); ++i) state.table.add(loops[i], features[i]);
    return todo;
  }
};

// Notes each function entering the post-IPA pipeline (for verify records).
void on_function_compiled(void*, void*) {
  if (cfun) state.verifier.note_function_compiled(cfun);
}

const pass_data kTableSectionData = {
    SIMPLE_IPA_PASS, "*looprace_table", OPTGROUP_NONE, TV_NONE, 0, 0, 0, 0, 0,
};

// Runs once, after every function went through the early pass and before LTO streams the
// unit: puts the table into the object (and the LTO bytecode) as a top-level asm statement.
class TableSectionPass : public simple_ipa_opt_pass {
 public:
  explicit TableSectionPass(gcc::context* context)
      : simple_ipa_opt_pass(kTableSectionData, context) {}

  bool gate(function*) final { return !state.table.empty() && !seen_error(); }

  unsigned int execute(function*) final {
    state.table.add_section_to_unit();
    return 0;
  }
};

// End of the translation unit: the table into its file, the verify records into theirs.
void on_finish_unit(void*, void*) {
  if (state.table.empty()) return;
  if (state.table_path && !state.table.append_to(*state.table_path))
    error("looprace: cannot append the loop table to %qs: %s", state.table_path->c_str(),
          xstrerror(errno));
  if (state.verify_path && !state.verifier.empty() &&
      !append_atomically(*state.verify_path, state.verifier.records()))
    error("looprace: cannot append verify records to %qs: %s", state.verify_path->c_str(),
          xstrerror(errno));
}

// Registers a pass relative to a GCC pass.
void register_pass(const char* plugin, opt_pass* pass, const char* reference,
                   pass_positioning_ops position) {
  register_pass_info info;
  info.pass = pass;
  info.reference_pass_name = reference;
  info.ref_pass_instance_number = 1;
  info.pos_op = position;
  register_callback(plugin, PLUGIN_PASS_MANAGER_SETUP, nullptr, &info);
}

}  // namespace
}  // namespace looprace

int plugin_init(plugin_name_args* info, plugin_gcc_version* version) {
  using namespace looprace;
  if (!plugin_default_version_check(version, &gcc_version)) {
    error("looprace: this plugin was built for GCC %s; rebuild it for this compiler",
          gcc_version.basever);
    return 1;
  }
  bool arguments_ok = true;
  for (int i = 0; i < info->argc; ++i) arguments_ok &= parse_argument(info->argv[i]);
  if (!arguments_ok) return 1;

  register_callback(info->base_name, PLUGIN_INFO, nullptr, const_cast<plugin_info*>(&kPluginInfo));
  register_pass(info->base_name, new LoopPass(g), "ssa", PASS_POS_INSERT_AFTER);
  register_pass(info->base_name, new TableSectionPass(g), "build_ssa_passes",
                PASS_POS_INSERT_AFTER);
  register_pass(info->base_name, make_has_unroll_fixup_pass(g), "loop2", PASS_POS_INSERT_BEFORE);
  if (state.verify_path) {
    register_pass(info->base_name, make_verify_locations_pass(g, state.verifier), "loop2_unroll",
                  PASS_POS_INSERT_BEFORE);
    register_pass(info->base_name, make_verify_pass(g, state.verifier), "loop2_unroll",
                  PASS_POS_INSERT_AFTER);
    register_callback(info->base_name, PLUGIN_ALL_PASSES_START, on_function_compiled, nullptr);
  }
  if (state.layout_seed)
    register_pass(info->base_name, make_layout_padding_pass(g, *state.layout_seed), "expand",
                  PASS_POS_INSERT_AFTER);
  register_callback(info->base_name, PLUGIN_FINISH_UNIT, on_finish_unit, nullptr);
  return 0;
}
