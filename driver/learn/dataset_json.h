// The training dataset's edge: loop rows as `looprace export --format jsonl` writes them (and
// benchmarks/data/unroll-features.jsonl holds them) to typed examples.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "learn/examples.h"

namespace looprace::learn {

// The example of one exported row, or nullopt for a loop without a decision (nothing to learn).
// program is the row's own "program" when it has one. Throws std::runtime_error naming what is
// wrong with the row.
std::optional<LoopExample> example_from_row(const nlohmann::json& row, const std::string& program);

// Every decided loop of a JSON Lines text; errors name source and line.
std::vector<LoopExample> examples_from_jsonl(std::string_view text, const std::string& source,
                                             const std::string& program);

}  // namespace looprace::learn
