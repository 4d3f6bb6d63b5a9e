// Unroll factors: requests, the profile, stale-id re-matching, and applying them.
#include "unroll_control.h"

#include "base_flags.h"
#include "files.h"

namespace looprace {

bool UnrollControl::add_requests(std::string_view value, std::string& error) {
  for (std::string_view item : split_list(value)) {
    std::size_t colon = item.rfind(':');
    auto selector =
        colon == std::string_view::npos ? std::nullopt : parse_selector(item.substr(0, colon));
    if (!selector) {
      error = "bad loop selector in '" + std::string(item) +
              "' (expected ID:F or FILE:LINE:COL:F, ID being 16 hex digits)";
      return false;
    }
    auto factor = profile::parse_factor(item.substr(colon + 1));
    if (!factor) {
      error = "bad unroll factor in '" + std::string(item) + "' (expected 0..16)";
      return false;
    }
    requests_.push_back({std::move(*selector), *factor});
  }
  return true;
}

bool UnrollControl::load_profile(const std::string& path, std::string& error) {
  std::string text;
  if (!read_bounded_file(path, "profile", kMaxProfileBytes, text, error)) return false;
  profile::ParseResult parsed = profile::parse(text);
  if (auto* bad = std::get_if<profile::ParseError>(&parsed)) {
    error = path + ":" + std::to_string(bad->line) + ": " + bad->message;
    return false;
  }
  profile_ = std::move(std::get<profile::Profile>(parsed));
  profile_path_ = path;
  return true;
}

// Warns when the line's base differs from the compilation's (unroll_control.h).
void UnrollControl::warn_other_base(const profile::Entry& entry, const LoopIdentity& loop) const {
  if (warned_other_base_) return;
  for (const auto& [key, raced_on] : entry.evidence) {
    if (key != "base") continue;
    const std::string here = base_flags();
    if (raced_on == here) return;
    warning_at(loop.location, 0,
               "looprace: %s:%d: the factors of this profile were raced on a build with %qs; "
               "this compilation uses %qs, for which they may not be the best (race again "
               "with these flags)",
               profile_path_.c_str(), entry.source_line, raced_on.c_str(), here.c_str());
    warned_other_base_ = true;
    return;
  }
}

namespace {

std::string_view basename_of(std::string_view path) { return path.substr(path.rfind('/') + 1); }

// Picks the loop a stale profile entry most likely meant among the loops of its function that
// no entry names exactly: the same position index/loops, else the nearest line.
const LoopIdentity* rematch(const profile::Entry& entry, const std::vector<LoopIdentity>& loops,
                            const std::vector<bool>& claimed) {
  const LoopIdentity* nearest = nullptr;
  for (std::size_t i = 0; i < loops.size(); ++i) {
    if (claimed[i] || basename_of(loops[i].file) != basename_of(entry.file)) continue;
    if (loops[i].index == entry.index && loops[i].loops == entry.loops) return &loops[i];
    if (!nearest || std::abs(loops[i].line - entry.line) < std::abs(nearest->line - entry.line))
      nearest = &loops[i];
  }
  return nearest;
}

}  // namespace

std::vector<std::optional<int>> UnrollControl::factors_for(
    const std::vector<LoopIdentity>& loops) const {
  std::vector<std::optional<int>> factors(loops.size());
  if (loops.empty()) return factors;

  // Profile entries: exact ids first, then stale ids of this function re-matched.
  std::vector<bool> claimed(loops.size(), false);
  std::vector<const profile::Entry*> stale;
  for (const profile::Entry& entry : profile_.entries) {
    bool found = false;
    for (std::size_t i = 0; i < loops.size(); ++i) {
      if (loops[i].id == entry.id) {
        factors[i] = entry.factor;
        warn_other_base(entry, loops[i]);
        claimed[i] = found = true;
      }
    }
    if (!found && entry.function == loops.front().function) stale.push_back(&entry);
  }
  for (const profile::Entry* entry : stale) {
    const LoopIdentity* loop = rematch(*entry, loops, claimed);
    if (!loop) {
      warning_at(DECL_SOURCE_LOCATION(current_function_decl), 0,
                 "looprace: %s:%d: loop id %s (%s:%d:%d) not found in %qs and no loop left to "
                 "re-match it to; its factor is not applied",
                 profile_path_.c_str(), entry->source_line, entry->id.c_str(), entry->file.c_str(),
                 entry->line, entry->column, entry->function.c_str());
      continue;
    }
    std::size_t i = static_cast<std::size_t>(loop - loops.data());
    claimed[i] = true;
    factors[i] = entry->factor;
    warning_at(loop->location, 0,
               "looprace: %s:%d: loop id %s (%s:%d:%d) not found; re-matched to loop %s by "
               "function %qs and relative position %d/%d",
               profile_path_.c_str(), entry->source_line, entry->id.c_str(), entry->file.c_str(),
               entry->line, entry->column, loop->id.c_str(), loop->function.c_str(), loop->index,
               loop->loops);
  }

  // Command-line requests override the profile; a later request overrides an earlier one.
  for (const Request& request : requests_)
    for (std::size_t i = 0; i < loops.size(); ++i)
      if (selector_matches(request.selector, loops[i])) factors[i] = request.factor;
  return factors;
}

void apply_unroll_factor(function* fun, class loop* loop, int factor) {
  if (factor == 0) return;
  loop->unroll = static_cast<unsigned short>(factor);
  fun->has_unroll = true;
}

namespace {

const pass_data kHasUnrollFixupData = plugin_pass(RTL_PASS, "*looprace_has_unroll");

class HasUnrollFixupPass : public rtl_opt_pass {
 public:
  explicit HasUnrollFixupPass(gcc::context* context) : rtl_opt_pass(kHasUnrollFixupData, context) {}

  bool gate(function* fun) final { return optimize > 0 && !fun->has_unroll && loops_for_fn(fun); }

  unsigned int execute(function* fun) final {
    for (class loop* loop : loops_list(fun, 0)) {
      if (loop->unroll) {
        fun->has_unroll = true;
        break;
      }
    }
    return 0;
  }
};

}  // namespace

opt_pass* make_has_unroll_fixup_pass(gcc::context* context) {
  return new HasUnrollFixupPass(context);
}

}  // namespace looprace
