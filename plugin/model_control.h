// Unroll factors from a model (model=PATH, docs/formats.md section 5b): a pass right before
// GCC's RTL unroller sets the factor of every innermost loop that no unroll= item, profile line
// or `#pragma GCC unroll` names, from the loop's features at that point (rtl_features.h), with
// the model's own small evaluator (model_grammar.h): no learning library is linked into GCC.
#ifndef LOOPRACE_PLUGIN_MODEL_CONTROL_H
#define LOOPRACE_PLUGIN_MODEL_CONTROL_H

#include "gcc_headers.h"
#include "loop_identity.h"
#include "loop_index.h"
#include "model_grammar.h"
#include "unroll_control.h"
#include "verify.h"

namespace looprace {

class ModelControl {
 public:
  // Reads a model file and checks that the plugin measures every feature it names; false with
  // a message naming the file and line.
  bool load(const std::string& path, std::string& error);
  static constexpr std::size_t kMaxModelBytes = std::size_t{64} << 20;

  bool loaded() const { return !model_.trees.empty(); }

  // Early pass: remembers each loop's id by its place, and whether a factor was set for it by
  // name (the model then leaves it alone, even when that factor is 0).
  void note_loop(const LoopIdentity& loop, bool named);

  // Before the RTL unroller: sets the factor of fun's loops that nothing named, and tells the
  // verifier which loops the model set. unroll names loops by location too, which is all
  // there is to go by under -flto, where the early pass ran in another process.
  void apply(function* fun, const UnrollControl& unroll, FactorVerifier& verifier) const;

 private:
  struct EarlyLoop {
    std::string id;
    bool named = false;
  };

  // The model's inputs for a loop with these features, in the model's order.
  std::vector<float> inputs(const RtlFeatures& features) const;

  // The id of an RTL loop of fun at place (empty when it cannot be told), or nullopt when a
  // factor was set for it by name.
  std::optional<std::string> unnamed_id(function* fun, class loop* loop, const LoopPlace& place,
                                        const UnrollControl& unroll) const;

  model::Model model_;
  std::vector<EarlyLoop> early_;
  LoopIndex index_;  // early_ by loop
};

// The RTL pass before "loop2_unroll" that applies the model.
opt_pass* make_model_pass(gcc::context* context, const ModelControl& control,
                          const UnrollControl& unroll, FactorVerifier& verifier);

}  // namespace looprace

#endif  // LOOPRACE_PLUGIN_MODEL_CONTROL_H
