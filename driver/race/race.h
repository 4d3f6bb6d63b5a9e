// The race command's engine: baseline build and loop table, hotness ranking, then for each
// chosen loop the 17 variants built in parallel, deduplicated by code, verified, warmed up and
// raced by a sampling plan over interleaved runs; every run committed to the store, the decision
// stored and written to the profile.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "build/loop_table.h"
#include "plans/factory.h"
#include "plans/program_check_policy.h"
#include "race/executor.h"
#include "run/hygiene.h"
#include "stats/entry_filter.h"
#include "store/store.h"

namespace looprace::race {

inline constexpr double kDefaultCoverage = 0.95;
inline constexpr unsigned kDefaultMostLoops = 10;

// --controls: loops timed in the same runs as the raced one, which no variant changes, whose
// cycles adjust each observation for how fast the machine ran that run (plans/plan.h,
// Observation). None by default.
struct ControlRequest {
  bool automatic = false;          // chosen per raced loop (race/hot_selection.h)
  std::vector<std::string> loops;  // named: ids or file:line:col
  bool any() const { return automatic || !loops.empty(); }
};

// What --epsilon is a part of, in the race's test of equal survivors and in the confirmation
// of a change: each loop's own time (the paper's), or the program's (race/hot_selection.h,
// loop_indifference), so that a loop with a small share of the program stops racing factors
// the program could not tell apart, and a change is written only for a gain the program sees.
enum class Indifference { loop, program };

struct RaceOptions {
  std::string build_command;
  std::string run_command;
  std::vector<std::string> loops;  // --loop selectors (id or file:line:col)
  // --hot N; without --loop, --hot and --coverage: --coverage kDefaultCoverage with at most
  // kDefaultMostLoops loops.
  std::optional<unsigned> hot;
  std::optional<double> coverage;  // --coverage F: hot loops until they hold F of the loop time
  std::optional<double> budget_seconds;  // --budget: hot loops' caps share it by their shares
  double min_share = 0.01;     // --hot skips loops below this share of the program's cycles
  bool prefer_default = true;  // factor 0 stays if tied, unless shown slower by > epsilon
  Indifference indifference = Indifference::loop;  // --indifference
  bool together = false;  // race all chosen loops in the same runs (joint builds)
  // --nest-passes N: after the hot loops are decided, up to N - 1 more passes race the loops
  // that became innermost once the loops inside them were unrolled as decided (hot loops only).
  unsigned nest_passes = 3;
  // Interleaved runs of the plain program with and without the profile's changes before the
  // profile stands (--program-check N: the first look; 0: none); a profile that makes it slower
  // is withdrawn. Unresolved looks double the runs while the check's time stays within
  // --program-check-time.
  std::size_t program_check_runs = 30;
  double program_check_seconds = 60;
  // --check-run: what the whole-program check and --try-flags run (empty: the run command).
  std::string check_run_command;
  // --try-flags: flags tried on top of the build's own before racing (e.g. -funroll-loops);
  // adopted when the whole-program check shows the program faster with them.
  std::vector<std::string> try_flags;
  bool keep_duplicates = false;  // race byte-identical factors apart (the paper's brute force)
  unsigned jobs = 2;
  std::vector<int> factors;  // empty: 0..16 (0 is always raced: it is the baseline arm)
  plans::PlanOptions plan;
  unsigned warmup = 1;         // discarded runs per variant before the race
  std::size_t confirm = 30;    // confirmation pairs of the first look (0: none)
  unsigned confirm_looks = 4;  // looks of doubling size: up to confirm << 3 pairs
  stats::RatioTest confirm_test = stats::RatioTest::paired_trimmed;  // of the confirmation pairs
  // Code layouts of their own the confirmation pairs take in turn (factor 0 and the chosen
  // factor built at fresh paddings), their test counting layouts rather than pairs; 0: the
  // race's own builds, pairs counted as independent. Off with --layouts 1 or --together.
  unsigned confirm_layouts = 8;
  unsigned hotness_runs = 3;         // runs of the all-instrumented build that rank the loops
  double timeout_seconds = 0;        // per run; 0: 20 x the baseline's wall time, at least 10 s
  double build_timeout_seconds = 0;  // per build; 0: 10 x the baseline build, at least 120 s
  bool check_output = true;
  std::vector<std::filesystem::path> check_files;
  std::optional<int> pin_cpu;
  // Builds per factor, each with its own random function padding (every run also pads its
  // environment); rounds take them in turn. One code layout can favour a factor by more than
  // unrolling does (benchmarks/results/observed-through.md). --together races one layout.
  unsigned layouts = 3;
  // What the plan decides on: filtered unless asked (replay, agreement and payoff measured it
  // deciding better: benchmarks/results/observation-replay.md, payoff-observations.md).
  stats::ObservationKind observation = stats::ObservationKind::kFiltered;
  ControlRequest controls;
  std::filesystem::path store = ".looprace/store.db";
  std::filesystem::path profile = "looprace.profile";
  std::filesystem::path workdir;  // empty: build::default_workdir(the current directory)
  std::uint64_t seed = 1;
  bool force = false;  // accept a store of another program or machine
  // A sharded race builds the baseline once: the submitting command records it here
  // (save_baseline), its tasks and final assembly take it from there when it provably is what
  // they would build (reuse_baseline; race/baseline_record.h), else build their own.
  std::filesystem::path save_baseline, reuse_baseline;
  double confidence = 0.95;
  std::string looprace_version;  // for the profile header
  std::string command_line;      // stored with the session
  // Builds and runs go through it; null: real processes.
  std::shared_ptr<const Executor> executor;
};

// What is happening, for the progress display.
struct RaceProgress {
  std::size_t loop = 0, loops = 0;  // 1-based loop k of n (together: k loops decided)
  bool together = false;            // the n loops race together in the same runs
  std::string loop_label;           // "1a2b... demo.c:42:19"
  std::string phase;                // "building", "warm-up", "racing", "decided"
  std::size_t round = 0;
  std::size_t survivors = 0;
  std::size_t observations = 0;  // of this loop (replayed + new)
  double elapsed_seconds = 0;    // since the race command started
  std::optional<double> eta_seconds;
  std::string announcement;  // said once, on its own line (the race's cost, up front)
};

struct LoopOutcome {
  build::LoopRow loop;
  std::optional<double> hotness_share;
  bool hotness_share_is_bound = false;  // an upper bound (store::Hotness::is_bound)
  plans::LoopDecision decision;
  bool decided_earlier = false;    // found in the store; nothing was run
  std::size_t replayed = 0;        // observations taken from the store (resume)
  std::size_t measured = 0;        // observations taken by running now
  std::vector<std::string> notes;  // disqualified variants, factors not applied as asked
  // The loops whose changes were confirmed together with this one's (ids, comma-separated): a
  // factor tied with GCC's default written because it left the loop around it innermost.
  std::string joint;
};

// The whole-program check of a profile that changes GCC's choice: CPU time of the plain program
// built with all the changes against the plain base build, interleaved.
struct ProgramCheck {
  std::size_t runs = 0;   // of each build
  unsigned looks = 0;     // sequential looks taken (plans/program_check_policy.h)
  double confidence = 0;  // of each look's interval (the race's, shared among the looks)
  std::string estimate;   // what `speedup` is: "trimmed mean of pair ratios", "geometric mean"
  double speedup = 1, ci_low = 1, ci_high = 1;
  std::string verdict;  // faster, slower, equivalent or no-difference
  plans::ProgramCheckOutcome outcome = plans::ProgramCheckOutcome::unresolved;
  bool withdrawn = false;  // slower: the profile keeps GCC's choice for every loop
  std::string failure;     // why the profiled program could not be timed (then withdrawn)
  std::vector<std::pair<std::string, int>> changes;  // loop id, factor
  bool from_store = false;                           // an earlier run of the same command took it
};

// What a check's runs showed, in words: "speedup 1.023 (trimmed mean of pair ratios, CI
// 1.019..1.027 at 99.17%), faster". The summary and the progress print it alike.
std::string check_figures(const ProgramCheck& check);

// What --try-flags decided: whether the race built everything with the flags, and on what.
struct FlagsTrial {
  std::vector<std::string> flags;
  bool adopted = false;
  bool from_store = false;            // an earlier session of this store decided it
  std::optional<ProgramCheck> check;  // the plain program with the flags vs without (CPU time)
};

struct RaceSummary {
  run::MachineFacts facts;
  std::optional<double> tsc_hz;        // as the runtime measured it in the baseline run
  std::optional<double> probe_cycles;  // cycles an empty instrumented region measures
  double baseline_seconds = 0;         // wall time of one baseline run
  std::vector<LoopOutcome> loops;
  std::optional<ProgramCheck> program_check;
  std::optional<FlagsTrial> flags_trial;
  std::filesystem::path store, profile;
  double elapsed_seconds = 0;
};

// The loops a race of these options would race, and the ids of those its store already holds
// a decision for that the race would take as it is (the same code and plan).
struct LoopChoice {
  std::vector<build::LoopRow> loops;
  std::set<std::string> decided;
  std::map<std::string, std::string> plans;  // loop id -> the plan's name in the store
};

// The loops a race of these options would race (baseline build, loop table, hotness stored in
// the store as a race does), without racing them: how a sharded race plans its tasks.
LoopChoice choose_race_loops(const RaceOptions& options,
                             const std::function<void(const RaceProgress&)>& progress = {});

// Runs the whole race; throws Error (or StoreError/ProfileError/build::Error) with a message
// naming what is at fault. Everything measured before a failure stays in the store.
RaceSummary run_race(const RaceOptions& options,
                     const std::function<void(const RaceProgress&)>& progress = {});

// The version numbering of one loop's race: factors with byte-identical code form one group,
// raced once under its lowest factor.
struct VariantGroups {
  std::vector<int> representatives;  // version index -> lowest factor of the group
  std::vector<int> group_of;         // factor -> representative, -1 when not raced
};
// `keys[i]` identifies the code of `factors[i]` (empty: build failed, not raced).
VariantGroups group_variants(const std::vector<int>& factors, const std::vector<std::string>& keys);

}  // namespace looprace::race
