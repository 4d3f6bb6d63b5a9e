// Per-loop unroll factors from unroll=SEL:F,... and profile=PATH, applied exactly as
// `#pragma GCC unroll F` is (loop->unroll, fun->has_unroll), plus the LTO fix-up pass.
#ifndef LOOPRACE_PLUGIN_UNROLL_CONTROL_H
#define LOOPRACE_PLUGIN_UNROLL_CONTROL_H

#include "gcc_headers.h"
#include "loop_identity.h"
#include "loop_selection.h"

namespace looprace {

class UnrollControl {
 public:
  // Adds the requests of an unroll= value; false with a message naming the bad item.
  bool add_requests(std::string_view value, std::string& error);

  // Reads a profile file; false with a message naming the file (and line).
  bool load_profile(const std::string& path, std::string& error);
  // Profiles larger than this are refused (a profile line is under 1 KiB).
  static constexpr std::size_t kMaxProfileBytes = std::size_t{64} << 20;

  bool empty() const { return requests_.empty() && profile_.entries.empty(); }

  // The factor for each loop of one function (nullopt: none requested). unroll= wins over
  // the profile; stale profile ids are re-matched by function and position, with a warning.
  std::vector<std::optional<int>> factors_for(const std::vector<LoopIdentity>& loops) const;

 private:
  struct Request {
    LoopSelector selector;
    int factor = 0;
  };
  // A profile line carries the base it was raced on (its `base=` evidence); applied to a loop
  // compiled with other settings, its factor may not be the best there. Said once per
  // compilation: every line of a profile usually shares one base.
  void warn_other_base(const profile::Entry& entry, const LoopIdentity& loop) const;

  std::vector<Request> requests_;
  std::string profile_path_;
  profile::Profile profile_;
  mutable bool warned_other_base_ = false;
};

// Sets loop's factor the way the C/C++ parsers' `#pragma GCC unroll` does: 0 leaves GCC's
// heuristic; 1 forbids unrolling; F >= 2 asks for F copies. Any set factor needs has_unroll
// or the RTL unroller stays gated off.
void apply_unroll_factor(function* fun, class loop* loop, int factor);

// An RTL pass before "loop2" that restores fun->has_unroll from the loops' factors: GCC 12 does
// not stream has_unroll through LTO, so without it factors are silently ignored under -flto.
opt_pass* make_has_unroll_fixup_pass(gcc::context* context);

}  // namespace looprace

#endif  // LOOPRACE_PLUGIN_UNROLL_CONTROL_H
