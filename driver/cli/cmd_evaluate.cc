// `looprace evaluate`: leave-one-program-out cross-validation of the unroll model.
#include <fmt/format.h>

#include <fstream>
#include <memory>
#include <stdexcept>

#include "cli/commands.h"
#include "cli/training_data.h"
#include "learn/evaluation_report.h"

namespace looprace::cli {
namespace {

struct EvaluateOptions {
  std::vector<std::filesystem::path> datasets;
  std::filesystem::path json;
  std::filesystem::path html;
  learn::TrainingOptions training;
  stats::ObservationKind observation = stats::ObservationKind::kFiltered;
};

void evaluate(const EvaluateOptions& options) {
  std::vector<learn::LoopExample> examples = load_examples(options.datasets, options.observation);
  const std::size_t programs = learn::programs_of(examples).size();
  std::size_t done = 0;
  learn::Evaluation evaluation = learn::evaluate_leave_one_program_out(
      examples, [&](const std::vector<learn::LoopExample>& training) {
        fmt::print(stderr, "\rtraining without program {}/{}", ++done, programs);
        return learn::train_model(training, options.training);
      });
  fmt::print(stderr, "\n");
  fmt::print("{}", learn::evaluation_text(evaluation));
  if (!options.json.empty()) write_text_file(options.json, learn::evaluation_json(evaluation));
  if (!options.html.empty()) write_text_file(options.html, learn::evaluation_html(evaluation));
}

}  // namespace

void add_evaluate_command(CLI::App& app) {
  auto options = std::make_shared<EvaluateOptions>();
  auto* cmd = app.add_subcommand(
      "evaluate",
      "Cross-validate the unroll model (leave one program out) against GCC, -funroll-loops and "
      "constant factors");
  cmd->add_option("datasets", options->datasets,
                  "Stores written by `looprace race`, or `looprace export --format jsonl` files")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--json", options->json, "Also write every policy's choices as JSON here");
  cmd->add_option("--html", options->html, "Also write a self-contained HTML page with plots");
  add_training_options(cmd, &options->training);
  add_observation_option(cmd, &options->observation);
  cmd->footer(
      R"txt(Each program's loops get the factors of a model trained on all the other programs.
Per policy: the share of the oracle's speedup over GCC's heuristic it reaches, its slowdown against
each loop's best factor, and how often it picks the best factor's code (exact) or one of the
race's tied best (tied); then the same on the loops whose race resolved something (some code
outside the tied best), leaving out loops where the oracle's gain is all noise. "slowest of the tied best" is
always right as far as the races could tell: what the tie sets let any policy show. Training
options choose the decision rule within each left-out program's training programs only.

Examples:
  looprace evaluate benchmarks/data/unroll-features.jsonl --html evaluate.html)txt");
  cmd->callback([options] { evaluate(*options); });
}

}  // namespace looprace::cli
