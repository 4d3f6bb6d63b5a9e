#include "store/report_loader.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "build/builder.h"
#include "store/dataset.h"

namespace looprace::store {
namespace {

// A machine fact as a person reads it: lists joined by commas, fractions to two decimals.
std::string text_of(const nlohmann::json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_null()) return "";
  if (j.is_number_float()) return fmt::format("{:.2f}", j.get<double>());
  if (j.is_array()) {
    std::string joined;
    for (const nlohmann::json& item : j) joined += (joined.empty() ? "" : ", ") + text_of(item);
    return joined;
  }
  return j.dump();
}

template <typename T>
std::optional<T> optional_fact(const nlohmann::json& facts, const char* key) {
  if (!facts.contains(key) || !facts[key].is_number()) return std::nullopt;
  return facts[key].get<T>();
}

report::Session session_of(const SessionRow& row) {
  const nlohmann::json& f = row.facts;
  report::Session s;
  s.started = row.started;
  s.command = row.command;
  s.cpu_model = f.value("cpu_model", "");
  s.cores = optional_fact<unsigned>(f, "cores");
  s.kernel = f.value("kernel", "");
  s.compiler = f.value("compiler", "");
  s.virtual_machine = f.value("hypervisor", false);
  s.tsc_hz = optional_fact<double>(f, "tsc_hz");
  if (f.contains("load") && f["load"].is_array() && !f["load"].empty())
    s.load1 = f["load"][0].get<double>();
  s.pinned_cpu = optional_fact<int>(f, "pinned_cpu");
  return s;
}

// The program's run totals and every session, beside the latest session's facts.
void add_history(const Store& store, std::int64_t program, report::RunContext& c) {
  for (const SessionRow& row : store.sessions()) c.sessions.push_back(session_of(row));
  const Store::RunTally tally = store.run_tally(program);
  for (const auto& [kind, runs] : tally.kinds) c.run_counts[to_string(kind)] = runs.count;
  c.first_run = tally.first_taken;
  c.last_run = tally.last_taken;
}

// A run of the loop's own race as the report shows it, with its control from `data`.
report::RaceRun race_run_of(const LoopRaceRun& run, const LoopDataset& data) {
  report::RaceRun r;
  r.run = run.run_id;
  r.round = run.round;
  r.factor = run.factor;
  r.ok = run.ok;
  r.cycles = run.cycles;
  r.filtered = run.filtered;
  r.entries = run.entries;
  r.disturbed = run.disturbed;
  if (auto c = data.control_of_run.find(run.run_id); c != data.control_of_run.end())
    r.control = c->second;
  return r;
}

report::RunContext context_of(const Store& store, const Store::ProgramRow& program) {
  report::RunContext c;
  c.build_command = program.build_command;
  c.run_command = program.run_command;
  auto sessions = store.sessions();
  if (sessions.empty()) return c;
  const SessionRow& s = sessions.back();
  const nlohmann::json& f = s.facts;
  c.started = s.started;
  c.looprace_version = f.value("looprace_version", "");
  c.gcc_version = f.value("compiler", "");
  c.cpu_model = f.value("cpu_model", "");
  if (f.contains("runtime_tsc_hz") && f["runtime_tsc_hz"].is_number()) {
    c.tsc_hz = f["runtime_tsc_hz"].get<double>();
  } else if (f.contains("tsc_hz") && f["tsc_hz"].is_number()) {
    c.tsc_hz = f["tsc_hz"].get<double>();
  }
  if (f.contains("probe_cycles") && f["probe_cycles"].is_number()) {
    c.probe_overhead_cycles = f["probe_cycles"].get<double>();
  }
  for (const char* key : {"hostname", "kernel", "cores", "governors", "boost", "load", "pinned_cpu",
                          "plan", "seed", "layouts", "run_timeout_seconds"}) {
    if (f.contains(key) && !text_of(f[key]).empty()) c.facts.emplace_back(key, text_of(f[key]));
  }
  if (f.contains("warnings")) {
    for (const auto& w : f["warnings"]) c.warnings.push_back(text_of(w));
  }
  return c;
}

// What the store knows of each loop of the program besides its observations, by loop id: the
// plugin's table row, the decision, and the measured hotness.
struct LoopTables {
  std::map<std::string, LoopRow> rows;
  std::map<std::string, plans::LoopDecision> decisions;
  std::map<std::string, Hotness> hotness;
};

LoopTables load_tables(const Store& store, std::int64_t program,
                       const report::RunContext& context) {
  LoopTables t;
  for (auto& l : store.loops(program)) t.rows[l.id] = l;
  for (auto& d : store.decisions(program)) t.decisions[d.loop_id] = d;
  for (const auto& h :
       stored_hotness(store, program, context.tsc_hz, context.probe_overhead_cycles))
    t.hotness[h.id] = h;
  return t;
}

// Whether --loop selects a loop: by a prefix of its id; no selector selects every loop.
bool selected(const std::string& loop_id, const std::vector<std::string>& selectors) {
  return selectors.empty() ||
         std::any_of(selectors.begin(), selectors.end(),
                     [&](const std::string& s) { return loop_id.compare(0, s.size(), s) == 0; });
}

// Every --loop must name a raced loop: a typo should not give an empty report.
void check_selectors(const Store& store, const std::vector<LoopDataset>& raced,
                     const std::vector<std::string>& selectors) {
  for (const auto& selector : selectors) {
    bool found = std::any_of(raced.begin(), raced.end(), [&](const LoopDataset& d) {
      return d.loop_id.compare(0, selector.size(), selector) == 0;
    });
    if (!found) {
      throw StoreError(fmt::format("--loop {}: no raced loop with this id in {}", selector,
                                   store.path().string()));
    }
  }
}

// Where a loop is, how hot it was, where it raced and how many runs of each kind it took, and
// the runs of its own race (`data`'s, read once with its observations; joint runs are not its
// own).
void describe_loop(report::LoopReport& l, const Store& store, std::int64_t program,
                   const LoopTables& tables, const LoopDataset& data) {
  if (auto t = tables.rows.find(l.id); t != tables.rows.end()) {
    l.location = fmt::format("{}:{}:{}", t->second.file, t->second.line, t->second.column);
    l.function = t->second.function;
    l.position = fmt::format("{}/{}", t->second.index, t->second.loops);
    l.features = t->second.features;
  }
  if (auto h = tables.hotness.find(l.id); h != tables.hotness.end()) {
    l.hotness_share = h->second.share;
    l.hotness_share_is_bound = h->second.is_bound();
  }
  l.raced_on = store.race_hosts(program, l.id);
  for (const auto& [kind, runs] : store.run_tally(program, l.id).kinds) {
    l.runs[to_string(kind)] = {runs.count, runs.wall_seconds};
  }
  for (const LoopRaceRun& r : data.runs) {
    if (!r.joint) l.race_runs.push_back(race_run_of(r, data));
  }
}

// One result per factor, index == factor, each marked as left out of the race (--factors)
// until a variant of it shows otherwise.
std::vector<report::FactorResult> unbuilt_factors() {
  std::vector<report::FactorResult> factors(report::kMaxFactor + 1);
  for (int i = 0; i <= report::kMaxFactor; ++i) {
    factors[static_cast<std::size_t>(i)].factor = i;
    factors[static_cast<std::size_t>(i)].code_group = i;
    factors[static_cast<std::size_t>(i)].disqualified = true;
    factors[static_cast<std::size_t>(i)].disqualified_reason = "not built (--factors)";
  }
  return factors;
}

// A built variant's result: how GCC applied the factor, its code group, whether it was
// disqualified and why, and its observations (only a group's own factor carries them).
report::FactorResult factor_result(const VariantRow& v, const plans::LoopDecision* d,
                                   const LoopDataset& data) {
  report::FactorResult f;
  f.factor = v.factor;
  f.applied = v.applied;
  f.applied_how = v.how;
  f.code_group = v.group >= 0 ? v.group : v.factor;
  if (!v.built) {
    f.disqualified = true;
    f.disqualified_reason = "build failed";
  }
  if (d && d->disqualified.count(v.factor)) {
    f.disqualified = true;
    f.disqualified_reason = d->disqualified.at(v.factor);
  }
  if (auto c = data.cycles.find(v.factor); c != data.cycles.end() && f.code_group == v.factor) {
    f.cycles = c->second;
    if (auto k = data.controls.find(v.factor); k != data.controls.end()) f.controls = k->second;
  }
  return f;
}

// The factors' results of a loop from its variants (the first layout's), with a warning for
// the factors GCC applied with fewer copies than asked.
void add_factors(report::LoopReport& l, const Store& store, std::int64_t program,
                 const LoopDataset& data, const plans::LoopDecision* d) {
  l.factors = unbuilt_factors();
  std::vector<build::FewerCopies> clamped;
  for (const auto& v : store.variants(program, l.id)) {
    if (v.layout != 0 || v.factor < 0 || v.factor > report::kMaxFactor) continue;
    if (v.applied && v.factor >= 1 && *v.applied != v.factor && *v.applied != 0) {
      clamped.push_back({v.factor, *v.applied, v.how});
    }
    l.factors[static_cast<std::size_t>(v.factor)] = factor_result(v, d, data);
  }
  for (std::string& note : build::fewer_copies_notes(clamped)) l.warnings.push_back(note);
}

// The report of one raced loop.
report::LoopReport loop_report(const Store& store, std::int64_t program, const LoopTables& tables,
                               const LoopDataset& data) {
  report::LoopReport l;
  l.id = data.loop_id;
  describe_loop(l, store, program, tables, data);
  const plans::LoopDecision* d = nullptr;
  if (auto it = tables.decisions.find(l.id); it != tables.decisions.end()) d = &it->second;
  add_factors(l, store, program, data, d);
  if (d) {
    l.plan = d->plan;
    l.decision = *d;
  }
  return l;
}

}  // namespace

