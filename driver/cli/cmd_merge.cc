// `looprace merge`: adds the observations of several stores into one.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <vector>

#include "cli/commands.h"
#include "store/store.h"

namespace looprace::cli {
namespace {

struct MergeOptions {
  std::filesystem::path out;
  std::vector<std::filesystem::path> inputs;
  bool force = false;
};

}  // namespace

void add_merge_command(CLI::App& app) {
  auto options = std::make_shared<MergeOptions>();
  auto* cmd = app.add_subcommand(
      "merge", "Merge stores of the same program and machine into OUT (created if missing)");
  cmd->add_option("OUT", options->out, "Store to merge into")->required();
  cmd->add_option("IN", options->inputs, "Stores to merge from")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_flag("--force", options->force, "Merge stores of other programs or machines anyway");
  cmd->footer(R"txt(Example:
  looprace merge all.db monday.db tuesday.db   # merging the same store twice adds nothing)txt");
  cmd->callback([options] {
    auto out = store::Store::open(options->out);
    for (const auto& in : options->inputs) {
      if (std::filesystem::equivalent(in, options->out)) continue;
      auto source = store::Store::open(in, false);
      auto counts = out.merge_from(source, options->force);
      std::printf("%s: %zu runs, %zu observations, %zu variants, %zu decisions added\n", in.c_str(),
                  counts.runs, counts.observations, counts.variants, counts.decisions);
    }
  });
}

}  // namespace looprace::cli
