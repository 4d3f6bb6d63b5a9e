// Unroll factors from a model (model=PATH, docs/formats.md section 5b): the early pass sets the
// factor of every loop that no unroll= item, profile line or `#pragma GCC unroll` names, from
// the loop's table features (loop_features.h), exactly as a profile would, with the model's own
// small evaluator (model_grammar.h): no learning library is linked into GCC.
#ifndef LOOPRACE_PLUGIN_MODEL_CONTROL_H
#define LOOPRACE_PLUGIN_MODEL_CONTROL_H

#include "gcc_headers.h"
#include "loop_features.h"
#include "model_grammar.h"

namespace looprace {

class ModelControl {
 public:
  // Reads a model file and checks that the plugin counts every feature it names; false with a
  // message naming the file and line.
  bool load(const std::string& path, std::string& error);
  static constexpr std::size_t kMaxModelBytes = std::size_t{64} << 20;

  bool loaded() const { return !model_.trees.empty(); }

  // The factor the model picks for a loop with these features (0: GCC's choice).
  int choose(const LoopFeatures& features) const;

 private:
  model::Model model_;
};

}  // namespace looprace

#endif  // LOOPRACE_PLUGIN_MODEL_CONTROL_H
