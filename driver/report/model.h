// What a report needs to know, as plain data independent of SQLite: the store's loader fills
// these structs, the renderers (text, HTML, export) read them. Only raw facts live here;
// derived numbers (means, intervals, the Speedup-Test verdict) are computed by the report room
// through driver/stats, so every renderer shows the same figures.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plans/loop_decision.h"
#include "plans/plan.h"
#include "plugin/profile_grammar.h"

namespace looprace::report {

// Highest unroll factor; factors are 0..kMaxFactor (0 = GCC's heuristic, 1 = not unrolled).
using profile::kMaxFactor;

// One command that wrote to the store (a race session), and the machine it ran on.
struct Session {
  std::string started;  // ISO 8601 UTC
  std::string command;
  std::string cpu_model;
  std::optional<unsigned> cores;  // online logical CPUs
  std::string kernel;             // uname -sr
  std::string compiler;           // first line of `<cc> --version`
  bool virtual_machine = false;   // the CPU flags name a hypervisor
  std::optional<double> tsc_hz;   // the kernel's or calibrated; nullopt when unknown
  std::optional<double> load1;    // 1-minute load average when the session started
  std::optional<int> pinned_cpu;  // the CPU its runs were pinned to
};

// How the program was built and run, and what the machine was like while it ran.
struct RunContext {
  std::string build_command;
  std::string run_command;
  std::string looprace_version;
  std::string gcc_version;
  std::string cpu_model;
  double tsc_hz = 0;                 // 0 when unknown
  double probe_overhead_cycles = 0;  // cost of an empty probe pair; 0 when unknown
  std::string started;               // ISO 8601 UTC, empty when unknown
  // Machine facts worth showing as they are, e.g. {"governor", "performance"}, {"pinned", "cpu 1"}.
  std::vector<std::pair<std::string, std::string>> facts;
  // Hygiene warnings (turbo on, load, migrations...): shown first-class, never hidden.
  std::vector<std::string> warnings;
  std::vector<Session> sessions;  // every session of the store, oldest first
  // The program's runs of each kind ("baseline", "hotness", "warmup", "race", "confirm"; joint
  // runs of loops raced together included), and when the first and last were taken (ISO 8601
  // UTC, empty when none).
  std::map<std::string, std::size_t> run_counts;
  std::string first_run, last_run;
};

// One variant of a loop: the loop built with one requested unroll factor.
struct FactorResult {
  int factor = 0;              // the requested factor, 0..kMaxFactor
  std::optional<int> applied;  // copies GCC really made (verify record); nullopt if unknown
  std::string applied_how;     // the plugin's reason when applied differs, else empty
  // Lowest factor whose binary has byte-identical code to this one (== factor when unique).
  // Factors sharing code are raced once, under that lowest factor.
  int code_group = 0;
  bool disqualified = false;  // crashed, wrong output, timed out, failed to build
  std::string disqualified_reason;
  // Cycles the loop took per program run (raw, > 0), in the order they were recorded. Empty
  // for a factor whose code_group is another factor: its observations are the group's.
  std::vector<double> cycles;
  // Beside each of `cycles`, its run's control when the race adjusted by other loops' cycles
  // (store::LoopDataset); empty otherwise.
  std::vector<double> controls;
};

// One run of a loop's own race (joint runs of loops raced together are in no loop's list), as
// recorded, whatever the observation kind the report reads.
struct RaceRun {
  std::int64_t run = 0;  // the store's run id: the order runs were taken in
  int round = 0;
  int factor = 0;                       // the factor built: its code group's lowest factor
  bool ok = true;                       // false: disqualifying (crash, wrong output, time-out)
  std::optional<std::uint64_t> cycles;  // raw sum; nullopt when the run has no observation
  std::optional<double> filtered;       // nullopt when the run could not be filtered
  std::uint64_t entries = 0;
  std::uint64_t disturbed = 0;    // entries the filter took out
  std::optional<double> control;  // when the race had controls and the run timed one
};

struct LoopReport {
  std::string id;        // 16 hex digits (docs/formats.md section 1)
  std::string location;  // file:line:col
  std::string function;
  std::string position;                                // "index/loops"
  nlohmann::json features = nlohmann::json::object();  // the plugin's loop-table "features"
  std::optional<double> hotness_share;  // share of the program's cycles, 0..1, when measured
  bool hotness_share_is_bound = false;  // an upper bound: the loop's entries were too short
  // Index == factor: kMaxFactor + 1 entries once the variants were built; fewer if the loop's
  // race never started.
  std::vector<FactorResult> factors;
  std::string plan;  // plans::Plan::describe() of the plan that raced it
  // The race's decision, in factors; nullopt when the race has not finished (interrupted):
  // observations are still shown.
  std::optional<plans::LoopDecision> decision;
  std::vector<std::string> warnings;  // e.g. stale id, factor not applied as requested
  std::vector<std::string> raced_on;  // hosts that took its race runs (cluster nodes)
  // The runs the loop's own race took, by kind ("warmup", "race", "confirm"): what its race cost
  // in runs (runs of loops raced together serve several loops and are in none).
  struct RunTally {
    std::size_t count = 0;
    double wall_seconds = 0;
  };
  std::map<std::string, RunTally> runs;
  std::vector<RaceRun> race_runs;  // by round, then run id
};

struct Report {
  RunContext context;
  std::vector<LoopReport> loops;  // in race order (hottest first)
  // Confidence level for the intervals and the Speedup-Test shown (e.g. 0.95).
  double confidence = 0.95;
};

}  // namespace looprace::report
