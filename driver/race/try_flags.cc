// --try-flags: racing on the better of two uniform settings. A flag like -funroll-loops changes
// every loop of the program at once (and turns on -fweb and -frename-registers), and whether
// that pays is a property of the whole program: in the payoff it made iir 25 % slower at -O2
// and dct 45 % faster. So before racing, the plain program built with the flags is timed against
// the plain base by the sequential whole-program check; when it is faster, every build of the
// race adds the flags, factor 0 is what GCC does with them, the races correct GCC per loop, and
// the profile asks for the flags. A rerun takes the decision its store recorded, so that it
// races the same builds and resumes.
#include <fmt/format.h>

#include "race/racer.h"

namespace looprace::race::detail {

// The decision an earlier session of this store made on the same flags, if one did.
std::optional<bool> Racer::stored_flags_decision(const std::string& flags) const {
  for (const store::SessionRow& session : store_->sessions()) {
    const auto it = session.facts.find("try_flags");
    if (it != session.facts.end() && it->value("flags", "") == flags)
      return it->value("adopted", false);
  }
  return std::nullopt;
}

// Times the program built as the user builds it with `flags` against the one without them;
// adopted when faster, or leaning faster and no slower than epsilon (plans::adopts_flags). A build
// that fails, or a run whose output differs, leaves the flags out.
FlagsTrial Racer::check_flags(const std::vector<std::string>& flags) {
  FlagsTrial trial;
  trial.flags = flags;
  RaceProgress p;
  p.phase = fmt::format("building the program with {}", profile::join_flags(flags));
  report(p);
  auto failed = [&](const std::string& why) {
    trial.check = ProgramCheck{};
    trial.check->failure = why;
    return trial;
  };
  std::string failure;
  const std::optional<std::filesystem::path> base = users_base(failure);
  if (!base) return failed("the program does not build without looprace's runtime: " + failure);
  const std::optional<std::filesystem::path> with_flags =
      build_as_user(flags, {}, "users-try-flags", "the program with the flags", failure);
  if (!with_flags) return failed("the program does not build with them: " + failure);
  trial.check = take_program_check(ProgramCheck{}, *with_flags, *base);
  const ProgramCheck& c = *trial.check;
  trial.adopted = c.failure.empty() &&
                  plans::adopts_flags(check_policy(), c.outcome, c.speedup, {c.ci_low, c.ci_high});
  return trial;
}

void Racer::announce_flags_trial(const FlagsTrial& trial) {
  const std::string flags = profile::join_flags(trial.flags);
  RaceProgress p;
  if (trial.from_store) {
    p.announcement = fmt::format("--try-flags {}: {}, as this store's first race decided", flags,
                                 trial.adopted ? "adopted" : "not adopted");
  } else if (!trial.check->failure.empty()) {
    p.announcement = fmt::format("--try-flags {}: not adopted: {}", flags, trial.check->failure);
  } else {
    const ProgramCheck& c = *trial.check;
    p.announcement = fmt::format(
        "--try-flags {}: {}: the program built as you would with them vs without, {} runs each "
        "(CPU time): {}",
        flags, trial.adopted ? "adopted, the race builds everything with them" : "not adopted",
        c.runs, check_figures(c));
  }
  report(p);
}

void Racer::try_flags() {
  if (options_.try_flags.empty()) return;
  const std::string flags = profile::join_flags(options_.try_flags);
  FlagsTrial trial;
  trial.flags = options_.try_flags;
  if (std::optional<bool> stored = stored_flags_decision(flags)) {
    trial.adopted = *stored;
    trial.from_store = true;
  } else {
    trial = check_flags(options_.try_flags);
  }
  announce_flags_trial(trial);
  if (trial.adopted) {
    ws_.flags = options_.try_flags;
    baseline_ = build_baseline(ws_, {}, "baseline-try-flags");
    reference_ = reference_run(ws_, baseline_);
  }
  flags_trial_ = std::move(trial);
}

}  // namespace looprace::race::detail
