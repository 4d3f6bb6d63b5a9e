#include "race/race.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>
#include <random>

#include "build/elf_code.h"
#include "build/variant_env.h"
#include "plans/default_policy.h"
#include "plans/factory.h"
#include "plans/program_check_policy.h"
#include "profile/profile_file.h"
#include "race/baseline_record.h"
#include "race/live_sampler.h"
#include "race/paired_runs.h"
#include "race/program.h"
#include "race/racer.h"
#include "stats/covariate.h"
#include "stats/speedup_test.h"

namespace looprace::race::detail {
namespace {

std::chrono::milliseconds milliseconds(double seconds) {
  return std::chrono::milliseconds(static_cast<long>(seconds * 1e3));
}

int exit_status_of(const run::ProcessResult& p) {
  switch (p.ending) {
    case run::Ending::exited:
      return p.exit_status;
    case run::Ending::signaled:
      return 128 + p.term_signal;
    default:
      return -1;
  }
}

std::vector<store::LoopObservation> observations_of(const run::RunResult& r) {
  std::vector<store::LoopObservation> out;
  for (const auto& [id, t] : r.observations.loops) {
    store::LoopObservation o;
    o.loop_id = id;
    o.cycles = t.cycles;
    o.entries = t.entries;
    o.migrated = t.migrated;
    o.nested = t.nested;
    if (auto f = r.observations.filtered(id)) {
      o.filtered = f->cycles;
      o.disturbed = f->disturbed;
    }
    out.push_back(std::move(o));
  }
  return out;
}

store::LoopRow store_row(const build::LoopRow& r) {
  store::LoopRow s;
  s.id = r.id;
  s.file = r.file;
  s.line = r.line;
  s.column = r.column;
  s.function = r.name.empty() ? r.function : r.name;
  s.depth = r.depth;
  s.index = r.index;
  s.loops = r.loops;
  s.features = r.features;
  return s;
}

template <typename Number>
std::string join(const std::vector<Number>& v) {
  return fmt::format("{}", fmt::join(v, ","));
}

}  // namespace

void Racer::prepare() {
  ws_.toolchain = build::find_toolchain();
  if (options_.executor) ws_.executor = options_.executor;
  ws_.build_command = options_.build_command;
  ws_.run_command = options_.run_command;
  ws_.srcdir = std::filesystem::current_path();
  ws_.workdir = options_.workdir.empty() ? build::default_workdir(ws_.srcdir)
                                         : std::filesystem::absolute(options_.workdir);
  ws_.jobs = std::max(1u, options_.jobs);
  ws_.pin_cpu = options_.pin_cpu;
  ws_.check_files = options_.check_files;
  if (options_.timeout_seconds > 0) ws_.run_timeout = milliseconds(options_.timeout_seconds);
  if (options_.build_timeout_seconds > 0) {
    ws_.build_timeout = milliseconds(options_.build_timeout_seconds);
  }
  facts_ = run::collect_machine_facts(ws_.toolchain.cc, options_.pin_cpu);

  // Bad plan parameters are refused before anything is built.
  const std::string plan = plans::make_plan(options_.plan)->describe();
  if (auto why = plans::refuses_controls(options_.plan); why && options_.controls.any())
    throw Error("--controls: " + *why);
  // A profile that does not parse is refused before anything runs: it is never overwritten.
  if (std::filesystem::exists(options_.profile)) {
    const auto provenance = profile::read_provenance(profile::read_profile_file(options_.profile));
    if (provenance && !run::same_cpu(provenance->cpu, facts_.cpu_model)) {
      facts_.warnings.push_back(fmt::format(
          "{} was raced on CPU \"{}\": the loops this race does not decide keep that CPU's "
          "factors, under this machine's name",
          options_.profile.string(), provenance->cpu));
    }
  }
  // The identity check comes before anything is built, so a wrong --store fails fast.
  store_ = store::Store::open(options_.store);
  const store::Identity identity{store::program_key(options_.build_command, options_.run_command),
                                 facts_.identity()};
  store_->check_identity(identity, options_.force);

  baseline_and_reference();
  try_flags();
  // The store takes this program's identity once the program is known to build and run.
  store_->bind_identity(identity, options_.force);
  program_ = program_of_this_code();
  if (options_.timeout_seconds <= 0) {
    ws_.run_timeout = milliseconds(std::max(10.0, 20 * reference_.process.wall_seconds));
  }
  if (options_.build_timeout_seconds <= 0) {
    ws_.build_timeout = milliseconds(std::max(120.0, 10 * baseline_.build_seconds));
  }

  nlohmann::json facts = facts_.to_json();
  if (reference_.observations.tsc_hz) facts["runtime_tsc_hz"] = *reference_.observations.tsc_hz;
  if (reference_.observations.probe_cycles) {
    facts["probe_cycles"] = *reference_.observations.probe_cycles;
  }
  facts["baseline_wall_seconds"] = reference_.process.wall_seconds;
  facts["run_timeout_seconds"] = ws_.run_timeout.count() / 1e3;
  facts["build_timeout_seconds"] = ws_.build_timeout.count() / 1e3;
  facts["plan"] = plan;
  facts["seed"] = options_.seed;
  facts["looprace_version"] = options_.looprace_version;
  facts["layouts"] = layout_seeds().size();
  facts["baseline"] = baseline_origin_;
  if (flags_trial_) {
    facts["try_flags"] = {{"flags", profile::join_flags(flags_trial_->flags)},
                          {"adopted", flags_trial_->adopted}};
  }
  session_ = store_->begin_session(options_.command_line, facts);

  store::RunRow base;
  base.kind = store::RunKind::kBaseline;
  base.wall_seconds = reference_.process.wall_seconds;
  base.off_cpu_ns = reference_.observations.off_cpu_ns;
  base.cpu_seconds = reference_.process.cpu_seconds();
  base.exit_status = exit_status_of(reference_.process);
  store_->add_run(program_, session_, base);
  // The first session's run time prices --budget, so that a resumed race computes the same
  // observation caps, names the same plans and finds its decisions.
  budget_run_seconds_ = *store_->first_wall_seconds(program_, store::RunKind::kBaseline);

  std::vector<store::LoopRow> rows;
  for (const auto& r : baseline_.table.rows) rows.push_back(store_row(r));
  store_->put_loops(program_, rows);
}

// Without --loop, --hot or --coverage: the loops that hold 95 % of the candidates' time, at
// most 10, rather than a fixed few that may miss the loops that matter.
HotSelection Racer::hot_selection() const {
  HotSelection selection;
  selection.coverage = options_.coverage;
  selection.min_share = options_.min_share;
  const bool nothing_named = options_.loops.empty() && !options_.hot && !options_.coverage;
  if (nothing_named) selection.coverage = kDefaultCoverage;
  selection.hot = options_.hot.value_or(nothing_named ? kDefaultMostLoops : 0);
  return selection;
}

std::vector<build::LoopRow> Racer::choose_loops() {
  std::vector<build::LoopRow> chosen = select_loops(baseline_.table, options_.loops);
  for (const std::string& selector : options_.controls.loops) control_row(selector);
  const HotSelection selection = hot_selection();
  // Named loops too: how long their entries last decides which loop times them
  // (observation_loop), and the tasks of a sharded race name theirs.
  ranking_ = hotness_ranking();
  for (const auto& h : ranking_) hotness_[h.id] = h;
  if (selection.hot == 0 && !selection.coverage) return chosen;
  // Only loops the RTL unroller can change (why_not_raced); a loop with almost none of the
  // program's time cannot pay for its race.
  const HotChoice choice = choose_hot(
      ranking_,
      [&](const std::string& id) {
        const build::LoopRow* row = build::find_loop(baseline_.table, id);
        return row && why_not_raced(*row, baseline_).empty() &&
               std::none_of(chosen.begin(), chosen.end(),
                            [&](const build::LoopRow& c) { return c.id == id; });
      },
      selection);
  for (const auto& h : choice.chosen) chosen.push_back(*build::find_loop(baseline_.table, h.id));
  if (chosen.empty() && choice.too_cold) {
    throw Error(fmt::format(
        "no innermost loop without calls after inlining has {:.1f}% of the program's cycles or "
        "more in the hotness runs of: {} (lower --min-share, or name loops with --loop; "
        "`looprace loops --run` says why each loop is left out)",
        100 * options_.min_share, options_.run_command));
  }
  if (chosen.empty()) {
    throw Error(fmt::format(
        "no loop of the program ran during the hotness runs of: {} (name loops with --loop)",
        options_.run_command));
  }
  plan_budget(choice, "hot loop(s)", options_.budget_seconds);
  return chosen;
}

// A loop the last pass kept at GCC's default while a factor other than 0 tied with it: the
// plan's choice its confirmation did not show faster, else its largest tied factor. Either may
// unroll a short loop completely and leave the loop around it innermost: a near-zero gain of
// its own must not hide the outer loop's.
AppliedFactors Racer::tied_openers(std::span<const LoopOutcome> outcomes) const {
  AppliedFactors tied;
  // Their loop's confirmation needs GCC's default built apart: at layouts of its own.
  if (!has_confirmation_layouts() || options_.confirm == 0) return tied;
  for (const auto& o : outcomes) {
    const auto& winners = o.decision.winners;
    if (o.decision.chosen != 0 || winners.empty()) continue;
    if (const int factor = o.decision.unconfirmed.value_or(std::ranges::max(winners)); factor != 0)
      tied.emplace_back(o.loop.id, factor);
  }
  return tied;
}

// The tied changes whose enclosing loop `choice` races: that loop's openers (openers_).
AppliedFactors Racer::assign_openers(const HotChoice& choice, const AppliedFactors& tied,
                                     const build::LoopTable& table) {
  const std::map<std::string, store::LoopPlace> places = loop_places(table);
  AppliedFactors kept;
  for (const auto& [id, factor] : tied) {
    auto place = places.find(id);
    if (place == places.end()) continue;
    const std::optional<std::string> outer = store::enclosing_loop(place->second, places);
    if (!outer || std::none_of(choice.chosen.begin(), choice.chosen.end(),
                               [&](const auto& h) { return h.id == *outer; }))
      continue;
    openers_[*outer].emplace_back(id, factor);
    kept.emplace_back(id, factor);
  }
  return kept;
}

// The next pass's baseline: the decisions applied, and the tied changes when they build (each
// built in its own race, so a failure is the pair's; the pass then goes on without them).
Baseline Racer::nest_pass_baseline(const AppliedFactors& tied, const std::string& name) {
  if (tied.empty()) return build_baseline(ws_, applied_, name);
  AppliedFactors trial = applied_;
  trial.insert(trial.end(), tied.begin(), tied.end());
  try {
    return build_baseline(ws_, trial, name);
  } catch (const Error&) {
    return build_baseline(ws_, applied_, name);
  }
}

// What the earlier passes' race runs left of --budget (the caps' floor when nothing).
std::optional<double> Racer::budget_left(const std::vector<LoopOutcome>& outcomes) const {
  std::optional<double> left = options_.budget_seconds;
  if (!left) return left;
  std::size_t runs = 0;
  for (const auto& o : outcomes) {
    for (const auto& [factor, n] : o.decision.samples) runs += n;
  }
  return std::max(0.0, *left - double(runs) * budget_run_seconds_);
}

std::vector<build::LoopRow> Racer::nest_pass_loops(const std::vector<LoopOutcome>& outcomes,
                                                   std::size_t last_pass, unsigned pass) {
  const auto last = std::span(outcomes).subspan(last_pass);
  const AppliedFactors decided = profile_changes(last);
  const AppliedFactors tied = tied_openers(last);
  if (decided.empty() && tied.empty()) return {};
  applied_.insert(applied_.end(), decided.begin(), decided.end());
  const Baseline earlier = std::move(baseline_);
  const std::string name = fmt::format("baseline-pass-{}", pass);
  baseline_ = nest_pass_baseline(tied, name);
  std::set<std::string> raced;
  for (const auto& o : outcomes) raced.insert(o.loop.id);
  const HotChoice choice = choose_hot(
      ranking_,
      [&](const std::string& id) {
        const build::LoopRow* row = build::find_loop(baseline_.table, id);
        const build::LoopRow* old = build::find_loop(earlier.table, id);
        return row && old && !raced.count(id) && why_not_raced(*row, baseline_).empty() &&
               !why_not_raced(*old, earlier).empty();
      },
      hot_selection());
  if (choice.chosen.empty()) return {};
  // Only the tied changes inside a chosen loop stay, raced with it until its confirmation says
  // whether they are written (settle_openers).
  const AppliedFactors kept = assign_openers(choice, tied, earlier.table);
  applied_.insert(applied_.end(), kept.begin(), kept.end());
  if (kept.size() != tied.size()) baseline_ = build_baseline(ws_, applied_, name);
  plan_budget(choice,
              fmt::format("loop(s) that are innermost once the loops inside them are unrolled as "
                          "decided (nest pass {})",
                          pass),
              budget_left(outcomes));
  std::vector<build::LoopRow> loops;
  for (const auto& h : choice.chosen) loops.push_back(*build::find_loop(baseline_.table, h.id));
  return loops;
}

// After a nest pass (its loops from `first`, the pass before from `last_pass`): a loop raced
// with openers that changes GCC's choice was confirmed with them against GCC's default for all,
// so their tied factors are written with its choice; otherwise they leave the later passes'
// builds and stay at factor 0.
void Racer::settle_openers(std::vector<LoopOutcome>& outcomes, std::size_t last_pass,
                           std::size_t first) {
  for (std::size_t i = first; i < outcomes.size(); ++i) {
    auto openers = openers_.find(outcomes[i].loop.id);
    if (openers == openers_.end()) continue;
    LoopOutcome& outer = outcomes[i];
    std::vector<std::string> joint;
    for (const auto& [id, factor] : openers->second) {
      auto inner = std::find_if(outcomes.begin() + static_cast<std::ptrdiff_t>(last_pass),
                                outcomes.begin() + static_cast<std::ptrdiff_t>(first),
                                [&](const LoopOutcome& o) { return o.loop.id == id; });
      const std::string where = fmt::format("{} {}", id, inner->loop.location());
      if (outer.decision.chosen == 0) {
        std::erase(applied_, std::pair(id, factor));
        outer.notes.push_back(fmt::format(
            "raced with loop {} at factor {}, tied with GCC's default in its own race: both keep "
            "GCC's default",
            where, factor));
        continue;
      }
      inner->decision.chosen = factor;
      inner->decision.unconfirmed.reset();
      inner->decision.speedup = outer.decision.speedup;
      inner->joint = outer.loop.id;
      inner->notes.push_back(fmt::format(
          "factor {}, tied with GCC's default in this race, written with loop {} {}'s factor {}: "
          "it leaves that loop innermost, and the two changes were confirmed faster together "
          "than GCC's default for both (the speedup is of that loop)",
          factor, outer.loop.id, outer.loop.location(), outer.decision.chosen));
      outer.notes.push_back(fmt::format(
          "raced with loop {} at factor {} (tied with GCC's default in its own race) and "
          "confirmed against GCC's default for both: the speedup is of the two changes together",
          where, factor));
      joint.push_back(id);
      write_profile(*inner);
    }
    outer.joint = join(joint);
    if (!joint.empty()) write_profile(outer);
  }
}

// Hotness is measured once per store: a resumed race ranks the loops the same way.
std::vector<store::Hotness> Racer::hotness_ranking() {
  std::vector<store::Hotness> ranking =
      store::stored_hotness(*store_, program_, reference_.observations.tsc_hz.value_or(0),
                            reference_.observations.probe_cycles.value_or(0));
  if (!ranking.empty()) return ranking;
  RaceProgress p;
  p.phase = "measuring hotness";
  report(p);
  return measure_hotness(
      ws_, baseline_.table, std::max(1u, options_.hotness_runs), baseline_.dir,
      plain_run_seconds(reference_), [&](const run::RunResult& r, const std::string& build) {
        store::RunRow row;
        row.kind = build == "plain" ? store::RunKind::kBaseline : store::RunKind::kHotness;
        if (build != "plain") row.target_loop = build;
        row.wall_seconds = r.process.wall_seconds;
        row.off_cpu_ns = r.observations.off_cpu_ns;
        row.cpu_seconds = r.process.cpu_seconds();
        row.exit_status = exit_status_of(r.process);
        row.ok = r.process.succeeded();
        row.observations = observations_of(r);
        store_->add_run(program_, session_, row);
      });
}

// What the whole-program check may add to the announced cost: its first look always, then
// looks of doubling size while --program-check-time allows them.
std::string Racer::program_check_cost(double run_seconds) const {
  if (options_.program_check_runs == 0) return "";
  plans::ProgramCheckPolicy policy;
  policy.sequence.first_pairs = options_.program_check_runs;
  if (!options_.check_run_command.empty()) {  // runs of another command: their time is unknown
    return fmt::format(
        "; the whole-program check, if a change stands: {} runs of each build with --check-run, "
        "then more while {:.0f} s allow",
        policy.sequence.first_pairs, options_.program_check_seconds);
  }
  const double first = 2.0 * double(policy.sequence.first_pairs) * run_seconds;
  const double all = 2.0 *
                     double(plans::pairs_after_look(policy.sequence, policy.sequence.looks - 1)) *
                     run_seconds;
  return fmt::format("; the whole-program check, if a change stands: {:.0f} to {:.0f} s", first,
                     std::max(first, std::min(all, options_.program_check_seconds)));
}

// Each hot loop's observation cap (--budget shares the time by the loops' shares), and the
// race's cost said before it starts: loops, builds, the most runs it can take and their time.
void Racer::plan_budget(const HotChoice& choice, const std::string& what,
                        std::optional<double> budget) {
  const std::size_t versions = options_.factors.empty() ? kMaxFactor + 1 : options_.factors.size();
  const double run_seconds = budget_run_seconds_;
  const std::vector<LoopBudget> parts =
      loop_budgets(choice.chosen, budget, run_seconds, versions, options_.plan.max_samples);
  const plans::SequentialLooks confirmation = default_policy().confirmation;
  // The confirmation's looks, then one look of the choice against the runner-up.
  const std::size_t most_confirmation_runs =
      2 * plans::pairs_after_look(confirmation, confirmation.looks - 1) +
      2 * confirmation.first_pairs;
  std::vector<std::size_t> caps;
  std::size_t runs = 0;
  for (std::size_t i = 0; i < choice.chosen.size(); ++i) {
    if (!parts.empty()) budgets_[choice.chosen[i].id] = parts[i];
    caps.push_back(parts.empty() ? options_.plan.max_samples : parts[i].cap);
    runs += caps.back() * versions + most_confirmation_runs;
  }
  RaceProgress p;
  p.announcement = fmt::format(
      "racing {} {} holding {:.1f}% of the program's time ({:.0f}% of its candidate "
      "loops'): up to {} variant builds and at most {} runs, {:.0f} s at {:.3f} s a run (races "
      "usually stop well before their caps){}{}",
      choice.chosen.size(), what, 100 * choice.covered,
      choice.candidates > 0 ? 100 * choice.covered / choice.candidates : 0.0,
      choice.chosen.size() * (versions * layout_seeds().size() +
                              (has_confirmation_layouts() ? 3 * options_.confirm_layouts : 0)),
      runs, double(runs) * run_seconds, run_seconds,
      budget ? fmt::format("; {:.1f} s of --budget caps them at {} observations", *budget,
                           fmt::join(caps, ", "))
             : "",
      program_check_cost(run_seconds));
  report(p);
}

std::map<int, std::vector<store::VariantRow>> Racer::build_variants(LoopRace& r) {
  LoopVariants built =
      VariantBuilder(ws_, baseline_.dir, applied_, options_.keep_duplicates)
          .build({r.loop, r.observed, r.controls, r.label, r.factors, r.layout_seeds});
  r.groups = std::move(built.groups);
  r.failures = std::move(built.failures);
  r.outcome.notes.insert(r.outcome.notes.end(), built.notes.begin(), built.notes.end());
  return std::move(built.rows);
}

plans::PlanOptions Racer::plan_options_for(const std::string& loop_id) const {
  plans::PlanOptions plan = options_.plan;
  if (auto part = budgets_.find(loop_id); part != budgets_.end())
    plan.max_samples = part->second.cap;
  if (auto share = program_share(loop_id)) {
    plan.epsilon = loop_indifference(options_.plan.epsilon, *share);
  }
  return plan;
}

// The loop's share of the program when --indifference program makes epsilon a part of it;
// nullopt when epsilon stays a part of the loop (asked so, or the share is unknown).
std::optional<double> Racer::program_share(const std::string& loop_id) const {
  if (options_.indifference != Indifference::program) return std::nullopt;
  auto h = hotness_.find(loop_id);
  if (h == hotness_.end() || h->second.share <= 0) return std::nullopt;
  return h->second.share;
}

std::string Racer::indifference_note(const std::string& loop_id) const {
  return fmt::format(
      "epsilon {:.2f}% of the loop's time, in the race and its confirmation: --epsilon {:g} of "
      "the program's at the loop's {:.1f}% share (--indifference program)",
      100 * plan_options_for(loop_id).epsilon, options_.plan.epsilon,
      100 * *program_share(loop_id));
}

std::string Racer::observed_loop(const build::LoopRow& loop) const {
  if (options_.together) return loop.id;
  return observation_loop(loop.id, loop_places(baseline_.table), hotness_);
}

std::string Racer::observed_through_note(const LoopRace& r) const {
  const build::LoopRow* outer = build::find_loop(baseline_.table, r.observed);
  const store::Hotness& own = hotness_.at(r.loop.id);
  return fmt::format(
      "timed through the loop around it, {} {}: its own entries last about {:.0f} cycles, and "
      "probes around so short an entry would time mostly themselves",
      r.observed, outer ? outer->location() : "", own.cycles_per_run / own.entries_per_run);
}

const build::LoopRow& Racer::control_row(const std::string& selector) const {
  const build::LoopRow* row = build::find_loop(baseline_.table, selector);
  if (!row) {
    throw Error(fmt::format(
        "--controls {}: no such loop in the program's loop table (`looprace loops` lists them)",
        selector));
  }
  return *row;
}

std::vector<std::string> Racer::controls_for(const build::LoopRow& loop,
                                             const std::string& observed) const {
  std::vector<std::string> ids;
  if (options_.together || !options_.controls.any()) return ids;
  const auto add = [&](const std::string& id) {
    if (id != loop.id && id != observed && std::find(ids.begin(), ids.end(), id) == ids.end())
      ids.push_back(id);
  };
  for (const std::string& selector : options_.controls.loops) add(control_row(selector).id);
  if (!options_.controls.automatic) return ids;
  std::vector<ControlCandidate> candidates;
  for (const store::Hotness& h : ranking_) {
    const build::LoopRow* row = build::find_loop(baseline_.table, h.id);
    if (row)
      candidates.push_back(
          {h, row->tu, row->function, row->fn_line, runs_only_its_own_code(*row, baseline_)});
  }
  ControlSelection selection;
  if (reference_.observations.probe_cycles)
    selection.probe_cycles = *reference_.observations.probe_cycles;
  for (const std::string& id : choose_controls(
           {loop.id, observed, loop.tu, loop.function, loop.fn_line}, candidates, selection))
    add(id);
  return ids;
}

void Racer::set_controls(LoopRace& r) const {
  r.controls = controls_for(r.loop, r.observed);
  if (r.controls.empty()) return;
  std::vector<std::string> named;
  for (const std::string& id : r.controls) {
    auto h = hotness_.find(id);
    r.control_centers.push_back(
        h != hotness_.end() && h->second.cycles_per_run > 0 ? h->second.cycles_per_run : 1.0);
    const build::LoopRow* row = build::find_loop(baseline_.table, id);
    named.push_back(row ? fmt::format("{} {}", id, row->location()) : id);
  }
  r.outcome.notes.push_back(fmt::format(
      "observations adjusted by the cycles the same runs spent in {} loop(s) no factor changes "
      "(--controls): {}",
      named.size(), fmt::join(named, ", ")));
}

std::optional<double> Racer::control_value(
    const LoopRace& r,
    const std::function<std::optional<double>(const std::string&)>& value_of) const {
  if (r.controls.empty()) return std::nullopt;
  std::vector<std::optional<double>> cycles;
  for (const std::string& id : r.controls) cycles.push_back(value_of(id));
  return stats::combined_control(cycles, r.control_centers);
}

std::string Racer::stored_plan_name(const plans::Plan& plan, const std::string& loop_id,
                                    const std::string& observed,
                                    const std::vector<std::string>& controls) const {
  return plans::plan_on_observations(plan.describe(), options_.observation,
                                     observed == loop_id ? "" : observed, controls);
}

std::optional<plans::LoopDecision> Racer::earlier_decision(const std::string& loop_id,
                                                           const std::string& plan_name) const {
  return store_->decision(program_, loop_id, plan_name);
}

bool Racer::setup_loop(LoopRace& r) {
  const build::LoopRow& loop = r.loop;
  r.outcome.loop = loop;
  if (auto h = hotness_.find(loop.id); h != hotness_.end()) {
    r.outcome.hotness_share = h->second.share;
    r.outcome.hotness_share_is_bound = h->second.is_bound();
  }
  r.plan = plans::make_plan(plan_options_for(loop.id));
  r.observed = observed_loop(loop);
  set_controls(r);
  r.plan_name = stored_plan_name(*r.plan, loop.id, r.observed, r.controls);
  if (r.observed != loop.id) r.outcome.notes.push_back(observed_through_note(r));
  if (program_share(loop.id)) r.outcome.notes.push_back(indifference_note(loop.id));
  r.label = fmt::format("{} {}", loop.id, loop.location());

  if (auto earlier = earlier_decision(loop.id, r.plan_name)) {
    r.outcome.decision = *earlier;
    r.outcome.decided_earlier = true;
    return false;
  }

  r.factors = raced_factors();
  r.layout_seeds = layout_seeds();
  RaceProgress p;
  p.loop_label = r.label;
  p.phase = "building";
  report(p);
  std::map<int, std::vector<store::VariantRow>> rows = build_variants(r);
  const auto stored_runs = store_->loop_race_runs(program_, loop.id);
  check_stored_groups(r, !stored_runs.empty());
  store_variants(r, rows);
  const std::vector<int>& reps = r.groups.representatives;
  for (std::size_t v = 0; v < reps.size(); ++v) r.version_of[reps[v]] = v;
  r.baseline_version = r.version_of.at(r.groups.group_of[0]);

  load_stored(r, stored_runs);
  r.taken.assign(r.groups.representatives.size(), {});
  return true;
}

// The factors a race builds: --factors, or 0..16; factor 0, the baseline arm, always.
std::vector<int> Racer::raced_factors() const {
  std::vector<int> factors = options_.factors;
  if (factors.empty()) {
    factors.resize(kMaxFactor + 1);
    std::iota(factors.begin(), factors.end(), 0);
  }
  factors.push_back(0);
  std::sort(factors.begin(), factors.end());
  factors.erase(std::unique(factors.begin(), factors.end()), factors.end());
  return factors;
}

// Layout randomization: one build per code and layout seed; round r runs layout r mod K.
std::vector<std::optional<std::uint64_t>> Racer::layout_seeds() const {
  const unsigned layouts = options_.together ? 1 : std::max(1u, options_.layouts);
  std::vector<std::optional<std::uint64_t>> seeds(layouts, std::nullopt);
  if (layouts > 1) {
    for (unsigned j = 0; j < layouts; ++j) seeds[j] = mix(options_.seed, j + 1);
  }
  return seeds;
}

// The confirmation's own layouts, seeded apart from the race's: none without layout
// randomization (--layouts 1, --together) or with --confirm-layouts 0 or 1.
bool Racer::has_confirmation_layouts() const {
  return !options_.together && options_.layouts >= 2 && options_.confirm_layouts >= 2;
}

// The seeds of the confirmation's layouts `first` to `end` - 1.
std::vector<std::optional<std::uint64_t>> Racer::confirmation_seeds(std::size_t first,
                                                                    std::size_t end) const {
  std::vector<std::optional<std::uint64_t>> seeds;
  for (std::size_t j = first; j < end; ++j)
    seeds.push_back(mix(options_.seed ^ 0x636f6e66ULL, j + 1));
  return seeds;
}

// Stored observations belong to the groups of the stored variants: they must not move.
void Racer::check_stored_groups(const LoopRace& r, bool has_stored_runs) const {
  if (!has_stored_runs) return;
  for (const auto& sv : store_->variants(program_, r.loop.id)) {
    if (sv.layout != 0 || sv.factor > kMaxFactor) continue;
    int now = r.groups.group_of[static_cast<std::size_t>(sv.factor)];
    if (sv.built && now >= 0 && now != sv.group && !options_.force) {
      throw Error(fmt::format(
          "loop {}: factor {} now builds like factor {}, but the store {} raced it with factor "
          "{}: the program or compiler changed, or --keep-duplicates did. Race into a new "
          "--store (or --force)",
          r.label, sv.factor, now, options_.store.string(), sv.group));
    }
  }
}

// Stores every variant with its group, and notes the factors GCC made fewer copies of.
void Racer::store_variants(LoopRace& r, std::map<int, std::vector<store::VariantRow>>& rows) {
  std::vector<build::FewerCopies> clamped;
  for (auto& [f, list] : rows) {
    for (auto& v : list) {
      v.group = r.groups.group_of[static_cast<std::size_t>(f)];
      store_->put_variant(program_, v);
      if (f >= 1 && v.layout == 0 && v.applied && *v.applied != f && *v.applied != 0) {
        clamped.push_back({f, *v.applied, v.how});
      }
    }
  }
  for (std::string& note : build::fewer_copies_notes(clamped)) {
    r.outcome.notes.push_back(std::move(note));
  }
  for (const auto& [f, why] : r.failures) {
    r.outcome.notes.push_back(fmt::format("factor {} not raced: {}", f, why));
  }
}

// What the store holds of the loop, replayed first: race runs (alone or joint) per version,
// and the confirmation runs of an interrupted command per group. Runs that timed another loop
// than this race observes (a store an earlier looprace raced) would mix two kinds of
// observation: an error unless --force, which leaves them out.
void Racer::load_stored(LoopRace& r, const std::vector<store::LoopRaceRun>& stored_runs) {
  const build::LoopRow& loop = r.loop;
  const std::vector<int>& reps = r.groups.representatives;
  r.recorded.assign(reps.size(), {});
  const std::map<std::int64_t, store::RunRow> with_controls = stored_controls(r);
  for (const auto& run : stored_runs) {
    if (!run.observed.empty() && run.observed != (run.joint ? loop.id : r.observed)) {
      if (options_.force) continue;
      throw Error(fmt::format(
          "loop {}: the store {} holds race runs that timed loop {}, this race times loop {}: "
          "they were raced by another looprace. Race into a new --store (or --force)",
          r.label, options_.store.string(), run.observed, r.observed));
    }
    int group = run.factor >= 0 && run.factor <= kMaxFactor
                    ? r.groups.group_of[static_cast<std::size_t>(run.factor)]
                    : -1;
    auto v = r.version_of.find(group);
    if (v == r.version_of.end()) continue;  // raced with other --factors: not this race's data
    std::optional<plans::Observation> cycles;
    if (run.ok && run.cycles) {
      const std::optional<double> value = run.value(options_.observation);
      if (!value) continue;  // visibly disturbed and taken again, as in the stored race
      cycles = *value;
      if (!r.controls.empty()) {
        auto stored = with_controls.find(run.run_id);
        if (stored == with_controls.end()) continue;  // timed no control: left out (--force)
        cycles->control = control_value(r, [&](const std::string& id) {
          return stored->second.value_of(id, options_.observation);
        });
      }
    }
    r.recorded[v->second].push_back(cycles);
    if (!cycles) {  // out for good, as in the stored race
      r.disqualified.emplace(v->second,
                             run.ok ? "no observation of the loop in a stored run" : run.reason);
    }
  }
  // Confirmation runs an interrupted command stored, by group, replayed first.
  for (const auto& run : store_->runs(program_, store::RunKind::kConfirm, loop.id)) {
    std::optional<double> value;
    if (run.ok) {
      value = run.value_of(r.observed, options_.observation);
      if (!value) continue;  // visibly disturbed and taken again, as when it was stored
    }
    r.stored_confirmations[run.group].emplace_back(value, run.layout);
  }
}

// The loop's stored race runs that timed its controls, by id. A run that timed none of them
// was raced without them (or with others): its observation is not this race's, an error
// unless --force, which leaves it out.
std::map<std::int64_t, store::RunRow> Racer::stored_controls(const LoopRace& r) const {
  std::map<std::int64_t, store::RunRow> out;
  if (r.controls.empty()) return out;
  for (store::RunRow& run : store_->runs(program_, store::RunKind::kRace, r.loop.id)) {
    if (!run.ok) continue;
    if (run.timed_any(r.controls)) {
      out.emplace(run.id, std::move(run));
    } else if (!options_.force) {
      throw Error(fmt::format(
          "loop {}: the store {} holds race runs that timed none of this race's controls ({}): "
          "they were raced without --controls or with others. Race into a new --store (or "
          "--force, which leaves them out)",
          r.label, options_.store.string(), fmt::join(r.controls, ", ")));
    }
  }
  return out;
}

void Racer::baseline_and_reference() {
  std::string why;
  std::optional<ReusedBaseline> reused;
  if (!options_.reuse_baseline.empty())
    reused = load_baseline_record(options_.reuse_baseline, ws_, facts_, why);
  if (reused) {
    baseline_ = std::move(reused->baseline);
    reference_ = std::move(reused->reference);
    baseline_origin_ = "reused " + options_.reuse_baseline.string();
  } else {
    baseline_ = build_baseline(ws_);
    reference_ = reference_run(ws_, baseline_);
    baseline_origin_ = why.empty() ? "built" : "built: the recorded one was not reusable: " + why;
  }
  ws_.tsc_hz = reference_.observations.tsc_hz;
  RaceProgress p;
  p.announcement = "baseline: " + baseline_origin_;
  if (!options_.reuse_baseline.empty()) report(p);
  if (!options_.save_baseline.empty())
    save_baseline_record(options_.save_baseline, ws_, facts_, baseline_, reference_);
}

std::int64_t Racer::program_of_this_code() {
  const std::string code = build::code_identity(baseline_.dir).digest;
  bool other_code = false;
  for (const auto& p : store_->programs()) {
    if (p.build_command == options_.build_command && p.run_command == options_.run_command) {
      if (p.code == code)
        return store_->program(options_.build_command, options_.run_command, code);
      other_code = true;
    }
  }
  if (other_code) {
    facts_.warnings.push_back(fmt::format(
        "the program's code is not the code the store {} raced before (the sources, compiler or "
        "flags changed, or an older looprace raced it): its loops are measured and raced again; "
        "the earlier observations stay in the store",
        options_.store.string()));
  }
  return store_->program(options_.build_command, options_.run_command, code);
}

std::optional<plans::Observation> Racer::take_alone(LoopRace& r, std::size_t version,
                                                    std::size_t round, store::RunKind kind,
                                                    std::optional<unsigned> confirm_layout) {
  const build::LoopRow& loop = r.loop;
  store::RunRow row;
  row.kind = kind;
  row.target_loop = loop.id;
  row.observed = r.observed;
  row.group = r.groups.representatives[version];
  row.round = static_cast<int>(round);
  if (auto d = r.disqualified.find(version); d != r.disqualified.end()) {
    row.ok = false;
    row.reason = d->second;
    store_->add_run(program_, session_, row);
    return std::nullopt;
  }
  const unsigned layouts = static_cast<unsigned>(r.layout_seeds.size());
  unsigned layout = round == 0 ? 0 : static_cast<unsigned>((round - 1) % layouts);
  std::optional<std::uint64_t> seed = r.layout_seeds[layout];
  if (confirm_layout) {  // stored after the race's layouts
    seed = r.confirm_seeds.at(*confirm_layout);
    layout = layouts + *confirm_layout;
  }
  // Every run's environment has its own random size, so no factor's runs keep one stack
  // alignment (its directory's name length would otherwise decide it).
  const std::uint64_t padding = mix(mix(options_.seed, id_number(loop.id)), round * 64 + version);
  const store::RunRow fresh = row;
  for (unsigned attempt = 0;; ++attempt) {
    row = fresh;
    run::RunResult result =
        run_build_once(ws_, build::variant_dir(ws_.workdir, loop.id, row.group, seed), padding);
    fill_run_row(row, result);
    row.layout = static_cast<int>(layout);
    std::optional<double> cycles = result.observations.cycles(r.observed);
    if (row.ok && (!cycles || *cycles <= 0)) {
      row.ok = false;
      row.reason = "the loop did not run";
    }
    std::optional<double> value = cycles;
    if (row.ok && options_.observation == stats::ObservationKind::kFiltered) {
      value = result.observations.value(r.observed, options_.observation);
      if (!value && attempt < kMaxRetakes) {
        store_->add_run(program_, session_, row);  // kept, but not an observation
        ++r.retaken;
        continue;
      }
      if (!value) value = accept_disturbed(r, row, *cycles);
    }
    store_->add_run(program_, session_, row);
    if (!row.ok) {
      r.disqualified[version] = row.reason;
      return std::nullopt;
    }
    return plans::Observation{*value, live_control(r, row, result)};
  }
}

// The control of a live run (control_value) on the controls' observations of the kind the
// race decides on: a control the filter could not clean is left out of the run's control, as
// its raw sum, which holds the disturbance, would move the adjustment by as much. A run that
// timed none of the race's controls stops the race, as its resume would (stored_controls).
std::optional<double> Racer::live_control(const LoopRace& r, const store::RunRow& row,
                                          const run::RunResult& result) const {
  if (r.controls.empty()) return std::nullopt;
  const bool timed = std::any_of(r.controls.begin(), r.controls.end(), [&](const auto& id) {
    return result.observations.cycles(id).has_value();
  });
  const std::optional<double> control = control_value(r, [&](const std::string& id) {
    return result.observations.value(id, options_.observation);
  });
  if (!timed) {
    throw Error(fmt::format(
        "loop {}: a run of factor {} timed none of the race's controls ({}): they do not run "
        "with every input; race without --controls, or name others",
        r.label, row.group, fmt::join(r.controls, ", ")));
  }
  return control;
}

double Racer::accept_disturbed(LoopRace& r, store::RunRow& row, double cycles) {
  for (auto& o : row.observations) {
    if (o.loop_id == r.observed) o.filtered = cycles;
  }
  ++r.accepted;
  return cycles;
}

void Racer::fill_run_row(store::RunRow& row, const run::RunResult& result) {
  run::Judgement judgement =
      run::judge_run(reference_, result, run::CheckOptions{options_.check_output}, true);
  row.env_padding = result.env_padding;
  row.wall_seconds = result.process.wall_seconds;
  row.exit_status = exit_status_of(result.process);
  row.observations = observations_of(result);
  row.nivcsw = result.observations.nivcsw;
  row.steal_ticks = result.observations.steal_ticks;
  row.off_cpu_ns = result.observations.off_cpu_ns;
  row.cpu_seconds = result.process.cpu_seconds();
  if (!judgement.ok()) {
    row.ok = false;
    row.reason = fmt::format("{}: {}", run::failure_name(judgement.failure), judgement.message);
  }
}

void Racer::warm_up(LoopRace& r) {
  // Every version runs (and is checked) before any observation counts.
  RaceProgress p;
  p.loop_label = r.label;
  p.phase = "warm-up";
  report(p);
  std::mt19937_64 warm_order(mix(options_.seed, id_number(r.loop.id) ^ 0x5741524dULL));
  for (unsigned w = 0; w < options_.warmup; ++w) {
    std::vector<std::size_t> order(r.groups.representatives.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), warm_order);
    for (std::size_t v : order) {
      if (!r.disqualified.count(v)) take_alone(r, v, 0, store::RunKind::kWarmup);
    }
  }
  if (auto d = r.disqualified.find(r.baseline_version); d != r.disqualified.end()) {
    throw Error(fmt::format(
        "loop {}: the baseline variant (factor 0, instrumented) cannot be measured: {}{}", r.label,
        d->second,
        d->second == "the loop did not run"
            ? " during the run command; race a loop that runs (see `looprace loops --run`)"
            : ""));
  }
}

