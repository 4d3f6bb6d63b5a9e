// What a report needs to know, as plain data independent of SQLite: the store's loader fills
// these structs, the renderers (text, HTML, export) read them. Only raw facts live here;
// derived numbers (means, intervals, the Speedup-Test verdict) are computed by the report room
// through driver/stats, so every renderer shows the same figures.
#pragma once

#include <cstddef>
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
  std::vector<plans::Observation> cycles;
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
};

struct Report {
  RunContext context;
  std::vector<LoopReport> loops;  // in race order (hottest first)
  // Confidence level for the intervals and the Speedup-Test shown (e.g. 0.95).
  double confidence = 0.95;
};

}  // namespace looprace::report