// The report of the store's latest program: its run context and every raced loop --loop
// selects, in the order they raced.
report::Report load_report(const Store& store, const std::vector<std::string>& selectors,
                           std::optional<stats::ObservationKind> kind) {
  report::Report rep;
  auto programs = store.programs();
  if (programs.empty()) {
    throw StoreError(fmt::format("store {} holds no race yet", store.path().string()));
  }
  const Store::ProgramRow& program = programs.back();
  rep.context = context_of(store, program);
  add_history(store, program.id, rep.context);
  const stats::ObservationKind shown = kind.value_or(decided_observation(store, program.id));
  rep.context.facts.emplace_back("observations", stats::to_string(shown));
  const LoopTables tables = load_tables(store, program.id, rep.context);
  std::vector<LoopDataset> raced = load_race_dataset(store, program.id, shown);
  check_selectors(store, raced, selectors);
  for (const LoopDataset& data : raced) {
    if (selected(data.loop_id, selectors))
      rep.loops.push_back(loop_report(store, program.id, tables, data));
  }
  return rep;
}

stats::ObservationKind decided_observation(const Store& store, std::int64_t program) {
  const std::vector<plans::LoopDecision> decisions = store.decisions(program);
  const auto latest =
      std::max_element(decisions.begin(), decisions.end(),
                       [](const auto& a, const auto& b) { return a.decided_at < b.decided_at; });
  return latest == decisions.end() ? stats::ObservationKind::kRaw : latest->observation();
}

}  // namespace looprace::store
