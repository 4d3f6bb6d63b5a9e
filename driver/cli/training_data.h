// The datasets `looprace train` and `evaluate` read: stores written by `looprace race`, or
// rows exported from them (`looprace export --format jsonl`), and the training options both take.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <vector>

#include "learn/examples.h"
#include "learn/trainer.h"
#include "stats/entry_filter.h"

namespace looprace::cli {

// Every decided loop of the datasets. A store's program is its file name without extension;
// an exported row keeps its own "program" when it has one. Throws std::runtime_error naming
// the file (and line) at fault.
// A store's loops are read on the observation kind given (export rows carry their own).
std::vector<learn::LoopExample> load_examples(const std::vector<std::filesystem::path>& datasets,
                                              stats::ObservationKind observation);

// --rounds, --max-depth, --eta, --keep-default-within or --margins, --inner-folds,
// --min-child-weight, --lambda, --weighting, --prefer, --target.
void add_training_options(CLI::App* cmd, learn::TrainingOptions* options);

}  // namespace looprace::cli
