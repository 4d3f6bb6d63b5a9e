// libFuzzer target: the model grammar and its evaluator (plugin/model_grammar.h), which GCC runs
// on every model it is given. Any input: no crash, no hang, no sanitizer report; a model that
// parses is written back and parses again to the same text (what the driver does when it writes
// a trained model), and the factor it picks for a loop whose features are all 0 is one of its
// candidate factors (or 0, GCC's choice, when the loop lies outside the model's ranges).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model_grammar.h"

namespace lm = looprace::model;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  lm::ParseResult parsed = lm::parse(text);
  if (auto* error = std::get_if<lm::ParseError>(&parsed)) {
    if (error->line < 1 || error->message.empty()) __builtin_trap();  // a diagnostic names its line
    return 0;
  }
  const lm::Model& model = std::get<lm::Model>(parsed);
  const std::string written = lm::format_model(model);
  lm::ParseResult again = lm::parse(written);
  if (!std::holds_alternative<lm::Model>(again)) __builtin_trap();
  if (lm::format_model(std::get<lm::Model>(again)) != written) __builtin_trap();
  const std::vector<float> zeros(model.features.size(), 0.0f);
  const int factor = lm::choose_factor(model, zeros);
  const bool candidate =
      std::find(model.factors.begin(), model.factors.end(), factor) != model.factors.end();
  if (!candidate && !(factor == 0 && !lm::within_ranges(model, zeros))) __builtin_trap();
  return 0;
}
