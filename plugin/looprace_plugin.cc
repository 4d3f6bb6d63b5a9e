// looprace GCC plugin: entry point, the table of arguments and of passes, the early loop pass,
// and the end-of-unit output. `gcc -fplugin=looprace.so -fplugin-arg-looprace-KEY=VALUE`, keys in
// docs/formats.md section 2.
#include "base_flags.h"
#include "files.h"
#include "gcc_headers.h"
#include "instrument.h"
#include "layout_padding.h"
#include "loop_features.h"
#include "loop_identity.h"
#include "loop_selection.h"
#include "loop_table.h"
#include "model_control.h"
#include "unroll_control.h"
#include "verify.h"

int plugin_is_GPL_compatible;

namespace looprace {
namespace {

// Everything the arguments asked for, and what this translation unit has produced so far.
struct PluginState {
  std::optional<std::string> table_path;
  std::optional<std::string> verify_path;
  std::optional<std::uint64_t> layout_seed;
  UnrollControl unroll;
  ModelControl model;
  std::vector<LoopSelector> instrument;
  EntryCpu entry_cpu = EntryCpu::rdtscp;
  LoopTable table;
  FactorVerifier verifier;
};

PluginState state;

// The parsers of the arguments' values: each stores what its value asks for in `state`, or
// reports a GCC error naming the argument and returns false.
bool parse_table(const char* value) {
  state.table_path = value;
  return true;
}

bool parse_verify(const char* value) {
  state.verify_path = value;
  return true;
}

bool parse_entry_cpu(const char* value) {
  if (std::strcmp(value, "rdtscp") != 0 && std::strcmp(value, "rdpid") != 0) {
    error("looprace: %<-fplugin-arg-looprace-entry-cpu=%s%>: expected rdtscp or rdpid", value);
    return false;
  }
  state.entry_cpu = std::strcmp(value, "rdpid") == 0 ? EntryCpu::rdpid : EntryCpu::rdtscp;
  return true;
}

bool parse_layout_seed(const char* value) {
  char* end = nullptr;
  errno = 0;
  unsigned long long seed = std::strtoull(value, &end, 10);
  if (errno || *end || *value == '-') {
    error("looprace: %<-fplugin-arg-looprace-layout-seed=%s%>: expected a decimal number", value);
    return false;
  }
  state.layout_seed = seed;
  return true;
}

bool parse_unroll(const char* value) {
  std::string message;
  if (state.unroll.add_requests(value, message)) return true;
  error("looprace: %<-fplugin-arg-looprace-unroll=%s%>: %s", value, message.c_str());
  return false;
}

bool parse_profile(const char* value) {
  std::string message;
  if (state.unroll.load_profile(value, message)) return true;
  error("looprace: %<-fplugin-arg-looprace-profile%>: %s", message.c_str());
  return false;
}

bool parse_model(const char* value) {
  std::string message;
  if (state.model.load(value, message)) return true;
  error("looprace: %<-fplugin-arg-looprace-model%>: %s", message.c_str());
  return false;
}

bool parse_instrument(const char* value) {
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
  return true;
}

// Every -fplugin-arg-looprace-KEY=VALUE: the one list that drives parsing, the help text and
// the unknown-key diagnostic (docs/formats.md section 2 documents the same keys).
struct Argument {
  const char* key;
  const char* value;  // what the value is, for the help text
  const char* help;
  bool (*parse)(const char* value);
};

const Argument kArguments[] = {
    {"table", "PATH", "append the loop table (JSON Lines)", parse_table},
    {"unroll", "SEL:F,...", "factor F (0..16) for loops SEL (id, file:line:col, *)", parse_unroll},
    {"profile", "PATH", "factors from a looprace profile", parse_profile},
    {"model", "PATH", "factors of the loops nothing names, from a looprace model", parse_model},
    {"instrument", "SEL,...", "time these loops (needs liblooprace_rt)", parse_instrument},
    {"entry-cpu", "R", "rdtscp (default) or rdpid: how a timed loop's entry reads the processor id",
     parse_entry_cpu},
    {"verify", "PATH", "append the factor GCC really applied per loop", parse_verify},
    {"layout-seed", "S", "pad each function by its own seeded amount", parse_layout_seed},
};

// The plugin's --help text, from kArguments.
const std::string& help_text() {
  static const std::string text = [] {
    std::string out = "looprace: per-loop unroll factors, loop table and loop timing.\n";
    for (const Argument& a : kArguments) {
      std::string usage = std::string("  -fplugin-arg-looprace-") + a.key + "=" + a.value;
      usage.resize(std::max<std::size_t>(usage.size() + 1, 44), ' ');
      out += usage + a.help + "\n";
    }
    return out;
  }();
  return text;
}

// Parses one -fplugin-arg-looprace-KEY=VALUE; false after a GCC error naming the argument.
bool parse_argument(const plugin_argument& argument) {
  const std::string key = argument.key;
  const char* value = argument.value;
  const Argument* known = nullptr;
  std::string keys;
  for (const Argument& a : kArguments) {
    if (key == a.key) known = &a;
    keys += (keys.empty() ? "" : ", ") + std::string(a.key);
  }
  if (!known) {
    error("looprace: unknown argument %<-fplugin-arg-looprace-%s%> (known: %s)", key.c_str(),
          keys.c_str());
    return false;
  }
  if (!value || !*value) {
    error("looprace: argument %<-fplugin-arg-looprace-%s%> needs a value (%<%s=...%>)", key.c_str(),
          key.c_str());
    return false;
  }
  return known->parse(value);
}

// True when one of the instrument= selectors names loop.
bool instrumented(const LoopIdentity& loop) {
  for (const LoopSelector& selector : state.instrument)
    if (selector_matches(selector, loop)) return true;
  return false;
}

const pass_data kLoopPassData =
    plugin_pass(GIMPLE_PASS, "looprace", PROP_cfg | PROP_ssa, OPTGROUP_LOOP);

// The early pass (right after "ssa": before inlining and every loop optimization, where
// `#pragma GCC unroll` is materialized too). Phase 1 is read-only: identities, features, trip
// counts, factors (named ones, then the model's for the loops nothing named). Phase 2 modifies the
// CFG (preheaders) only for timing (instrument=), so a build that times nothing keeps GCC's code
// byte for byte.
class LoopPass : public gimple_opt_pass {
 public:
  explicit LoopPass(gcc::context* context) : gimple_opt_pass(kLoopPassData, context) {}

