// Internal to driver/race, not its interface: the Racer behind run_race(). race.cc races the
// loops one at a time; race_together.cc races several loops in the same program runs.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "plans/default_policy.h"
#include "plans/loop_decision.h"
#include "plans/plan.h"
#include "plans/program_check_policy.h"
#include "plugin/profile_grammar.h"
#include "race/hot_selection.h"
#include "race/joint_rounds.h"
#include "race/live_sampler.h"
#include "race/paired_runs.h"
#include "race/program.h"
#include "race/progress.h"
#include "race/race.h"
#include "race/variants.h"

namespace looprace::race::detail {

using profile::kMaxFactor;

// splitmix64 over two words: independent, reproducible seeds for each purpose.
inline std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t z = a + 0x9e3779b97f4a7c15ULL * (b + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

inline std::uint64_t id_number(const std::string& id) { return std::stoull(id, nullptr, 16); }

// Loops raced together (race --together): the runs' target, each loop's factor per slot, and
// the slots' builds.
struct JointBatch {
  std::uint64_t key = 0;
  std::string name;                                 // "joint:<key>": the batch of its runs
  std::string dir;                                  // "joint-<key>": the builds' directory name
  std::map<std::string, std::vector<int>> factors;  // loop id -> factor in each slot
  SlotAssignment slots;                             // slots[s][l]: loop l's version (or SIZE_MAX)
  std::vector<std::filesystem::path> dirs;          // each slot's build
  std::string slot_factors(std::size_t s) const;    // "id:factor ..." for messages
};

// One loop's race in progress: its variants, their code groups, what happened to them.
struct LoopRace {
  build::LoopRow loop;
  // The loop whose cycles are the race's observations: `loop`, or a loop around it whose
  // entries are long enough to time (race/hot_selection.h, observation_loop).
  std::string observed;
  std::string label;  // "1a2b... demo.c:42:19"
  // Loops timed in the same runs whose cycles adjust the observations (--controls), and each
  // one's cycles per run in the hotness runs (1 when unknown), which a run's are taken against.
  std::vector<std::string> controls;
  std::vector<double> control_centers;
  std::unique_ptr<plans::Plan> plan;
  std::string plan_name;
  std::vector<int> factors;  // raced (0 always)
  std::vector<std::optional<std::uint64_t>> layout_seeds;
  VariantGroups groups;
  std::map<int, std::size_t> version_of;  // group representative -> version
  std::size_t baseline_version = 0;
  std::map<int, std::string> failures;              // factor -> why it is not raced
  std::map<std::size_t, std::string> disqualified;  // version -> reason
  LiveSampler::Recorded recorded;                   // from the store, replayed first
  std::vector<std::vector<double>> taken;           // the plan's observations, per version
  // Fresh runs of factor 0 and the chosen factor after the race, for the Speedup-Test: the
  // race's own observations chose the factor, so a test on them would flatter it. Each pair's
  // code layout: an index past the race's layouts for the confirmation's own.
  std::vector<double> confirm_baseline, confirm_chosen;
  std::vector<int> confirm_layouts;
  // The confirmation's own layout seeds, once their builds exist (empty: the race's builds).
  std::vector<std::optional<std::uint64_t>> confirm_seeds;
  double confirm_layout_seconds = 0;  // the first look's builds' wall time, per layout
  // Confirmation observations a former command stored, per group (nullopt: a failed run),
  // with the layout each ran.
  std::map<int, std::deque<std::pair<std::optional<double>, int>>> stored_confirmations;
  std::size_t plan_rounds = 0;                // rounds the plan took (replayed ones included)
  std::atomic<std::size_t> observations = 0;  // read by the progress display
  std::size_t retaken = 0;   // runs the machine visibly disturbed, taken again (filtered)
  std::size_t accepted = 0;  // runs still disturbed after kMaxRetakes, taken as they were
  std::size_t chosen_version = 0;
  // The plan's choice when GCC's default was kept for want of a confirmed gain.
  std::optional<std::size_t> unconfirmed_version;
  std::optional<plans::RunnerUpCheck> runner_up;  // the choice against the runner-up, if timed
  LoopOutcome outcome;
};

class Racer {
 public:
  Racer(const RaceOptions& options, const std::function<void(const RaceProgress&)>& progress)
      : options_(options), progress_(progress) {}

  // The loops run() would race, chosen as it chooses them, without racing.
  LoopChoice chosen_loops();
  RaceSummary run();

 private:
  void prepare();
  std::vector<build::LoopRow> choose_loops();
  std::vector<store::Hotness> hotness_ranking();
  // Each chosen loop's cap; says what is raced (`what`: "hot loop(s)") and its cost up front.
  // `budget`: the seconds of --budget this choice may spend.
  void plan_budget(const HotChoice& choice, const std::string& what, std::optional<double> budget);
  HotSelection hot_selection() const;
  // The loops that became innermost at the RTL unroller once the loops decided in the last
  // pass (`outcomes` from `last_pass`) were unrolled as decided (a build with the decisions
  // applied shows them): nest pass `pass` races them on that build. Empty when no decision of
  // the last pass changed GCC's choice.
  std::vector<build::LoopRow> nest_pass_loops(const std::vector<LoopOutcome>& outcomes,
                                              std::size_t last_pass, unsigned pass);
  // Openers: loops kept at factor 0 with another factor tied, tried at that factor so that the
  // loop around them may become innermost.
  AppliedFactors tied_openers(std::span<const LoopOutcome> outcomes) const;
  Baseline nest_pass_baseline(const AppliedFactors& tied, const std::string& name);
  std::optional<double> budget_left(const std::vector<LoopOutcome>& outcomes) const;
  AppliedFactors assign_openers(const HotChoice& choice, const AppliedFactors& tied,
                                const build::LoopTable& table);
  void settle_openers(std::vector<LoopOutcome>& outcomes, std::size_t last_pass, std::size_t first);
  // Races `loops` one after the other (or together), writing each decision to the profile.
  void race_loops(const std::vector<build::LoopRow>& loops, std::vector<LoopOutcome>& outcomes);
  // The store's program for these commands and the code the baseline build made: a new one
  // (with a warning) when the store holds only other code of the same commands.
  std::int64_t program_of_this_code();
  // The baseline build and its reference run: built and run, or a recorded one reused.
  void baseline_and_reference();
  // Builds the loop's variants, groups them by code, stores them and reads what the store
  // already holds; false when the store has the loop's decision (then in r.outcome).
  bool setup_loop(LoopRace& r);
  // The plan options a loop is raced with: --budget may cap its observations, and
  // --indifference program widen its epsilon by its share (program_share).
  plans::PlanOptions plan_options_for(const std::string& loop_id) const;
  std::optional<double> program_share(const std::string& loop_id) const;
  // What --indifference program made of epsilon for the loop, for its summary.
  std::string indifference_note(const std::string& loop_id) const;
  // The loop a race of `loop` observes (LoopRace::observed): under --together always the
  // loop itself, whose joint runs time each raced loop apart.
  std::string observed_loop(const build::LoopRow& loop) const;
  // Why the race of r.loop times r.observed, for the loop's summary.
  std::string observed_through_note(const LoopRace& r) const;
  // The loops whose cycles adjust the observations of `loop`'s race, which observes
  // `observed`: --controls' named loops and, with --controls auto, those choose_controls takes
  // from the hotness ranking; none under --together.
  std::vector<std::string> controls_for(const build::LoopRow& loop,
                                        const std::string& observed) const;
  // The loop a --controls selector names; throws naming the option when there is none.
  const build::LoopRow& control_row(const std::string& selector) const;
  // r.controls, their centers, and a note naming them.
  void set_controls(LoopRace& r) const;
  // A run's control (stats::combined_control of its controls against their centers).
  // `value_of` gives a control's observation in the run, of the kind the race decides on. None
  // when the race has no controls.
  std::optional<double> control_value(
      const LoopRace& r,
      const std::function<std::optional<double>(const std::string&)>& value_of) const;
  // The name a plan's decisions are stored under: the plan and the observation it decides on
  // (of which loop, when `observed` is another than the raced `loop_id`; adjusted by which
  // controls).
  std::string stored_plan_name(const plans::Plan& plan, const std::string& loop_id,
                               const std::string& observed,
                               const std::vector<std::string>& controls) const;
  // The decision the store holds of this loop, this code and the plan it would be raced with.
  std::optional<plans::LoopDecision> earlier_decision(const std::string& loop_id,
                                                      const std::string& plan_name) const;
  std::vector<int> raced_factors() const;
  std::vector<std::optional<std::uint64_t>> layout_seeds() const;
  bool has_confirmation_layouts() const;
  std::vector<std::optional<std::uint64_t>> confirmation_seeds(std::size_t first,
                                                               std::size_t end) const;
  // Builds r.factors (every layout) through VariantBuilder: their code groups into r.groups,
  // r.failures; the variant rows, per factor.
  std::map<int, std::vector<store::VariantRow>> build_variants(LoopRace& r);
  void check_stored_groups(const LoopRace& r, bool has_stored_runs) const;
  void store_variants(LoopRace& r, std::map<int, std::vector<store::VariantRow>>& rows);
  void load_stored(LoopRace& r, const std::vector<store::LoopRaceRun>& stored_runs);
  std::map<std::int64_t, store::RunRow> stored_controls(const LoopRace& r) const;
  std::optional<double> live_control(const LoopRace& r, const store::RunRow& row,
                                     const run::RunResult& result) const;
  // Builds factor 0's and the chosen factor's code at the confirmation's own layouts that look
  // `look` needs (plans::layouts_after_look), those not built yet; false when it has none
  // (has_confirmation_layouts) or one does not build (with a note): the race's builds serve
  // the first look, and a later look is not taken.
  bool build_confirmation_layouts(LoopRace& r, unsigned look);
  LoopVariants confirmation_builds(const LoopRace& r, const std::vector<int>& factors,
                                   const std::vector<std::optional<std::uint64_t>>& seeds);
  std::vector<int> tested_layouts(const LoopRace& r) const;
  // The confirmation's pairs its test judges: under --round-limit, those the machine did not
  // slow as a whole (plans::undisturbed_pairs).
  plans::RunPairs judged_confirmations(const LoopRace& r) const;
  // Runs the loop's own build of `version` once: judged, stored; nullopt disqualifies it. The
  // build is the race's layout for `round`, or the confirmation's layout `confirm_layout`.
  std::optional<plans::Observation> take_alone(
      LoopRace& r, std::size_t version, std::size_t round, store::RunKind kind,
      std::optional<unsigned> confirm_layout = std::nullopt);
  void fill_run_row(store::RunRow& row, const run::RunResult& result);
  // A run still visibly disturbed after kMaxRetakes retakes: its raw sum stands as its
  // filtered observation (stored so, and counted), so that a machine that is never quiet
  // cannot stop the race.
  static double accept_disturbed(LoopRace& r, store::RunRow& row, double cycles);
  static constexpr unsigned kMaxRetakes = 3;
  void warm_up(LoopRace& r);
  // Runs the loop's plan on the sampler; the plan's own observations go to r.taken.
  plans::Decision run_plan(LoopRace& r, LiveSampler& sampler, const plans::RoundObserver& observer);
  // Confirmation runs of the chosen factor and factor 0, and whether GCC's default stays.
  plans::DefaultPolicy default_policy() const;
  void confirm(LoopRace& r, plans::Decision& decision);
  void take_confirmations(LoopRace& r, const plans::DefaultPolicy& policy);
  bool look_fits_budget(const LoopRace& r, std::size_t more_pairs, double new_layouts) const;
  double new_confirmation_layouts(const LoopRace& r, unsigned look) const;
  // One confirmation observation of `version` for pair `pair` (1-based) and its layout.
  std::pair<std::optional<double>, int> take_confirmation(LoopRace& r, std::size_t version,
                                                          std::size_t pair);
  // The same at the confirmation's layout `layout` (none: the race's layouts in turn).
  std::pair<std::optional<double>, int> take_confirmation_at(LoopRace& r, std::size_t version,
                                                             std::size_t pair,
                                                             std::optional<unsigned> layout);
  // Fresh pairs of the choice and the best factor the race eliminated, at the confirmation's
  // layouts: the runner-up joins the winners unless they show the choice faster.
  void check_runner_up(LoopRace& r, plans::Decision& decision, const plans::DefaultPolicy& policy);
  PairedRuns time_runner_up(LoopRace& r, std::size_t runner, std::size_t pairs,
                            std::vector<int>& layouts, std::string& failure);
  void decide(LoopRace& r, const plans::Decision& decision);
  plans::SpeedupEvidence speedup_evidence(const LoopRace& r) const;
  LoopOutcome race_loop(const build::LoopRow& loop);
  std::vector<LoopOutcome> race_together(const std::vector<build::LoopRow>& loops);
  void race_batch(const std::vector<LoopRace*>& racing);
  void warm_up_slots(const JointBatch& b, const std::vector<LoopRace*>& racing);
  std::vector<plans::Decision> run_joint_plans(const JointBatch& b,
                                               const std::vector<LoopRace*>& racing,
                                               RaceProgress& p);
  void report_joint_round(RaceProgress& p, const std::vector<LoopRace*>& racing, std::size_t round,
                          const std::vector<std::size_t>& survivors, const std::vector<bool>& done);
  JointBatch joint_batch(const std::vector<LoopRace*>& racing);
  void build_joint_slots(JointBatch& b, const std::vector<std::string>& instrument);
  std::vector<std::optional<plans::Observation>> run_slot(const JointBatch& b,
                                                          const std::vector<LoopRace*>& racing,
                                                          std::size_t s, std::size_t round,
                                                          store::RunKind kind);
  // `withdrawn`: the whole-program check withdrew the loop's change (factor 0 written).
  void write_profile(const LoopOutcome& outcome, const ProgramCheck* withdrawn = nullptr);
  // The loops whose decision changes GCC's choice, with their factors.
  static AppliedFactors profile_changes(std::span<const LoopOutcome> outcomes);
  // The whole-program check (race/program_check.cc); none when nothing changes GCC's choice.
  std::optional<ProgramCheck> check_program(const std::vector<LoopOutcome>& outcomes);
  std::string program_check_key(const AppliedFactors& changes) const;
  std::optional<std::filesystem::path> build_as_user(const std::vector<std::string>& flags,
                                                     const AppliedFactors& changes,
                                                     const std::string& name,
                                                     const std::string& label,
                                                     std::string& failure);
  std::optional<std::filesystem::path> users_base(std::string& failure);
  // --try-flags (race/try_flags.cc).
  void try_flags();
  std::optional<bool> stored_flags_decision(const std::string& flags) const;
  FlagsTrial check_flags(const std::vector<std::string>& flags);
  void announce_flags_trial(const FlagsTrial& trial);
  std::string program_check_cost(double run_seconds) const;
  PairedRuns time_program_pairs(const Workspace& ws, const run::RunResult& reference,
                                const std::filesystem::path& profiled,
                                const std::filesystem::path& base, std::size_t pairs,
                                std::uint64_t seed, std::string& failure);
  plans::ProgramCheckPolicy check_policy() const;
  bool check_run_setup(const std::filesystem::path& base, Workspace& ws, run::RunResult& reference);
  void report_look(const ProgramCheck& check, unsigned look,
                   const plans::ProgramCheckPolicy& policy, std::size_t pairs_so_far);
  ProgramCheck take_program_check(ProgramCheck check, const std::filesystem::path& profiled,
                                  const std::filesystem::path& base);
  void report(const RaceProgress& p) const { progress_.report(p); }

  const RaceOptions& options_;
  ProgressReporter progress_;
  Workspace ws_;
  run::MachineFacts facts_;
  std::optional<store::Store> store_;
  std::int64_t program_ = 0, session_ = 0;
  Baseline baseline_;
  // users_base() per set of flags (joined): a build with no runtime and no plugin.
  std::map<std::string, std::filesystem::path> users_bases_;
  run::RunResult reference_;
  std::string baseline_origin_;            // "built", or "reused <record>", for the session's facts
  std::optional<FlagsTrial> flags_trial_;  // --try-flags: race/try_flags.cc
  std::map<std::string, store::Hotness> hotness_;
  std::vector<store::Hotness> ranking_;  // hottest first
  double budget_run_seconds_ = 0;        // one run's wall time as --budget counts it
  // Decided factors every later build applies (nest passes): loop id, factor.
  AppliedFactors applied_;
  // Per loop of a nest pass, the openers raced with it (settle_openers).
  std::map<std::string, AppliedFactors> openers_;
  std::map<std::string, LoopBudget> budgets_;  // each hot loop's part of --budget
};

}  // namespace looprace::race::detail
