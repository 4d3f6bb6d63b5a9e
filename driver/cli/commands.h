// Each subcommand lives in its own cmd_<name>.cc and registers itself on the app here.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "stats/entry_filter.h"

namespace looprace::cli {

// --observation raw|filtered, the same option for race, replay, report and export; `kind`
// holds the command's default, or none for report and export: the kind the store's decisions
// were made on.
void add_observation_option(CLI::App* cmd, stats::ObservationKind* kind);
void add_observation_option(CLI::App* cmd, std::optional<stats::ObservationKind>* kind);
// Writes text to path (replacing it); throws std::runtime_error "cannot write PATH".
void write_text_file(const std::filesystem::path& path, const std::string& text);
// Checks a time limit in seconds: a number above 0.
CLI::Validator positive_seconds();
// Turns one of `names` (kept by value: a temporary map may be given) into its value (for an
// enum option), or says which names there are.
template <class Value>
CLI::Validator one_of(const std::map<std::string, Value>& names) {
  return CLI::Validator(
      [names](std::string& text) -> std::string {
        const auto it = names.find(text);
        if (it != names.end()) {
          text = std::to_string(static_cast<int>(it->second));
          return {};
        }
        std::string known;
        for (const auto& [name, value] : names) known += (known.empty() ? "" : ", ") + name;
        return "'" + text + "' is not one of " + known;
      },
      "");
}

// The command line as main() received it (for commands that pass parts of it on).
void set_command_line(int argc, char** argv);
const std::vector<std::string>& command_line();

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
void add_train_command(CLI::App& app);
void add_evaluate_command(CLI::App& app);

}  // namespace looprace::cli
