// The looprace command: measured per-loop unroll factors for GCC.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <string>

#include "cli/commands.h"

int main(int argc, char** argv) {
  looprace::cli::set_command_line(argc, argv);
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
  looprace::cli::add_train_command(app);
  looprace::cli::add_evaluate_command(app);
  // CLI11 says only "A subcommand is required" for `looprace tune`, and prints the main help
  // for `looprace tune --help`: name the word and the subcommands instead.
  if (argc > 1 && argv[1][0] != '-') {
    auto known = app.get_subcommands([&](const CLI::App* c) { return c->get_name() == argv[1]; });
    if (known.empty()) {
      std::string names;
      for (const CLI::App* c : app.get_subcommands([](const CLI::App*) { return true; }))
        names += (names.empty() ? "" : ", ") + c->get_name();
      std::fprintf(stderr, "looprace: error: unknown subcommand '%s' (subcommands: %s)\n", argv[1],
                   names.c_str());
      return 2;
    }
  }
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