plans::Decision Racer::run_plan(LoopRace& r, LiveSampler& sampler,
                                const plans::RoundObserver& observer) {
  // Wraps the sampler to keep the plan's own observations for the speedup test.
  struct Recording : plans::Sampler {
    LiveSampler& inner;
    LoopRace& race;
    Recording(LiveSampler& s, LoopRace& r) : inner(s), race(r) {}
    std::vector<std::optional<plans::Observation>> round(
        const std::vector<std::size_t>& versions) override {
      auto out = inner.round(versions);
      for (std::size_t i = 0; i < versions.size(); ++i) {
        if (out[i]) {
          race.taken[versions[i]].push_back(out[i]->cycles);
          ++race.observations;
        }
      }
      return out;
    }
  } recording(sampler, r);
  plans::Decision decision = r.plan->run(r.groups.representatives.size(), recording, observer);
  r.chosen_version = decision.chosen;
  r.outcome.replayed += sampler.replayed();
  r.outcome.measured += sampler.measured();
  r.plan_rounds = sampler.rounds();
  return decision;
}

// The looks of confirmation runs, at the race's confidence and epsilon.
plans::DefaultPolicy Racer::default_policy() const {
  plans::DefaultPolicy policy;
  policy.prefer_default = options_.prefer_default;
  policy.confirmation = {options_.confirm, options_.confirm_looks, options_.confidence};
  policy.epsilon = options_.plan.epsilon;
  policy.test = options_.confirm_test;
  return policy;
}

