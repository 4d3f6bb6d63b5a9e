#include "layout_padding.h"

namespace looprace {
namespace {

const pass_data kLayoutPaddingData = plugin_pass(RTL_PASS, "*looprace_layout_padding", PROP_rtl);

class LayoutPaddingPass : public rtl_opt_pass {
 public:
  LayoutPaddingPass(gcc::context* context, std::uint64_t seed)
      : rtl_opt_pass(kLayoutPaddingData, context), seed_(seed) {}

  bool gate(function*) final { return crtl->patch_area_size == 0; }

  unsigned int execute(function* fun) final {
    const char* name = IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(fun->decl));
    // The whole area before the entry label: the nops are skipped over, never executed.
    crtl->patch_area_size = crtl->patch_area_entry = layout_padding(seed_, name);
    return 0;
  }

 private:
  std::uint64_t seed_;
};

}  // namespace

unsigned layout_padding(std::uint64_t seed, const char* assembler_name) {
  // FNV-1a over the name, then a splitmix64 finalizer with the seed: stable across runs and
  // hosts, so a layout seed rebuilds the same layout.
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char* c = assembler_name; *c; ++c)
    h = (h ^ static_cast<unsigned char>(*c)) * 0x100000001b3ULL;
  std::uint64_t z = h + 0x9e3779b97f4a7c15ULL * (seed + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<unsigned>((z ^ (z >> 31)) & 63);
}

opt_pass* make_layout_padding_pass(gcc::context* context, std::uint64_t seed) {
  return new LayoutPaddingPass(context, seed);
}

}  // namespace looprace
