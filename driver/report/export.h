// The heuristic-training dataset: one row per loop with the plugin's features, per-factor mean,
// interval and samples, the winner set, the chosen factor and GCC's default choice. The JSON row
// is the one source; CSV flattens it, so both formats always agree.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "report/model.h"

namespace looprace::report {

nlohmann::json loop_row(const LoopReport& loop, double confidence);
// One JSON object per line, per loop.
std::string export_jsonl(const Report& report);
// One JSON document: the context (commands, machine, every session, run counts and times) and
// the loops' rows as export_jsonl writes them.
std::string export_json(const Report& report);
// Header + one line per loop. Feature columns are `feature_<name>` over the union of the loops'
// features (sorted); per factor F: mean_F, ci_low_F, ci_high_F, samples_F, status_F. Lists
// (winners, default_same_code_as) are space-separated. Empty cell = unknown.
std::string export_csv(const Report& report);
// The raw observations in the replay format `loop,version,cycles` (version = the raced factor;
// factors with the same code as a lower one are not repeated), in recorded order per factor,
// for finished races and factors not disqualified: what `looprace replay` reads and the
// experiments' dataset is made of. When a race adjusted by controls: `loop,version,cycles,
// control`, a loop raced without them given the control 1.
std::string export_observations_csv(const Report& report);
// Every run of each loop's own race
// `loop,run,round,version,ok,cycles,filtered,entries,disturbed,control` (version = the factor
// built; ok 1 or 0; cycles and filtered empty when the run has none; control empty when the race
// had none or the run timed none), whatever its outcome: what the experiments on observations
// and run counts read.
std::string export_runs_csv(const Report& report);
// RFC 4180 quoting: fields with a comma, quote or line break are quoted, quotes doubled.
std::string csv_field(const std::string& text);

}  // namespace looprace::report
