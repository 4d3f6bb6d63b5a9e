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
    if (!model::is_factor_input(name) && !rtl_feature(RtlFeatures(), name)) {
      error = path + ":" + std::to_string(model.features_line) + ": unknown feature '" + name +
              "' (a model reads the factor inputs and the rtl_* features of docs/formats.md "
              "section 5b)";
      return false;
    }
  }
  model_ = std::move(model);
  return true;
}

void ModelControl::note_loop(const LoopIdentity& loop, bool named) {
  index_.add(loop.function, loop.loop->num, {loop.file, loop.line, loop.column}, early_.size());
  early_.push_back({loop.id, named});
}

std::vector<float> ModelControl::inputs(const RtlFeatures& features) const {
  std::vector<float> row;
  for (const std::string& name : model_.features)
    row.push_back(rtl_feature(features, name).value_or(0));
  return row;
}

std::optional<std::string> ModelControl::unnamed_id(function* fun, class loop* loop,
                                                    const LoopPlace& place,
                                                    const UnrollControl& unroll) const {
  const auto& [file, line, column] = place;
  if (unroll.names_place(file, line, column)) return std::nullopt;
  // Any loop it could be that was named counts: better leave a loop to GCC than overrule a name.
  std::vector<std::size_t> found = index_.find(IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fun->decl)),
                                               loop, place, LoopIndex::Reach::every_candidate);
  for (std::size_t i : found)
    if (early_[i].named) return std::nullopt;
  return found.size() == 1 ? early_[found[0]].id : "";
}

void ModelControl::apply(function* fun, const UnrollControl& unroll,
                         FactorVerifier& verifier) const {
  bool described_any = false;
  for (class loop* loop : loops_list(fun, LI_ONLY_INNERMOST)) {
    // A factor already set comes from a name or a pragma; a cold loop GCC never unrolls.
    if (loop->unroll || optimize_loop_for_size_p(loop) != OPTIMIZE_SIZE_NO) continue;
    RtlLoop described = describe_rtl_loop(loop);
    described_any = true;
    std::optional<std::string> id =
        unnamed_id(fun, loop, {described.file, described.line, described.column}, unroll);
    if (!id) continue;
    int factor = model::choose_factor(model_, inputs(described.features));
    if (factor != 0) {
      loop->unroll = static_cast<unsigned short>(factor);
      fun->has_unroll = true;
    }
    std::string location = described.file + ":" + std::to_string(described.line) + ":" +
                           std::to_string(described.column);
    verifier.expect_from_model(*id, location, fun, loop, factor);
  }
  if (described_any) iv_analysis_done();
}

namespace {

const pass_data kModelData = plugin_pass(RTL_PASS, "*looprace_model");

class ModelPass : public rtl_opt_pass {
 public:
  ModelPass(gcc::context* context, const ModelControl& control, const UnrollControl& unroll,
            FactorVerifier& verifier)
      : rtl_opt_pass(kModelData, context),
        control_(control),
        unroll_(unroll),
        verifier_(verifier) {}

  bool gate(function* fun) final { return optimize > 0 && loops_for_fn(fun); }

  unsigned int execute(function* fun) final {
    control_.apply(fun, unroll_, verifier_);
    return 0;
  }

 private:
  const ModelControl& control_;
  const UnrollControl& unroll_;
  FactorVerifier& verifier_;
};

}  // namespace

opt_pass* make_model_pass(gcc::context* context, const ModelControl& control,
                          const UnrollControl& unroll, FactorVerifier& verifier) {
  return new ModelPass(context, control, unroll, verifier);
}

}  // namespace looprace
