// The looprace command: measured per-loop unroll factors for GCC.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "cli/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"looprace: pick each hot loop's unroll factor by racing the 17 variants"};
  app.require_subcommand(1);
  app.failure_message(CLI::FailureMessage::help);
  looprace::cli::add_version_command(app);
  looprace::cli::add_loops_command(app);
  looprace::cli::add_race_command(app);
  looprace::cli::add_apply_command(app);
  looprace::cli::add_merge_command(app);
  looprace::cli::add_replay_command(app);
  looprace::cli::add_compare_command(app);
  looprace::cli::add_report_command(app);
  looprace::cli::add_export_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "looprace: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