// The Speedup-Test of the chosen factor against factor 0 runs on fresh interleaved pairs of
// runs of just those two, taken alone after the race and stored as confirmation runs, never
// on the race's own observations: those made the factor the lowest mean, so they overstate its
// speedup (winner's curse), most when many near-tied factors raced to the cap. The pairs an
// interrupted command stored come first.
void Racer::confirm(LoopRace& r, plans::Decision& decision) {
  const std::size_t base = r.baseline_version;
  const bool base_out = std::find(decision.disqualified.begin(), decision.disqualified.end(),
                                  base) != decision.disqualified.end();
  plans::DefaultPolicy policy = default_policy();
  policy.epsilon = plan_options_for(r.loop.id).epsilon;  // --indifference program: its share
  if (r.chosen_version != base && options_.confirm > 0 && !base_out) {
    take_confirmations(r, policy);
  }
  // GCC's default stays unless the confirmation runs show the chosen factor faster by more
  // than epsilon, whether factor 0 survived the race or not (plans/default_policy.h).
  const plans::RunPairs judged = judged_confirmations(r);
  const std::size_t set_aside = r.confirm_chosen.size() - judged.b.size();
  if (set_aside > 0 && judged.b.size() >= 2)
    r.outcome.notes.push_back(
        fmt::format("{} of {} confirmation pairs set aside: the machine ran them slow as a whole "
                    "(--round-limit)",
                    set_aside, r.confirm_chosen.size()));
  const plans::DefaultDecision keep = plans::decide_default(
      policy, r.chosen_version == base, base_out, judged.a, judged.b, judged.layouts, set_aside);
  if (keep.keep_default) {
    if (r.chosen_version != base) r.unconfirmed_version = r.chosen_version;
    r.chosen_version = base;
    plans::keep_default_in(decision, base);
    r.outcome.notes.push_back(keep.reason);
  } else if (r.chosen_version != base && !r.confirm_seeds.empty()) {
    check_runner_up(r, decision, policy);
  }
  if (r.retaken > 0) {
    r.outcome.notes.push_back(fmt::format(
        "{} run(s) taken again: other work visibly took the CPU from them (off the CPU for "
        "over 250 us, or time stolen by the host) and the loop's entries could not be "
        "filtered{}",
        r.retaken,
        r.accepted ? fmt::format("; {} still disturbed after {} retakes counted as they were",
                                 r.accepted, kMaxRetakes)
                   : ""));
  }
}

