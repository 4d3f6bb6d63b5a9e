// Exported loop rows to examples.
#include "learn/dataset_json.h"

#include <stdexcept>

namespace looprace::learn {

std::optional<LoopExample> example_from_row(const nlohmann::json& row, const std::string& program) {
  if (!row.is_object()) throw std::runtime_error("not a JSON object");
  if (!row.contains("winners") || row.at("winners").is_null()) return std::nullopt;
  LoopExample loop;
  loop.program = row.value("program", program);
  loop.id = row.at("id").get<std::string>();
  loop.location = row.value("location", "");
  const nlohmann::json features = row.value("features", nlohmann::json::object());
  for (const auto& [name, value] : features.items())
    if (value.is_number()) loop.features[name] = value.get<double>();
  for (const auto& factor : row.at("factors")) {
    const int f = factor.at("factor").get<int>();
    if (factor.contains("code_group") && factor.at("code_group").is_number())
      loop.code_group[f] = factor.at("code_group").get<int>();
    const auto& mean = factor.at("mean");
    if (mean.is_number() && mean.get<double>() > 0) loop.mean[f] = mean.get<double>();
  }
  for (int winner : row.at("winners").get<std::vector<int>>()) loop.winners.insert(winner);
  if (loop.mean.empty()) return std::nullopt;
  return loop;
}

std::vector<LoopExample> examples_from_jsonl(std::string_view text, const std::string& source,
                                             const std::string& program) {
  std::vector<LoopExample> examples;
  std::size_t start = 0;
  for (int line = 1; start < text.size(); ++line) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view content = text.substr(start, end - start);
    start = end + 1;
    if (content.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    try {
      auto example = example_from_row(nlohmann::json::parse(content), program);
      if (example) examples.push_back(std::move(*example));
    } catch (const std::exception& error) {
      throw std::runtime_error(source + ":" + std::to_string(line) +
                               ": not a looprace export row: " + error.what());
    }
  }
  return examples;
}

}  // namespace looprace::learn
