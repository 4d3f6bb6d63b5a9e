// Datasets for training, and the training options.
#include "cli/training_data.h"

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "learn/dataset_json.h"
#include "report/export.h"
#include "store/report_loader.h"

namespace looprace::cli {

namespace {

std::vector<learn::LoopExample> examples_of_store(const std::filesystem::path& path,
                                                  stats::ObservationKind observation) {
  store::Store db = store::Store::open(path, /*create=*/false);
  report::Report rep = store::load_report(db, {}, observation);
  std::vector<learn::LoopExample> examples;
  for (const report::LoopReport& loop : rep.loops) {
    auto example = learn::example_from_row(report::loop_row(loop, rep.confidence), path.stem());
    if (example) examples.push_back(std::move(*example));
  }
  return examples;
}

std::vector<learn::LoopExample> examples_of_jsonl(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return learn::examples_from_jsonl(text.str(), path.string(), path.stem());
}

}  // namespace

std::vector<learn::LoopExample> load_examples(const std::vector<std::filesystem::path>& datasets,
                                              stats::ObservationKind observation) {
  std::vector<learn::LoopExample> examples;
  for (const auto& path : datasets) {
    auto more = path.extension() == ".jsonl" ? examples_of_jsonl(path)
                                             : examples_of_store(path, observation);
    examples.insert(examples.end(), more.begin(), more.end());
  }
  if (examples.empty()) throw std::runtime_error("the datasets hold no decided loop");
  return examples;
}

void add_training_options(CLI::App* cmd, learn::TrainingOptions* options) {
  cmd->add_option("--rounds", options->rounds, "Boosting rounds (trees)")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  cmd->add_option("--max-depth", options->max_depth, "Depth of each tree")
      ->check(CLI::Range(1, 12))
      ->capture_default_str();
  cmd->add_option("--eta", options->eta, "Learning rate")
      ->check(CLI::Range(0.001, 1.0))
      ->capture_default_str();
  auto* margin =
      cmd->add_option("--keep-default-within", options->keep_default_within,
                      "Keep the preferred factor unless another is predicted faster by more than "
                      "this (log time; 0.01 is about 1 %); fixes it instead of --margins")
          ->check(CLI::Range(0.0, 1.0))
          ->each([options](const std::string&) { options->margins.clear(); });
  cmd->add_option("--min-child-weight", options->min_child_weight,
                  "XGBoost's least weight of a leaf (an average row weighs 1)")
      ->check(CLI::Range(0.0, 10000.0))
      ->capture_default_str();
  cmd->add_option("--lambda", options->lambda, "XGBoost's L2 regularization of leaf values")
      ->check(CLI::Range(0.0, 10000.0))
      ->capture_default_str();
  cmd->add_option("--margins", options->margins,
                  "The margin (and, under --prefer select, the preferred factor) is chosen among "
                  "these by cross-validation within the training programs (--inner-folds folds "
                  "of whole programs)")
      ->check(CLI::Range(0.0, 1.0))
      ->excludes(margin)
      ->capture_default_str();
  cmd->add_option("--inner-folds", options->inner_folds, "Folds of that cross-validation")
      ->check(CLI::Range(2, 1000))
      ->capture_default_str();
  const std::map<std::string, learn::Weighting> weightings = {
      {"equal", learn::Weighting::kEqual}, {"stakes", learn::Weighting::kStakes}};
  cmd->add_option("--weighting", options->weighting,
                  "Each loop's weight: equal, or stakes (its worst factor's log slowdown outside "
                  "the tied best; 0 for a race that tied every factor); default stakes")
      ->transform(CLI::CheckedTransformer(weightings, CLI::ignore_case));
  const std::map<std::string, learn::Preferred> preferences = {
      {"gcc", learn::Preferred::kGcc},
      {"best-constant", learn::Preferred::kBestConstant},
      {"select", learn::Preferred::kSelected}};
  cmd->add_option(
         "--prefer", options->preferred,
         "The factor kept unless another is predicted faster by the margin: gcc "
         "(factor 0), best-constant (the training loops' best constant factor) or "
         "select (either, chosen with the margin); default gcc (the model also sets cold loops, "
         "which a constant learnt on hot loops slows down)")
      ->transform(CLI::CheckedTransformer(preferences, CLI::ignore_case));
  const std::map<std::string, learn::Target> targets = {{"best", learn::Target::kBest},
                                                        {"preferred", learn::Target::kPreferred}};
  cmd->add_option("--target", options->target,
                  "What a factor's log slowdown is measured against: best (the loop's best "
                  "factor) or preferred (the preferred factor's); default best")
      ->transform(CLI::CheckedTransformer(targets, CLI::ignore_case));
}

}  // namespace looprace::cli