// Confirmation pairs look after look until they confirm the gain or show it within epsilon,
// the looks run out, or a run fails.
void Racer::take_confirmations(LoopRace& r, const plans::DefaultPolicy& policy) {
  RaceProgress p;
  p.loop_label = r.label;
  for (unsigned look = 0; look < policy.confirmation.looks; ++look) {
    const std::size_t have = r.confirm_chosen.size();
    const std::size_t wanted = plans::pairs_after_look(policy.confirmation, look);
    if (look > 0 && !look_fits_budget(r, wanted - have, new_confirmation_layouts(r, look))) {
      r.outcome.notes.push_back(fmt::format(
          "the confirmation stopped after {} runs of each: another look would pass the loop's "
          "part of --budget",
          have));
      return;
    }
    if (!build_confirmation_layouts(r, look)) {
      if (!r.confirm_seeds.empty()) return;  // judged on the looks it has
      if (openers_.count(r.loop.id)) {
        r.outcome.notes.push_back(
            "not confirmed: GCC's default without the tied changes raced with this loop did "
            "not build at the confirmation's layouts");
        return;
      }
    }
    p.phase = fmt::format("confirming: look {} of up to {}, {} runs each", look + 1,
                          policy.confirmation.looks, wanted);
    p.observations = have;
    report(p);
    std::vector<int> layouts(wanted - have, 0);
    PairedRuns pairs =
        take_pairs(wanted - have, mix(options_.seed, (id_number(r.loop.id) ^ 0x636f6e66ULL) + look),
                   [&](bool chosen, std::size_t i) {
                     auto [value, layout] = take_confirmation(
                         r, chosen ? r.chosen_version : r.baseline_version, have + i + 1);
                     if (chosen) layouts[i] = layout;
                     return value;
                   });
    r.confirm_baseline.insert(r.confirm_baseline.end(), pairs.a.begin(), pairs.a.end());
    r.confirm_chosen.insert(r.confirm_chosen.end(), pairs.b.begin(), pairs.b.end());
    r.confirm_layouts.insert(r.confirm_layouts.end(), layouts.begin(),
                             layouts.begin() + static_cast<std::ptrdiff_t>(pairs.b.size()));
    if (pairs.failed) {
      r.outcome.notes.push_back("a confirmation run failed; the speedup uses fewer runs");
      return;
    }
    const plans::RunPairs judged = judged_confirmations(r);
    if (plans::judge_confirmation(policy, judged.a, judged.b, nullptr, judged.layouts) !=
        plans::ConfirmationOutcome::unresolved)
      return;
  }
}