  bool gate(function* fun) final { return number_of_loops(fun) > 1; }

  unsigned int execute(function* fun) final {
    loop_optimizer_init(AVOID_CFG_MODIFICATIONS | LOOPS_HAVE_RECORDED_EXITS);
    std::vector<LoopIdentity> loops = identify_loops(fun);
    std::vector<LoopFeatures> features;
    for (const LoopIdentity& loop : loops) features.push_back(count_loop_features(loop.loop));
    if (state.table_path || state.model.loaded()) {
      std::vector<class loop*> loop_objects;
      for (const LoopIdentity& loop : loops) loop_objects.push_back(loop.loop);
      add_trip_counts(fun, loop_objects, features);
    }

    std::vector<std::optional<int>> factors = state.unroll.factors_for(loops);
    std::vector<const LoopIdentity*> to_instrument;
    for (std::size_t i = 0; i < loops.size(); ++i) {
      if (factors[i]) {
        apply_unroll_factor(fun, loops[i].loop, *factors[i]);
        state.verifier.expect(loops[i], *factors[i]);
      } else if (state.model.loaded() && loops[i].loop->unroll == 0) {  // no pragma either
        int factor = state.model.choose(features[i]);
        apply_unroll_factor(fun, loops[i].loop, factor);
        state.verifier.expect(loops[i], factor, /*by_model=*/true);
      }
      if (instrumented(loops[i])) to_instrument.push_back(&loops[i]);
    }

    unsigned int todo = 0;
    if (!to_instrument.empty() && prepare_instrumentation(state.entry_cpu)) {
      loop_optimizer_finalize();
      loop_optimizer_init(LOOPS_NORMAL | LOOPS_HAVE_RECORDED_EXITS);
      if (instrument_loops(fun, to_instrument) > 0) todo |= TODO_update_ssa_only_virtuals;
    }
    loop_optimizer_finalize();

    const std::string base = base_flags();  // the function's settings, the same for its loops
    for (std::size_t i = 0; i < loops.size(); ++i) state.table.add(loops[i], features[i], base);
    return todo;
  }
};

// Notes each function entering the post-IPA pipeline (for verify records).
void on_function_compiled(void*, void*) {
  if (cfun) state.verifier.note_function_compiled(cfun);
}

const pass_data kTableSectionData = plugin_pass(SIMPLE_IPA_PASS, "*looprace_table");

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
  if (state.table_path && !state.table.empty() && !state.table.append_to(*state.table_path))
    error("looprace: cannot append the loop table to %qs: %s", state.table_path->c_str(),
          xstrerror(errno));
  if (state.verify_path && !state.verifier.empty() &&
      !append_atomically(*state.verify_path, state.verifier.records()))
    error("looprace: cannot append verify records to %qs: %s", state.verify_path->c_str(),
          xstrerror(errno));
}

// Every pass of the plugin, where in GCC's pipeline it runs, and whether the arguments need it:
// the one place the plugin's passes are declared.
struct PassPlacement {
  opt_pass* (*make)();
  const char* reference;  // the GCC pass it is placed against (its first instance)
  pass_positioning_ops position;
  bool (*wanted)();
};

bool always() { return true; }
bool verifying() { return state.verify_path.has_value(); }
bool padding() { return state.layout_seed.has_value(); }

const PassPlacement kPasses[] = {
    // Identities, features and factors of every loop, and timing probes, before inlining.
    {[]() -> opt_pass* { return new LoopPass(g); }, "ssa", PASS_POS_INSERT_AFTER, always},
    // The loop table into the object, once per unit, before LTO streams it.
    {[]() -> opt_pass* { return new TableSectionPass(g); }, "build_ssa_passes",
     PASS_POS_INSERT_AFTER, always},
    // has_unroll again from the loops' factors: GCC 12 does not stream it through LTO.
    {[] { return make_has_unroll_fixup_pass(g); }, "loop2", PASS_POS_INSERT_BEFORE, always},
    // Verify records: each loop's location before the unroller, the copies it made after.
    {[] { return make_verify_locations_pass(g, state.verifier); }, "loop2_unroll",
     PASS_POS_INSERT_BEFORE, verifying},
    {[] { return make_verify_pass(g, state.verifier); }, "loop2_unroll", PASS_POS_INSERT_AFTER,
     verifying},
    // Per-function layout padding (layout-seed=), once the function is RTL.
    {[] { return make_layout_padding_pass(g, *state.layout_seed); }, "expand",
     PASS_POS_INSERT_AFTER, padding},
};

// Registers the passes the arguments need.
void register_passes(const char* plugin) {
  for (const PassPlacement& p : kPasses) {
    if (!p.wanted()) continue;
    register_pass_info info;
    info.pass = p.make();
    info.reference_pass_name = p.reference;
    info.ref_pass_instance_number = 1;
    info.pos_op = p.position;
    register_callback(plugin, PLUGIN_PASS_MANAGER_SETUP, nullptr, &info);
  }
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

  static plugin_info plugin_help = {"0.1.0", help_text().c_str()};
  register_callback(info->base_name, PLUGIN_INFO, nullptr, &plugin_help);
  register_passes(info->base_name);
  if (state.verify_path) {
    register_callback(info->base_name, PLUGIN_ALL_PASSES_START, on_function_compiled, nullptr);
  }
  register_callback(info->base_name, PLUGIN_FINISH_UNIT, on_finish_unit, nullptr);
  return 0;
}
