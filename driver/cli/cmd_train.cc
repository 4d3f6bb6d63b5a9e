// `looprace train`: a model file from raced loops, for the plugin's model= argument.
#include <fmt/format.h>

#include <fstream>
#include <memory>
#include <stdexcept>

#include "cli/commands.h"
#include "cli/training_data.h"
#include "learn/evaluation.h"

namespace looprace::cli {
namespace {

struct TrainOptions {
  std::vector<std::filesystem::path> datasets;
  std::filesystem::path output = "looprace.model";
  learn::TrainingOptions training;
  stats::ObservationKind observation = stats::ObservationKind::kFiltered;
};

// Trains, writes the model, and says what it learned from and how it fits its own data.
void train(const TrainOptions& options) {
  std::vector<learn::LoopExample> examples = load_examples(options.datasets, options.observation);
  model::Model model = learn::train_model(examples, options.training);
  const learn::TrainingOptions& t = options.training;
  model.header_comments = {
      fmt::format("looprace train: {} loop(s) of {} program(s), {} rounds of depth {}, eta {}",
                  examples.size(), learn::programs_of(examples).size(), t.rounds, t.max_depth,
                  t.eta),
      fmt::format("min child weight {}, lambda {}, loops weighed {}, targets against {}",
                  t.min_child_weight, t.lambda,
                  t.weighting == learn::Weighting::kStakes ? "by stakes" : "equally",
                  t.target == learn::Target::kPreferred ? "the preferred factor" : "the best")};
  write_text_file(options.output, model::format_model(model));

  std::vector<const learn::LoopExample*> loops;
  for (const auto& loop : examples) loops.push_back(&loop);
  learn::PolicyResult fit = learn::score_policy(
      "model", loops, [&](const learn::LoopExample& l) { return learn::predict_factor(model, l); });
  fmt::print(
      "wrote {}: {} trees over {} input(s), from {} loop(s) of {} program(s)\n"
      "on its own training loops (optimistic; `looprace evaluate` cross-validates): tied best "
      "{:.1f} %, exact {:.1f} %, slowdown {:.4f} (geometric mean against each loop's best)\n"
      "apply it: gcc -fplugin=looprace.so -fplugin-arg-looprace-model={} ...\n",
      options.output.string(), model.trees.size(), model.features.size() - 1, examples.size(),
      learn::programs_of(examples).size(), 100 * fit.tied_accuracy, 100 * fit.exact_accuracy,
      fit.geomean_slowdown, options.output.string());
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto options = std::make_shared<TrainOptions>();
  auto* cmd = app.add_subcommand(
      "train", "Learn unroll factors from raced loops: a model file the plugin applies by itself");
  cmd->add_option("datasets", options->datasets,
                  "Stores written by `looprace race`, or `looprace export --format jsonl` files")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", options->output, "The model file to write")->capture_default_str();
  add_training_options(cmd, &options->training);
  add_observation_option(cmd, &options->observation);
  cmd->footer(R"txt(The model predicts, from a loop's table features (docs/formats.md 3),
each factor's slowdown against the loop's best; the plugin applies it where it applies profiles, to the loops
nothing names. It keeps the preferred factor (GCC's choice by default; --prefer) unless another
factor is predicted faster by more than a margin, chosen among --margins by cross-validation over
the training programs unless given. For loops unlike every loop it
learnt from it keeps GCC's choice. Loops weigh what is at stake in them (--weighting). Format:
docs/formats.md 5b.

Examples:
  looprace train fir.db adpcm.db -o unroll.model
  looprace train benchmarks/data/unroll-training.jsonl -o unroll.model
  gcc -O2 -fplugin=build/lib/looprace.so -fplugin-arg-looprace-model=unroll.model -c prog.c)txt");
  cmd->callback([options] { train(*options); });
}

}  // namespace looprace::cli