// Under --budget, a further look of the confirmation only while the loop's runs, the race's
// and the confirmation's, stay within its part of the budget (its share of the budget's runs,
// or its cap for every version where the cap's floor gave it more): the first look is always
// taken, the others spend what the race left. A race stopped by the sample cap, not by the
// budget, leaves the rest of its part to the confirmation. The builds of `new_layouts` more
// layouts of the two factors count as the runs they would take as long as, at the first
// look's build time. The runner-up check is priced the same way.
bool Racer::look_fits_budget(const LoopRace& r, std::size_t more_pairs, double new_layouts) const {
  if (!options_.budget_seconds) return true;
  auto budget = budgets_.find(r.loop.id);
  if (budget == budgets_.end()) return true;
  const double part = budget->second.spendable(r.groups.representatives.size());
  double builds = 0;
  if (budget_run_seconds_ > 0)
    builds = new_layouts * r.confirm_layout_seconds / budget_run_seconds_;
  return double(r.observations + 2 * (r.confirm_chosen.size() + more_pairs)) + builds <= part;
}

// The layouts a further look of the confirmation builds beyond those it has.
double Racer::new_confirmation_layouts(const LoopRace& r, unsigned look) const {
  if (r.confirm_seeds.empty()) return 0;
  const std::size_t wanted = plans::layouts_after_look(options_.confirm_layouts, look);
  return wanted > r.confirm_seeds.size() ? double(wanted - r.confirm_seeds.size()) : 0;
}

