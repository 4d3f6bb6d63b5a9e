// Datasets for training, and the training options.
#include "cli/training_data.h"

#include <fstream>
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
  cmd->add_option("--keep-default-within", options->keep_default_within,
                  "Keep GCC's choice unless another factor is predicted faster by more than this "
                  "(log time; 0.01 is about 1 %)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
}

}  // namespace looprace::cli
