// Each subcommand lives in its own cmd_<name>.cc and registers itself on the app here.
#pragma once

#include <CLI/CLI.hpp>

#include "stats/entry_filter.h"

namespace looprace::cli {

// --observation raw|filtered, the same option for race, replay, report and export; `kind`
// holds the command's default.
void add_observation_option(CLI::App* cmd, stats::ObservationKind* kind);
// Checks a time limit in seconds: a number above 0.
CLI::Validator positive_seconds();

// Subcommands add themselves below; main() calls every one in this order.
void add_version_command(CLI::App& app);
void add_loops_command(CLI::App& app);
void add_race_command(CLI::App& app);
void add_apply_command(CLI::App& app);
void add_merge_command(CLI::App& app);
void add_replay_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_export_command(CLI::App& app);

}  // namespace looprace::cli