// The race eliminated the runner-up on its own few layouts, where an unrolled body's time can
// move by 5 % with its padding: a winner set of the choice alone then says the other factors
// are slower when other layouts would tie them (one race kept demo.c:75:33's factor 7 alone
// where four others kept 7-16 tied and two of them chose 8). So the choice and
// the runner-up are timed in fresh pairs at the confirmation's first layouts, one look; the
// runner-up stays out only when they show the choice faster by more than epsilon.
void Racer::check_runner_up(LoopRace& r, plans::Decision& decision,
                            const plans::DefaultPolicy& policy) {
  const std::optional<std::size_t> runner = plans::runner_up(decision, r.taken, r.baseline_version);
  const std::size_t pairs = policy.confirmation.first_pairs;
  if (!runner) return;
  const int factor = r.groups.representatives[*runner];
  const int chosen = r.groups.representatives[r.chosen_version];
  auto note = [&](const std::string& what) {
    r.outcome.notes.push_back(
        fmt::format("factor {}, the best the race eliminated, {}", factor, what));
  };
  // Its builds are of one factor at the first look's layouts: half as many as a look's.
  if (!look_fits_budget(r, pairs, 0.5 * options_.confirm_layouts))
    return note("was not checked: its runs would pass the loop's part of --budget");
  std::vector<int> layouts;
  std::string failure;
  const PairedRuns runs = time_runner_up(r, *runner, pairs, layouts, failure);
  if (!failure.empty()) return note("was not checked: " + failure);
  const plans::RunPairs judged =
      plans::undisturbed_pairs({runs.a, runs.b, layouts}, r.taken[*runner],
                               r.taken[r.chosen_version], plan_options_for(r.loop.id).round_limit);
  if (judged.b.size() < 2)
    return note(
        fmt::format("was not checked: the machine was slow as a whole through its {} "
                    "pairs (--round-limit)",
                    runs.b.size()));
  stats::SpeedupTestResult test;
  const plans::ConfirmationOutcome outcome =
      plans::judge_confirmation(policy, judged.a, judged.b, &test, judged.layouts);
  const std::string shown =
      fmt::format("{} fresh pairs at {} layouts{}: {:.3f} [{:.3f}, {:.3f}]", judged.b.size(),
                  std::set<int>(judged.layouts.begin(), judged.layouts.end()).size(),
                  judged.b.size() < runs.b.size()
                      ? fmt::format(" ({} more set aside: the machine was slow as a whole)",
                                    runs.b.size() - judged.b.size())
                      : "",
                  test.ratio_speedup, test.speedup_interval.lower, test.speedup_interval.upper);
  const bool joins = outcome != plans::ConfirmationOutcome::confirmed;
  r.runner_up = plans::RunnerUpCheck{factor,
                                     judged.b.size(),
                                     test.ratio_speedup,
                                     test.speedup_interval.lower,
                                     test.speedup_interval.upper,
                                     joins};
  if (!joins) return note(fmt::format("stays out: factor {} faster by {}", chosen, shown));
  plans::join_winners(decision, *runner);
  note(fmt::format("joins the tied best: factor {} not shown faster by more than epsilon by {}",
                   chosen, shown));
}

