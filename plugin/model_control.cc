// Unroll factors from a model.
#include "model_control.h"

#include "files.h"

namespace looprace {

bool ModelControl::load(const std::string& path, std::string& error) {
  std::string text;
  if (!read_bounded_file(path, "model", kMaxModelBytes, text, error)) return false;
  model::ParseResult parsed = model::parse(text);
  if (auto* bad = std::get_if<model::ParseError>(&parsed)) {
    error = path + ":" + std::to_string(bad->line) + ": " + bad->message;
    return false;
  }
  model::Model& model = std::get<model::Model>(parsed);
  for (const std::string& name : model.features) {
    if (!model::is_factor_input(name) && !loop_feature(LoopFeatures(), name)) {
      error = path + ":" + std::to_string(model.features_line) + ": unknown feature '" + name +
              "' (a model reads the loop table's features and the factor inputs of "
              "docs/formats.md section 5b)";
      return false;
    }
  }
  model_ = std::move(model);
  return true;
}

int ModelControl::choose(const LoopFeatures& features) const {
  std::vector<float> row;
  for (const std::string& name : model_.features)
    row.push_back(loop_feature(features, name).value_or(0));
  return model::choose_factor(model_, row);
}

}  // namespace looprace