// `pairs` interleaved pairs of the runner-up (a) and the choice (b), built and run at the
// confirmation's first layouts in turn; `layouts` receives each pair's, `failure` why they
// could not be taken.
PairedRuns Racer::time_runner_up(LoopRace& r, std::size_t runner, std::size_t pairs,
                                 std::vector<int>& layouts, std::string& failure) {
  const int factor = r.groups.representatives[runner];
  const std::size_t built_layouts =
      std::min<std::size_t>(r.confirm_seeds.size(), options_.confirm_layouts);
  const std::vector<std::optional<std::uint64_t>> seeds(r.confirm_seeds.begin(),
                                                        r.confirm_seeds.begin() + built_layouts);
  RaceProgress p;
  p.loop_label = r.label;
  p.phase = fmt::format("building factor {}, the runner-up, at the confirmation's layouts", factor);
  report(p);
  LoopVariants built = VariantBuilder(ws_, baseline_.dir, applied_, options_.keep_duplicates)
                           .build({r.loop, r.observed, r.controls, r.label, {factor}, seeds});
  if (!built.failures.empty()) {
    failure =
        "it did not build at the confirmation's layouts (" + built.failures.begin()->second + ")";
    return {};
  }
  p.phase = fmt::format("checking the runner-up: factor {} against {}, {} runs each", factor,
                        r.groups.representatives[r.chosen_version], pairs);
  report(p);
  const std::size_t first_pair = r.confirm_chosen.size() + 1;
  layouts.assign(pairs, 0);
  PairedRuns runs = take_pairs(pairs, mix(options_.seed, id_number(r.loop.id) ^ 0x72756e6eULL),
                               [&](bool chosen, std::size_t i) {
                                 auto [value, layout] = take_confirmation_at(
                                     r, chosen ? r.chosen_version : runner, first_pair + i,
                                     unsigned(i % built_layouts));
                                 layouts[i] = layout;
                                 return value;
                               });
  if (runs.failed) failure = "a run failed";
  return runs;
}

// One confirmation observation of `version`: the next one an earlier command stored, else a
// new run of the loop's own build, of the confirmation's layouts in turn when it has its own.
std::pair<std::optional<double>, int> Racer::take_confirmation(LoopRace& r, std::size_t version,
                                                               std::size_t pair) {
  if (r.confirm_seeds.empty()) return take_confirmation_at(r, version, pair, std::nullopt);
  return take_confirmation_at(r, version, pair,
                              static_cast<unsigned>(plans::layout_of_pair(
                                  default_policy().confirmation, options_.confirm_layouts, pair)));
}

std::pair<std::optional<double>, int> Racer::take_confirmation_at(LoopRace& r, std::size_t version,
                                                                  std::size_t pair,
                                                                  std::optional<unsigned> layout) {
  auto& stored = r.stored_confirmations[r.groups.representatives[version]];
  if (!stored.empty()) {
    auto value = stored.front();
    stored.pop_front();
    ++r.outcome.replayed;
    return value;
  }
  ++r.outcome.measured;
  // Numbered after the plan's rounds, as a store's runs of one loop are in time.
  const std::size_t round = r.plan_rounds + pair;
  const std::size_t race_layouts = r.layout_seeds.size();
  // Unadjusted by the controls: the confirmation's pairs share a machine's moment already.
  const auto cycles = [](std::optional<plans::Observation> o) {
    return o ? std::optional<double>(o->cycles) : std::nullopt;
  };
  if (!layout) {
    return {cycles(take_alone(r, version, round, store::RunKind::kConfirm)),
            static_cast<int>((round - 1) % race_layouts)};
  }
  return {cycles(take_alone(r, version, round, store::RunKind::kConfirm, *layout)),
          static_cast<int>(race_layouts + *layout)};
}

// Factor 0's and the chosen factor's code at the confirmation's own paddings: layouts the race
// did not pick its factor on, as many as the test needs to see how a gain varies with layout.
bool Racer::build_confirmation_layouts(LoopRace& r, unsigned look) {
  if (!has_confirmation_layouts()) return false;
  const std::size_t have = r.confirm_seeds.size();
  const std::size_t wanted = plans::layouts_after_look(options_.confirm_layouts, look);
  if (have >= wanted) return true;
  if (look > 0 && have == 0) return false;  // the first look ran on the race's builds
  const std::vector<std::optional<std::uint64_t>> seeds = confirmation_seeds(have, wanted);
  const std::vector<int> factors = {r.groups.representatives[r.baseline_version],
                                    r.groups.representatives[r.chosen_version]};
  RaceProgress p;
  p.loop_label = r.label;
  p.phase = fmt::format("building factors {} and {} at {} {}layouts for the confirmation",
                        factors[0], factors[1], seeds.size(), have ? "more " : "");
  report(p);
  const auto start = std::chrono::steady_clock::now();
  LoopVariants built = confirmation_builds(r, factors, seeds);
  if (!have)
    r.confirm_layout_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
        double(seeds.size());
  if (!built.failures.empty()) {
    r.outcome.notes.push_back(
        fmt::format("{}: factor {} did not build at a layout of its own ({})",
                    have ? fmt::format("the confirmation stopped at {} layouts", have)
                         : "the confirmation ran on the race's builds",
                    built.failures.begin()->first, built.failures.begin()->second));
    return false;
  }
  r.confirm_seeds.insert(r.confirm_seeds.end(), seeds.begin(), seeds.end());
  return true;
}

// factors[0] (GCC's default) and factors[1] (the choice) at the confirmation's layouts. A loop
// raced with openers (tied changes inside it) is confirmed against GCC's default for it and
// for them: its choice is written only with theirs, so the two together must be the faster.
LoopVariants Racer::confirmation_builds(const LoopRace& r, const std::vector<int>& factors,
                                        const std::vector<std::optional<std::uint64_t>>& seeds) {
  auto openers = openers_.find(r.loop.id);
  if (openers == openers_.end())
    return VariantBuilder(ws_, baseline_.dir, applied_, options_.keep_duplicates)
        .build({r.loop, r.observed, r.controls, r.label, factors, seeds});
  AppliedFactors without = applied_;
  for (const auto& change : openers->second) std::erase(without, change);
  const std::vector<int> base = {factors[0]}, chosen = {factors[1]};
  LoopVariants built;
  try {
    built = VariantBuilder(ws_, baseline_.dir, without, options_.keep_duplicates)
                .build({r.loop, r.observed, r.controls, r.label, base, seeds});
  } catch (const Error& e) {
    built.failures[factors[0]] = e.what();
    return built;
  }
  LoopVariants other = VariantBuilder(ws_, baseline_.dir, applied_, options_.keep_duplicates)
                           .build({r.loop, r.observed, r.controls, r.label, chosen, seeds});
  built.failures.insert(other.failures.begin(), other.failures.end());
  return built;
}

// The pairs' layouts the confirmation's test counts: its own layouts; none (the pairs count as
// independent) when it ran on the race's builds.
std::vector<int> Racer::tested_layouts(const LoopRace& r) const {
  const int race_layouts = static_cast<int>(r.layout_seeds.size());
  const bool own = std::all_of(r.confirm_layouts.begin(), r.confirm_layouts.end(),
                               [&](int layout) { return layout >= race_layouts; });
  if (!own || r.confirm_layouts.size() != r.confirm_chosen.size()) return {};
  return r.confirm_layouts;
}

// The confirmed factor's race observations: the plan's choice, also once GCC's default was
// kept instead of it.
plans::RunPairs Racer::judged_confirmations(const LoopRace& r) const {
  const std::size_t confirmed = r.unconfirmed_version.value_or(r.chosen_version);
  return plans::undisturbed_pairs({r.confirm_baseline, r.confirm_chosen, tested_layouts(r)},
                                  r.taken[r.baseline_version], r.taken[confirmed],
                                  plan_options_for(r.loop.id).round_limit);
}

void Racer::decide(LoopRace& r, const plans::Decision& decision) {
  if (decision.disqualified.size() == r.groups.representatives.size()) {
    throw Error(fmt::format("loop {}: every variant was disqualified", r.label));
  }
  plans::LoopDecision& d = r.outcome.decision;
  d = plans::in_factors(decision, r.groups.representatives, r.groups.group_of, r.factors,
                        r.disqualified);
  d.loop_id = r.loop.id;
  d.plan = r.plan_name;
  d.chosen = r.groups.representatives.at(r.chosen_version);
  for (const auto& [f, why] : d.disqualified) {
    r.outcome.notes.push_back(fmt::format("factor {} disqualified: {}", f, why));
  }
  for (const auto& [f, why] : r.failures) d.disqualified[f] = why;
  d.speedup = speedup_evidence(r);
  if (r.unconfirmed_version) d.unconfirmed = r.groups.representatives.at(*r.unconfirmed_version);
  d.runner_up = r.runner_up;
  d.decided_at = store::utc_now();
  store_->put_decision(program_, d);
}

// The runs the Speedup-Test of the chosen factor against factor 0 rests on: the confirmation
// runs; without them (--confirm 0, or a failed first confirmation run) the race's own
// observations, which flatter the chosen factor.
plans::SpeedupEvidence Racer::speedup_evidence(const LoopRace& r) const {
  plans::SpeedupEvidence e;
  const bool confirmed = r.confirm_chosen.size() >= 2;
  // The confirmation's interval at the confidence its looks were judged at, so that the
  // printed interval is the one the decision rests on.
  e.confidence =
      confirmed ? plans::look_confidence(default_policy().confirmation) : options_.confidence;
  // GCC's default kept for want of a confirmed gain: the runs that did not confirm it.
  if (r.chosen_version == r.baseline_version && !(r.unconfirmed_version && confirmed)) {
    e.source = plans::SpeedupSource::kSameCode;
    return e;
  }
  e.source = confirmed ? plans::SpeedupSource::kConfirmation : plans::SpeedupSource::kRace;
  e.ratio_test = confirmed ? options_.confirm_test : stats::RatioTest::welch_log;
  const plans::RunPairs judged = judged_confirmations(r);
  if (confirmed) e.layouts = judged.layouts;
  e.baseline = confirmed ? judged.a : r.taken[r.baseline_version];
  e.chosen = confirmed ? judged.b : r.taken[r.chosen_version];
  if (e.baseline.size() < 2 || e.chosen.size() < 2) e.source = plans::SpeedupSource::kNone;
  return e;
}

LoopOutcome Racer::race_loop(const build::LoopRow& loop) {
  LoopRace r;
  r.loop = loop;
  if (!setup_loop(r)) return std::move(r.outcome);
  warm_up(r);
  LiveSampler sampler(
      std::move(r.recorded),
      [&](std::size_t version, std::size_t round) {
        return take_alone(r, version, round, store::RunKind::kRace);
      },
      mix(options_.seed, id_number(loop.id)));
  RaceProgress p;
  p.loop_label = r.label;
  p.phase = "racing";
  p.survivors = r.groups.representatives.size();
  report(p);
  plans::Decision decision = run_plan(r, sampler, [&](const plans::RoundTrace& t) {
    p.round = t.round;
    p.survivors = t.survivors.size();
    p.observations = r.observations;
    p.phase = "racing";
    report(p);
  });
  p.phase = "confirming";
  report(p);
  confirm(r, decision);
  decide(r, decision);
  return std::move(r.outcome);
}

void Racer::write_profile(const LoopOutcome& o, const ProgramCheck* withdrawn) {
  const plans::LoopDecision& d = o.decision;
  profile::Entry e;
  e.id = o.loop.id;
  e.file = o.loop.file;
  e.line = o.loop.line;
  e.column = o.loop.column;
  e.function = o.loop.function;
  e.index = o.loop.index;
  e.loops = std::max(1, o.loop.loops);
  e.factor = withdrawn ? 0 : d.chosen;
  if (withdrawn) {
    e.evidence.emplace_back("withdrawn", std::to_string(d.chosen));
    if (!withdrawn->failure.empty()) {
      e.evidence.emplace_back("program_check", "failed");
    } else {
      e.evidence.emplace_back("program_speedup", fmt::format("{:.3f}", withdrawn->speedup));
      e.evidence.emplace_back("program_ci",
                              fmt::format("{:.3f},{:.3f}", withdrawn->ci_low, withdrawn->ci_high));
    }
  }
  e.evidence.emplace_back("winners", join(d.winners));
  e.evidence.emplace_back("samples", join(d.winner_samples()));
  if (d.unconfirmed) {
    // Factor 0 is written; the evidence says which factor its confirmation runs did not show
    // faster, and by how much they could.
    e.evidence.emplace_back("verdict", "baseline");
    e.evidence.emplace_back("unconfirmed", std::to_string(*d.unconfirmed));
    if (auto s = plans::speedup_of(d.speedup)) {
      e.evidence.emplace_back(
          "unconfirmed_ci",
          fmt::format("{:.3f},{:.3f}", s->speedup_interval.lower, s->speedup_interval.upper));
    }
  } else if (d.speedup.source == plans::SpeedupSource::kSameCode) {
    e.evidence.emplace_back("speedup", "1.000");
    e.evidence.emplace_back("verdict", "baseline");
  } else if (auto s = plans::speedup_of(d.speedup)) {
    e.evidence.emplace_back("speedup", fmt::format("{:.3f}", s->ratio_speedup));
    e.evidence.emplace_back(
        "ci", fmt::format("{:.3f},{:.3f}", s->speedup_interval.lower, s->speedup_interval.upper));
    e.evidence.emplace_back("verdict", stats::verdict_name(s->ratio_verdict));
  } else {
    e.evidence.emplace_back("verdict", "needs-more-runs");
  }
  if (d.cap_hit) e.evidence.emplace_back("cap", "hit");
  if (!o.joint.empty()) e.evidence.emplace_back("joint", o.joint);
  // What factor 0 was for this decision: the plugin warns when the profile meets other flags.
  if (std::string base = o.loop.features.value("base", ""); !base.empty()) {
    e.evidence.emplace_back("base", base);
  }
  std::vector<std::string> header = {
      profile::provenance_comment(
          {options_.looprace_version, facts_.compiler, facts_.cpu_model, store::utc_now()}),
      "program: " + options_.build_command, "run: " + options_.run_command, "plan: " + d.plan,
      "id               location          function    pos  factor  evidence"};
  profile::update_profile_file(options_.profile, {e}, header, ws_.flags);
}

LoopChoice Racer::chosen_loops() {
  prepare();
  LoopChoice choice;
  choice.loops = choose_loops();
  for (const auto& loop : choice.loops) {
    const std::string observed = observed_loop(loop);
    const std::string name = stored_plan_name(*plans::make_plan(plan_options_for(loop.id)), loop.id,
                                              observed, controls_for(loop, observed));
    if (earlier_decision(loop.id, name)) choice.decided.insert(loop.id);
    choice.plans[loop.id] = name;
  }
  return choice;
}

void Racer::race_loops(const std::vector<build::LoopRow>& loops,
                       std::vector<LoopOutcome>& outcomes) {
  progress_.add_loops(loops.size());
  if (options_.together && loops.size() > 1) {
    for (auto& outcome : race_together(loops)) {
      write_profile(outcome);
      outcomes.push_back(std::move(outcome));
    }
    return;
  }
  for (const auto& loop : loops) {
    progress_.start_loop();
    LoopOutcome outcome = race_loop(loop);
    write_profile(outcome);
    progress_.end_loop(!outcome.decided_earlier);
    RaceProgress p;
    p.loop_label = fmt::format("{} {}", loop.id, loop.location());
    p.phase = "decided";
    report(p);
    outcomes.push_back(std::move(outcome));
  }
}

RaceSummary Racer::run() {
  prepare();
  RaceSummary summary;
  summary.store = options_.store;
  summary.profile = options_.profile;
  race_loops(choose_loops(), summary.loops);
  const HotSelection selection = hot_selection();
  const bool hot = selection.hot > 0 || selection.coverage;
  std::size_t last_pass = 0;
  for (unsigned pass = 2; hot && !options_.together && pass <= options_.nest_passes; ++pass) {
    auto loops = nest_pass_loops(summary.loops, last_pass, pass);
    if (loops.empty()) break;
    const std::size_t first = summary.loops.size();
    race_loops(loops, summary.loops);
    settle_openers(summary.loops, last_pass, first);
    last_pass = first;
  }
  summary.program_check = check_program(summary.loops);
  summary.flags_trial = flags_trial_;
  if (summary.program_check && summary.program_check->withdrawn) {
    for (const auto& o : summary.loops) {
      if (o.decision.chosen != 0) write_profile(o, &*summary.program_check);
    }
  }
  summary.facts = facts_;
  summary.tsc_hz = reference_.observations.tsc_hz;
  summary.probe_cycles = reference_.observations.probe_cycles;
  summary.baseline_seconds = reference_.process.wall_seconds;
  summary.elapsed_seconds = progress_.elapsed_seconds();
  return summary;
}

}  // namespace looprace::race::detail

namespace looprace::race {

VariantGroups group_variants(const std::vector<int>& factors,
                             const std::vector<std::string>& keys) {
  VariantGroups g;
  g.group_of.assign(detail::kMaxFactor + 1, -1);
  std::map<std::string, int> first;
  std::vector<std::size_t> order(factors.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return factors[a] < factors[b]; });
  for (std::size_t i : order) {
    if (keys[i].empty()) continue;
    auto [it, inserted] = first.emplace(keys[i], factors[i]);
    if (inserted) g.representatives.push_back(factors[i]);
    g.group_of[static_cast<std::size_t>(factors[i])] = it->second;
  }
  return g;
}

RaceSummary run_race(const RaceOptions& options,
                     const std::function<void(const RaceProgress&)>& progress) {
  detail::Racer racer(options, progress);
  return racer.run();
}

LoopChoice choose_race_loops(const RaceOptions& options,
                             const std::function<void(const RaceProgress&)>& progress) {
  detail::Racer racer(options, progress);
  return racer.chosen_loops();
}

}  // namespace looprace::race
